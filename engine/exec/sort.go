package exec

import (
	"context"
	"sort"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/source"
)

// SortKey is one key of a sort: an expression, its direction, and where nulls go.
type SortKey struct {
	Expr       expr.Expr
	Asc        bool
	NullsFirst bool
}

// Sort holds its whole input (accounted against the budget), orders it stably by its keys and emits it in
// batches. With a limit it is top: it keeps only the first Limit rows of the order. Cost: O(n log n) compares,
// memory of the whole input.
type Sort struct {
	in     Operator
	keys   []SortKey
	limit  int64 // < 0: no limit
	budget *memory.Budget

	out  *column.Batch
	pos  int
	held int64
}

// NewSort sorts in by keys; limit >= 0 keeps only that many rows (top N).
func NewSort(in Operator, keys []SortKey, limit int64, budget *memory.Budget) *Sort {
	return &Sort{in: in, keys: keys, limit: limit, budget: budget}
}

func (s *Sort) Schema() column.Schema { return s.in.Schema() }

func (s *Sort) Next(ctx context.Context) (*column.Batch, error) {
	if s.out == nil {
		if err := s.load(ctx); err != nil {
			return nil, err
		}
	}
	if s.pos >= s.out.N {
		s.budget.Shrink(s.held)
		s.held = 0
		return nil, nil
	}
	hi := min(s.pos+outBatchRows, s.out.N)
	b := s.out.Slice(s.pos, hi)
	s.pos = hi
	return b, nil
}

// outBatchRows is the size of the batches a blocking operator emits.
const outBatchRows = source.BatchRows

func (s *Sort) load(ctx context.Context) error {
	t := column.NewTable(s.in.Schema())
	err := Drain(ctx, s.in, func(b *column.Batch) error {
		n := b.Bytes()
		if err := s.budget.Grow("sort", n); err != nil {
			return err
		}
		s.held += n
		t.Append(b)
		return nil
	})
	if err != nil {
		return err
	}
	all := t.Batch()
	keys := make([]*column.Vector, len(s.keys))
	for i, k := range s.keys {
		keys[i] = k.Expr.Eval(all)
	}
	idx := make([]int32, all.N)
	for i := range idx {
		idx[i] = int32(i)
	}
	sort.SliceStable(idx, func(a, b int) bool {
		return s.less(keys, int(idx[a]), int(idx[b]))
	})
	if s.limit >= 0 && int64(len(idx)) > s.limit {
		idx = idx[:s.limit]
	}
	s.out = all.Gather(idx)
	return nil
}

func (s *Sort) less(keys []*column.Vector, a, b int) bool {
	for i, k := range s.keys {
		c := compareRows(keys[i], a, b, k.NullsFirst)
		if c == 0 {
			continue
		}
		if !k.Asc {
			// Descending reverses the values but not where nulls go.
			if keys[i].IsNull(a) || keys[i].IsNull(b) {
				return c < 0
			}
			return c > 0
		}
		return c < 0
	}
	return false
}

// compareRows orders rows a and b of v ascending, with nulls first or last.
func compareRows(v *column.Vector, a, b int, nullsFirst bool) int {
	na, nb := v.IsNull(a), v.IsNull(b)
	switch {
	case na && nb:
		return 0
	case na:
		if nullsFirst {
			return -1
		}
		return 1
	case nb:
		if nullsFirst {
			return 1
		}
		return -1
	}
	c, _ := expr.Compare(v.Value(a), v.Value(b))
	return c
}
