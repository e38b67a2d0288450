package skew

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// testIntKeys encodes a key as a tag byte and 8 little-endian bytes, as column.AppendIntKey does.
var testIntKeys = IntKeys{
	Encode: func(dst []byte, k int64) []byte { return binary.LittleEndian.AppendUint64(append(dst, 1), uint64(k)) },
	Decode: func(key string) (int64, bool) {
		if len(key) != 9 || key[0] != 1 {
			return 0, false
		}
		return int64(binary.LittleEndian.Uint64([]byte(key[1:]))), true
	},
}

// TestIntCounterMatchesByteCounter feeds the same keys to an int counter and, encoded, to a byte counter, and
// checks that every report agrees: totals, exactness, error bound, the keys above several thresholds with
// their counts, every key's count and estimate, and the keys Each lists. The inputs cover ties, one heavy key,
// Zipf skew, keys that differ only in their high bits, and more distinct keys than ExactKeys, where the
// sketch takes over from the exact counts.
func TestIntCounterMatchesByteCounter(t *testing.T) {
	type input struct {
		name string
		rows int
		key  func(r *rand.Rand, i int) int64
	}
	inputs := []input{
		{"empty", 0, nil},
		{"ties", 1000, func(r *rand.Rand, i int) int64 { return int64(i % 10) }},
		{"one heavy", 5000, func(r *rand.Rand, i int) int64 {
			if r.IntN(3) == 0 {
				return -7
			}
			return r.Int64N(2000) - 1000
		}},
		{"zipf", 40_000, func(r *rand.Rand, i int) int64 { return int64(zipf(r, 5000)) }},
		{"high bits", 20_000, func(r *rand.Rand, i int) int64 { return r.Int64N(3000) << 44 }},
		{"past exact keys", 3 * ExactKeys, func(r *rand.Rand, i int) int64 {
			switch x := r.IntN(100); {
			case x < 4:
				return int64(x) << 40
			case x < 10:
				return int64(zipf(r, 100))
			}
			return r.Int64()
		}},
		{"just past exact keys", ExactKeys + 2, func(r *rand.Rand, i int) int64 { return int64(i % (ExactKeys + 1)) }},
	}
	for n, in := range inputs {
		seed := uint64(n + 1)
		t.Run(in.name, func(t *testing.T) {
			t.Logf("seed=%d", seed)
			r := rand.New(rand.NewPCG(seed, seed))
			ic, bc := NewIntCounter(testIntKeys), NewCounter()
			var buf []byte
			for i := range in.rows {
				k := in.key(r, i)
				ic.AddInt(k)
				buf = testIntKeys.Encode(buf[:0], k)
				bc.AddBytes(buf)
			}
			sameReports(t, ic, bc)
		})
	}
}

// zipf draws from 0..n-1 with weight 1/(k+1).
func zipf(r *rand.Rand, n int) int {
	return int(float64(n) * r.Float64() * r.Float64() * r.Float64())
}

func sameReports(t *testing.T, got, want *Counter) {
	t.Helper()
	if got.Total() != want.Total() || got.Exact() != want.Exact() || got.ErrorBound() != want.ErrorBound() {
		t.Fatalf("total %d exact %v bound %d; the byte counter: %d %v %d", got.Total(), got.Exact(), got.ErrorBound(),
			want.Total(), want.Exact(), want.ErrorBound())
	}
	for _, min := range []int64{1, 2, 3, 10, want.Total() / 100, want.Total() / 10} {
		if g, w := got.Above(min), want.Above(min); !slices.Equal(g, w) {
			t.Fatalf("Above(%d): %d items %.5v; the byte counter: %d items %.5v", min, len(g), g, len(w), w)
		}
	}
	collect := func(c *Counter) map[string]int64 {
		m := map[string]int64{}
		c.Each(func(k string, n int64) { m[k] = n })
		return m
	}
	each := collect(want)
	if g := collect(got); len(g) != len(each) {
		t.Fatalf("Each listed %d keys; the byte counter %d", len(g), len(each))
	}
	for k, n := range collect(got) {
		if each[k] != n {
			t.Fatalf("Each: key %x has %d rows; the byte counter %d", k, n, each[k])
		}
	}
	keys := []string{string(testIntKeys.Encode(nil, 123456789)), "", "not a key"}
	for k := range each {
		keys = append(keys, k)
	}
	for _, k := range keys {
		gc, ge := got.Count(k)
		wc, we := want.Count(k)
		if gc != wc || ge != we || got.Estimate(k) != want.Estimate(k) {
			t.Fatalf("key %x: count %d±%d estimate %g; the byte counter %d±%d %g", k, gc, ge, got.Estimate(k),
				wc, we, want.Estimate(k))
		}
	}
}
