package expr

import (
	"math/bits"

	"github.com/joinlab/joinlab/engine/column"
)

// A divisor divides int64s by one constant with a multiply instead of a division instruction.
//
// `x % 3`, `x / 1000` and `bin(ts, 1h)` divide every row by the same number. A 64-bit division takes 10 to 40
// cycles and does not pipeline well; under js/wasm it is also guarded for zero and overflow. Dividing by a
// constant d ≥ 2 is instead (Granlund and Montgomery; the "branchfree" form of libdivide) a multiply by a
// precomputed 65-bit reciprocal, kept as its low 64 bits m:
//
//	q = mulhi(m, n);  t = ((n - q) >> 1) + q;  n / d = t >> shift        (unsigned n, n < 2^64)
//
// with m = floor(2^(64+l+1) / d) + 1 - 2^64 and shift = l for l = floor(log2 d) when d is not a power of two,
// and m = 0, shift = log2(d) - 1 when it is, so one formula with no branch serves every divisor. The rounding
// error of m is below 2^-64 of a quotient, too small to cross an integer for any n < 2^64 (the proof is
// Granlund–Montgomery's Theorem 4.2). Signed operands divide their magnitudes and put the signs back, still
// with no branch: Go's (and KQL's) truncated quotient takes the sign of x·d, the remainder the sign of x.
// Divisors 1 and -1 are the identity and a negation, handled before a divisor is made.
type divisor struct {
	d     int64  // the divisor itself (|d| ≥ 2)
	ud    uint64 // |d|
	m     uint64 // the reciprocal's low 64 bits
	shift uint   // the final shift
	neg   int64  // -1 when d < 0, else 0
}

// newDivisor prepares division by d; ok is false for -1, 0 and 1, which take no reciprocal.
func newDivisor(d int64) (v divisor, ok bool) {
	if d >= -1 && d <= 1 {
		return divisor{}, false
	}
	ud := uint64(d)
	neg := d >> 63
	if neg != 0 {
		ud = -ud // |MinInt64| is 2^63, which uint64 holds
	}
	l := uint(63 - bits.LeadingZeros64(ud))
	v = divisor{d: d, ud: ud, neg: neg}
	if ud&(ud-1) == 0 {
		v.shift = l - 1
		return v, true
	}
	// floor(2^(64+l) / ud), whose high word 2^l is below ud as Div64 needs; then doubled, rounded, plus one.
	m, rem := bits.Div64(1<<l, 0, ud)
	m += m
	if twice := rem + rem; twice >= ud || twice < rem {
		m++
	}
	v.m, v.shift = m+1, l
	return v, true
}

// The loops below copy the divisor's fields into locals: a struct of five words is not kept in registers, and
// under js/wasm each read of it would be a load from linear memory.

// magnitudeQuo is the step every loop shares: n's magnitude a, |n| / |d| by the reciprocal m and shift, and n's
// sign as a mask s (-1 when n < 0, else 0). Small enough to inline, so the loops make no call per row.
func magnitudeQuo(n int64, m uint64, shift uint) (a, q uint64, s int64) {
	s = n >> 63
	a = uint64((n ^ s) - s)
	hi, _ := bits.Mul64(m, a)
	return a, (((a - hi) >> 1) + hi) >> (shift & 63), s
}

// divLoop sets out[i] = x[i] / d, truncated toward zero as Go's operator is (MinInt64 / -1 never occurs: |d| ≥ 2).
func (v divisor) divLoop(x, out []int64) {
	out = out[:len(x)]
	m, shift, neg := v.m, v.shift, v.neg
	for i, n := range x {
		_, q, s := magnitudeQuo(n, m, shift)
		s ^= neg
		out[i] = (int64(q) ^ s) - s
	}
}

// modLoop sets out[i] = x[i] % d, which has x[i]'s sign, as Go's operator does.
func (v divisor) modLoop(x, out []int64) {
	out = out[:len(x)]
	m, shift, ud := v.m, v.shift, v.ud
	for i, n := range x {
		a, q, s := magnitudeQuo(n, m, shift)
		r := int64(a - q*ud)
		out[i] = (r ^ s) - s
	}
}

// floorLoop sets out[i] to x[i] rounded down to a multiple of d > 0 (bin's rule): the truncated quotient,
// one less when the remainder is negative.
func (v divisor) floorLoop(x, out []int64) {
	out = out[:len(x)]
	m, shift, d := v.m, v.shift, v.d
	for i, n := range x {
		_, uq, s := magnitudeQuo(n, m, shift)
		q := (int64(uq) ^ s) - s
		q -= int64(uint64(n-q*d) >> 63)
		out[i] = q * d
	}
}

// constDivisor is the divisor of r when r is a non-null int64 constant other than -1, 0 and 1.
func constDivisor(r Expr) (divisor, bool) {
	c, ok := r.(*Const)
	if !ok || c.V.Null || !isInts(c.V.Type) {
		return divisor{}, false
	}
	return newDivisor(c.V.Int)
}

// divideKernel is l / d or l % d for an int64 l and a constant divisor (constDivisor): the loops above, l's
// nulls carried. Nothing is divided by zero, so no row is null that l does not make so.
func divideKernel(op string, l Expr, v divisor, t column.Type) Expr {
	return newKernel(t, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(t, n)
		if op == "/" {
			v.divLoop(in[0].Ints[:n], out.Ints)
		} else {
			v.modLoop(in[0].Ints[:n], out.Ints)
		}
		setNulls(out, nullWords(in[0], n))
		return out
	}, l)
}
