package join

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// TestKeyTableEdgeKeys checks the keyTable on keys that differ only where a slot cannot see it: past the 16
// inline bytes, in trailing zero bytes (padding), or in length alone, and the empty key.
func TestKeyTableEdgeKeys(t *testing.T) {
	long := strings.Repeat("p", 16)
	keys := []string{"", "\x00", "\x00\x00", "a", "a\x00", long, long + "\x00", long + "x", long + "y", long + "xy",
		strings.Repeat("q", 40), strings.Repeat("q", 39) + "r", "key-000000000001", "key-000000000002"}
	v := &column.Vector{Type: column.String, Strs: keys}
	v.SetLen(len(keys))
	tab := newKeyTable(len(keys), []*column.Vector{v})
	next := make([]int32, len(keys))
	for i := len(keys) - 1; i >= 0; i-- {
		tab.pushFront(keys[i], int32(i), next, false)
	}
	for i, k := range keys {
		if got := tab.find(k); got != int32(i) {
			t.Errorf("find(%q) = %d, want row %d alone", k, got, i)
		}
	}
	for _, k := range []string{"b", long + "z", "\x00\x00\x00", strings.Repeat("q", 41)} {
		if got := tab.find(k); got != -1 {
			t.Errorf("find(%q) = %d, want -1", k, got)
		}
	}
}

// TestHashStringKeysMatchNestedLoop is the oracle check of the hash join on string keys of mixed lengths (0 to
// 30 bytes, many sharing their first 16), with ties and nulls, every kind, both build sides, every batch size.
func TestHashStringKeysMatchNestedLoop(t *testing.T) {
	seed := uint64(77)
	r := rand.New(rand.NewPCG(seed, seed))
	gen := func(rows int, side string) *column.Table {
		tab := column.NewTable(column.Schema{{Name: "k", Type: column.String}, {Name: "id", Type: column.String}})
		for i := 0; i < rows; i++ {
			if r.IntN(8) == 0 {
				tab.Cols[0].AppendNull()
			} else {
				k := r.IntN(12)
				tab.Cols[0].AppendString([]string{"", "a", "a\x00", "shared-prefix-16" + fmt.Sprint(k), fmt.Sprintf("%d", k)}[k%5])
			}
			tab.Cols[1].AppendString(fmt.Sprintf("%s%d", side, i))
		}
		tab.N = rows
		return tab
	}
	lt, rt := gen(70, "L"), gen(60, "R")
	for _, kind := range Kinds {
		spec, err := NewSpec(kind, lt.Schema, rt.Schema, []int{0}, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := rowsOf(t, NewNestedLoop(spec, &tableOp{t: lt, size: 1000}, &tableOp{t: rt, size: 1000}, memory.NewBudget(0)))
		for _, size := range batchSizes {
			for _, buildLeft := range []bool{false, true} {
				got, _ := rowsOf(t, NewHash(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, buildLeft, memory.NewBudget(0)))
				if !slices.Equal(got, want) {
					t.Fatalf("%s seed=%d batch=%d buildLeft=%v: %d rows, oracle %d", kind, seed, size, buildLeft, len(got), len(want))
				}
			}
		}
	}
}
