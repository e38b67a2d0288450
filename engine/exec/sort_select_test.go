package exec

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// TestTopSelectKeepsTheTop: a top narrowed by the radix select on its first key emits exactly the first limit
// rows of a stable comparison sort, for one to three keys of every type (orderTable's, with their extremes,
// NaN, ±0, nulls first and last, and a column of spread-out longs whose buckets the limit falls inside), both
// directions, limits from one row to all but one; and the candidates it sorts hold every row of that top, in
// input order. The select must have narrowed a good share of the trials, or the test proves nothing of it.
func TestTopSelectKeepsTheTop(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	narrowed, trials := 0, 0
	for trial := range 120 {
		n := []int{topSelectRows - 1, topSelectRows, 6000, 20000}[trial%4]
		cols := orderTable(rng, n)
		spread := column.NewVector(column.Long, n)
		for range n {
			if rng.Intn(20) == 0 {
				spread.AppendNull()
				continue
			}
			spread.AppendInt(rng.Int63() >> rng.Intn(50) * int64(1-2*rng.Intn(2)))
		}
		cols = append(cols, spread)
		var keys []SortKey
		var vs []*column.Vector
		label := ""
		for j := range 1 + rng.Intn(3) {
			c := rng.Intn(len(cols))
			if j == 0 && rng.Intn(2) == 0 {
				c = len(cols) - 1 // lead with the spread column half the time
			}
			k := SortKey{Expr: typedCol(c, cols[c].Type), Asc: rng.Intn(2) == 0, NullsFirst: rng.Intn(2) == 0}
			keys, vs = append(keys, k), append(vs, cols[c])
			label += fmt.Sprintf("col %d %v asc=%v nullsFirst=%v; ", c, cols[c].Type, k.Asc, k.NullsFirst)
		}
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		oracle := &Sort{keys: keys}
		slices.SortStableFunc(want, func(a, b int32) int { return oracle.compareAcross(vs, int(a), vs, int(b)) })
		batch := column.NewBatch(cols, n)
		for _, limit := range []int64{1, 10, int64(n / 3), int64(n - 1)} {
			trials++
			budget := memory.NewBudget(0)
			if cand := topCandidates(vs[0], keys[0], n, limit, budget); cand != nil {
				narrowed++
				if !slices.IsSorted(cand) {
					t.Fatalf("trial %d, limit %d, keys %s: candidates not in input order", trial, limit, label)
				}
				for _, r := range want[:limit] {
					if _, found := slices.BinarySearch(cand, r); !found {
						t.Fatalf("trial %d, limit %d, keys %s: row %d of the top is not a candidate (%d of %d rows are)",
							trial, limit, label, r, len(cand), n)
					}
				}
			}
			s := &Sort{keys: keys, limit: limit, budget: budget}
			if got := s.sortedOrder(batch); !slices.Equal(got, want[:limit]) {
				t.Fatalf("trial %d, limit %d, %d rows, keys %s: the top differs from the stable sort's first rows", trial, limit, n, label)
			}
			if budget.Available() != budget.Limit() {
				t.Fatalf("trial %d: %d bytes still reserved", trial, budget.Limit()-budget.Available())
			}
		}
	}
	if narrowed < trials/4 {
		t.Fatalf("the select narrowed only %d of %d tops", narrowed, trials)
	}
}
