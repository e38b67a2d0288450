package exec

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// TestGroupTableStrings: one string key numbers its groups by first appearance, as a map of the strings does,
// for short keys and long ones that share their first 32 bytes, the empty string apart from null, over
// batches of every size, while the map doubles many times; and a budget refusal stops at the row it refused.
func TestGroupTableStrings(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	long := strings.Repeat("0123456789abcdef", 2)
	var keys []string // "" for null
	nulls := map[int]bool{}
	for i := range 20000 {
		switch rng.Intn(10) {
		case 0:
			nulls[i] = true
			keys = append(keys, "")
		case 1:
			keys = append(keys, "")
		case 2, 3, 4:
			keys = append(keys, fmt.Sprintf("%s%d", long, rng.Intn(3000)))
		default:
			keys = append(keys, fmt.Sprintf("k%d", rng.Intn(3000)))
		}
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = "v" + k
		if nulls[i] {
			names[i] = "null"
		}
	}
	assignInBatches(t, "strings", []column.Type{column.String}, names, func(lo, hi int) []*column.Vector {
		v := column.NewVector(column.String, hi-lo)
		for i := lo; i < hi; i++ {
			if nulls[i] {
				v.AppendNull()
			} else {
				v.AppendString(keys[i])
			}
		}
		return []*column.Vector{v}
	})
	// A budget for a few groups: assign stops at the first row it cannot take, every row before it grouped.
	g := newGroupTable("test", []column.Type{column.String}, 0, memory.NewBudget(8000))
	v := column.NewVector(column.String, 500)
	for i := range 500 {
		v.AppendString(fmt.Sprintf("%s%d", long, i))
	}
	gids, m, err := g.assign([]*column.Vector{v}, 500, nil)
	if err == nil || m == 0 || m >= 500 || g.n != m {
		t.Fatalf("an 8,000-byte budget: took %d rows into %d groups, error %v; want a refusal part way", m, g.n, err)
	}
	for i := range m {
		if gids[i] != int32(i) {
			t.Fatalf("row %d: group %d", i, gids[i])
		}
	}
}

// TestGroupTableDenseInts: one int key numbers its groups by first appearance, as a map of the keys does,
// while its values stay in a dense range that grows both ways (negative keys, int64's ends never reached), and
// after a batch stretches the range past denseGroupSpan and the groups move into the hashed map — with nulls
// apart from every value (0 included), over batches of every size; and a budget refusal, in the dense range
// or while moving out of it, stops at a row with every row before it grouped.
func TestGroupTableDenseInts(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for _, shape := range []string{"dense", "widening", "leaves", "extremes"} {
		var keys []int64
		nulls := map[int]bool{}
		for i := range 30000 {
			var k int64
			switch shape {
			case "dense":
				k = int64(rng.Intn(700)) - 300
			case "widening": // the range grows batch by batch, downwards and upwards
				k = int64(rng.Intn(i/4+1)) * int64(1-2*rng.Intn(2))
			case "leaves": // dense for the first half, then far beyond denseGroupSpan
				k = int64(rng.Intn(500))
				if i > 15000 && rng.Intn(3) == 0 {
					k = int64(rng.Intn(2000)) * 1_000_003
				}
			default:
				k = []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}[rng.Intn(5)]
			}
			if rng.Intn(15) == 0 {
				nulls[i] = true
				k = 0
			}
			keys = append(keys, k)
		}
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = fmt.Sprint(k)
			if nulls[i] {
				names[i] = "null"
			}
		}
		for _, g := range assignInBatches(t, shape, []column.Type{column.Long}, names, func(lo, hi int) []*column.Vector {
			v := column.NewVector(column.Long, hi-lo)
			for i := lo; i < hi; i++ {
				if nulls[i] {
					v.AppendNull()
				} else {
					v.AppendInt(keys[i])
				}
			}
			return []*column.Vector{v}
		}) {
			if dense := g.dense != nil; dense != (shape == "dense" || shape == "widening") {
				t.Fatalf("%s: dense range kept %v", shape, dense)
			}
		}
	}
	// Budgets for a few groups: assign stops part way, every row before the stop grouped, in the dense range
	// and when a batch's keys leave it.
	for _, step := range []int64{1, 1_000_003} {
		g := newGroupTable("test", []column.Type{column.Long}, 0, memory.NewBudget(6000))
		v := column.NewVector(column.Long, 500)
		for i := range 500 {
			v.AppendInt(int64(i) * step)
		}
		gids, m, err := g.assign([]*column.Vector{v}, 500, nil)
		if err == nil || m >= 500 || g.n != m {
			t.Fatalf("step %d, a 6,000-byte budget: took %d rows into %d groups, error %v; want a refusal", step, m, g.n, err)
		}
		for i := range m {
			if gids[i] != int32(i) {
				t.Fatalf("step %d, row %d: group %d", step, i, gids[i])
			}
		}
	}
}

