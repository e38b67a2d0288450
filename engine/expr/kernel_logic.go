package expr

import (
	"math"
	"unsafe"

	"github.com/joinlab/joinlab/engine/column"
)

// logicKernel is three-valued and/or over two bools, as logical defines it; nil for a dynamic operand.
func logicKernel(and bool, l, r Expr) Expr {
	if l.Type() != column.Bool || r.Type() != column.Bool {
		return nil
	}
	if and {
		if k := rangeAnd(l, r); k != nil {
			return k
		}
	}
	return &logic{and: and, l: l, r: r}
}

// logic is `l and r` or `l or r` over bools. It evaluates r only at the rows l leaves undecided — true or null
// for and, false or null for or — so a selective left operand saves its right one's work (the left operand of
// a conjunction should be the cheaper or the more selective; the planner does not reorder them). Under
// Select it is a filter's conjunction or disjunction of selections (selectRows).
type logic struct {
	and  bool
	l, r Expr
}

func (e *logic) Type() column.Type                   { return column.Bool }
func (e *logic) Refs(dst []int) []int                { return e.r.Refs(e.l.Refs(dst)) }
func (e *logic) Eval(b *column.Batch) *column.Vector { return e.evalSel(batchInput{b}, nil) }

func (e *logic) evalSel(in Input, sel []int32) *column.Vector {
	n := rows(in, sel)
	x := e.l.evalSel(in, sel)
	xn := nullWords(x, n)
	// open lists the rows x leaves undecided; a null row holds false, which or leaves open already.
	var open []int32
	for i, v := range x.Bools[:n] {
		if v == e.and || (e.and && xn.Get(i)) {
			open = append(open, int32(i))
		}
	}
	if dense(len(open), n) {
		return e.combine(x, e.r.evalSel(in, sel), n)
	}
	// The decided rows are not null and already hold the result; the open ones combine with r's value there.
	out := newOut(column.Bool, n)
	o := out.Bools
	copy(o, x.Bools[:n])
	if len(open) == 0 {
		return out
	}
	y := e.r.evalSel(in, within(sel, open))
	var nulls column.Bitmap
	for k, p := range open {
		i := int(p)
		if v, null := e.row(x.Bools[i], xn.Get(i), y.Bools[k], y.IsNull(k)); null {
			o[i] = false
			nulls.Set(i)
		} else {
			o[i] = v
		}
	}
	setNulls(out, nulls)
	return out
}

// row is the three-valued result of one row: the value, or null.
func (e *logic) row(x, xNull, y, yNull bool) (v, null bool) {
	if e.and {
		if (!xNull && !x) || (!yNull && !y) {
			return false, false // false and anything is false
		}
		return true, xNull || yNull
	}
	if (!xNull && x) || (!yNull && y) {
		return true, false // true or anything is true
	}
	return false, xNull || yNull
}

// combine is the result at every one of n rows from both operands' values there. The plain && or || over the
// values is right wherever neither side is null, so only null rows are revisited.
func (e *logic) combine(xv, yv *column.Vector, n int) *column.Vector {
	x, y := xv.Bools[:n], yv.Bools[:n]
	out := newOut(column.Bool, n)
	o := out.Bools[:len(x)]
	if e.and {
		for i := range x {
			o[i] = x[i] && y[i]
		}
	} else {
		for i := range x {
			o[i] = x[i] || y[i]
		}
	}
	xn, yn := nullWords(xv, n), nullWords(yv, n)
	var nulls column.Bitmap
	eachSet(union(xn, yn), func(i int) {
		v, null := e.row(x[i], xn.Get(i), y[i], yn.Get(i))
		o[i] = v && !null
		if null {
			nulls.Set(i)
		}
	})
	setNulls(out, nulls)
	return out
}

// selectRows is Select over a conjunction (the right operand selects among the left one's rows) or a
// disjunction (the right operand selects among the rows the left one dropped, and the two are merged).
func (e *logic) selectRows(in Input, sel []int32) []int32 {
	kept := Select(e.l, in, sel)
	if e.and {
		if len(kept) == 0 {
			return kept
		}
		return Select(e.r, in, kept)
	}
	rest := without(sel, in.Len(), kept)
	if len(rest) == 0 {
		return kept
	}
	return merge(kept, Select(e.r, in, rest))
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
			pickReals(take, floats(a, n), floats(b, n), out.Reals)
		case t == column.Bool:
			pickBools(take, a.Bools[:n], b.Bools[:n], out.Bools)
		case isInts(t):
			pickInts(take, a.Ints[:n], b.Ints[:n], out.Ints)
		default:
			pickStrs(take, a.Strs[:n], b.Strs[:n], out.Strs)
		}
		an, bn := nullWords(a, n), nullWords(b, n)
		if an == nil && bn == nil {
			return out
		}
		// A row is null when the branch it takes is. Null rows are few, so visit only those.
		nulls := make(column.Bitmap, words(n))
		eachSet(an, func(i int) { nulls[i>>6] |= uint64(b2u(take[i])) << (uint(i) & 63) })
		eachSet(bn, func(i int) { nulls[i>>6] |= uint64(b2u(!take[i])) << (uint(i) & 63) })
		for _, x := range nulls {
			if x != 0 {
				setNulls(out, nulls)
				break
			}
		}
		return out
	}, cond, then, otherwise)
}

// The pick functions set out[i] to a[i] where take[i], else to b[i]. They load both values and choose with
// a mask or a conditional move (CMOV natively, select under wasm), never a branch: the condition is data, so
// a branch on it mispredicts on about every other row of a mixed column, which costs more than the load it
// saves.

func pickInts(take []bool, a, b, out []int64) {
	a, b, out = a[:len(take)], b[:len(take)], out[:len(take)]
	for i, t := range take {
		x, y := a[i], b[i]
		out[i] = y ^ (x^y)&-int64(b2u(t))
	}
}

func pickReals(take []bool, a, b, out []float64) {
	a, b, out = a[:len(take)], b[:len(take)], out[:len(take)]
	for i, t := range take {
		x, y := math.Float64bits(a[i]), math.Float64bits(b[i])
		out[i] = math.Float64frombits(y ^ (x^y)&-uint64(b2u(t)))
	}
}

func pickBools(take []bool, a, b, out []bool) {
	a, b, out = a[:len(take)], b[:len(take)], out[:len(take)]
	for i, t := range take {
		m := b2u(t)
		out[i] = m&b2u(a[i])|(1-m)&b2u(b[i]) != 0
	}
}

// pickStrs chooses a string's pointer and length apart (each a conditional move): a string is two words,
// which the compiler does not move conditionally as one.
func pickStrs(take []bool, a, b, out []string) {
	a, b, out = a[:len(take)], b[:len(take)], out[:len(take)]
	for i, t := range take {
		x, y := a[i], b[i]
		p, l := unsafe.StringData(y), len(y)
		if t {
			p, l = unsafe.StringData(x), len(x)
		}
		out[i] = unsafe.String(p, l)
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
