package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
)

// rowsKernel applies set to every non-null row of x's vector, writing row i of out by index; set reports
// false for a row whose result is null. A null input row gives a null. This is the shape of the one-argument
// functions (casts, strlen, tolower): typed slices in and out, one call per row, nothing boxed.
func rowsKernel(x Expr, t column.Type, set func(in, out *column.Vector, i int) bool) Expr {
	return newKernel(t, func(n int, in []*column.Vector) *column.Vector {
		v := in[0]
		out := newOut(t, n)
		nulls := nullWords(v, n)
		var res column.Bitmap
		for i := 0; i < n; i++ {
			if nulls.Get(i) || !set(v, out, i) {
				res.Set(i)
			}
		}
		setNulls(out, res)
		return out
	}, x)
}

// callKernel returns the kernel of scalar function name over args with result type t, or nil when none
// covers these argument types.
func callKernel(name string, args []Expr, t column.Type) Expr {
	switch name {
	case "not":
		return notKernel(args[0])
	case "isnull", "isnotnull":
		return nullTestKernel(args[0], false, name == "isnotnull")
	case "isempty", "isnotempty":
		return nullTestKernel(args[0], true, name == "isnotempty")
	case "iff", "iif":
		return iffKernel(args[0], args[1], args[2], t)
	case "case":
		// iff nested from the right: case(p1, v1, p2, v2, e) is iff(p1, v1, iff(p2, v2, e)).
		e := args[len(args)-1]
		for i := len(args) - 3; i >= 0; i -= 2 {
			if e = iffKernel(args[i], args[i+1], e, t); e == nil {
				return nil
			}
		}
		return e
	case "coalesce":
		return coalesceKernel(args, t)
	case "strlen":
		return strlenKernel(args[0])
	case "tolower":
		return caseKernel(args[0], false)
	case "toupper":
		return caseKernel(args[0], true)
	case "strcat":
		return strcatKernel(args)
	case "bin", "floor":
		return binKernel(args[0], args[1], t)
	case "abs":
		return absKernel(args[0])
	case "round":
		return roundKernel(args)
	case "toint", "tolong", "todouble", "toreal", "tostring", "todatetime":
		return castKernel(args[0], t)
	}
	return nil
}

// binKernel rounds down to a multiple of the size, as binValue does: over reals when either side is real,
// else over int64 with floor division (by a reciprocal when the size is a constant: kernel_divide.go); a size
// of zero or less gives null.
func binKernel(x, size Expr, t column.Type) Expr {
	if t == column.Dynamic {
		return nil
	}
	real := x.Type() == column.Real || size.Type() == column.Real
	if v, ok := constDivisor(size); ok && v.d > 0 && !real {
		return newKernel(t, func(n int, in []*column.Vector) *column.Vector {
			out := newOut(t, n)
			v.floorLoop(in[0].Ints[:n], out.Ints)
			setNulls(out, nullWords(in[0], n))
			return out
		}, x)
	}
	return newKernel(t, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(t, n)
		var bad column.Bitmap
		if real {
			v, s := floats(in[0], n), floats(in[1], n)
			for i, x := range v {
				if s[i] <= 0 {
					bad.Set(i)
					continue
				}
				out.Reals[i] = math.Floor(x/s[i]) * s[i]
			}
		} else {
			v, s := in[0].Ints[:n], in[1].Ints[:n]
			for i, x := range v {
				d := s[i]
				if d <= 0 {
					bad.Set(i)
					continue
				}
				q := x / d
				if x%d != 0 && x < 0 {
					q--
				}
				out.Ints[i] = q * d
			}
		}
		nulls := union(nullWords(in[0], n), nullWords(in[1], n))
		if bad != nil {
			bad = append(bad, make(column.Bitmap, words(n)-len(bad))...)
			nulls = union(nulls, bad)
		}
		setNulls(out, nulls)
		return out
	}, x, size)
}

// absKernel is abs over a long (wrapping at the int64 minimum, as negation does) or a real, in loops with no
// branch and no call per row.
func absKernel(x Expr) Expr {
	t := x.Type()
	if t != column.Long && t != column.Real {
		return nil
	}
	return newKernel(t, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(t, n)
		if t == column.Long {
			for i, v := range in[0].Ints[:n] {
				m := v >> 63
				out.Ints[i] = (v ^ m) - m
			}
		} else {
			for i, v := range in[0].Reals[:n] {
				out.Reals[i] = math.Abs(v)
			}
		}
		setNulls(out, nullWords(in[0], n))
		return out
	}, x)
}

