package source

import (
	"io"
	"runtime"
	"sync/atomic"
)

// parseWorkers is how many chunks are parsed at once: one per core natively; one under js/wasm, where Go runs
// on a single thread and more goroutines would only take turns.
func parseWorkers() int {
	if runtime.GOARCH == "wasm" {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// parseChunks reads the chunks of c in order and parses each with parse on up to workers goroutines at once,
// returning the results in file order. One goroutine reads; it takes a worker's place before reading a chunk,
// so at most workers chunks are in flight, each counted in c's budget until parsed. The error reported is the
// first in file order: a parse error of an earlier chunk wins over a later one or over a read error, and once
// any chunk fails no more are read.
func parseChunks[R any](c *chunker, workers int, parse func(chunk) (R, error)) ([]R, error) {
	type slot struct {
		result R
		err    error
		done   chan struct{}
	}
	workers = max(workers, 1)
	places := make(chan struct{}, workers)
	var failed atomic.Bool
	var slots []*slot
	var readErr error
	for !failed.Load() {
		places <- struct{}{}
		ch, err := c.next()
		if err != nil {
			<-places
			if err != io.EOF {
				readErr = err
			}
			break
		}
		s := &slot{done: make(chan struct{})}
		slots = append(slots, s)
		go func() {
			defer close(s.done)
			s.result, s.err = parse(ch)
			c.release(ch)
			if s.err != nil {
				failed.Store(true)
			}
			<-places
		}()
	}
	results := make([]R, 0, len(slots))
	var first error
	for _, s := range slots {
		<-s.done
		if s.err != nil && first == nil {
			first = s.err
		}
		results = append(results, s.result)
	}
	if first != nil {
		return nil, first
	}
	if readErr != nil {
		return nil, readErr
	}
	return results, nil
}
