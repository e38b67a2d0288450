package plan

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/internal/fulltest"
)

// boundSources makes a build table B and a probe table P for the top-bound tests, from seed: join keys with
// duplicates on both sides and nulls, sort columns with few distinct values (ties with the cut), nulls, reals
// with NaN, -0 and 0, integers at the ends of int64, and a unique row number on each side that makes any
// reordering of equal rows visible. Join keys are multiples of spread: 1 keeps them dense, so the join picks
// the top's candidates first (join/hash_topfirst.go); a huge spread makes them too sparse for that.
func boundSources(seed int64, bRows, pRows int, spread int64, nulls bool) map[string]source.Source {
	rng := rand.New(rand.NewSource(seed))
	null := func() bool { return nulls && rng.Intn(8) == 0 }
	keys := 1 + rng.Intn(40)
	b := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "name", Type: column.String},
		{Name: "brow", Type: column.Long}})
	for i := 0; i < bRows; i++ {
		if null() {
			b.Cols[0].AppendNull()
		} else {
			b.Cols[0].AppendInt(int64(rng.Intn(keys)) * spread)
		}
		b.Cols[1].AppendString(fmt.Sprintf("b%d", rng.Intn(5)))
		b.Cols[2].AppendInt(int64(i))
	}
	b.N = bRows
	p := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "ts", Type: column.DateTime},
		{Name: "r", Type: column.Real}, {Name: "s", Type: column.String}, {Name: "x", Type: column.Long},
		{Name: "row", Type: column.Long}})
	reals := []float64{math.NaN(), math.Copysign(0, -1), 0, 1.5, -2, math.Inf(1), math.Inf(-1)}
	ints := []int64{math.MinInt64, -1, 0, 1, 2, math.MaxInt64}
	distinct := 1 + rng.Intn(30)
	for i := 0; i < pRows; i++ {
		if null() {
			p.Cols[0].AppendNull()
		} else {
			p.Cols[0].AppendInt(int64(rng.Intn(keys+5)) * spread)
		}
		if null() {
			p.Cols[1].AppendNull()
		} else {
			p.Cols[1].AppendInt(int64(rng.Intn(distinct))) // 1 ns apart: an off-by-one cut shows
		}
		if null() {
			p.Cols[2].AppendNull()
		} else {
			p.Cols[2].AppendReal(reals[rng.Intn(len(reals))])
		}
		if null() {
			p.Cols[3].AppendNull()
		} else {
			p.Cols[3].AppendString(fmt.Sprintf("s%d", rng.Intn(distinct)))
		}
		if null() {
			p.Cols[4].AppendNull()
		} else {
			p.Cols[4].AppendInt(ints[rng.Intn(len(ints))])
		}
		p.Cols[5].AppendInt(int64(i))
	}
	p.N = pRows
	return map[string]source.Source{"B": source.FromTable("B", b), "P": source.FromTable("P", p)}
}