// TestGroupTableDensePairs: two int keys number their groups by first appearance, as a map of the pairs does,
// while both stay in dense ranges that grow (negative values), after the ranges' product passes
// denseGroupSpan, after one key alone leaves its range, and after a batch brings a null in either key (the
// pair map's hashed keys take those) — over batches of every size.
func TestGroupTableDensePairs(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	for _, shape := range []string{"dense", "product", "far", "nulls"} {
		const rows = 30000
		xs, ys := make([]int64, rows), make([]int64, rows)
		xnull, ynull := map[int]bool{}, map[int]bool{}
		for i := range rows {
			xs[i], ys[i] = int64(rng.Intn(40))-20, int64(rng.Intn(i/100+1))
			switch {
			case shape == "product" && i > rows/2:
				xs[i] = int64(rng.Intn(denseGroupSpan / 64))
			case shape == "far" && i > rows/2 && rng.Intn(4) == 0:
				ys[i] = 1 << 40
			case shape == "nulls" && i > rows/2 && rng.Intn(10) == 0:
				if rng.Intn(2) == 0 {
					xnull[i], xs[i] = true, 0
				} else {
					ynull[i], ys[i] = true, 0
				}
			}
		}
		names := make([]string, rows)
		for i := range rows {
			names[i] = fmt.Sprint(xs[i], xnull[i], ys[i], ynull[i])
		}
		for _, g := range assignInBatches(t, shape, []column.Type{column.Long, column.Long}, names, func(lo, hi int) []*column.Vector {
			x, y := column.NewVector(column.Long, hi-lo), column.NewVector(column.Long, hi-lo)
			for i := lo; i < hi; i++ {
				if xnull[i] {
					x.AppendNull()
				} else {
					x.AppendInt(xs[i])
				}
				if ynull[i] {
					y.AppendNull()
				} else {
					y.AppendInt(ys[i])
				}
			}
			return []*column.Vector{x, y}
		}) {
			if dense := g.dense != nil; dense != (shape == "dense") {
				t.Fatalf("%s: dense ranges kept %v", shape, dense)
			}
		}
	}
}

// assignInBatches numbers rows whose keys are named names (equal names, equal keys) in fresh group tables of
// the given key types, fed in batches of 1, 7, 1,000 and every row (batch makes rows lo…hi-1), and checks
// that every row gets the group of its name's first appearance and that each table ends with one group a
// name: the oracle of the group tables' tests. It returns the tables, one a batch size.
func assignInBatches(t *testing.T, label string, types []column.Type, names []string, batch func(lo, hi int) []*column.Vector) []*groupTable {
	t.Helper()
	want := make([]int32, len(names))
	ids := map[string]int32{}
	for i, name := range names {
		id, ok := ids[name]
		if !ok {
			id = int32(len(ids))
			ids[name] = id
		}
		want[i] = id
	}
	var tables []*groupTable
	for _, size := range []int{1, 7, 1000, len(names)} {
		g := newGroupTable("test", types, 0, memory.NewBudget(0))
		var gids []int32
		for lo := 0; lo < len(names); lo += size {
			hi := min(lo+size, len(names))
			var m int
			var err error
			gids, m, err = g.assign(batch(lo, hi), hi-lo, gids)
			if err != nil || m != hi-lo {
				t.Fatalf("%s, batch %d: assign took %d of %d rows: %v", label, size, m, hi-lo, err)
			}
			for i := lo; i < hi; i++ {
				if gids[i-lo] != want[i] {
					t.Fatalf("%s, batch %d, row %d (%s): group %d, want %d", label, size, i, names[i], gids[i-lo], want[i])
				}
			}
		}
		if g.n != len(ids) {
			t.Fatalf("%s, batch %d: %d groups, want %d", label, size, g.n, len(ids))
		}
		tables = append(tables, g)
	}
	return tables
}

// TestGroupTableDenseRising: keys that rise batch by batch (a time bin over a sorted log) stay dense, and the
// ranges grow by their own size, so the ids are laid out a logarithmic number of times, not once a batch;
// keys falling batch by batch likewise.
func TestGroupTableDenseRising(t *testing.T) {
	for _, step := range []int64{1, -1} {
		const rows = 200_000
		names := make([]string, rows)
		for i := range rows {
			names[i] = fmt.Sprint(step * int64(i/2))
		}
		for _, g := range assignInBatches(t, fmt.Sprint("step ", step), []column.Type{column.Long}, names, func(lo, hi int) []*column.Vector {
			x := column.NewVector(column.Long, hi-lo)
			for i := lo; i < hi; i++ {
				x.AppendInt(step * int64(i/2))
			}
			return []*column.Vector{x}
		}) {
			if g.dense == nil {
				t.Fatalf("step %d: the rising keys left the dense ranges", step)
			}
			if g.dense.laid > 40 {
				t.Fatalf("step %d: ids laid out %d times for %d keys", step, g.dense.laid, rows/2)
			}
		}
	}
}
