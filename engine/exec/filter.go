package exec

import (
	"context"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
)

// Filter keeps the rows whose predicate is true; false and null both drop the row. The predicate selects rows
// (expr.Select: each conjunct of an `and` runs only at the rows the ones before kept), and the batch is copied
// once, at the end — only its live columns (Keep) — or passed on as it is when every row is kept.
type Filter struct {
	in   Operator
	pred expr.Expr
	live []bool
}

func NewFilter(in Operator, pred expr.Expr) *Filter { return &Filter{in: in, pred: pred} }

// Selector is an operator that can hand its consumer a batch with the rows it keeps listed, instead of a copy
// of those rows: a filter over a batch it read. NextSelected returns the next batch and its live rows in
// increasing order (nil: every row), or a nil batch at the end. The rows outside the selection are not part of
// the stream — the consumer must not read them as input rows — and the batch may hold columns the consumer's
// schema marks dead (a column only the filter read). Calls to Next and NextSelected are not mixed.
type Selector interface {
	Operator
	NextSelected(ctx context.Context) (*column.Batch, []int32, error)
}

var _ Selector = (*Filter)(nil)

// NextSelected is Next without the copy: the input batch and the rows the predicate keeps; a batch with no row
// kept is skipped.
func (f *Filter) NextSelected(ctx context.Context) (*column.Batch, []int32, error) {
	for {
		b, err := f.in.Next(ctx)
		if b == nil || err != nil {
			return nil, nil, err
		}
		switch idx := expr.Select(f.pred, expr.BatchInput(b), nil); len(idx) {
		case 0:
			continue
		case b.N:
			return b, nil, nil
		default:
			return b, idx, nil
		}
	}
}

// Keep limits the columns a filtered batch copies to those live marks, the ones read above the filter; the
// others (a column only the predicate reads) are left nil. Call before the first Next.
func (f *Filter) Keep(live []bool) { f.live = live }

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
			return f.gather(b, idx), nil
		}
	}
}

// gather copies rows idx of b's live columns.
func (f *Filter) gather(b *column.Batch, idx []int32) *column.Batch {
	cols := make([]*column.Vector, len(b.Cols))
	for i, c := range b.Cols {
		if c != nil && (f.live == nil || f.live[i]) {
			cols[i] = c.Gather(idx)
		}
	}
	return column.NewBatch(cols, len(idx))
}