// numberCastKernel is tolong of a real (null for NaN and ±Inf) or of another int64-stored type, or toreal of
// one: typed loops, where rowsKernel calls a function per row.
func numberCastKernel(x Expr, t column.Type) Expr {
	from := x.Type()
	return newKernel(t, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(t, n)
		nulls := nullWords(in[0], n)
		switch {
		case t == column.Real:
			for i, v := range in[0].Ints[:n] {
				out.Reals[i] = float64(v)
			}
		case from == column.Real:
			var bad column.Bitmap
			for i, f := range in[0].Reals[:n] {
				out.Ints[i] = int64(f)
				if math.IsNaN(f) || math.IsInf(f, 0) {
					bad.Set(i)
				}
			}
			if bad != nil {
				bad = append(bad, make(column.Bitmap, words(n)-len(bad))...)
				nulls = union(nulls, bad)
			}
		default:
			copy(out.Ints, in[0].Ints[:n])
		}
		setNulls(out, nulls)
		return out
	}, x)
}

// roundKernel rounds a real half away from zero to a number of decimals; a long is already round.
func roundKernel(args []Expr) Expr {
	x := args[0]
	switch x.Type() {
	case column.Long:
		return x
	case column.Real:
	default:
		return nil
	}
	if len(args) == 1 {
		return rowsKernel(x, column.Real, func(in, out *column.Vector, i int) bool {
			out.Reals[i] = math.Round(in.Reals[i])
			return true
		})
	}
	return newKernel(column.Real, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(column.Real, n)
		d := in[1].Ints[:n]
		for i, v := range in[0].Reals[:n] {
			p := math.Pow(10, float64(d[i]))
			out.Reals[i] = math.Round(v*p) / p
		}
		setNulls(out, union(nullWords(in[0], n), nullWords(in[1], n)))
		return out
	}, x, args[1])
}

// castKernel converts typed values as toLong, toReal and the string and datetime casts do; a value of the
// target type passes through, and dynamic input is left to the row function.
func castKernel(x Expr, t column.Type) Expr {
	from := x.Type()
	switch {
	case from == t:
		return x
	case from == column.Dynamic:
		return nil
	}
	switch t {
	case column.Long:
		switch {
		case from == column.Real || isInts(from):
			return numberCastKernel(x, t)
		case from == column.Bool:
			return rowsKernel(x, t, func(in, out *column.Vector, i int) bool {
				if in.Bools[i] {
					out.Ints[i] = 1
				}
				return true
			})
		case from == column.String:
			return rowsKernel(x, t, func(in, out *column.Vector, i int) bool {
				s := strings.TrimSpace(in.Strs[i])
				if n, err := strconv.ParseInt(s, 10, 64); err == nil {
					out.Ints[i] = n
					return true
				}
				f, err := strconv.ParseFloat(s, 64)
				out.Ints[i] = int64(f)
				return err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
			})
		}
	case column.Real:
		switch {
		case isInts(from):
			return numberCastKernel(x, t)
		case from == column.Bool:
			return rowsKernel(x, t, func(in, out *column.Vector, i int) bool {
				if in.Bools[i] {
					out.Reals[i] = 1
				}
				return true
			})
		case from == column.String:
			return rowsKernel(x, t, func(in, out *column.Vector, i int) bool {
				f, err := strconv.ParseFloat(strings.TrimSpace(in.Strs[i]), 64)
				out.Reals[i] = f
				return err == nil
			})
		}
	case column.String:
		switch from {
		case column.Long:
			return rowsKernel(x, t, func(in, out *column.Vector, i int) bool {
				out.Strs[i] = strconv.FormatInt(in.Ints[i], 10)
				return true
			})
		case column.Real:
			return rowsKernel(x, t, func(in, out *column.Vector, i int) bool {
				out.Strs[i] = FormatReal(in.Reals[i])
				return true
			})
		case column.DateTime:
			return rowsKernel(x, t, func(in, out *column.Vector, i int) bool {
				out.Strs[i] = column.FormatDateTime(in.Ints[i])
				return true
			})
		case column.Timespan:
			return rowsKernel(x, t, func(in, out *column.Vector, i int) bool {
				out.Strs[i] = FormatTimespan(in.Ints[i])
				return true
			})
		case column.Bool:
			return rowsKernel(x, t, func(in, out *column.Vector, i int) bool {
				out.Strs[i] = strconv.FormatBool(in.Bools[i])
				return true
			})
		}
	case column.DateTime:
		if from == column.String {
			return rowsKernel(x, t, func(in, out *column.Vector, i int) bool {
				ns, ok := column.ParseDateTime(in.Strs[i])
				out.Ints[i] = ns
				return ok
			})
		}
	}
	return nil
}
