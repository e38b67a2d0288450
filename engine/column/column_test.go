package column

import (
	"math/rand/v2"
	"testing"
)

// testVector makes a vector of n rows of type t, each null with probability nullRate. Its null bitmap ends at
// the last null row's word, as AppendNull leaves it, so it is often shorter than the rows.
func testVector(r *rand.Rand, t Type, n int, nullRate float64) *Vector {
	v := NewVector(t, n)
	for range n {
		if r.Float64() < nullRate {
			v.AppendNull()
			continue
		}
		switch t.storage() {
		case ints:
			v.AppendInt(r.Int64N(1000))
		case reals:
			v.AppendReal(r.Float64())
		case strs:
			v.AppendString(string(rune('a' + r.IntN(26))))
		case bools:
			v.AppendBool(r.IntN(2) == 0)
		}
	}
	return v
}

// sameRows reports whether got holds exactly the values want returns row by row (a null as Value.Null).
func sameRows(t *testing.T, what string, got *Vector, want func(j int) Value, n int) {
	t.Helper()
	if got.Len() != n {
		t.Fatalf("%s: %d rows, want %d", what, got.Len(), n)
	}
	anyNull := false
	for j := range n {
		g, w := got.Value(j), want(j)
		if g != w {
			t.Fatalf("%s: row %d is %+v, want %+v", what, j, g, w)
		}
		anyNull = anyNull || w.Null
	}
	for j := n; j < len(got.Nulls)*64; j++ {
		if got.Nulls.Get(j) {
			t.Fatalf("%s: null bit %d set past the %d rows", what, j, n)
		}
	}
	if !anyNull && got.Nulls != nil {
		t.Fatalf("%s: a null bitmap with no null row", what)
	}
}

// TestGatherSliceAppendMatchRows checks Gather, Slice and AppendVector, which handle null bitmaps a word at a
// time, against the same rows read one at a time, over every storage, null rates from none to all, lengths
// around word boundaries, and gathers with -1 (null-extending) indices, whose rows hold the zero value.
func TestGatherSliceAppendMatchRows(t *testing.T) {
	const seed = 7
	t.Logf("seed=%d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	for _, typ := range []Type{Long, Real, String, Bool} {
		for _, rate := range []float64{0, 0.05, 0.5, 1} {
			for _, n := range []int{0, 1, 63, 64, 65, 130, 200} {
				v := testVector(r, typ, n, rate)
				null := Value{Type: typ, Null: true}
				for _, m := range []int{0, 1, 64, 100, 129} {
					idx := make([]int32, m)
					for j := range idx {
						idx[j] = -1
						if n > 0 && r.IntN(4) != 0 {
							idx[j] = int32(r.IntN(n))
						}
					}
					got := v.Gather(idx)
					sameRows(t, "gather", got, func(j int) Value {
						if idx[j] < 0 {
							return null
						}
						return v.Value(int(idx[j]))
					}, m)
					for j, i := range idx { // a null-extended row holds the zero value, which kernels may read
						if i < 0 && typ == Long && got.Ints[j] != 0 {
							t.Fatalf("gather: row %d, null-extended, holds %d", j, got.Ints[j])
						}
					}
				}
				for range 5 {
					lo := r.IntN(n + 1)
					hi := lo + r.IntN(n-lo+1)
					sameRows(t, "slice", v.Slice(lo, hi), func(j int) Value { return v.Value(lo + j) }, hi-lo)
				}
				base := testVector(r, typ, r.IntN(70), 0.3)
				head := base.Len()
				want := append([]Value(nil), rowsOf(base)...)
				base.AppendVector(v)
				want = append(want, rowsOf(v)...)
				sameRows(t, "append", base, func(j int) Value { return want[j] }, head+n)
			}
		}
	}
}

func rowsOf(v *Vector) []Value {
	out := make([]Value, v.Len())
	for i := range out {
		out[i] = v.Value(i)
	}
	return out
}
