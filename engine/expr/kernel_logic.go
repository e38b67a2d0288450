package expr

import (
	"math"

	"github.com/joinlab/joinlab/engine/column"
)

// logicKernel is three-valued and/or over two bools, as logical defines it; nil for a dynamic operand. The
// plain && or || over the values is right wherever neither side is null, so only null rows are revisited.
func logicKernel(and bool, l, r Expr) Expr {
	if l.Type() != column.Bool || r.Type() != column.Bool {
		return nil
	}
	return newKernel(column.Bool, func(n int, in []*column.Vector) *column.Vector {
		x, y := in[0].Bools[:n], in[1].Bools[:n]
		out := newOut(column.Bool, n)
		o := out.Bools[:len(x)]
		y = y[:len(x)]
		if and {
			for i := range x {
				o[i] = x[i] && y[i]
			}
		} else {
			for i := range x {
				o[i] = x[i] || y[i]
			}
		}
		xn, yn := nullWords(in[0], n), nullWords(in[1], n)
		var nulls column.Bitmap
		eachSet(union(xn, yn), func(i int) {
			xNull, yNull := xn.Get(i), yn.Get(i)
			if and {
				o[i] = false
				if (!xNull && !x[i]) || (!yNull && !y[i]) {
					return // false and anything is false
				}
			} else {
				o[i] = (!xNull && x[i]) || (!yNull && y[i])
				if o[i] {
					return // true or anything is true
				}
			}
			nulls.Set(i)
		})
		setNulls(out, nulls)
		return out
	}, l, r)
}

// notKernel negates a bool; a null stays null.
func notKernel(x Expr) Expr {
	if x.Type() != column.Bool {
		return nil
	}
	return newKernel(column.Bool, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(column.Bool, n)
		for i, b := range in[0].Bools[:n] {
			out.Bools[i] = !b
		}
		setNulls(out, nullWords(in[0], n))
		return out
	}, x)
}

// nullTestKernel is isnull/isnotnull (empty false) or isempty/isnotempty (empty true: a null, or an empty
// string or dynamic). It reads the null bitmap and, for text, the values; its result is never null.
func nullTestKernel(x Expr, empty, negate bool) Expr {
	text := empty && isText(x.Type())
	return newKernel(column.Bool, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(column.Bool, n)
		o := out.Bools
		if text {
			for i, s := range in[0].Strs[:n] {
				o[i] = s == ""
			}
		}
		eachSet(nullWords(in[0], n), func(i int) { o[i] = true })
		if negate {
			for i, b := range o {
				o[i] = !b
			}
		}
		return out
	}, x)
}

// iffKernel picks each row from then or from otherwise by a bool condition (false and null pick otherwise),
// converting a long branch to real when the branches are a long and a real; nil for a dynamic condition.
func iffKernel(cond, then, otherwise Expr, t column.Type) Expr {
	if cond.Type() != column.Bool {
		return nil
	}
	return newKernel(t, func(n int, in []*column.Vector) *column.Vector {
		take := append([]bool(nil), in[0].Bools[:n]...)
		eachSet(nullWords(in[0], n), func(i int) { take[i] = false })
		a, b := in[1], in[2]
		out := newOut(t, n)
		switch {
		case t == column.Real:
			pick(take, floats(a, n), floats(b, n), out.Reals)
		case t == column.Bool:
			pick(take, a.Bools[:n], b.Bools[:n], out.Bools)
		case isInts(t):
			pick(take, a.Ints[:n], b.Ints[:n], out.Ints)
		default:
			pick(take, a.Strs[:n], b.Strs[:n], out.Strs)
		}
		var nulls column.Bitmap
		eachSet(nullWords(a, n), func(i int) {
			if take[i] {
				nulls.Set(i)
			}
		})
		eachSet(nullWords(b, n), func(i int) {
			if !take[i] {
				nulls.Set(i)
			}
		})
		setNulls(out, nulls)
		return out
	}, cond, then, otherwise)
}

