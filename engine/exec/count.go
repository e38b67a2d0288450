package exec

import (
	"context"

	"github.com/joinlab/joinlab/engine/column"
)

// Count consumes its input and produces one row: the number of rows, in a column named Count.
type Count struct {
	in   Operator
	done bool
}

func NewCount(in Operator) *Count { return &Count{in: in} }

// CountSchema is the schema of Count's output.
var CountSchema = column.Schema{{Name: "Count", Type: column.Long}}

func (c *Count) Schema() column.Schema { return CountSchema }

func (c *Count) Next(ctx context.Context) (*column.Batch, error) {
	if c.done {
		return nil, nil
	}
	var n int64
	if err := Drain(ctx, c.in, func(b *column.Batch) error { n += int64(b.N); return nil }); err != nil {
		return nil, err
	}
	c.done = true
	v := column.NewVector(column.Long, 1)
	v.AppendInt(n)
	return column.NewBatch([]*column.Vector{v}, 1), nil
}
