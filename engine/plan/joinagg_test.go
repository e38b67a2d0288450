package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/source"
)

// aggSources are A (300 rows) and B (200 rows): a long key over 0..29 with nulls and a hot key 0, a long
// payload with nulls and a real payload of exact halves (so real sums do not depend on the order of addition).
func aggSources(seed uint64) map[string]source.Source {
	r := rand.New(rand.NewPCG(seed, seed))
	gen := func(rows int) *column.Table {
		t := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "v", Type: column.Long}, {Name: "x", Type: column.Real}, {Name: "id", Type: column.String}})
		for i := 0; i < rows; i++ {
			switch {
			case r.IntN(10) == 0:
				t.Cols[0].AppendNull()
			case r.IntN(4) == 0:
				t.Cols[0].AppendInt(0)
			default:
				t.Cols[0].AppendInt(int64(r.IntN(30)))
			}
			if r.IntN(8) == 0 {
				t.Cols[1].AppendNull()
			} else {
				t.Cols[1].AppendInt(int64(r.IntN(1000)) - 300)
			}
			t.Cols[2].AppendReal(float64(r.IntN(100)) / 2)
			t.Cols[3].AppendString(fmt.Sprint("row-", i))
		}
		t.N = rows
		return t
	}
	return map[string]source.Source{"A": source.FromTable("A", gen(300)), "B": source.FromTable("B", gen(200))}
}

// TestAggregateJoinsMatchesSummarize checks the folded summarize against the same query run as summarize over
// the nested-loop join, for every kind, both build sides (A ⋈ B builds on B, B ⋈ A on B too, so the probe
// and build roles swap relative to left and right), with no where and with one between the join and the
// summarize (over both sides where the kind outputs both, which the join folds after testing each pair), and
// checks the rewrite happened only where it should.
func TestAggregateJoinsMatchesSummarize(t *testing.T) {
	kinds := []string{"inner", "innerunique", "leftouter", "rightouter", "fullouter", "leftsemi", "leftanti", "rightsemi", "rightanti"}
	for _, seed := range []uint64{1, 2, 3} {
		srcs := aggSources(seed)
		for _, kind := range kinds {
			// Real sums take the join aggregate's rows path; integer ones alone its radix path, but for a where.
			aggLists := []string{"n = count(), sv = sum(v), sx = sum(x), sv1 = sum(v1), sx1 = sum(x1)", "n = count(), sv = sum(v), sv1 = sum(v1)"}
			wheres := []string{"", "| where v > v1 or isnull(v1) or x < 5 ", "| where isnull(k) or isnull(k1) "}
			if strings.Contains(kind, "semi") || strings.Contains(kind, "anti") {
				aggLists = []string{"n = count(), sv = sum(v), sx = sum(x)", "n = count(), sv = sum(v)"}
				wheres = []string{"", "| where v > x "}
			}
			for _, sides := range [][2]string{{"A", "B"}, {"B", "A"}} {
				for i := range len(aggLists) * len(wheres) {
					aggs, where := aggLists[i/len(wheres)], wheres[i%len(wheres)]
					q := func(strategy string) string {
						return fmt.Sprintf("@%s | join kind=%s hint.strategy=%s (@%s) on k %s| summarize %s", sides[0], kind, strategy, sides[1], where, aggs)
					}
					name := fmt.Sprintf("seed=%d/%s/%s-%s/%d", seed, kind, sides[0], sides[1], i)
					t.Run(name, func(t *testing.T) {
						got := buildPlan(t, q("hash"), srcs)
						if !strings.Contains(got.Explain(), "aggregated in the join") {
							t.Fatalf("the summarize was not folded into the hash join:\n%s", got.Explain())
						}
						if got.Strategies() != "hash" {
							t.Fatalf("strategies %q, want hash", got.Strategies())
						}
						want := buildPlan(t, q("nestedloop"), srcs)
						if g, w := planRows(t, got), planRows(t, want); g != w {
							t.Fatalf("folded: %s\nsummarize over nested loop: %s", g, w)
						}
					})
				}
			}
		}
	}
}

