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
	type owner struct {
		pid   int
		start uint64
		scope string
		ok    bool
	}
	for name, want := range map[string]owner{
		"joinlab-spill-42-123-0a1b2c3d-abc": {42, 123, "0a1b2c3d", true},
		"joinlab-spill-42-0-s-7-x":          {42, 0, "s", true},
		ownerPrefix() + "99":                {os.Getpid(), selfStart, selfScope, true},
		"joinlab-spill-1234567":             {}, // a folder of the older naming: no owner to ask
		"joinlab-spill-42-123-abc":          {}, // no scope
		"joinlab-spill-42-123-s-":           {},
		"joinlab-spill-42-123--x":           {},
		"joinlab-spill--1-0-s-x":            {},
		"joinlab-spill-0-0-s-x":             {},
		"joinlab-spill-4294967295-0-s-x":    {}, // kill(2) would read it as -1: every process
		"joinlab-spill-x-0-s-x":             {},
		"other-42-123-s-abc":                {},
	} {
		pid, start, scope, ok := parseOwner(name)
		if got := (owner{pid, start, scope, ok}); got != want {
			t.Errorf("parseOwner(%q) = %+v; want %+v", name, got, want)
		}
	}
}
