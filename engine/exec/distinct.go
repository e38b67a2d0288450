package exec

import (
	"context"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// Distinct streams the first row of each distinct combination of its input's columns (the planner projects
// the listed columns first), holding one key per distinct row against the budget.
type Distinct struct {
	in     Operator
	budget *memory.Budget
	seen   map[string]struct{}
	buf    []byte
	held   int64
}

func NewDistinct(in Operator, budget *memory.Budget) *Distinct {
	return &Distinct{in: in, budget: budget, seen: map[string]struct{}{}}
}

func (d *Distinct) Schema() column.Schema { return d.in.Schema() }

func (d *Distinct) Next(ctx context.Context) (*column.Batch, error) {
	for {
		b, err := d.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			d.budget.Shrink(d.held)
			d.held = 0
			return nil, nil
		}
		idx := make([]int32, 0, b.N)
		for r := 0; r < b.N; r++ {
			d.buf = d.buf[:0]
			for _, c := range b.Cols {
				if c != nil {
					d.buf = column.AppendKey(d.buf, c, r)
				}
			}
			if _, ok := d.seen[string(d.buf)]; ok {
				continue
			}
			n := int64(len(d.buf)) + groupBytes
			if err := d.budget.Grow("distinct", n); err != nil {
				return nil, err
			}
			d.held += n
			d.seen[string(d.buf)] = struct{}{}
			idx = append(idx, int32(r))
		}
		if len(idx) > 0 {
			return b.Gather(idx), nil
		}
	}
}