// TestAggregateJoinsByMatchesSummarize checks the grouped fold (join.GroupAggregate) against the same query
// run as summarize over the unrewritten hash join (same rows, same order) and over the nested-loop join (same
// rows as a set), for every kind that forms pairs, both orders of the sides, and group keys on either side:
// the join key, a long payload with nulls, a unique string, two columns.
func TestAggregateJoinsByMatchesSummarize(t *testing.T) {
	kinds := []string{"inner", "innerunique", "leftouter", "rightouter", "fullouter"}
	aggs := "n = count(), sv = sum(v), lo = min(v), hi = max(v), sv1 = sum(v1), lo1 = min(v1), hi1 = max(v1)"
	for _, seed := range []uint64{1, 2, 3} {
		srcs := aggSources(seed)
		for _, kind := range kinds {
			for _, sides := range [][2]string{{"A", "B"}, {"B", "A"}} {
				for _, by := range []string{"k", "v", "id", "k, v", "k1", "v1", "id1", "id1, v1"} {
					q := func(strategy string) string {
						own := ", ds = dcount(id), ms = max(id), dv = dcount(v)" // the group side's own strings and values
						if strings.Contains(by, "1") {
							own = ", ds = dcount(id1), ms = min(id1), dv = dcount(v1)"
						}
						return fmt.Sprintf("@%s | join kind=%s hint.strategy=%s (@%s) on k | summarize %s%s by %s", sides[0], kind, strategy, sides[1], aggs, own, by)
					}
					t.Run(fmt.Sprintf("seed=%d/%s/%s-%s/by %s", seed, kind, sides[0], sides[1], by), func(t *testing.T) {
						got := buildPlan(t, q("hash"), srcs)
						if !strings.Contains(got.Explain(), "aggregated by group in the join") {
							t.Fatalf("the summarize was not folded into the hash join:\n%s", got.Explain())
						}
						unfolded := buildPlan(t, q("hash"), srcs)
						unfolded.root = unfoldGroups(unfolded.root)
						g := planRows(t, got)
						if w := planRows(t, unfolded); g != w {
							t.Fatalf("folded:\n%s\nsummarize over the hash join:\n%s", g, w)
						}
						if w := planRows(t, buildPlan(t, q("nestedloop"), srcs)); rowSet(g) != rowSet(w) {
							t.Fatalf("folded:\n%s\nsummarize over nested loop:\n%s", g, w)
						}
					})
				}
			}
		}
	}
}

// unfoldGroups puts back the summarize a joinGroupAggNode replaced, over the same hash join.
func unfoldGroups(root Node) Node {
	return transform(root, func(n Node) Node {
		g, ok := n.(*joinGroupAggNode)
		if !ok {
			return n
		}
		keys := make([]expr.Expr, len(g.keys))
		for i, k := range g.keys {
			keys[i] = &expr.ColumnRef{Index: k, T: g.join.Schema()[k].Type}
		}
		aggs := make([]exec.Agg, len(g.gaggs))
		for i, a := range g.gaggs {
			aggs[i] = exec.Agg{Func: a.Func, Type: g.schema[len(keys)+i].Type}
			if a.Func != "count" {
				aggs[i].Arg = &expr.ColumnRef{Index: a.Col, T: g.join.Schema()[a.Col].Type}
			}
		}
		return &summarizeNode{base: g.base, in: g.join, keys: keys, aggs: aggs, text: g.text}
	})
}

// rowSet is planRows' rows sorted, so that outputs compare as multisets.
func rowSet(rows string) string {
	lines := strings.Split(rows, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestAggregateJoinsLeavesOtherShapes checks that summaries the fold cannot compute keep their summarize.
func TestAggregateJoinsLeavesOtherShapes(t *testing.T) {
	srcs := aggSources(1)
	for _, q := range []string{
		"@A | join hint.strategy=hash (@B) on k | summarize n = count() by k, k1",
		"@A | join hint.strategy=hash (@B) on k | summarize s = sum(x) by id",
		"@A | join hint.strategy=hash (@B) on k | summarize a = avg(v) by id",
		"@A | join hint.strategy=hash (@B) on k | summarize d = dcount(id1) by id",
		"@A | join hint.strategy=hash (@B) on k | summarize m = min(x) by id",
		"@A | join kind=leftsemi hint.strategy=hash (@B) on k | summarize n = count() by id",
		"@A | join hint.strategy=hash (@B) on k | summarize a = avg(v)",
		"@A | join hint.strategy=hash (@B) on k | summarize s = sum(v + v1)",
		"@A | join hint.strategy=nestedloop (@B) on k | summarize n = count()",
		"@A | join hint.strategy=hash (@B) on k | where v > v1 | summarize n = count() by id",
		"@A | join hint.strategy=hash (@B) on k | where v > v1 | summarize s = sum(v + v1)",
	} {
		if e := buildPlan(t, q, srcs).Explain(); strings.Contains(e, "aggregated in the join") {
			t.Errorf("%s: folded, but it should not be:\n%s", q, e)
		}
	}
}

// planRows runs a plan and renders its rows.
func planRows(t *testing.T, p *Plan) string {
	t.Helper()
	env := exec.NewEnv(memory.NewBudget(0), nil)
	op, err := p.Open(t.Context(), env)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := exec.Materialize(t.Context(), op)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for r := 0; r < tab.N; r++ {
		for c, v := range tab.Cols {
			fmt.Fprintf(&b, "%s=%v ", tab.Schema[c].Name, v.Value(r))
		}
		b.WriteString("\n")
	}
	return b.String()
}
