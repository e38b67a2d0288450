// Package spill holds rows that do not fit the memory budget: pages of encoded rows written to a Store and
// read back, with every page counted, so an operator that spills (the Grace join, and any later external sort
// or aggregation) reports its I/O in pages against the textbook bound.
//
// A Store is a set of Files; a File is an append-only sequence of pages. Writer turns rows into pages of at
// most a fixed size and Reader turns pages back into batches (codec.go says how a row is laid out). Two stores
// implement the contract: FileStore keeps each File as a file in a private temporary folder (natively), and
// MemStore keeps the pages in memory with the same accounting (in the browser, where there is no disk to
// spill to; the pages stand for a disk and are not charged to the query's memory budget). A Space (space.go)
// owns the stores of one run and removes them, and the folders of killed runs, whichever way the run ends.
package spill

import (
	"errors"
	"sync"
)

// Store is where an operator spills. Create, and the Files it returns, are used from the operator's
// goroutine; Close may be called from any goroutine, at any time, any number of times (the operator closes
// its store when it ends, and the run's Space closes it again whether or not the operator saw its end): it
// removes everything the store holds before it returns, after which every other call fails with ErrClosed.
// IO is safe for concurrent use.
type Store interface {
	// Create makes a new, empty File.
	Create() (File, error)
	// IO returns the pages and bytes written and read so far.
	IO() IO
	// Close removes every File and the store's own resources (its temporary folder).
	Close() error
}

// File is an append-only sequence of pages. A page is written whole and read whole; its size is the
// writer's choice (Writer keeps them at most its page size). The store copies a written page, so the caller
// may reuse the slice.
type File interface {
	WritePage(page []byte) error
	// ReadPage returns page i, reusing buf when it is large enough.
	ReadPage(i int, buf []byte) ([]byte, error)
	Pages() int
	// Remove deletes the file's pages; reading it afterwards is an error.
	Remove() error
}

// IO counts a store's traffic: one page per WritePage or ReadPage call.
type IO struct {
	PagesWritten, PagesRead int64
	BytesWritten, BytesRead int64
}

// ErrClosed is returned by a store, or a file of one, used after Close.
var ErrClosed = errors.New("spill: store closed")

// counter is the accounting both stores share.
type counter struct {
	mu sync.Mutex
	io IO
}

func (c *counter) wrote(n int) {
	c.mu.Lock()
	c.io.PagesWritten++
	c.io.BytesWritten += int64(n)
	c.mu.Unlock()
}

func (c *counter) read(n int) {
	c.mu.Lock()
	c.io.PagesRead++
	c.io.BytesRead += int64(n)
	c.mu.Unlock()
}

func (c *counter) IO() IO {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.io
}

// Memory is the directory value that asks New and NewSpace for MemStores on any platform.
const Memory = ":memory:"

// New makes a store that the caller must Close: a MemStore when dir is Memory, else the platform's default — a
// FileStore in a new folder under dir (the system's temporary folder when dir is "") natively, a MemStore in
// the browser (see default_js.go). A run's operators get their stores from its Space instead (StoreFor).
func New(dir string) (Store, error) {
	if dir == Memory {
		return NewMemStore(), nil
	}
	return platformStore(dir)
}
