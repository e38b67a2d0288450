package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/joinlab/joinlab/engine/column"
)

// jsonlFile is a JSON-lines file read where it lies. Opening it reads a sample of it (sample.go), in
// parallel chunks, to validate those lines and type the top-level keys, and keeps only the schema and the row
// count (estimated, when the sample did not reach the end); every scan reads the file again, chunk by chunk,
// and parses each chunk straight into batches of the columns it asks for, so a query holds a few chunks of the
// file (one per worker, plus their batches), never the whole of it. A nested path is typed, the first time a
// query names it, by one more read of the sample. A scan of a sampled file validates every line and checks
// every value it reads against the sample's types; of bytes that never change (held, or a stream's copy), only
// until one scan has validated them all.
//
// The cost is a read of the file per scan (from the page cache, once it is warm) in place of holding it. A
// file typed from every value and changed after it was opened fails the scan when its row count no longer
// matches.
type jsonlFile struct {
	name string
	*jsonlTyping
}

// jsonlTyping is what every name of one JSON-lines file shares (Rename): where its bytes lie and what typing
// them has learned, so a TypeAll through one name serves them all.
type jsonlTyping struct {
	place
	opts Options

	mu      sync.Mutex
	top     column.Schema
	saw     []kinds // per top-level column, the kinds of value the typing saw
	rows    int
	sampled bool
	paths   map[string]kinds // nested paths typed on first request

	// linesValid says a scan has read every line of bytes that nobody writes (held data, or a stream's
	// copy) and found each one valid JSON with its numbers in range, so later scans walk the lines without
	// validating them again (the validation walk is most of a scan's time in wasm). Scans may run at once, and
	// the first to reach its end sets it.
	linesValid atomic.Bool
}

var _ Sampled = (*jsonlFile)(nil)

// openJSONLFile validates and types a sample of a JSON-lines file of size bytes without keeping its lines.
func openJSONLFile(name string, at place, f io.Reader, o Options) (*jsonlFile, error) {
	s := &jsonlFile{name: name, jsonlTyping: &jsonlTyping{place: at, opts: o, paths: map[string]kinds{}}}
	if err := s.typeFrom(f, at.length(), sampleStop(o)); err != nil {
		return nil, err
	}
	return s, nil
}

// typeFrom validates and types the lines of f, a file of size bytes, up to the first line end at or past byte
// stop (0: all of them). The caller holds s.mu or owns s.
func (s *jsonlTyping) typeFrom(f io.Reader, size, stop int64) error {
	c := newChunker(f, lineEnd{}, s.opts.ChunkBytes, s.opts.Budget)
	c.stopAt = stop
	parts, err := parseChunks(c, workers(s.opts), func(ch chunk) (jsonlPart, error) { return parseJSONLLines(ch, false) })
	if err != nil {
		return err
	}
	rows := 0
	for _, p := range parts {
		rows += p.rows
	}
	s.top, s.saw = topSchema(parts)
	s.rows, s.sampled = rows, c.more
	if c.more {
		s.rows = estimateRows(rows, c.offset, size)
	}
	return nil
}

func (s *jsonlFile) Name() string { return s.name }

func (s *jsonlFile) Rows() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rows
}

// Sampled reports whether the types come from a sample of the file.
func (s *jsonlFile) Sampled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sampled
}

// TypeAll reads the whole file to type it, as opening it with TypeEveryValue does, and types again from every
// line the nested paths typed so far.
func (s *jsonlFile) TypeAll(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.sampled {
		return nil
	}
	if err := s.readWhole(s.name, func(r io.Reader, size int64) error { return s.typeFrom(r, size, 0) }); err != nil {
		return err
	}
	paths := make([]string, 0, len(s.paths))
	for p := range s.paths {
		paths = append(paths, p)
	}
	clear(s.paths)
	s.typePaths(paths)
	return ctx.Err()
}

