package join

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
)

// TestPackKeys checks the packing of int keys: equal keys pack equal and different ones differently, a key with
// a column outside the build side's range or null packs null, and keys whose ranges cannot share 63 bits, a
// single column, or a column not stored as int64 do not pack.
func TestPackKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	// Three columns of the build side: around math.MinInt64, around zero, and a datetime near the top.
	bases := []int64{math.MinInt64, -3, math.MaxInt64 - 40}
	types := []column.Type{column.Long, column.Long, column.DateTime}
	spans := []int64{1 << 20, 7, 41}
	vector := func(j, n int, val func(int) (int64, bool)) *column.Vector {
		v := column.NewVector(types[j], n)
		for i := range n {
			if x, null := val(i); null {
				v.AppendNull()
			} else {
				v.AppendInt(x)
			}
		}
		return v
	}
	const n = 2000
	build := make([]*column.Vector, 3)
	for j := range build {
		build[j] = vector(j, n, func(i int) (int64, bool) {
			switch i {
			case 0:
				return bases[j], false // the range's ends
			case 1:
				return bases[j] + spans[j] - 1, false
			}
			return bases[j] + r.Int64N(spans[j]), r.IntN(20) == 0
		})
	}
	p := packKeys(build, n)
	if p == nil {
		t.Fatal("three columns of 2^20, 7 and 41 values did not pack")
	}
	packed := p.column(build, n)
	seen, packs := map[int64][3]int64{}, map[[3]int64]int64{}
	for i := range n {
		null := build[0].IsNull(i) || build[1].IsNull(i) || build[2].IsNull(i)
		if packed.IsNull(i) != null {
			t.Fatalf("row %d: packed null %v, a column null %v", i, packed.IsNull(i), null)
		}
		if null {
			continue
		}
		key := [3]int64{build[0].Ints[i], build[1].Ints[i], build[2].Ints[i]}
		if was, ok := seen[packed.Ints[i]]; ok && was != key {
			t.Fatalf("keys %v and %v both pack to %d", was, key, packed.Ints[i])
		}
		if was, ok := packs[key]; ok && was != packed.Ints[i] {
			t.Fatalf("key %v packs to %d and %d", key, was, packed.Ints[i])
		}
		seen[packed.Ints[i]], packs[key] = key, packed.Ints[i]
	}
	// A probe key with one column just outside the build's range packs null (below math.MinInt64 is
	// math.MaxInt64); at its end it does not.
	for j := range build {
		probe := make([]*column.Vector, 3)
		for c := range probe {
			probe[c] = vector(c, 3, func(i int) (int64, bool) {
				if c != j {
					return bases[c], false
				}
				return []int64{bases[c] - 1, bases[c] + spans[c], bases[c]}[i], false
			})
		}
		got := p.column(probe, 3)
		if !got.IsNull(0) || !got.IsNull(1) || got.IsNull(2) {
			t.Errorf("column %d: below, above and at the range: null %v %v %v", j, got.IsNull(0), got.IsNull(1), got.IsNull(2))
		}
	}
	// Too wide together (2^40 · 2^30 values), one column, a string column: no packing.
	wide := []*column.Vector{
		vector(0, 2, func(i int) (int64, bool) { return int64(i) << 40, false }),
		vector(1, 2, func(i int) (int64, bool) { return int64(i) << 30, false }),
	}
	if packKeys(wide, 2) != nil {
		t.Error("ranges of 2^40+1 and 2^30+1 values packed into 63 bits")
	}
	if packKeys(build[:1], n) != nil {
		t.Error("one column packed")
	}
	strs := column.NewVector(column.String, 1)
	strs.AppendString("a")
	if packKeys([]*column.Vector{build[0], strs}, 1) != nil {
		t.Error("a string column packed")
	}
}
