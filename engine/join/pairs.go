package join

import (
	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
)

// pairs are a batch of a join's output rows before any column is copied: output row k joins row lidx[k] of
// left with row ridx[k] of right. A nil side batch null-extends that side on every row (its index list is
// then not read), and an index of -1 null-extends it on one row. A join hands its pairs to assemble, which
// copies out only the columns read above the join (Spec.Live) — late materialisation.
//
// A where directly above the join (see Hash.SetWhere) is evaluated on the pairs themselves, as an expr.Input
// whose columns are the join's output columns: a column the predicate reads is gathered when the predicate
// first reads it — at every pair for the first conjunct, only at the pairs still live for the later ones
// (expr.Select) — and a column read at every pair is kept for the output. Only then are the other output
// columns gathered, for the surviving pairs alone. It is the same filter as a where over the join's output
// (a row the kind null-extends is filtered too, by its null values), run before the copy instead of after.
type pairs struct {
	spec        *Spec
	left, right *column.Batch
	lidx, ridx  []int32
	n           int
	// whole holds the output columns the predicate read at every pair, by output position.
	whole []*column.Vector
}

var _ expr.Input = (*pairs)(nil)

func (p *pairs) Len() int { return p.n }

// Column is output column o at the pairs of sel (every pair when sel is nil).
func (p *pairs) Column(o int, sel []int32) *column.Vector {
	if v := p.whole[o]; v != nil {
		if sel == nil {
			return v
		}
		return v.Gather(sel)
	}
	v := p.gather(o, sel)
	if sel == nil {
		p.whole[o] = v
	}
	return v
}

// gather copies output column o at the pairs of sel (every pair when sel is nil) from its input; nil when
// its input column is dead (not read by the query).
func (p *pairs) gather(o int, sel []int32) *column.Vector {
	b, idx, c := p.left, p.lidx, index(p.spec.LeftOut, o)
	if c < 0 {
		b, idx, c = p.right, p.ridx, index(p.spec.RightOut, o)
	}
	n := p.n
	if sel != nil {
		n = len(sel)
	}
	switch {
	case b == nil:
		return column.NullVector(p.spec.Schema[o].Type, n)
	case b.Cols[c] == nil:
		return nil
	case sel == nil:
		return gatherRows(b.Cols[c], idx)
	}
	at := make([]int32, len(sel))
	for k, s := range sel {
		at[k] = idx[s]
	}
	return gatherRows(b.Cols[c], at)
}

// gatherRows is v.Gather(idx), except that rows idx forming one ascending run (lo, lo+1, …) are v's slice,
// sharing its values instead of copying them. A join to a table of unique keys that every probe row finds —
// a fact table's foreign key into a dimension — pairs each probe row once, in order, so its probe side's
// columns pass through uncopied. Telling the run costs a sequential read of idx up to its first break.
func gatherRows(v *column.Vector, idx []int32) *column.Vector {
	if len(idx) > 0 && idx[0] >= 0 {
		lo := idx[0]
		run := true
		for j, i := range idx {
			if i != lo+int32(j) {
				run = false
				break
			}
		}
		if run {
			return v.Slice(int(lo), int(lo)+len(idx))
		}
	}
	return v.Gather(idx)
}

// index is the input column whose output position is o, or -1.
func index(out []int, o int) int {
	for c, x := range out {
		if x == o {
			return c
		}
	}
	return -1
}

// keep evaluates where on the pairs and returns the pairs at which it is true (nil when all are). The
// columns it read at every pair stay in p.whole for assemble.
func (p *pairs) keep(where expr.Expr) []int32 {
	p.whole = make([]*column.Vector, len(p.spec.Schema))
	sel := expr.Select(where, p, nil)
	if len(sel) == p.n {
		return nil
	}
	return sel
}

// assemble builds the output batch of the pairs: the live output columns, at the pairs where keeps (every
// pair when where is nil). The batch may have no rows.
func (p *pairs) assemble(where expr.Expr) *column.Batch {
	var sel []int32
	if where != nil {
		sel = p.keep(where)
	}
	n := p.n
	if sel != nil {
		n = len(sel)
	}
	cols := make([]*column.Vector, len(p.spec.Schema))
	for o := range cols {
		switch {
		case !p.spec.Outputs(o):
		case p.whole != nil && p.whole[o] != nil && sel == nil:
			cols[o] = p.whole[o]
		case p.whole != nil && p.whole[o] != nil:
			cols[o] = p.whole[o].Gather(sel)
		default:
			cols[o] = p.gather(o, sel)
		}
	}
	return column.NewBatch(cols, n)
}

// compact keeps entries sel of idx, in place (sel is increasing, so no entry is overwritten before it is
// read); a nil idx stays nil.
func compact(idx, sel []int32) []int32 {
	if idx == nil {
		return nil
	}
	for k, s := range sel {
		idx[k] = idx[s]
	}
	return idx[:len(sel)]
}
