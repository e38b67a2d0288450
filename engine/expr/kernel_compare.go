package expr

import (
	"github.com/joinlab/joinlab/engine/column"
)

// compareKernel computes l op r (==, !=, <, <=, >, >=) in typed loops, or returns nil when an operand is
// dynamic. Same types compare natively (strings by bytes, as strings.Compare); a long against a real compares
// as float64; reals order as Compare does (NaN equal to NaN and below every number). Null rows follow
// nullComparison: == and != are two-valued against a non-null value and null only when both sides are.
func compareKernel(op string, l, r Expr) Expr {
	lt, rt := l.Type(), r.Type()
	if lt == column.Dynamic || rt == column.Dynamic {
		return nil
	}
	if k := compareConst(op, l, r); k != nil { // an int operand against a constant: kernel_range.go
		return k
	}
	nullVsValue, equality := nullComparison(op)
	return newKernel(column.Bool, func(n int, in []*column.Vector) *column.Vector {
		x, y := in[0], in[1]
		out := newOut(column.Bool, n)
		switch {
		case lt != rt:
			floatCompare(op, floats(x, n), floats(y, n), out.Bools)
		case lt == column.Real:
			floatCompare(op, x.Reals[:n], y.Reals[:n], out.Bools)
		case lt == column.Bool:
			boolCompare(op, x.Bools[:n], y.Bools[:n], out.Bools)
		case isInts(lt):
			orderCompare(op, x.Ints[:n], y.Ints[:n], out.Bools)
		default:
			orderCompare(op, x.Strs[:n], y.Strs[:n], out.Bools)
		}
		xn, yn := nullWords(x, n), nullWords(y, n)
		if xn == nil && yn == nil {
			return out
		}
		nulls := union(xn, yn)
		if equality && (xn == nil || yn == nil) {
			// Only one side has nulls, so no row is null on both: each null row is decided.
			eachSet(nulls, func(i int) { out.Bools[i] = nullVsValue })
			return out
		}
		if equality {
			both := make(column.Bitmap, len(xn))
			for w := range both {
				both[w] = xn[w] & yn[w]
			}
			eachSet(nulls, func(i int) { out.Bools[i] = !both.Get(i) && nullVsValue })
			setNulls(out, both)
			return out
		}
		setNulls(out, nulls)
		return out
	}, l, r)
}

// orderCompare sets out[i] to x[i] op y[i] for natively ordered values.
func orderCompare[T int64 | string](op string, x, y []T, out []bool) {
	y, out = y[:len(x)], out[:len(x)]
	switch op {
	case "==":
		for i := range x {
			out[i] = x[i] == y[i]
		}
	case "!=":
		for i := range x {
			out[i] = x[i] != y[i]
		}
	case "<":
		for i := range x {
			out[i] = x[i] < y[i]
		}
	case "<=":
		for i := range x {
			out[i] = x[i] <= y[i]
		}
	case ">":
		for i := range x {
			out[i] = x[i] > y[i]
		}
	default:
		for i := range x {
			out[i] = x[i] >= y[i]
		}
	}
}

// floatCompare sets out[i] to x[i] op y[i] in cmpFloat's order: NaN equals NaN and is below every number
// (x != x holds only for NaN).
func floatCompare(op string, x, y []float64, out []bool) {
	y, out = y[:len(x)], out[:len(x)]
	switch op {
	case "==":
		for i, a := range x {
			b := y[i]
			out[i] = a == b || (a != a && b != b)
		}
	case "!=":
		for i, a := range x {
			b := y[i]
			out[i] = !(a == b || (a != a && b != b))
		}
	case "<":
		for i, a := range x {
			b := y[i]
			out[i] = a < b || (a != a && b == b)
		}
	case "<=":
		for i, a := range x {
			b := y[i]
			out[i] = !(a > b || (a == a && b != b))
		}
	case ">":
		for i, a := range x {
			b := y[i]
			out[i] = a > b || (a == a && b != b)
		}
	default:
		for i, a := range x {
			b := y[i]
			out[i] = !(a < b || (a != a && b == b))
		}
	}
}

// boolCompare sets out[i] to x[i] op y[i] for == and != (bools have no order).
func boolCompare(op string, x, y []bool, out []bool) {
	y, out = y[:len(x)], out[:len(x)]
	ne := op == "!="
	for i := range x {
		out[i] = (x[i] == y[i]) != ne
	}
}
