package exec

import (
	"context"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
)

// Filter keeps the rows whose predicate is true; false and null both drop the row. The predicate selects rows
// (expr.Select: each conjunct of an `and` runs only at the rows the ones before kept), and the batch is copied
// once, at the end, or passed on as it is when every row is kept.
type Filter struct {
	in   Operator
	pred expr.Expr
}

func NewFilter(in Operator, pred expr.Expr) *Filter { return &Filter{in: in, pred: pred} }

func (f *Filter) Schema() column.Schema { return f.in.Schema() }

func (f *Filter) Next(ctx context.Context) (*column.Batch, error) {
	for {
		b, err := f.in.Next(ctx)
		if b == nil || err != nil {
			return nil, err
		}
		switch idx := expr.Select(f.pred, expr.BatchInput(b), nil); len(idx) {
		case 0:
			continue
		case b.N:
			return b, nil
		default:
			return b.Gather(idx), nil
		}
	}
}
