//go:build unix

package spill

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestRemoveStale leaves folders under one parent as a killed run, a live one, a live PID reused by a new
// process, and names removeStale must not read, and checks that only the dead owners' folders go — also when
// the next space starts.
func TestRemoveStale(t *testing.T) {
	parent := t.TempDir()
	// A process that has ended and been reaped: its PID names no process (until the kernel reuses it).
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := strconv.Itoa(dead.Process.Pid)
	self := strconv.Itoa(os.Getpid())
	start := strconv.FormatUint(selfStart, 10)
	names := map[string]bool{ // name: removed
		"joinlab-spill-" + deadPID + "-0-" + selfScope + "-a":          true,
		"joinlab-spill-" + deadPID + "-12345-" + selfScope + "-b":      true,
		"joinlab-spill-" + self + "-" + start + "-" + selfScope + "-c": false,
		"joinlab-spill-" + self + "-0-" + selfScope + "-d":             false, // start unknown: the PID decides
		"joinlab-spill-1-0-" + selfScope + "-e":                        false, // init, alive (EPERM or not)
		"joinlab-spill-" + deadPID + "-0-otherscope-h":                 false, // another host or PID namespace
		"joinlab-spill-12345678":                                       false,
		"unrelated-" + deadPID + "-0-" + selfScope + "-f":              false,
	}
	if selfStart != 0 {
		// Where start times are known, this PID with another start time is a dead owner whose PID was reused.
		names["joinlab-spill-"+self+"-"+strconv.FormatUint(selfStart+1, 10)+"-"+selfScope+"-g"] = true
	}
	for name := range names {
		if err := os.MkdirAll(filepath.Join(parent, name, "f1.pages"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A file with a spill folder's name is not a folder: never touched.
	file := "joinlab-spill-" + deadPID + "-0-" + selfScope + "-file"
	if err := os.WriteFile(filepath.Join(parent, file), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	names[file] = false

	space := NewSpace(parent)
	if _, err := space.NewStore(); err != nil { // the first store sweeps the parent
		t.Fatal(err)
	}
	defer space.Close()
	for name, removed := range names {
		_, err := os.Stat(filepath.Join(parent, name))
		if gone := os.IsNotExist(err); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
	}
	ents, _ := os.ReadDir(parent)
	if !slices.ContainsFunc(ents, func(e os.DirEntry) bool { return filepath.Join(parent, e.Name()) == space.Dir() }) {
		t.Errorf("the new space's own folder %s is missing", space.Dir())
	}
}
