package spill

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// FileStore keeps each File as a file in a private folder it makes under a parent directory. Pages are
// appended with one write each and read back with one positioned read, so the store's page counts are the
// operating system's I/O requests. Close removes the folder and everything in it.
//
// The file store is built for every platform (os compiles for js/wasm too), but New picks it only natively.
type FileStore struct {
	counter
	mu     sync.Mutex
	dir    string
	closed bool
	next   int
	files  map[*diskFile]struct{}
}

var _ Store = (*FileStore)(nil)

// NewFileStore makes a store in a new folder under parent ("" for the system's temporary folder), named after
// this process (see Space) so that a later run can remove it if the process is killed before Close.
func NewFileStore(parent string) (*FileStore, error) {
	dir, err := os.MkdirTemp(parent, ownerPrefix())
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	return &FileStore{dir: dir, files: map[*diskFile]struct{}{}}, nil
}

// Dir is the store's folder.
func (s *FileStore) Dir() string { return s.dir }

func (s *FileStore) Create() (File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	s.next++
	path := filepath.Join(s.dir, "f"+strconv.Itoa(s.next)+".pages")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	df := &diskFile{store: s, f: f, path: path}
	s.files[df] = struct{}{}
	return df, nil
}

func (s *FileStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	for f := range s.files {
		f.f.Close()
	}
	s.files = nil
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("spill: remove %s: %w", s.dir, err)
	}
	return nil
}

type diskFile struct {
	store *FileStore
	f     *os.File
	path  string
	// offs[i] is where page i starts; the next page starts at size.
	offs []int64
	size int64
}

func (f *diskFile) WritePage(p []byte) error {
	f.store.mu.Lock()
	defer f.store.mu.Unlock()
	if f.store.closed || f.f == nil {
		return fmt.Errorf("spill: write page: %w", ErrClosed)
	}
	if _, err := f.f.WriteAt(p, f.size); err != nil {
		return fmt.Errorf("spill: write page %d of %s: %w", len(f.offs), f.path, err)
	}
	f.offs = append(f.offs, f.size)
	f.size += int64(len(p))
	f.store.wrote(len(p))
	return nil
}

func (f *diskFile) ReadPage(i int, buf []byte) ([]byte, error) {
	f.store.mu.Lock()
	defer f.store.mu.Unlock()
	if f.store.closed || f.f == nil {
		return nil, fmt.Errorf("spill: read page %d: %w", i, ErrClosed)
	}
	if i < 0 || i >= len(f.offs) {
		return nil, fmt.Errorf("spill: read page %d of %d in %s", i, len(f.offs), f.path)
	}
	end := f.size
	if i+1 < len(f.offs) {
		end = f.offs[i+1]
	}
	n := int(end - f.offs[i])
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := f.f.ReadAt(buf, f.offs[i]); err != nil {
		return nil, fmt.Errorf("spill: read page %d of %s: %w", i, f.path, err)
	}
	f.store.read(n)
	return buf, nil
}

func (f *diskFile) Pages() int {
	f.store.mu.Lock()
	defer f.store.mu.Unlock()
	return len(f.offs)
}

func (f *diskFile) Remove() error {
	f.store.mu.Lock()
	defer f.store.mu.Unlock()
	if f.f == nil {
		return nil
	}
	f.f.Close()
	f.f = nil
	if f.store.files != nil {
		delete(f.store.files, f)
	}
	if err := os.Remove(f.path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("spill: %w", err)
	}
	return nil
}
