package source

import (
	"context"
	"errors"
	"io"

	"github.com/joinlab/joinlab/engine/column"
)

// csvFile is a CSV file read where it lies, as jsonlFile is for JSON lines. Opening it reads it once, in
// parallel chunks, to check every record and type every column from all its values; it keeps only the schema
// and the row count. Each scan reads the file again and parses each chunk straight into vectors of the file's
// types, for the requested columns only, in file order. A file changed after it was opened fails the scan: a
// value that no longer fits its column's type, or a different row count.
type csvFile struct {
	name, path string
	schema     column.Schema
	rows       int
	opts       Options
}

var _ Source = (*csvFile)(nil)

// openCSVFile checks and types a CSV file without keeping its records.
func openCSVFile(name, path string, f io.Reader, o Options) (*csvFile, error) {
	c := newChunker(f, &csvEnd{}, o.ChunkBytes, o.Budget)
	ch, err := c.next()
	if err == io.EOF {
		return nil, errors.New("empty CSV: expected a header line")
	}
	if err != nil {
		return nil, err
	}
	none := csvRead{only: []int{}}
	header, first, err := parseCSVHead(ch, none)
	c.release(ch)
	if err != nil {
		return nil, err
	}
	rest, err := parseChunks(c, workers(o), func(ch chunk) (csvPart, error) {
		return parseCSVChunk(ch, len(header), none)
	})
	if err != nil {
		return nil, err
	}
	s := &csvFile{name: name, path: path, opts: o, schema: make(column.Schema, len(header))}
	saw := make([]kinds, len(header))
	for _, p := range append([]csvPart{first}, rest...) {
		for c, k := range p.saw {
			saw[c] |= k
		}
		s.rows += p.rows
	}
	for c, h := range header {
		s.schema[c] = column.Field{Name: h, Type: saw[c].columnType()}
	}
	return s, nil
}

func (s *csvFile) Name() string                  { return s.name }
func (s *csvFile) Rows() int                     { return s.rows }
func (s *csvFile) Schema([]string) column.Schema { return s.schema }

// Scan reads the file again, a chunk per worker at a time, in file order.
func (s *csvFile) Scan(_ context.Context, cols []column.Field) Iterator {
	types := make([]column.Type, len(s.schema))
	for c, f := range s.schema {
		types[c] = f.Type
	}
	idx := make([]int, len(cols))
	var only []int
	for i, f := range cols {
		idx[i] = s.schema.Index(f.Name)
		if idx[i] >= 0 {
			only = append(only, idx[i])
		}
	}
	if only == nil {
		only = []int{}
	}
	how := csvRead{types: types, only: only}
	fields := len(s.schema)
	parse := func(ch chunk) ([]*column.Batch, error) {
		var p csvPart
		var err error
		if ch.offset == 0 {
			_, p, err = parseCSVHeadTyped(ch, how)
		} else {
			p, err = parseCSVChunk(ch, fields, how)
		}
		if err != nil {
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
	return &fileScan{name: s.name, path: s.path, rows: s.rows, opts: s.opts, split: func() boundary { return &csvEnd{} }, parse: parse}
}
