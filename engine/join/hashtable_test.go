package join

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

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
