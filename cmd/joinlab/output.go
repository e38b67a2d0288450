package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// outputMode is the mode a written file gets (CreateTemp makes its file 0600, private until it is the answer).
const outputMode = 0o644

// atomicFile is how the command writes a file (-o FILE, --stats, --trace): the content goes to a temporary
// file beside FILE (same folder, so the rename cannot cross file systems), which Commit renames to FILE once
// all of it is written and synced. A failed or interrupted write therefore leaves FILE as it was, never a
// truncated file that looks complete; only SIGKILL can leave the temporary .FILE.part-* behind, and its name
// says it is not an answer.
type atomicFile struct {
	path string
	f    *os.File
	done bool
}

func createAtomic(path string) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".part-*")
	if err != nil {
		return nil, err
	}
	return &atomicFile{path: path, f: f}, nil
}

func (a *atomicFile) Write(p []byte) (int, error) { return a.f.Write(p) }

// Commit makes the written file FILE. On error the temporary file is removed and FILE is untouched.
func (a *atomicFile) Commit() error {
	a.done = true
	tmp := a.f.Name()
	err := a.f.Sync()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, outputMode)
	}
	if err == nil {
		err = os.Rename(tmp, a.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	return nil
}

// Abort removes the temporary file unless Commit ran; it is safe to defer.
func (a *atomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	os.Remove(a.f.Name())
}
