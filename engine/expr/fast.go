package expr

import (
	"github.com/joinlab/joinlab/engine/column"
)

// fastCompare returns a vectorised comparison of a column with a constant of the same storage (the shape of
// almost every filter), or nil when the operands have another shape.
func fastCompare(op string, l, r Expr) Expr {
	col, isCol := l.(*ColumnRef)
	k, isConst := r.(*Const)
	flip := false
	if !isCol || !isConst {
		col, isCol = r.(*ColumnRef)
		k, isConst = l.(*Const)
		flip = true
	}
	if !isCol || !isConst || k.V.Null {
		return nil
	}
	ct, kt := col.T, k.V.Type
	sameInts := (ct == kt && (ct == column.Long || ct == column.DateTime || ct == column.Timespan))
	if !sameInts && !(ct == column.Real && kt.IsNumeric()) && !(ct == column.String && kt == column.String) {
		return nil
	}
	if flip {
		op = Mirror(op)
	}
	nullVsValue, equality := nullComparison(op)
	return &constCompare{col: col, k: k.V, test: comparisonTest(op), nullVsValue: nullVsValue, equality: equality}
}

// Mirror is the comparison that holds with the operands swapped: `k op col` is `col Mirror(op) k`.
func Mirror(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

type constCompare struct {
	col  *ColumnRef
	k    column.Value
	test func(int) bool
	// nullVsValue is the result for a null row when equality (== or !=); other operators give null there.
	nullVsValue, equality bool
}

func (c *constCompare) Type() column.Type    { return column.Bool }
func (c *constCompare) Refs(dst []int) []int { return append(dst, c.col.Index) }

func (c *constCompare) Eval(b *column.Batch) *column.Vector {
	in := b.Cols[c.col.Index]
	out := &column.Vector{Type: column.Bool, Bools: make([]bool, b.N)}
	out.SetLen(b.N)
	switch c.col.T {
	case column.Real:
		k := c.k.Float()
		for i, x := range in.Reals[:b.N] {
			out.Bools[i] = c.test(cmpFloat(x, k))
		}
	case column.String:
		k := c.k.Str
		for i, x := range in.Strs[:b.N] {
			out.Bools[i] = c.test(cmpString(x, k))
		}
	default:
		k := c.k.Int
		for i, x := range in.Ints[:b.N] {
			r := 0
			if x < k {
				r = -1
			} else if x > k {
				r = 1
			}
			out.Bools[i] = c.test(r)
		}
	}
	if in.HasNulls() {
		for i := 0; i < b.N; i++ {
			if !in.IsNull(i) {
				continue
			}
			if c.equality {
				out.Bools[i] = c.nullVsValue
			} else {
				out.Bools[i] = false
				out.Nulls.Set(i)
			}
		}
	}
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
