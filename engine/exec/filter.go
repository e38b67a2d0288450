package exec

import (
	"context"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
)

// Filter keeps the rows whose predicate is true; false and null both drop the row.
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
		mask := f.pred.Eval(b)
		idx := make([]int32, 0, b.N)
		for i := 0; i < b.N; i++ {
			if mask.Type != column.Bool { // a dynamic predicate, such as a nested path: only JSON true keeps
				if t, ok := expr.Truth(mask.Value(i)); ok && t {
					idx = append(idx, int32(i))
				}
				continue
			}
			if mask.Bools[i] && !mask.IsNull(i) {
				idx = append(idx, int32(i))
			}
		}
		switch len(idx) {
		case 0:
			continue
		case b.N:
			return b, nil
		}
		return b.Gather(idx), nil
	}
}
