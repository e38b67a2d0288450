package keymap

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestDenseMatchesInts pushes the same keys into a Dense map and an Ints map — ranges at zero, negative and
// at both ends of int64, ties, and unique builds that keep a key's first value — and checks that every Push
// and PushTo answers alike and that Find, FindEach and FindTo agree on every key of the range, just outside it
// and far away.
func TestDenseMatchesInts(t *testing.T) {
	for _, lo := range []int64{0, -500, math.MinInt64, math.MaxInt64 - 299} {
		for _, keep := range []bool{false, true} {
			for seed := range uint64(4) {
				r := rand.New(rand.NewPCG(seed, uint64(lo)))
				span := int64(300)
				n := 40 + r.IntN(200)
				keys := make([]int64, n)
				vals := make([]int32, n)
				for i := range keys {
					keys[i], vals[i] = lo+r.Int64N(span), int32(i)
				}
				hi := slices.Max(keys)
				name := fmt.Sprintf("lo=%d keep=%v seed=%d", lo, keep, seed)
				if !DenseFits(n, slices.Min(keys), hi) {
					t.Fatalf("%s: %d keys over %d values should fit a dense map", name, n, span)
				}
				d, o := NewDense(slices.Min(keys), hi), NewInts(n)
				for i, k := range keys {
					if got, want := d.Push(k, vals[i], keep), o.Push(k, vals[i], keep); got != want {
						t.Fatalf("%s: Push(%d, %d) = %d, Ints says %d", name, k, vals[i], got, want)
					}
				}
				batch := NewDense(slices.Min(keys), hi)
				prev := make([]int32, n)
				batch.PushTo(keys, vals, keep, prev)
				for i, k := range keys {
					if want := lastPush(keys[:i+1], vals[:i+1], keep); prev[i] != want {
						t.Fatalf("%s: PushTo gave key %d's row %d previous %d, Push %d", name, k, i, prev[i], want)
					}
				}
				if d.Len() != o.Len() || batch.Len() != o.Len() {
					t.Fatalf("%s: Len %d and %d, Ints %d", name, d.Len(), batch.Len(), o.Len())
				}
				var probe []int64
				for x := lo - 3; ; x++ {
					probe = append(probe, x)
					if x == hi+3 {
						break
					}
				}
				probe = append(probe, math.MinInt64, math.MaxInt64, 0, -1, lo^math.MinInt64)
				each, to, at := make([]int32, len(probe)), make([]int32, len(probe)), make([]int32, len(probe))
				for j := range at {
					at[j] = int32(len(probe) - 1 - j)
				}
				d.FindEach(probe, each)
				d.FindTo(probe, at, to)
				for j, k := range probe {
					want := o.Find(k)
					if got := d.Find(k); got != want || each[j] != want || to[at[j]] != want {
						t.Fatalf("%s: Find(%d) = %d, FindEach %d, FindTo %d; Ints %d", name, k, got, each[j], to[at[j]], want)
					}
				}
			}
		}
	}
}

// lastPush is what the last of keys' pushes into an Ints map returns: the oracle of PushTo's prev.
func lastPush(keys []int64, vals []int32, keep bool) int32 {
	m := NewInts(len(keys))
	var old int32
	for i, k := range keys {
		old = m.Push(k, vals[i], keep)
	}
	return old
}

// TestNewIntMapChoosesByRange checks the choice and its memory: a dense map when the range costs no more than
// open addressing, never more memory than Ints would take, and Ints for a sparse range, an empty one or one
// spanning all of int64.
func TestNewIntMapChoosesByRange(t *testing.T) {
	cases := []struct {
		n      int
		lo, hi int64
		dense  bool
	}{
		{1000, 0, 999, true},
		{1000, -7, 992, true},
		{1000, 0, IntsBytes(1000)/denseEntryBytes - 1, true},
		{1000, 0, IntsBytes(1000) / denseEntryBytes, false},
		{1, 5, 5, true},
		{0, 1, 0, false}, // no key
		{1 << 20, math.MinInt64, math.MaxInt64, false},
		{100, math.MaxInt64 - 50, math.MaxInt64, true},
	}
	for _, c := range cases {
		m := NewIntMap(c.n, c.lo, c.hi)
		_, dense := m.(*Dense)
		if dense != c.dense || m.Bytes() != IntMapBytes(c.n, c.lo, c.hi) {
			t.Fatalf("NewIntMap(%d, %d, %d): %s (%d bytes, IntMapBytes %d), want dense %v", c.n, c.lo, c.hi, m, m.Bytes(), IntMapBytes(c.n, c.lo, c.hi), c.dense)
		}
		if m.Bytes() > max(IntsBytes(c.n), DenseBytes(c.lo, c.lo)) {
			t.Fatalf("NewIntMap(%d, %d, %d) takes %d bytes, more than Ints' %d", c.n, c.lo, c.hi, m.Bytes(), IntsBytes(c.n))
		}
		// The reason explain prints names the same choice the constructor made.
		if why := IntMapWhy(c.n, c.lo, c.hi); strings.Contains(why, "a dense range") != dense {
			t.Fatalf("IntMapWhy(%d, %d, %d) = %q, but the map is %s", c.n, c.lo, c.hi, why, m)
		}
	}
}
