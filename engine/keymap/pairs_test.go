package keymap

import (
	"fmt"
	"math"
	"testing"
)

// pairCases are key sets of two int64s: one column constant (all the entropy in the other), both small, keys
// whose halves are swapped, and the int64 extremes.
func pairCases() map[string][][2]int64 {
	cases := map[string][][2]int64{}
	var constA, constB, small, swapped [][2]int64
	for i := range int64(2000) {
		constA = append(constA, [2]int64{7, i * 1000})
		constB = append(constB, [2]int64{i << 32, -1})
		small = append(small, [2]int64{i % 50, i / 50})
		if i < 1000 {
			swapped = append(swapped, [2]int64{i, i + 1}, [2]int64{i + 1, i})
		}
	}
	cases["first constant"], cases["second constant"], cases["small"], cases["swapped"] = constA, constB, small, swapped
	var ext [][2]int64
	for _, a := range []int64{0, -1, 1, math.MinInt64, math.MaxInt64} {
		for _, b := range []int64{0, -1, math.MinInt64, math.MaxInt64} {
			ext = append(ext, [2]int64{a, b})
		}
	}
	cases["extremes"] = ext
	return cases
}

// TestPairsFindsWhatWasPut grows a map a key at a time, as a summarize does, and finds every key with its
// value through Locate and FindEach, in the map and in every doubling of it; absent keys find -1.
func TestPairsFindsWhatWasPut(t *testing.T) {
	for name, keys := range pairCases() {
		m := &Pairs{}
		for i, k := range keys {
			s, v := m.Locate(k[0], k[1])
			if v >= 0 {
				t.Fatalf("%s: key %v found (%d) before it was put", name, k, v)
			}
			if m.Full() {
				m = m.Grown()
				s, _ = m.Locate(k[0], k[1])
			}
			m.Put(s, k[0], k[1], int32(i))
		}
		if m.Len() != len(keys) {
			t.Fatalf("%s: Len %d, want %d", name, m.Len(), len(keys))
		}
		for _, mm := range []*Pairs{m, m.Grown()} {
			as, bs := make([]int64, 0, 2*len(keys)), make([]int64, 0, 2*len(keys))
			for i, k := range keys {
				if _, v := mm.Locate(k[0], k[1]); v != int32(i) {
					t.Fatalf("%s: Locate%v = %d, want %d", name, k, v, i)
				}
				as, bs = append(as, k[0]), append(bs, k[1])
			}
			// Absent keys: each key with its second half changed to one no key of the set has.
			for _, k := range keys {
				as, bs = append(as, k[0]), append(bs, k[1]^0x5A5A_0000_0000_0001)
			}
			vals := make([]int32, len(as))
			mm.FindEach(as, bs, vals)
			present := map[[2]int64]int32{}
			for i, k := range keys {
				present[k] = int32(i)
			}
			for i := range as {
				want, ok := present[[2]int64{as[i], bs[i]}]
				if !ok {
					want = -1
				}
				if vals[i] != want {
					t.Fatalf("%s: FindEach(%d, %d) = %d, want %d", name, as[i], bs[i], vals[i], want)
				}
			}
		}
	}
}

// TestPairsEmpty: the zero map finds nothing and has no slot, and FindEach over it answers -1.
func TestPairsEmpty(t *testing.T) {
	var m Pairs
	if s, v := m.Locate(1, 2); s != 0 || v != -1 || !m.Full() {
		t.Fatalf("zero Pairs: Locate = %d, %d, Full %v; want 0, -1, true", s, v, m.Full())
	}
	vals := []int32{5, 5}
	m.FindEach([]int64{1, 2}, []int64{3, 4}, vals)
	if fmt.Sprint(vals) != "[-1 -1]" {
		t.Fatalf("FindEach over the zero map = %v", vals)
	}
}
