package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/joinlab/joinlab/engine/column"
)

// csvFile is a CSV file read where it lies, as jsonlFile is for JSON lines. Opening it reads a sample of it
// (sample.go), in parallel chunks, to check those records and type every column from their values; it keeps
// only the schema and the row count (estimated, when the sample did not reach the end). Each scan reads the
// file again and parses each chunk straight into vectors of those types, for the requested columns only, in
// file order, checking each value it parses against its column's type. A value that does not fit stops the
// scan: with a *RetypeError when the types came from a sample, else as a file changed since it was opened (as
// does a different row count).
type csvFile struct {
	name string
	*csvTyping
}

// csvTyping is what every name of one CSV file shares (Rename): where its bytes lie and what typing them has
// learned, so a TypeAll through one name serves them all.
type csvTyping struct {
	place
	opts Options

	mu      sync.Mutex
	schema  column.Schema
	rows    int
	sampled bool
}

var _ Sampled = (*csvFile)(nil)

// openCSVFile checks and types a sample of a CSV file of size bytes without keeping its records.
func openCSVFile(name string, at place, f io.Reader, o Options) (*csvFile, error) {
	s := &csvFile{name: name, csvTyping: &csvTyping{place: at, opts: o}}
	if err := s.typeFrom(f, at.length(), sampleStop(o)); err != nil {
		return nil, err
	}
	return s, nil
}

// typeFrom checks and types the records of f, a file of size bytes, up to the first record end at or past
// byte stop (0: all of them). The caller holds s.mu or owns s.
func (s *csvTyping) typeFrom(f io.Reader, size, stop int64) error {
	c := newChunker(f, &csvEnd{}, s.opts.ChunkBytes, s.opts.Budget)
	c.stopAt = stop
	ch, err := c.next()
	if err == io.EOF {
		return errors.New("empty CSV: expected a header line")
	}
	if err != nil {
		return err
	}
	none := csvRead{only: []int{}}
	header, first, err := parseCSVHead(ch, none)
	c.release(ch)
	if err != nil {
		return err
	}
	rest, err := parseChunks(c, workers(s.opts), func(ch chunk) (csvPart, error) {
		return parseCSVChunk(ch, len(header), none)
	})
	if err != nil {
		return err
	}
	schema := make(column.Schema, len(header))
	saw := make([]kinds, len(header))
	rows := 0
	for _, p := range append([]csvPart{first}, rest...) {
		for c, k := range p.saw {
			saw[c] |= k
		}
		rows += p.rows
	}
	for c, h := range header {
		schema[c] = column.Field{Name: h, Type: saw[c].columnType()}
	}
	s.schema, s.rows, s.sampled = schema, rows, c.more
	if c.more {
		s.rows = estimateRows(rows, c.offset, size)
	}
	return nil
}

// TypeAll reads the whole file to type it, as opening it with TypeEveryValue does.
func (s *csvFile) TypeAll(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.sampled {
		return nil
	}
	if err := s.readWhole(s.name, func(r io.Reader, size int64) error { return s.typeFrom(r, size, 0) }); err != nil {
		return err
	}
	return ctx.Err()
}

// Sampled reports whether the types come from a sample of the file.
func (s *csvFile) Sampled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sampled
}

func (s *csvFile) Name() string { return s.name }

func (s *csvFile) Rows() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rows
}

func (s *csvFile) Schema([]string) column.Schema {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.schema
}

// Scan reads the file again, a chunk per worker at a time, in file order.
func (s *csvFile) Scan(_ context.Context, cols []column.Field) Iterator {
	s.mu.Lock()
	schema, rows, sampled := s.schema, s.rows, s.sampled
	s.mu.Unlock()
	if sampled {
		rows = -1 // estimated: not a count to hold the scan to
	}
	types := make([]column.Type, len(schema))
	for c, f := range schema {
		types[c] = f.Type
	}
	idx := make([]int, len(cols))
	var only []int
	for i, f := range cols {
		idx[i] = schema.Index(f.Name)
		if idx[i] >= 0 {
			only = append(only, idx[i])
		}
	}
	if only == nil {
		only = []int{}
	}
	how := csvRead{types: types, only: only}
	fields := len(schema)
	parse := func(ch chunk) ([]*column.Batch, error) {
		var p csvPart
		var err error
		if ch.offset == 0 {
			_, p, err = parseCSVHeadTyped(ch, how)
		} else {
			p, err = parseCSVChunk(ch, fields, how)
		}
		var bad *RetypeError
		switch {
		case errors.As(err, &bad) && sampled:
			bad.Source, bad.Column = s.name, schema[bad.col].Name
			return nil, bad
		case bad != nil:
			return nil, fmt.Errorf("line %d: column %d holds a value that is not %v: the file changed since it was opened", bad.Line, bad.col+1, bad.Type)
		case err != nil:
			return nil, err
		}
		var out []*column.Batch
		for lo := 0; lo < p.rows; lo += BatchRows {
			hi := min(lo+BatchRows, p.rows)
			vecs := make([]*column.Vector, len(cols))
			for i, c := range idx {
				if c < 0 {
					vecs[i] = column.NullVector(column.Dynamic, hi-lo)
					continue
				}
				vecs[i] = p.cols[c].Slice(lo, hi)
			}
			out = append(out, column.NewBatch(vecs, hi-lo))
		}
		return out, nil
	}
	return &fileScan{name: s.name, at: s.place, rows: rows, opts: s.opts, split: func() boundary { return &csvEnd{} }, parse: parse}
}
