package spill

import (
	"fmt"
	"sync"
)

// MemStore keeps pages in memory. It stands for a disk in the browser: its pages are not charged to the
// query's memory budget, and its IO counts exactly what a FileStore would.
type MemStore struct {
	counter
	mu     sync.Mutex
	closed bool
	files  map[*memFile]struct{}
}

var _ Store = (*MemStore)(nil)

func NewMemStore() *MemStore { return &MemStore{files: map[*memFile]struct{}{}} }

func (s *MemStore) Create() (File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	f := &memFile{store: s}
	s.files[f] = struct{}{}
	return f, nil
}

// Files is the number of files not yet removed, for tests.
func (s *MemStore) Files() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.files)
}

func (s *MemStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for f := range s.files {
		f.pages = nil
	}
	s.files = map[*memFile]struct{}{}
	return nil
}

type memFile struct {
	store   *MemStore
	pages   [][]byte
	removed bool
}

func (f *memFile) WritePage(p []byte) error {
	f.store.mu.Lock()
	defer f.store.mu.Unlock()
	if f.store.closed || f.removed {
		return fmt.Errorf("spill: write page: %w", ErrClosed)
	}
	f.pages = append(f.pages, append([]byte(nil), p...))
	f.store.wrote(len(p))
	return nil
}

func (f *memFile) ReadPage(i int, buf []byte) ([]byte, error) {
	f.store.mu.Lock()
	defer f.store.mu.Unlock()
	if f.store.closed || f.removed {
		return nil, fmt.Errorf("spill: read page %d: %w", i, ErrClosed)
	}
	if i < 0 || i >= len(f.pages) {
		return nil, fmt.Errorf("spill: read page %d of %d", i, len(f.pages))
	}
	p := f.pages[i]
	f.store.read(len(p))
	return append(buf[:0], p...), nil
}

func (f *memFile) Pages() int {
	f.store.mu.Lock()
	defer f.store.mu.Unlock()
	return len(f.pages)
}

func (f *memFile) Remove() error {
	f.store.mu.Lock()
	defer f.store.mu.Unlock()
	f.removed, f.pages = true, nil
	delete(f.store.files, f)
	return nil
}
