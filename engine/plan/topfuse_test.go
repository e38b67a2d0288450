package plan

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/internal/fulltest"
)

// topSources is a table built for ties: few distinct values per key column, a tenth of them null, reals with
// NaN, -0 and 0, and a unique row number that makes any reordering of equal rows visible. 12,000 rows make a
// top compact at least once (every exec.topCompactRows rows beyond its limit).
func topSources(t *testing.T) map[string]source.Source {
	t.Helper()
	rng := rand.New(rand.NewSource(12))
	tab := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "s", Type: column.String},
		{Name: "r", Type: column.Real}, {Name: "ts", Type: column.DateTime}, {Name: "row", Type: column.Long}})
	reals := []float64{math.NaN(), math.Copysign(0, -1), 0, 1.5, -2, math.Inf(1)}
	const n = 12_000
	for i := 0; i < n; i++ {
		null := func() bool { return rng.Intn(10) == 0 }
		if null() {
			tab.Cols[0].AppendNull()
		} else {
			tab.Cols[0].AppendInt(int64(rng.Intn(8)))
		}
		if null() {
			tab.Cols[1].AppendNull()
		} else {
			tab.Cols[1].AppendString(fmt.Sprintf("s%d", rng.Intn(6)))
		}
		if null() {
			tab.Cols[2].AppendNull()
		} else {
			tab.Cols[2].AppendReal(reals[rng.Intn(len(reals))])
		}
		if null() {
			tab.Cols[3].AppendNull()
		} else {
			tab.Cols[3].AppendInt(int64(rng.Intn(5000)) * 1e9)
		}
		tab.Cols[4].AppendInt(int64(i))
	}
	tab.N = n
	small := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "name", Type: column.String}})
	for k := 0; k < 8; k += 2 { // every even key twice, so a join doubles some rows and drops others
		for c := 0; c < 2; c++ {
			small.Cols[0].AppendInt(int64(k))
			small.Cols[1].AppendString(fmt.Sprintf("n%d.%d", k, c))
		}
	}
	small.N = 8
	return map[string]source.Source{"T": source.FromTable("T", tab), "K": source.FromTable("K", small)}
}

// tableText renders which input rows t holds, in order: the row number, and the K row a join paired it with
// (every other column is a function of those two), so two results compare row by row.
func tableText(t *column.Table) string {
	var b strings.Builder
	rows, names := t.Cols[t.Schema.Index("row")], t.Schema.Index("name")
	for r := 0; r < t.N; r++ {
		b.WriteString(strconv.FormatInt(rows.Ints[r], 10))
		if names >= 0 {
			b.WriteString(" " + t.Cols[names].Value(r).Str)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// firstRows returns the first n rows of t.
func firstRows(t *column.Table, n int64) *column.Table {
	if int64(t.N) <= n {
		return t
	}
	out := column.NewTable(t.Schema)
	out.Append(t.Batch().Slice(0, int(n)))
	return out
}

// TestSortTakeFusedIsSortThenTake is the differential test of the binder's sort+take fusion: `sort by … | take
// N`, `top N by …` and `top M by … | take N` must return exactly the first N rows of the full stable sort (the
// unfused path: `sort by …` alone, cut here), ties in input order and nulls placed as KQL defines (first
// ascending, last descending, unless nulls first/last says otherwise), and the fused plan must hold no full
// sort. By default each input, key list and limit runs one of the four shapes, drawn from a seed;
// JOINLAB_FULL_TESTS=1 runs all four (internal/fulltest).
func TestSortTakeFusedIsSortThenTake(t *testing.T) {
	sample := fulltest.New(t)
	srcs := topSources(t)
	inputs := []string{"@T", "@T | join kind=leftouter (@K) on k | extend x = row % 7"}
	keyLists := []string{"k", "k asc", "k desc nulls first", "s asc nulls last", "r", "ts asc", "k asc, s desc",
		"s desc nulls first, r asc, k", "r desc, ts asc nulls last, s"}
	for _, in := range inputs {
		for _, keys := range keyLists {
			full, _ := runRows(t, buildPlan(t, in+" | sort by "+keys, srcs))
			for _, n := range []int64{0, 7, 100, 3000, 30000} {
				want := tableText(firstRows(full, n))
				for _, q := range fulltest.Pick(sample, []string{
					fmt.Sprintf("%s | sort by %s | take %d", in, keys, n),
					fmt.Sprintf("%s | top %d by %s", in, n, keys),
					fmt.Sprintf("%s | top %d by %s | take %d", in, n+3, keys, n),
					fmt.Sprintf("%s | sort by %s | take %d | take %d", in, keys, n+50, n),
				}) {
					p := buildPlan(t, q, srcs)
					ex := p.Explain()
					if strings.Contains(ex, "  sort by") || !strings.Contains(ex, fmt.Sprintf("sort, keep first %d,", n)) {
						t.Errorf("%s: not fused into one top %d:\n%s", q, n, ex)
					}
					got, _ := runRows(t, p)
					if g := tableText(got); g != want {
						t.Errorf("%s: %d rows differ from the first %d of the full sort (%d rows)\ngot:\n%.400s\nwant:\n%.400s",
							q, got.N, n, full.N, g, want)
					}
				}
			}
		}
	}
}
