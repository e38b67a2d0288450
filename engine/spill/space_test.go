package spill

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpaceOwnsItsStores checks that closing a space removes every store it made, closed by their user or
// not, and its folder, and that the folder is made only when something spills (in the browser there is no
// folder: its stores are in memory).
func TestSpaceOwnsItsStores(t *testing.T) {
	parent := t.TempDir()
	space := NewSpace(parent)
	if space.Dir() != "" {
		t.Fatal("a space made a folder before anything spilled")
	}
	st, err := StoreFor(WithSpace(context.Background(), space))
	if err != nil {
		t.Fatal(err)
	}
	left, err := space.NewStore()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Store{st, left} {
		f, err := s.Create()
		if err != nil {
			t.Fatal(err)
		}
		if err := f.WritePage([]byte("page")); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil { // the operator ends; the other store is abandoned
		t.Fatal(err)
	}
	if dir := space.Dir(); onDisk && (filepath.Dir(dir) != parent || !strings.HasPrefix(filepath.Base(dir), ownerPrefix())) {
		t.Fatalf("space folder %s: want %s* under %s", dir, ownerPrefix(), parent)
	}
	if err := space.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Fatalf("%d entries left under the parent after Close", len(ents))
	}
	if _, err := left.Create(); !errors.Is(err, ErrClosed) {
		t.Fatalf("a store of a closed space: Create gave %v, want ErrClosed", err)
	}
	if _, err := space.NewStore(); !errors.Is(err, ErrClosed) {
		t.Fatalf("a closed space: NewStore gave %v, want ErrClosed", err)
	}
	if err := space.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

func TestSpaceInMemory(t *testing.T) {
	space := NewSpace(Memory)
	st, err := space.NewStore()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.(*MemStore); !ok || space.Dir() != "" {
		t.Fatalf("Memory space made a %T and folder %q", st, space.Dir())
	}
	if _, err := st.Create(); err != nil {
		t.Fatal(err)
	}
	space.Close()
	if st.(*MemStore).Files() != 0 {
		t.Fatal("closing the space left the memory store's files")
	}
}

func TestParseOwner(t *testing.T) {
	for name, want := range map[string]struct {
		pid   int
		start uint64
		ok    bool
	}{
		"joinlab-spill-42-123-abc":     {42, 123, true},
		"joinlab-spill-42-0-7-x":       {42, 0, true},
		ownerPrefix() + "99":           {os.Getpid(), selfStart, true},
		"joinlab-spill-1234567":        {}, // a folder of the older naming: no owner to ask
		"joinlab-spill-42-123-":        {},
		"joinlab-spill--1-0-x":         {},
		"joinlab-spill-0-0-x":          {},
		"joinlab-spill-4294967295-0-x": {}, // kill(2) would read it as -1: every process
		"joinlab-spill-x-0-x":          {},
		"other-42-123-abc":             {},
	} {
		pid, start, ok := parseOwner(name)
		if pid != want.pid || start != want.start || ok != want.ok {
			t.Errorf("parseOwner(%q) = %d, %d, %v; want %d, %d, %v", name, pid, start, ok, want.pid, want.start, want.ok)
		}
	}
}
