package source

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// fileScan reads a file again for a scan, parsing its chunks on up to Options.Workers goroutines and handing
// out their batches in file order. It is pull-driven: Next starts the parse of up to that many chunks ahead,
// each answering on its own buffered channel, so a parse never waits on the consumer and a scan abandoned
// midway (take 10) leaves no goroutine blocked. The file is closed when its last chunk is read. At most
// workers chunks and their batches are held at once.
type fileScan struct {
	name  string
	at    place
	rows  int // as opened; a scan that finds another count reports the file changed (-1: an estimate)
	opts  Options
	split func() boundary
	parse func(chunk) ([]*column.Batch, error) // safe to run on several chunks at once
	ended func()                               // if not nil, called once when every chunk has been parsed without error

	f       io.ReadCloser
	c       *chunker
	pending []chan parsed
	ready   []*column.Batch
	readErr error
	done    bool // the chunker reached the end or failed
	seen    int
}

// parsed is one chunk's batches, or its error.
type parsed struct {
	batches []*column.Batch
	err     error
}

// stop reads no more chunks and closes the file, once: at the end, on an error, and when ctx is done, so a
// cancelled scan holds no descriptor.
func (it *fileScan) stop() {
	it.done = true
	if it.f != nil {
		it.f.Close()
		it.f = nil
	}
}

func (it *fileScan) Next(ctx context.Context) (*column.Batch, error) {
	for {
		if len(it.ready) > 0 {
			b := it.ready[0]
			it.ready = it.ready[1:]
			return b, nil
		}
		if err := ctx.Err(); err != nil {
			it.stop()
			return nil, err
		}
		if it.c == nil && !it.done {
			f, err := it.at.open()
			if err != nil {
				return nil, fmt.Errorf("source %s: %w", it.name, err)
			}
			// The chunks read ahead count against the query's budget (memory.NewContext), or the open's.
			budget := memory.FromContext(ctx)
			if budget == nil {
				budget = it.opts.Budget
			}
			it.f, it.c = f, newChunker(f, it.split(), it.opts.ChunkBytes, budget)
		}
		for !it.done && len(it.pending) < workers(it.opts) {
			ch, err := it.c.next()
			if err != nil {
				it.stop()
				if !errors.Is(err, io.EOF) {
					it.readErr = fmt.Errorf("%s: %w", it.at.describe(it.name), err)
				}
				break
			}
			out := make(chan parsed, 1)
			it.pending = append(it.pending, out)
			c := it.c
			go func() {
				b, err := it.parse(ch)
				c.recycle(ch) // a scan's batches copy what they keep of a chunk
				out <- parsed{b, err}
			}()
		}
		if len(it.pending) == 0 {
			if it.readErr != nil {
				return nil, it.readErr
			}
			if it.rows >= 0 && it.seen != it.rows {
				return nil, fmt.Errorf("%s: %d rows when opened, %d now: the file changed", it.at.describe(it.name), it.rows, it.seen)
			}
			if it.ended != nil {
				it.ended()
				it.ended = nil
			}
			return nil, nil
		}
		var r parsed
		select {
		case r = <-it.pending[0]:
		case <-ctx.Done():
			it.stop()
			return nil, ctx.Err()
		}
		it.pending = it.pending[1:]
		if r.err != nil {
			it.pending = nil // their answers go to buffered channels nobody reads
			it.stop()
			it.readErr = fmt.Errorf("%s: %w", it.at.describe(it.name), r.err)
			return nil, it.readErr
		}
		for _, b := range r.batches {
			it.seen += b.N
		}
		it.ready = r.batches
	}
}
