package exec

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// orderTable has one column of each sortable type, each with nulls and the values that order codes must get
// right: int64's extremes and zero; reals with NaN, ±0, ±∞ and the extremes; bools; strings with the empty
// string, repeats and prefixes of each other. A few values per column make ties on one key common, so the
// later keys and the input order decide.
func orderTable(rng *rand.Rand, n int) []*column.Vector {
	longs := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, 2, 1 << 40, math.MaxInt64}
	reals := []float64{math.NaN(), math.Inf(-1), -math.MaxFloat64, -1.5, math.Copysign(0, -1), 0, 5e-324, 2.5, math.MaxFloat64, math.Inf(1)}
	strs := []string{"", "a", "ab", "abc", "b", "B", "é", "a\x00"}
	cols := []*column.Vector{column.NewVector(column.Long, n), column.NewVector(column.Real, n),
		column.NewVector(column.Bool, n), column.NewVector(column.String, n), column.NewVector(column.DateTime, n)}
	for range n {
		for c, v := range cols {
			if rng.Intn(7) == 0 {
				v.AppendNull()
				continue
			}
			switch c {
			case 0:
				v.AppendInt(longs[rng.Intn(len(longs))])
			case 1:
				v.AppendReal(reals[rng.Intn(len(reals))])
			case 2:
				v.AppendBool(rng.Intn(2) == 0)
			case 3:
				v.AppendString(strs[rng.Intn(len(strs))])
			case 4:
				v.AppendInt(rng.Int63n(1000) << 20)
			}
		}
	}
	return cols
}

// TestSortOrderMatchesStableCompare: the radix sort on order codes orders rows exactly as a stable comparison
// sort with the sort's compare (compareAcross) does, for one to three keys of every type, in both directions,
// with nulls first and last, over inputs of every size up to a few thousand rows; and so does the comparison
// sort it falls back to when the budget refuses its memory.
func TestSortOrderMatchesStableCompare(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for trial := range 400 {
		n := []int{0, 1, 2, 3, 17, 300, 3000}[trial%7]
		cols := orderTable(rng, n)
		var keys []SortKey
		var vs []*column.Vector
		var label string
		for range 1 + rng.Intn(3) {
			c := rng.Intn(len(cols))
			k := SortKey{Expr: typedCol(c, cols[c].Type), Asc: rng.Intn(2) == 0, NullsFirst: rng.Intn(2) == 0}
			keys, vs = append(keys, k), append(vs, cols[c])
			label += fmt.Sprintf("%v asc=%v nullsFirst=%v; ", cols[c].Type, k.Asc, k.NullsFirst)
		}
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		oracle := &Sort{keys: keys}
		slices.SortStableFunc(want, func(a, b int32) int { return oracle.compareAcross(vs, int(a), vs, int(b)) })
		// The radix sort, and the comparison sort a budget too small for it gets.
		for _, budget := range []int64{0, 1} {
			s := &Sort{keys: keys, budget: memory.NewBudget(budget)}
			if got := s.sortOrder(vs, n); !slices.Equal(got, want) {
				at := 0
				for at < n && got[at] == want[at] {
					at++
				}
				t.Fatalf("trial %d, budget %d, %d rows, keys %s: order differs from the stable compare's at place %d: got row %d, want row %d",
					trial, budget, n, label, at, got[at], want[at])
			}
			if s.budget.Available() != s.budget.Limit() {
				t.Fatalf("trial %d, budget %d: %d bytes still reserved", trial, budget, s.budget.Limit()-s.budget.Available())
			}
		}
	}
}

// TestSortStrings: sortStrings orders distinct strings as strings.Compare does, through its radix passes and
// their runs: strings sharing prefixes of 0 to 40 bytes, lengths either side of each eight-byte boundary, zero
// bytes inside and at the end (which the padding must not confuse with a shorter string), and bytes above 0x7f.
func TestSortStrings(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for trial := range 30 {
		seen := map[string]bool{}
		var strs []string
		prefix := strings.Repeat("p", rng.Intn(5)*8+rng.Intn(3))
		for want := 300 + rng.Intn(3000); len(strs) < want; {
			b := []byte(prefix)
			for range rng.Intn(20) {
				b = append(b, []byte{0, 1, 'a', 'b', 0xff}[rng.Intn(5)])
			}
			if s := string(b); !seen[s] {
				seen[s] = true
				strs = append(strs, s)
			}
		}
		order := make([]int32, len(strs))
		for i := range order {
			order[i] = int32(i)
		}
		got := sortStrings(order, strs, 0, &radixRows{})
		for j := 1; j < len(got); j++ {
			if a, b := strs[got[j-1]], strs[got[j]]; strings.Compare(a, b) >= 0 {
				t.Fatalf("trial %d, %d strings: %q sorted before %q", trial, len(strs), a, b)
			}
		}
		if len(got) != len(strs) {
			t.Fatalf("trial %d: %d strings out of %d", trial, len(got), len(strs))
		}
	}
}

// BenchmarkSortOrder orders a million rows by two long keys as the wide bench's sorttop does — w in 0–999
// ascending, then a 44-bit timestamp descending: go test -bench SortOrder -run '^$' ./engine/exec
func BenchmarkSortOrder(b *testing.B) {
	rng := rand.New(rand.NewSource(5))
	const n = 1 << 20
	w, ts := column.NewVector(column.Long, n), column.NewVector(column.Long, n)
	for i := range n {
		w.AppendInt(rng.Int63n(1000))
		ts.AppendInt(rng.Int63n(1_000_000)*10_000_000 + int64(i))
	}
	s := &Sort{keys: []SortKey{{Expr: typedCol(0, column.Long), Asc: true}, {Expr: typedCol(1, column.Long)}}, budget: memory.NewBudget(0)}
	for range b.N {
		s.sortOrder([]*column.Vector{w, ts}, n)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
}