// Schema is as JSONL's: the top-level columns, then the nested paths the query names, typed by one more read
// of the sample (the whole file, once typed from every value) for all the paths not typed before.
func (s *jsonlFile) Schema(paths []string) column.Schema {
	s.mu.Lock()
	defer s.mu.Unlock()
	return nestedSchema(s.top, paths, s.typePaths)
}

// typePaths types the paths not typed before; the caller holds s.mu.
func (s *jsonlFile) typePaths(paths []string) []column.Type {
	return cachedPathTypes(s.paths, s.top, paths, func(t *pathTyper) error {
		f, err := s.open()
		if err != nil {
			return err
		}
		defer f.Close()
		c := newChunker(f, lineEnd{}, s.opts.ChunkBytes, nil)
		if s.sampled {
			c.stopAt = sampleStop(s.opts)
		}
		parts, err := parseChunks(c, workers(s.opts), func(ch chunk) (*pathTyper, error) {
			part := &pathTyper{plan: t.plan, kinds: make([]kinds, len(t.kinds))}
			forEachJSONLine(ch.data, func(l []byte) bool { part.line(l); return true })
			return part, nil
		})
		for _, p := range parts {
			t.merge(p)
		}
		return err
	})
}

// Scan reads the file again, a chunk per worker at a time, in file order. When the file was typed from a
// sample, each chunk's lines are validated and each value read is checked against the sample's types: the
// first line that fails is the scan's error (a *RetypeError for a value its column cannot hold). Held data
// is validated by its first scan that reads to the end; the scans after it check the values they read only.
func (s *jsonlFile) Scan(_ context.Context, cols []column.Field) Iterator {
	s.mu.Lock()
	top, rows, sampled := s.top, s.rows, s.sampled
	var check *scanCheck
	var validated func()
	if sampled {
		check = &scanCheck{saw: make([]kinds, len(cols)), all: true, linesValid: s.linesValid.Load()}
		if s.held != nil && !check.linesValid {
			validated = func() { s.linesValid.Store(true) }
		}
		for c, f := range cols {
			if i := top.Index(f.Name); i >= 0 {
				check.saw[c] = s.saw[i]
			} else {
				check.saw[c] = s.paths[f.Name]
			}
		}
		for _, f := range top {
			if slices.IndexFunc(cols, func(c column.Field) bool { return c.Name == f.Name }) < 0 {
				check.all = false
				break
			}
		}
		rows = -1 // estimated: not a count to hold the scan to
	}
	s.mu.Unlock()
	plan := newScanPlan(top, cols)
	parse := func(ch chunk) ([]*column.Batch, error) {
		var lines [][]byte
		var out []*column.Batch
		var err error
		flush := func() bool {
			b, row, fault := jsonlBatch(lines, cols, plan, check, false)
			var bad *RetypeError
			switch {
			case errors.As(fault, &bad):
				bad.Source, bad.Line = s.name, lineOf(ch, lines[row])
				err = bad
				return false
			case fault != nil:
				err = fmt.Errorf("line %d: %w", lineOf(ch, lines[row]), fault)
				return false
			}
			out = append(out, b)
			lines = lines[:0]
			return true
		}
		forEachJSONLine(ch.data, func(line []byte) bool {
			lines = append(lines, line)
			return len(lines) < BatchRows || flush()
		})
		if err == nil && len(lines) > 0 {
			flush()
		}
		return out, err
	}
	return &fileScan{name: s.name, at: s.place, rows: rows, opts: s.opts, split: func() boundary { return lineEnd{} }, parse: parse, ended: validated}
}

// lineOf is the line number in the file of line, a slice of ch's data.
func lineOf(ch chunk, line []byte) int {
	start := cap(ch.data) - cap(line) // line shares ch.data's array, which ends where ch.data does
	return ch.line + countByte(ch.data[:start], '\n')
}

// forEachJSONLine calls fn with each non-blank line of data, trimmed, as parseJSONLLines reads them, until fn
// returns false.
func forEachJSONLine(data []byte, fn func([]byte) bool) {
	for len(data) > 0 {
		var line []byte
		if i := indexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if line = bytes.TrimSpace(line); len(line) > 0 && !fn(line) {
			return
		}
	}
}
