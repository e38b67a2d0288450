package spill

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Space is the spill area of one run: it hands out the stores the run's operators spill to and removes them
// all when the run ends. Whoever starts a run owns its Space and closes it when the run ends, however it ends
// (defer space.Close()), so ownership never rests with an operator that may not be pulled again: a query that
// fails in one operator, is cancelled, or stops at a take still has every other operator's spill removed, and
// removed before Close returns, so a process may exit right after.
//
// Natively the space is a folder under a parent directory, made when the first store is asked for (a run that
// never spills touches no disk); each store is a folder inside it. The folder is named after its owner,
// joinlab-spill-PID-START-SCOPE-RANDOM — START the process's start time where the platform tells it (0
// elsewhere), SCOPE the host and PID namespace the PID belongs to (selfScope) — so a later space can tell a
// folder left by a killed run (SIGKILL never lets Close run) from one of a live process: before making its own
// folder, a space removes every sibling of its scope whose owner process no longer exists (removeStale). The
// cost is one read of the parent directory per run that spills.
type Space struct {
	parent string
	mu     sync.Mutex
	dir    string // "" until the first file store
	stores []Store
	closed bool
}

// NewSpace returns a space under parent: "" for the system's temporary folder, Memory for pages in memory.
// In the browser every store is a MemStore whatever parent says (default_js.go).
func NewSpace(parent string) *Space { return &Space{parent: parent} }

// NewStore makes a store that the space owns: the caller may Close it early, and Close on the space closes
// it in any case.
func (s *Space) NewStore() (Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	var st Store
	if s.parent == Memory || !onDisk {
		st = NewMemStore()
	} else {
		if s.dir == "" {
			parent := s.parent
			if parent == "" {
				parent = os.TempDir()
			}
			removeStale(parent)
			dir, err := os.MkdirTemp(parent, ownerPrefix())
			if err != nil {
				return nil, fmt.Errorf("spill: %w", err)
			}
			s.dir = dir
		}
		fs, err := NewFileStore(s.dir)
		if err != nil {
			return nil, err
		}
		st = fs
	}
	s.stores = append(s.stores, st)
	return st, nil
}

// Dir is the space's folder, "" while it has none (nothing spilled to disk yet, or pages in memory).
func (s *Space) Dir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir
}

// Close closes every store the space made and removes its folder; it returns once they are gone. It may be
// called any number of times; NewStore fails afterwards.
func (s *Space) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var first error
	for _, st := range s.stores {
		if err := st.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.stores = nil
	if s.dir != "" {
		if err := os.RemoveAll(s.dir); err != nil && first == nil {
			first = fmt.Errorf("spill: remove %s: %w", s.dir, err)
		}
	}
	return first
}

type spaceKey struct{}

// WithSpace returns a context that gives operators their stores from space. The space is a property of the
// run, not of the plan, so it travels in the context.
func WithSpace(ctx context.Context, space *Space) context.Context {
	return context.WithValue(ctx, spaceKey{}, space)
}

// StoreFor makes the store an operator running under ctx spills to: one of the Space WithSpace put in ctx,
// which owns it; without a space, a store in the system's temporary folder that the caller alone must Close.
func StoreFor(ctx context.Context) (Store, error) {
	if s, ok := ctx.Value(spaceKey{}).(*Space); ok {
		return s.NewStore()
	}
	return New("")
}

// folderPrefix starts the name of every folder a store or space makes; removeStale only looks at these.
const folderPrefix = "joinlab-spill-"

// selfScope names where this process's PIDs mean something: a hash of the host's name and the PID namespace
// (Linux: /proc/self/ns/pid; elsewhere the host alone). Processes in another container, or on another machine
// sharing the parent over a network, have other PIDs: their folders carry another scope, and removeStale
// leaves them alone rather than ask the kernel about a PID that is not theirs.
var selfScope = func() string {
	host, _ := os.Hostname()
	ns, _ := os.Readlink("/proc/self/ns/pid")
	h := fnv.New32a()
	h.Write([]byte(host + "\x00" + ns))
	return fmt.Sprintf("%08x", h.Sum32())
}()

// ownerPrefix is this process's folder prefix, joinlab-spill-PID-START-SCOPE-, to which MkdirTemp adds a
// random suffix.
func ownerPrefix() string {
	return folderPrefix + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(selfStart, 10) + "-" + selfScope + "-"
}

// parseOwner reads the PID, start time and scope out of a folder name made from ownerPrefix; ok is false for
// any other name (including the older joinlab-spill-RANDOM folders, whose owner cannot be told).
func parseOwner(name string) (pid int, start uint64, scope string, ok bool) {
	rest, found := strings.CutPrefix(name, folderPrefix)
	if !found {
		return 0, 0, "", false
	}
	parts := strings.SplitN(rest, "-", 4)
	if len(parts) != 4 || parts[2] == "" || parts[3] == "" {
		return 0, 0, "", false
	}
	// A PID is a positive 32-bit number; anything else (which kill would read as a process group) is no owner.
	p, err := strconv.ParseInt(parts[0], 10, 32)
	if err != nil || p <= 0 {
		return 0, 0, "", false
	}
	start, err = strconv.ParseUint(parts[1], 10, 64)
	if err != nil {
		return 0, 0, "", false
	}
	return int(p), start, parts[2], true
}

// removeStale removes the spill folders under parent whose owner process no longer exists. A folder whose
// owner is alive, or cannot be told dead (another scope; ownerGone is conservative), is left alone. Removal is best effort: a
// folder that cannot be removed (another user's) stays, and the run goes on.
func removeStale(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if pid, start, scope, ok := parseOwner(e.Name()); ok && scope == selfScope && ownerGone(pid, start) {
			os.RemoveAll(filepath.Join(parent, e.Name()))
		}
	}
}
