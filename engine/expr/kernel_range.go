package expr

import (
	"math"

	"github.com/joinlab/joinlab/engine/column"
)

// intRange is the most common filter: an int-typed operand (a long, datetime or timespan) against constants
// of its own type — x < 500, ts >= datetime(…), d == 3, x != 0, x between (100 .. 200). Each is a test of x
// against one range [lo, hi] (x != c and !between are its complement, out), made as one unsigned compare:
// uint64(x-lo) <= uint64(hi-lo) holds exactly when lo <= x <= hi. As a value it is a bool vector like the
// comparison kernels'; under a filter (Select) it lists the rows it keeps directly, from the operand's values,
// with no bool vector in between — and, for a column of the batch, no copy of the column at the rows of a
// selection, which it reads in place.
//
// Nulls follow the comparison it stands for (nullComparison): x == c is false on a null x and x != c true;
// the order comparisons and between are null. Select's direct loop takes a null row by that rule too.
//
// Two ranges over one column joined by and (k > a and k < b, a window of timestamps) are one range: their
// intersection (rangeAnd), tested once a row.
type intRange struct {
	x      Expr
	lo, hi int64
	out    bool // the complement: != and !between
	// onNull is a null operand's value: 0 null, -1 false, 1 true.
	onNull int8
}

// newIntRange returns the range test of x op c (c a non-null constant of x's int type), or nil when x is not
// of an int type, c is not such a constant, or the range is empty (x < MinInt64: left to the general kernel).
func newIntRange(op string, x Expr, c *Const) Expr {
	if !isInts(x.Type()) || c.V.Null || c.V.Type != x.Type() {
		return nil
	}
	v := c.V.Int
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	r := &intRange{x: x}
	switch op {
	case "==":
		lo, hi, r.onNull = v, v, -1
	case "!=":
		lo, hi, r.out, r.onNull = v, v, true, 1
	case "<":
		if v == math.MinInt64 {
			return nil
		}
		hi = v - 1
	case "<=":
		hi = v
	case ">":
		if v == math.MaxInt64 {
			return nil
		}
		lo = v + 1
	case ">=":
		lo = v
	default:
		return nil
	}
	r.lo, r.hi = lo, hi
	return r
}

// compareConst is compareKernel's range test for an int operand against a constant on either side; nil when
// the comparison is not one.
func compareConst(op string, l, r Expr) Expr {
	if c, ok := r.(*Const); ok {
		return newIntRange(op, l, c)
	}
	if c, ok := l.(*Const); ok {
		return newIntRange(Mirror(op), r, c)
	}
	return nil
}

// betweenRange is x between (lo .. hi) (or !between) as one range test, when x is of an int type and both
// bounds are non-null constants of its type with lo <= hi; nil otherwise.
func betweenRange(x Expr, lo, hi *Const, not bool) Expr {
	a, ok := newIntRange(">=", x, lo).(*intRange)
	if !ok {
		return nil
	}
	b, ok := newIntRange("<=", x, hi).(*intRange)
	if !ok || a.lo > b.hi {
		return nil
	}
	return &intRange{x: x, lo: a.lo, hi: b.hi, out: not}
}

func (e *intRange) Type() column.Type                   { return column.Bool }
func (e *intRange) Refs(dst []int) []int                { return e.x.Refs(dst) }
func (e *intRange) Eval(b *column.Batch) *column.Vector { return e.evalSel(batchInput{b}, nil) }

func (e *intRange) evalSel(in Input, sel []int32) *column.Vector {
	v := e.x.evalSel(in, sel)
	n := rows(in, sel)
	out := newOut(column.Bool, n)
	lo, span, flip := e.lo, uint64(e.hi-e.lo), e.out
	bs := out.Bools
	for k, x := range v.Ints[:n] {
		bs[k] = (uint64(x-lo) <= span) != flip
	}
	if nulls := nullWords(v, n); nulls != nil {
		switch e.onNull {
		case 0:
			setNulls(out, nulls)
		default:
			eachSet(nulls, func(i int) { bs[i] = e.onNull > 0 })
		}
	}
	return out
}

// selectRows is Select over the range test: the rows of sel (every row when nil) it keeps, listed from the
// operand's values in a loop that writes every row and advances past the kept ones without a branch. A null
// operand row is kept when the test's null value is true (onNull), else not: its bit in the null bitmap joins
// the loop's test, still without a branch.
func (e *intRange) selectRows(in Input, sel []int32) ([]int32, bool) {
	n := rows(in, sel)
	lo, span, flip := e.lo, uint64(e.hi-e.lo), e.out
	out := make([]int32, n+1)
	j := 0
	if c, ok := e.x.(*ColumnRef); ok {
		if b, ok := in.(batchInput); ok && sel != nil { // the batch's column, read in place at the selection
			v := b.b.Cols[c.Index]
			xs := v.Ints
			if nulls := nullWords(v, v.Len()); nulls != nil {
				keepNull := uint64(b2u(e.onNull > 0))
				for _, r := range sel {
					out[j] = r
					j += int(rangeOrNull(xs[r], lo, span, flip, nulls[r>>6]>>(uint(r)&63)&1, keepNull))
				}
				return out[:j], true
			}
			for _, r := range sel {
				out[j] = r
				j += int(b2u((uint64(xs[r]-lo) <= span) != flip))
			}
			return out[:j], true
		}
	}
	v := e.x.evalSel(in, sel)
	xs := v.Ints[:n]
	if nulls := nullWords(v, n); nulls != nil {
		keepNull := uint64(b2u(e.onNull > 0))
		for k, x := range xs {
			out[j] = int32(k)
			if sel != nil {
				out[j] = sel[k]
			}
			j += int(rangeOrNull(x, lo, span, flip, nulls[k>>6]>>(uint(k)&63)&1, keepNull))
		}
		return out[:j], true
	}
	if sel == nil {
		for k, x := range xs {
			out[j] = int32(k)
			j += int(b2u((uint64(x-lo) <= span) != flip))
		}
		return out[:j], true
	}
	sel = sel[:n]
	for k, x := range xs {
		out[j] = sel[k]
		j += int(b2u((uint64(x-lo) <= span) != flip))
	}
	return out[:j], true
}

// rangeOrNull is 1 when a row is kept: x in range (flipped for a complement) and not null (null 0), or null
// when a null is kept (keepNull 1).
func rangeOrNull(x, lo int64, span uint64, flip bool, null, keepNull uint64) uint64 {
	in := uint64(b2u((uint64(x-lo) <= span) != flip))
	return in&^null | null&keepNull
}

// rangeAnd is l and r as one range when both are range tests of one column with the same null rule and no
// complement, and their ranges meet; nil otherwise. A null row is what either test makes it, so the one test
// agrees with the and of the two on every row.
func rangeAnd(l, r Expr) Expr {
	a, ok := l.(*intRange)
	b, ok2 := r.(*intRange)
	if !ok || !ok2 || a.out || b.out || a.onNull != b.onNull {
		return nil
	}
	ca, ok := a.x.(*ColumnRef)
	cb, ok2 := b.x.(*ColumnRef)
	if !ok || !ok2 || ca.Index != cb.Index {
		return nil
	}
	lo, hi := max(a.lo, b.lo), min(a.hi, b.hi)
	if lo > hi {
		return nil
	}
	return &intRange{x: a.x, lo: lo, hi: hi, onNull: a.onNull}
}
