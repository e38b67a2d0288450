package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The queries the clean-up tests run, all on the users-listens-grace scenario under its 2 MiB budget, so that
// each spills through Grace joins.
var (
	// spillSmall succeeds after spilling.
	spillSmall = []string{"--scenario", "users-listens-grace", "--knob", "listens=40000"}
	// spillFails spills in both joins, then the aggregate above them runs out of memory: a dcount without
	// keys has one group, which no partitioning splits, and about 40,000 distinct plays to hold.
	spillFails = []string{"--scenario", "users-listens-grace", "--knob", "listens=40000",
		"@Listens | join kind=inner (@Users) on user_id | join kind=inner (@Songs) on song_id | summarize dcount(user_id * 100000 + song_id)"}
	// spillForever spills, then joins a hot key with itself: half of a million plays are user 0's, so the
	// hot-key path has 2.5e11 pairs to count. It is still spilling whenever a test signals it.
	spillForever = []string{"--scenario", "users-listens-grace", "--knob", "listens=1000000", "--knob", "hot_share=0.5",
		"@Listens | join kind=inner (@Listens) on user_id | count"}
)

// waitDeadline bounds every wait for a process to reach a state: generous, for a busy machine; a healthy run
// reaches it in under a second.
const waitDeadline = 3 * time.Minute

// proc is a joinlab process started by a test.
type proc struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan struct{}
	err    error
}

func start(t *testing.T, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, append([]string{"query"}, args...)...), done: make(chan struct{})}
	p.cmd.Stdout = new(bytes.Buffer)
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// status waits for the process to end and returns its exit status (128+N if a signal N ended it).
func (p *proc) status(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(waitDeadline):
		t.Fatalf("joinlab did not exit within %v; stderr:\n%s", waitDeadline, p.stderr.String())
	}
	if p.err == nil {
		return 0
	}
	ee, ok := p.err.(*exec.ExitError)
	if !ok {
		t.Fatal(p.err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}

// ownFolder is the spill folder the process has made under parent, or "".
func (p *proc) ownFolder(t *testing.T, parent string) string {
	t.Helper()
	ents, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	prefix := "joinlab-spill-" + strconv.Itoa(p.cmd.Process.Pid) + "-"
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			return filepath.Join(parent, e.Name())
		}
	}
	return ""
}

// waitSpilling polls the file system until the process has written a spill page under parent.
func (p *proc) waitSpilling(t *testing.T, parent string) string {
	t.Helper()
	deadline := time.Now().Add(waitDeadline)
	for {
		if dir := p.ownFolder(t, parent); dir != "" && hasPages(dir) {
			return dir
		}
		select {
		case <-p.done:
			t.Fatalf("joinlab exited (%v) before it spilled; stderr:\n%s", p.err, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("joinlab made no spill page under %s within %v", parent, waitDeadline)
		}
	}
}

// hasPages says whether a spill page file exists anywhere under dir.
func hasPages(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".pages") {
			found = true
		}
		return nil
	})
	return found
}

