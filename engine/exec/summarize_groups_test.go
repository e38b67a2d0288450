package exec

import (
	"fmt"
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
	want := make([]int32, len(keys))
	ids := map[string]int32{}
	for i, k := range keys {
		name := "v" + k
		if nulls[i] {
			name = "null"
		}
		id, ok := ids[name]
		if !ok {
			id = int32(len(ids))
			ids[name] = id
		}
		want[i] = id
	}
	for _, size := range []int{1, 7, 1000, len(keys)} {
		g := newGroupTable("test", []column.Type{column.String}, 0, memory.NewBudget(0))
		var gids []int32
		for lo := 0; lo < len(keys); lo += size {
			hi := min(lo+size, len(keys))
			v := column.NewVector(column.String, hi-lo)
			for i := lo; i < hi; i++ {
				if nulls[i] {
					v.AppendNull()
				} else {
					v.AppendString(keys[i])
				}
			}
			var m int
			var err error
			gids, m, err = g.assign([]*column.Vector{v}, hi-lo, gids)
			if err != nil || m != hi-lo {
				t.Fatalf("batch %d: assign took %d of %d rows: %v", size, m, hi-lo, err)
			}
			for i := lo; i < hi; i++ {
				if gids[i-lo] != want[i] {
					t.Fatalf("batch %d, row %d (%q, null %v): group %d, want %d", size, i, keys[i], nulls[i], gids[i-lo], want[i])
				}
			}
		}
		if g.n != len(ids) {
			t.Fatalf("batch %d: %d groups, want %d", size, g.n, len(ids))
		}
	}
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
