package expr

import (
	"math/bits"
	"sync/atomic"

	"github.com/joinlab/joinlab/engine/column"
)

// A kernel computes a whole vector from its arguments' vectors in typed loops: no row is boxed into a
// column.Value, and the only branch per row is the operator's own. Nulls travel as bitmaps, combined a word
// at a time. A kernel never writes to its inputs (a column reference hands the input batch's vector itself)
// and always returns a fresh vector whose null rows hold the zero value, as column.Vector requires.
//
// Every kernel has a row-at-a-time twin, the rowFunc the compiler builds first and keeps only when no kernel
// covers the operand types (dynamic values, mostly). The twin is the oracle of the kernels' differential test.
type kernel struct {
	args []Expr
	t    column.Type
	run  func(n int, in []*column.Vector) *column.Vector
}

func (k *kernel) Type() column.Type { return k.t }

func (k *kernel) Refs(dst []int) []int {
	for _, a := range k.args {
		dst = a.Refs(dst)
	}
	return dst
}

func (k *kernel) Eval(b *column.Batch) *column.Vector { return k.evalSel(batchInput{b}, nil) }

func (k *kernel) evalSel(in Input, sel []int32) *column.Vector {
	var buf [3]*column.Vector
	args := buf[:0]
	for _, a := range k.args {
		args = append(args, a.evalSel(in, sel))
	}
	return k.run(rows(in, sel), args)
}

func newKernel(t column.Type, run func(n int, in []*column.Vector) *column.Vector, args ...Expr) Expr {
	return &kernel{args: args, t: t, run: run}
}

// constVector is a constant repeated over n rows. It is built once for the largest batch seen and shared by
// every later batch, read only, like an input column.
func constVector(cache *atomic.Pointer[column.Vector], v column.Value, n int) *column.Vector {
	if c := cache.Load(); c != nil && c.Len() >= n {
		if c.Len() == n {
			return c
		}
		return c.Slice(0, n)
	}
	size := max(n, 1024)
	out := column.NewVector(v.Type, size)
	for i := 0; i < size; i++ {
		out.AppendValue(v)
	}
	cache.Store(out)
	return out.Slice(0, n)
}

// newOut returns a vector of n zero rows of type t, its values ready to be written by index.
func newOut(t column.Type, n int) *column.Vector {
	v := &column.Vector{Type: t}
	switch t {
	case column.Bool:
		v.Bools = make([]bool, n)
	case column.Long, column.DateTime, column.Timespan:
		v.Ints = make([]int64, n)
	case column.Real:
		v.Reals = make([]float64, n)
	default:
		v.Strs = make([]string, n)
	}
	v.SetLen(n)
	return v
}

// words is the number of bitmap words that cover n rows.
func words(n int) int { return (n + 63) >> 6 }

// nullWords returns v's null bitmap as exactly the words covering n rows, bits past n clear, or nil when none of
// those rows is null. The result may share v's storage: read it, never write it.
func nullWords(v *column.Vector, n int) column.Bitmap {
	if v.Nulls == nil {
		return nil
	}
	w, tail := words(n), uint(n)&63
	b := v.Nulls
	if len(b) < w || (tail != 0 && b[w-1]>>tail != 0) {
		c := make(column.Bitmap, w)
		copy(c, b)
		if tail != 0 {
			c[w-1] &= 1<<tail - 1
		}
		b = c
	}
	b = b[:w]
	for _, x := range b {
		if x != 0 {
			return b
		}
	}
	return nil
}

// union returns the rows set in a or in b (each as nullWords gives them), nil when neither has any. It may
// return a or b itself.
func union(a, b column.Bitmap) column.Bitmap {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := make(column.Bitmap, len(a))
	for i := range out {
		out[i] = a[i] | b[i]
	}
	return out
}

// eachSet calls f with the index of every set bit of b, in order.
func eachSet(b column.Bitmap, f func(i int)) {
	for w, x := range b {
		for x != 0 {
			f(w<<6 | bits.TrailingZeros64(x))
			x &= x - 1
		}
	}
}

// setNulls marks the rows of nulls null in out (on a copy, so out owns its bitmap) and zeroes their values.
func setNulls(out *column.Vector, nulls column.Bitmap) {
	if nulls == nil {
		return
	}
	out.Nulls = append(column.Bitmap(nil), nulls...)
	switch {
	case out.Ints != nil:
		eachSet(nulls, func(i int) { out.Ints[i] = 0 })
	case out.Reals != nil:
		eachSet(nulls, func(i int) { out.Reals[i] = 0 })
	case out.Bools != nil:
		eachSet(nulls, func(i int) { out.Bools[i] = false })
	case out.Strs != nil:
		eachSet(nulls, func(i int) { out.Strs[i] = "" })
	}
}

// floats returns a numeric vector's first n values as float64: a real vector's own slice, a long's converted.
func floats(v *column.Vector, n int) []float64 {
	if v.Type == column.Real {
		return v.Reals[:n]
	}
	out := make([]float64, n)
	for i, x := range v.Ints[:n] {
		out[i] = float64(x)
	}
	return out
}

// isInts reports whether values of type t are stored as int64.
func isInts(t column.Type) bool {
	return t == column.Long || t == column.DateTime || t == column.Timespan
}

// binaryKernel returns the kernel of l op r with result type t, or nil when none covers the operand types.
func binaryKernel(op string, l, r Expr, t column.Type) Expr {
	switch op {
	case "and", "or":
		return logicKernel(op == "and", l, r)
	case "+", "-", "*", "/", "%":
		return arithKernel(op, l, r, t)
	case "==", "!=", "<", "<=", ">", ">=":
		return compareKernel(op, l, r)
	}
	return stringKernel(op, l, r)
}

// betweenKernel is x between (lo .. hi) as x >= lo and x <= hi, which agrees with between's own rule (null
// when anything is null) only when both bounds are non-null constants; nil otherwise.
func betweenKernel(x, lo, hi Expr, not bool) Expr {
	a, okA := lo.(*Const)
	b, okB := hi.(*Const)
	if !okA || !okB || a.V.Null || b.V.Null {
		return nil
	}
	if k := betweenRange(x, a, b, not); k != nil { // one range test for an int operand: kernel_range.go
		return k
	}
	ge, le := compareKernel(">=", x, lo), compareKernel("<=", x, hi)
	if ge == nil || le == nil {
		return nil
	}
	k := logicKernel(true, ge, le)
	if not {
		k = notKernel(k)
	}
	return k
}

// fold replaces an expression that reads no column by the constant it computes.
func fold(e Expr) Expr {
	switch e.(type) {
	case *Const, *ColumnRef:
		return e
	}
	if len(e.Refs(nil)) > 0 {
		return e
	}
	return &Const{V: e.Eval(&column.Batch{N: 1}).Value(0)}
}
