package exec

import (
	"context"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/source"
)

// Scan reads a source. Only the live columns are read; the others come out dead (nil), so a JSON source never
// extracts a path the query does not use.
type Scan struct {
	schema column.Schema
	it     source.Iterator
	pos    []int // pos[i] is where the i-th scanned column goes in the schema
}

// NewScan scans src's schema, reading only the columns marked live.
func NewScan(ctx context.Context, src source.Source, schema column.Schema, live []bool) *Scan {
	var fields []column.Field
	var pos []int
	for i, f := range schema {
		if live[i] {
			fields = append(fields, f)
			pos = append(pos, i)
		}
	}
	return &Scan{schema: schema, it: src.Scan(ctx, fields), pos: pos}
}

func (s *Scan) Schema() column.Schema { return s.schema }

func (s *Scan) Next(ctx context.Context) (*column.Batch, error) {
	b, err := s.it.Next(ctx)
	if b == nil || err != nil {
		return nil, err
	}
	cols := make([]*column.Vector, len(s.schema))
	for i, p := range s.pos {
		cols[p] = b.Cols[i]
	}
	return column.NewBatch(cols, b.N), nil
}
