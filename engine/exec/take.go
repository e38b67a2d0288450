package exec

import (
	"context"

	"github.com/joinlab/joinlab/engine/column"
)

// Take passes the first N rows and then stops pulling, so the operators below it do no further work.
type Take struct {
	in   Operator
	left int64
}

func NewTake(in Operator, n int64) *Take { return &Take{in: in, left: n} }

func (t *Take) Schema() column.Schema { return t.in.Schema() }

func (t *Take) Next(ctx context.Context) (*column.Batch, error) {
	if t.left <= 0 {
		return nil, nil
	}
	b, err := t.in.Next(ctx)
	if b == nil || err != nil {
		return nil, err
	}
	if int64(b.N) > t.left {
		b = b.Slice(0, int(t.left))
	}
	t.left -= int64(b.N)
	return b, nil
}
