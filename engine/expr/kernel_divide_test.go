package expr

import (
	"math"
	"math/rand"
	"testing"
)

// TestDivisorMatchesDivision checks the reciprocal loops against Go's own operators over the dividends where
// a reciprocal goes wrong if it is off by one anywhere (0, ±1, the int64 extremes, multiples of the divisor
// and their neighbours) and random ones of every magnitude, for divisors of every kind: small, powers of two
// and their neighbours, negative, MinInt64 and MaxInt64, and random ones of every bit length.
func TestDivisorMatchesDivision(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	divisors := []int64{2, 3, 5, 6, 7, 10, 60, 641, 1000, 1024, 1025, 1023, 3600e9, 86400e9, 7_919_003,
		math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 1 << 62, 1<<62 + 1, 1<<62 - 1, 1 << 32, 1<<32 + 1}
	for shift := 1; shift < 63; shift++ {
		divisors = append(divisors, rng.Int63()>>shift|1<<(62-shift))
	}
	for _, d := range divisors[:len(divisors):len(divisors)] {
		divisors = append(divisors, -d)
	}
	for _, d := range divisors {
		if d == 0 || d == 1 || d == -1 {
			continue
		}
		v, ok := newDivisor(d)
		if !ok {
			t.Fatalf("newDivisor(%d) declined", d)
		}
		x := []int64{0, 1, -1, 2, -2, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
		for _, k := range []int64{1, 2, 3, 1000, math.MaxInt64 / max(1, absInt(d))} {
			for _, delta := range []int64{-1, 0, 1} {
				x = append(x, k*d+delta, -k*d+delta)
			}
		}
		for range 300 {
			x = append(x, rng.Int63()>>rng.Intn(63)*(1-2*int64(rng.Intn(2))))
		}
		quo, rem, floor := make([]int64, len(x)), make([]int64, len(x)), make([]int64, len(x))
		v.divLoop(x, quo)
		v.modLoop(x, rem)
		if d > 0 {
			v.floorLoop(x, floor)
		}
		for i, n := range x {
			if quo[i] != n/d {
				t.Fatalf("%d / %d: got %d, want %d", n, d, quo[i], n/d)
			}
			if rem[i] != n%d {
				t.Fatalf("%d %% %d: got %d, want %d", n, d, rem[i], n%d)
			}
			if d > 0 {
				want := n / d
				if n%d != 0 && n < 0 {
					want--
				}
				if floor[i] != want*d {
					t.Fatalf("bin(%d, %d): got %d, want %d", n, d, floor[i], want*d)
				}
			}
		}
	}
	for _, d := range []int64{-1, 0, 1} {
		if _, ok := newDivisor(d); ok {
			t.Fatalf("newDivisor(%d) made a reciprocal", d)
		}
	}
}

func absInt(d int64) int64 {
	if d < 0 {
		return -d
	}
	return d
}