// rowsText renders every value of t, row by row.
func rowsText(t *column.Table) string {
	var sb strings.Builder
	for r := 0; r < t.N; r++ {
		for _, c := range t.Cols {
			fmt.Fprintf(&sb, "%v ", c.Value(r))
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestTopBoundIsExact is the differential test of pushTopBounds: a top over an inner hash join (directly, or
// through wheres and projects) must return exactly the rows, in the same order, of the same query with a
// `take` of everything between the join and the rest, which blocks the pushdown and changes nothing else. It
// covers ties with the cut, nulls first and last, both directions, every key type, duplicate keys on both
// sides, empty sides, the probe on either side of the join, limits 0, 1, 7 and more than the output, and
// keys dense and sparse. Where the sort column is the probe side's, the plan must say the bound is pushed.
// By default every size, orientation and key list runs with one limit and one shape drawn from a seed (224 of
// the 3,584 pairs); JOINLAB_FULL_TESTS=1 runs them all (internal/fulltest).
func TestTopBoundIsExact(t *testing.T) {
	sample := fulltest.New(t)
	type sizes struct {
		b, p   int
		spread int64
		nulls  bool // without nulls, the common case's own loops run
	}
	cases := []sizes{{0, 1500, 1, true}, {40, 0, 1, true}, {0, 0, 1, true}, {1, 2000, 1, true}, {60, 2500, 1, true},
		{300, 3000, 1, true}, {300, 3000, 1<<40 + 7, true}, {200, 3000, 1, false}}
	keyLists := []string{"ts desc", "ts asc", "ts desc nulls first", "ts asc nulls last", "r desc", "r asc nulls last",
		"s desc", "s asc", "x desc", "x asc", "x desc nulls first", "row desc", "brow desc", "x + 1 desc"}
	shapes := []string{
		"| sort by %s | take %d",
		"| top %d by %s",
		"| where row %% 3 != 1 | project ts, r, s, x, row, brow, name | top %d by %s",
		"| extend y = x | project-away x | extend x = y | top %d by %s",
	}
	for seed, sz := range cases {
		srcs := boundSources(int64(seed), sz.b, sz.p, sz.spread, sz.nulls)
		for _, orient := range []string{"@B | join kind=inner hint.strategy=hash (@P) on k",
			"@P | join kind=inner hint.strategy=hash (@B) on k"} {
			probeIsP := sz.b < sz.p // the build side is the left one when strictly smaller
			if strings.HasPrefix(orient, "@P") {
				probeIsP = sz.p >= sz.b
			}
			for _, keys := range keyLists {
				ns := []int64{0, 1, 7, 100_000}
				if !sz.nulls {
					ns = []int64{7, 100} // 100 rows of a batch: a cut with better rows still to come
				}
				for _, n := range fulltest.Pick(sample, ns) {
					for _, sh := range fulltest.Pick(sample, shapes) {
						var rest string
						if strings.HasPrefix(sh, "| sort") {
							rest = fmt.Sprintf(sh, keys, n)
						} else {
							rest = fmt.Sprintf(sh, n, keys)
						}
						q := orient + " " + rest
						ref := orient + " | take 1000000000 " + rest
						p := buildPlan(t, q, srcs)
						got, _ := runRows(t, p)
						want, _ := runRows(t, buildPlan(t, ref, srcs))
						if g, w := rowsText(got), rowsText(want); g != w {
							t.Errorf("seed %d (B %d rows, P %d rows): %s\n%d rows differ from the unpushed plan's %d\ngot:\n%.600s\nwant:\n%.600s\n%s",
								seed, sz.b, sz.p, q, got.N, want.N, g, w, p.Explain())
						}
						col := strings.Fields(keys)[0]
						onProbe := probeIsP == (col != "brow") // brow is B's column, the others P's
						wantPushed := n > 0 && onProbe && !strings.Contains(keys, "+")
						if pushed := strings.Contains(p.Explain(), "is pushed into the join"); pushed != wantPushed {
							t.Errorf("seed %d: %s: bound pushed %v, want %v\n%s", seed, q, pushed, wantPushed, p.Explain())
						}
					}
				}
			}
		}
	}
}

// TestTopBoundNotPushed checks the shapes the bound must not cross: join kinds other than inner, a take or a
// summarize between the top and the join, a sort of several keys.
func TestTopBoundNotPushed(t *testing.T) {
	srcs := boundSources(1, 50, 3000, 1, true)
	for _, q := range []string{
		"@B | join kind=innerunique hint.strategy=hash (@P) on k | top 5 by ts",
		"@B | join kind=leftouter hint.strategy=hash (@P) on k | top 5 by ts",
		"@B | join kind=rightouter hint.strategy=hash (@P) on k | top 5 by ts",
		"@B | join kind=rightsemi hint.strategy=hash (@P) on k | top 5 by ts",
		"@B | join kind=inner hint.strategy=hash (@P) on k | take 100 | top 5 by ts",
		"@B | join kind=inner hint.strategy=hash (@P) on k | summarize ts = max(ts) by name | top 5 by ts",
		"@B | join kind=inner hint.strategy=hash (@P) on k | top 5 by ts, row",
		"@B | join kind=inner hint.strategy=nestedloop (@P) on k | top 5 by ts",
	} {
		p := buildPlan(t, q, srcs)
		if ex := p.Explain(); strings.Contains(ex, "pushed into the join") {
			t.Errorf("%s: bound pushed where it must not be:\n%s", q, ex)
		}
		runRows(t, p)
	}
}

// TestTopBoundSkipsProbeRows checks that a pushed bound really reaches the join it filters: over sparse keys
// (so the join does not pick the candidates first) and a probe side of many batches, the join's last run
// must report probe rows skipped by the bound, and the answer must be the unpushed plan's.
func TestTopBoundSkipsProbeRows(t *testing.T) {
	srcs := boundSources(3, 200, 20_000, 1<<40+7, true)
	for _, q := range []string{
		"@B | join kind=inner hint.strategy=hash (@P) on k | top 5 by ts desc",
		"@B | join kind=inner hint.strategy=hash (@P) on k | where row % 3 != 1 | top 5 by ts asc",
	} {
		p := buildPlan(t, q, srcs)
		got, _ := runRows(t, p)
		want, _ := runRows(t, buildPlan(t, strings.Replace(q, " on k | ", " on k | take 1000000000 | ", 1), srcs))
		if g, w := rowsText(got), rowsText(want); g != w {
			t.Errorf("%s: rows differ from the unpushed plan's\ngot:\n%s\nwant:\n%s", q, g, w)
		}
		if ex := p.Explain(); !strings.Contains(ex, "probe rows skipped by the top's bound") {
			t.Errorf("%s: the join skipped no probe row:\n%s", q, ex)
		}
	}
}
