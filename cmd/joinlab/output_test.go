package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAtomicFile: an aborted write leaves the folder as it was (an older FILE unchanged, no temporary file);
// a committed one replaces FILE whole, with the mode every written file gets.
func TestAtomicFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stats.json")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := createAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("an aborted write changed FILE to %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("an aborted write left %v", left)
	}
	if err := writeStats(path, nil); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "null\n" || st.Mode().Perm() != outputMode {
		t.Errorf("committed FILE is %q with mode %v; want \"null\\n\" with %v", b, st.Mode().Perm(), os.FileMode(outputMode))
	}
	if err := writeStats(filepath.Join(dir, "missing", "s.json"), nil); err == nil {
		t.Error("a write into a missing folder succeeded")
	}
}
