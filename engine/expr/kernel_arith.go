package expr

import (
	"math"

	"github.com/joinlab/joinlab/engine/column"
)

// arithKernel computes l op r of result type t (as arithmeticType gave it) in typed loops, or returns nil when
// an operand is dynamic. Longs, datetimes and timespans compute as int64 and wrap on overflow; a long divided
// or taken modulo by zero is null. Anything with a real computes as float64; a timespan scaled by a real is
// computed so and truncated back to nanoseconds.
func arithKernel(op string, l, r Expr, t column.Type) Expr {
	lt, rt := l.Type(), r.Type()
	switch {
	case t == column.Dynamic:
		return nil
	case t == column.Real:
		return newKernel(t, func(n int, in []*column.Vector) *column.Vector {
			out := newOut(t, n)
			realLoop(op, floats(in[0], n), floats(in[1], n), out.Reals)
			setNulls(out, union(nullWords(in[0], n), nullWords(in[1], n)))
			return out
		}, l, r)
	case lt == column.Real || rt == column.Real:
		return newKernel(t, func(n int, in []*column.Vector) *column.Vector {
			out := newOut(t, n)
			v := make([]float64, n)
			realLoop(op, floats(in[0], n), floats(in[1], n), v)
			for i, x := range v {
				out.Ints[i] = int64(x)
			}
			setNulls(out, union(nullWords(in[0], n), nullWords(in[1], n)))
			return out
		}, l, r)
	}
	if v, ok := constDivisor(r); ok && (op == "/" || op == "%") && isInts(lt) {
		return divideKernel(op, l, v, t)
	}
	return newKernel(t, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(t, n)
		byZero := intLoop(op, in[0].Ints[:n], in[1].Ints[:n], out.Ints)
		setNulls(out, union(union(nullWords(in[0], n), nullWords(in[1], n)), byZero))
		return out
	}, l, r)
}

// realLoop sets out[i] = x[i] op y[i].
func realLoop(op string, x, y, out []float64) {
	if sumLoop(op, x, y, out) {
		return
	}
	y, out = y[:len(x)], out[:len(x)]
	if op == "/" {
		for i := range x {
			out[i] = x[i] / y[i]
		}
		return
	}
	for i := range x {
		out[i] = math.Mod(x[i], y[i])
	}
}

// intLoop sets out[i] = x[i] op y[i] and returns the rows divided by zero (nil when none), which are null.
func intLoop(op string, x, y, out []int64) column.Bitmap {
	if sumLoop(op, x, y, out) {
		return nil
	}
	y, out = y[:len(x)], out[:len(x)]
	var zero column.Bitmap
	for i := range x {
		switch {
		case y[i] == 0:
			if zero == nil {
				zero = make(column.Bitmap, words(len(x)))
			}
			zero.Set(i)
		case op == "/":
			out[i] = x[i] / y[i]
		default:
			out[i] = x[i] % y[i]
		}
	}
	return zero
}

// sumLoop sets out[i] = x[i] op y[i] for +, - and *, the operators that are the same loop for longs (wrapping)
// and reals, and reports false for any other.
func sumLoop[T int64 | float64](op string, x, y, out []T) bool {
	y, out = y[:len(x)], out[:len(x)]
	switch op {
	case "+":
		for i := range x {
			out[i] = x[i] + y[i]
		}
	case "-":
		for i := range x {
			out[i] = x[i] - y[i]
		}
	case "*":
		for i := range x {
			out[i] = x[i] * y[i]
		}
	default:
		return false
	}
	return true
}

// negKernel is unary minus over a long, real or timespan; nil for a dynamic operand.
func negKernel(x Expr) Expr {
	t := x.Type()
	if t == column.Dynamic {
		return nil
	}
	return newKernel(t, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(t, n)
		if t == column.Real {
			for i, v := range in[0].Reals[:n] {
				out.Reals[i] = -v
			}
		} else {
			for i, v := range in[0].Ints[:n] {
				out.Ints[i] = -v
			}
		}
		setNulls(out, nullWords(in[0], n))
		return out
	}, x)
}