// entries lists what is under dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "joinlab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestCleanupOnEveryExit runs the command as a process and checks that, however a query that spilled ends,
// its exit status is the documented one and nothing is left in the spill folder, nor a partial -o file.
func TestCleanupOnEveryExit(t *testing.T) {
	bin := buildBinary(t)

	t.Run("success", func(t *testing.T) {
		spill, out := t.TempDir(), filepath.Join(t.TempDir(), "result.jsonl")
		stats := filepath.Join(t.TempDir(), "stats.json")
		p := start(t, bin, append([]string{"--spill-dir", spill, "--stats", stats, "-o", out}, spillSmall...)...)
		if code := p.status(t); code != 0 {
			t.Fatalf("exit %d, want 0; stderr:\n%s", code, p.stderr.String())
		}
		if written := pagesWritten(t, stats); written == 0 {
			t.Fatal("the query spilled nothing: the test would not show the clean-up")
		}
		if left := entries(t, spill); len(left) != 0 {
			t.Errorf("left in the spill folder: %v", left)
		}
		b, err := os.ReadFile(out)
		if err != nil || !bytes.HasSuffix(b, []byte("}\n")) || bytes.Count(b, []byte("\n")) < 10 {
			t.Errorf("-o: %v, %q", err, b)
		}
		if left := entries(t, filepath.Dir(out)); len(left) != 1 {
			t.Errorf("-o left more than its file: %v", left)
		}
	})

	t.Run("query error", func(t *testing.T) {
		spill, outDir := t.TempDir(), t.TempDir()
		out, stats := filepath.Join(outDir, "result.jsonl"), filepath.Join(t.TempDir(), "stats.json")
		p := start(t, bin, append([]string{"--spill-dir", spill, "--stats", stats, "-o", out}, spillFails...)...)
		if code := p.status(t); code != 2 {
			t.Fatalf("exit %d, want 2; stderr:\n%s", code, p.stderr.String())
		}
		if !strings.Contains(p.stderr.String(), "memory budget") {
			t.Errorf("stderr does not give the memory error:\n%s", p.stderr.String())
		}
		if pagesWritten(t, stats) == 0 {
			t.Fatal("the query spilled nothing before it failed: the test would not show the clean-up")
		}
		if left := entries(t, spill); len(left) != 0 {
			t.Errorf("left in the spill folder: %v", left)
		}
		if left := entries(t, outDir); len(left) != 0 {
			t.Errorf("a failed query with -o left %v", left)
		}
	})

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			spill, outDir := t.TempDir(), t.TempDir()
			out := filepath.Join(outDir, "result.jsonl")
			// An older answer in FILE stays as it was.
			if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p := start(t, bin, append([]string{"--spill-dir", spill, "-o", out}, spillForever...)...)
			p.waitSpilling(t, spill)
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code, want := p.status(t), 128+int(sig); code != want {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, want, p.stderr.String())
			}
			if !strings.Contains(p.stderr.String(), "query stopped") {
				t.Errorf("stderr does not say the signal stopped the query:\n%s", p.stderr.String())
			}
			if left := entries(t, spill); len(left) != 0 {
				t.Errorf("left in the spill folder: %v", left)
			}
			if left := entries(t, outDir); len(left) != 1 {
				t.Errorf("-o left %v beside the older answer", left)
			}
			if b, _ := os.ReadFile(out); string(b) != "old\n" {
				t.Errorf("-o FILE changed to %q by an interrupted query", b)
			}
		})
	}
}

// TestStaleSpillRemoved kills a spilling run with SIGKILL, which leaves its folder, and checks that the next
// run under the same parent removes it while keeping the folder of a run that is still alive.
func TestStaleSpillRemoved(t *testing.T) {
	bin := buildBinary(t)
	spill := t.TempDir()

	killed := start(t, bin, append([]string{"--spill-dir", spill}, spillForever...)...)
	stale := killed.waitSpilling(t, spill)
	if err := killed.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if code := killed.status(t); code != 128+int(syscall.SIGKILL) {
		t.Fatalf("killed run: exit %d", code)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("SIGKILL left no folder, so the test would not show its removal: %v", err)
	}

	live := start(t, bin, append([]string{"--spill-dir", spill}, spillForever...)...)
	liveDir := live.waitSpilling(t, spill)

	next := start(t, bin, append([]string{"--spill-dir", spill}, spillSmall...)...)
	if code := next.status(t); code != 0 {
		t.Fatalf("next run: exit %d; stderr:\n%s", code, next.stderr.String())
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the killed run's folder %s is still there (%v)", stale, err)
	}
	if _, err := os.Stat(liveDir); err != nil {
		t.Errorf("the live run's folder was removed: %v", err)
	}
	if left := entries(t, spill); len(left) != 1 {
		t.Errorf("under the spill parent: %v, want only the live run's folder", left)
	}

	live.cmd.Process.Signal(syscall.SIGTERM)
	if code := live.status(t); code != 143 {
		t.Fatalf("live run: exit %d; stderr:\n%s", code, live.stderr.String())
	}
	if left := entries(t, spill); len(left) != 0 {
		t.Errorf("left in the spill folder: %v", left)
	}
}

// pagesWritten reads the io_pages_written figure from a --stats file.
func pagesWritten(t *testing.T, path string) float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Details map[string]float64 `json:"details"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s.Details["io_pages_written"]
}