func pick[T any](take []bool, a, b, out []T) {
	a, b, out = a[:len(take)], b[:len(take)], out[:len(take)]
	for i, t := range take {
		if t {
			out[i] = a[i]
		} else {
			out[i] = b[i]
		}
	}
}

// coalesceKernel takes each row from the first argument that is neither null nor an empty string, else from
// the first argument. It covers arguments all of the result's type; nil otherwise.
func coalesceKernel(args []Expr, t column.Type) Expr {
	for _, a := range args {
		if a.Type() != t {
			return nil
		}
	}
	return &kernel{args: args, t: t, run: func(n int, in []*column.Vector) *column.Vector {
		out := newOut(t, n)
		nulls := make([]column.Bitmap, len(in))
		for j, v := range in {
			nulls[j] = nullWords(v, n)
		}
		var res column.Bitmap
		switch {
		case t == column.Real:
			res = coalesceInto(vals(in, func(v *column.Vector) []float64 { return v.Reals[:n] }), nulls, false, out.Reals)
		case t == column.Bool:
			res = coalesceInto(vals(in, func(v *column.Vector) []bool { return v.Bools[:n] }), nulls, false, out.Bools)
		case isInts(t):
			res = coalesceInto(vals(in, func(v *column.Vector) []int64 { return v.Ints[:n] }), nulls, false, out.Ints)
		default:
			res = coalesceInto(vals(in, func(v *column.Vector) []string { return v.Strs[:n] }), nulls, true, out.Strs)
		}
		setNulls(out, res)
		return out
	}}
}

func vals[T any](in []*column.Vector, f func(*column.Vector) []T) [][]T {
	out := make([][]T, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// coalesceInto fills out and returns the rows left null (no good argument, and the first one null). With text,
// the zero value (an empty string) is not good either.
func coalesceInto[T int64 | float64 | string | bool](vals [][]T, nulls []column.Bitmap, text bool, out []T) column.Bitmap {
	var zero T
	var res column.Bitmap
	for i := range out {
		j := 0
		for j < len(vals) && (nulls[j].Get(i) || (text && vals[j][i] == zero)) {
			j++
		}
		switch {
		case j < len(vals):
			out[i] = vals[j][i]
		case nulls[0].Get(i):
			res.Set(i)
		default:
			out[i] = vals[0][i]
		}
	}
	return res
}

// inKernel tests membership in a constant set, as Compare would find it: a long exactly against longs and as
// float64 against reals, a real as float64 against any number, a string or datetime or timespan exactly. A
// null is in no set. Other operand types (bools, dynamic) get nil.
func inKernel(x Expr, set []column.Value, not bool) Expr {
	t := x.Type()
	ints := map[int64]bool{}
	strs := map[string]bool{}
	reals := map[float64]bool{}
	nan := false
	for _, v := range set {
		switch {
		case v.Null:
		case t == column.Real && v.Type.IsNumeric():
			f := v.Float()
			nan = nan || math.IsNaN(f)
			reals[f] = true
		case t == column.Long && v.Type == column.Real:
			reals[v.Real] = true
		case isInts(t) && v.Type == t:
			ints[v.Int] = true
		case t == column.String && v.Type == t:
			strs[v.Str] = true
		default:
			return nil
		}
	}
	if !isInts(t) && t != column.Real && t != column.String {
		return nil
	}
	return newKernel(column.Bool, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(column.Bool, n)
		o := out.Bools
		switch v := in[0]; {
		case t == column.Real:
			for i, f := range v.Reals[:n] {
				o[i] = reals[f] || (nan && f != f)
			}
		case isInts(t) && len(reals) > 0:
			for i, k := range v.Ints[:n] {
				o[i] = ints[k] || reals[float64(k)]
			}
		case isInts(t):
			for i, k := range v.Ints[:n] {
				o[i] = ints[k]
			}
		default:
			for i, s := range v.Strs[:n] {
				o[i] = strs[s]
			}
		}
		eachSet(nullWords(in[0], n), func(i int) { o[i] = false })
		if not {
			for i, b := range o {
				o[i] = !b
			}
		}
		return out
	}, x)
}
