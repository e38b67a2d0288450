package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/source"
)

// TestPushSideExpressionsMatchesSummarize checks the aggregates computed below the join (pushSideExpressions)
// against the same query computed above the hash join (the rewrite off: the same rows in the same order) and
// over the nested-loop join, where nothing is pushed (the same rows, in its own order of groups), for every kind that forms pairs,
// both orders of the sides, expressions of either side that are null over a null-extended row (v * 2) and
// that are not (iff(isnull(v1), 7, …): the fixed sums), with and without an extend, grouped and not, and an
// empty side. The shapes that must fold say so in their explain; the one that must stay above (a min of an
// expression not null over nulls) must not.
func TestPushSideExpressionsMatchesSummarize(t *testing.T) {
	queries := []struct {
		tail string
		fold bool
	}{
		{"extend y = iff(isnull(v1), 7, v1 * 2) | summarize n = count(), s = sum(y), sv = sum(v)", true},
		{"extend y = iff(isnull(v), -3, v) | summarize n = count(), s = sum(y)", true},
		{"summarize s = sum(v * 2), t = sum(v1 + 1), n = count()", true},
		{"extend y = v * 3, z = coalesce(v1, 4) | summarize s = sum(y), m = max(v), z = sum(z) by id", true},
		{"extend y = iff(isnull(v1), 5, v1) | summarize s = sum(y), n = count() by id1", true},
		{"extend y = iff(isnull(k1), 5, v1), z = iff(isnull(k), -1, v) | summarize s = sum(y), t = sum(z) by id", true},
		{"project k, y = x * 2, v | summarize s = sum(y), sv = sum(v)", true},
		{"extend y = iff(isnull(v1), 1, v1) | summarize m = min(y)", false},
	}
	kinds := []string{"inner", "innerunique", "leftouter", "rightouter", "fullouter", "leftsemi", "leftanti", "rightsemi", "rightanti"}
	// Semi and anti kinds emit one side: the queries over it, that side written as it is named there.
	oneSide := []struct {
		tail string
		fold bool
	}{
		{"summarize n = count(), s = sum(v % 7), t = sum(iff(isnull(v), 2, v))", true},
		{"extend y = coalesce(v, 9) | summarize s = sum(y), m = min(y) by id", false}, // a grouped semi or anti join does not fold
		{"extend y = x * 2 | summarize s = sum(y)", true},
	}
	for _, seed := range []uint64{4, 5} {
		srcs := aggSources(seed)
		empty := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "v", Type: column.Long}, {Name: "x", Type: column.Real}, {Name: "id", Type: column.String}})
		srcs["E"] = source.FromTable("E", empty)
		for _, kind := range kinds {
			for _, sides := range [][2]string{{"A", "B"}, {"B", "A"}, {"A", "E"}, {"E", "B"}} {
				qs := queries
				if strings.Contains(kind, "semi") || strings.Contains(kind, "anti") {
					qs = oneSide
				}
				for qi, q := range qs {
					text := func(strategy string) string {
						return fmt.Sprintf("@%s | join kind=%s hint.strategy=%s (@%s) on k | %s", sides[0], kind, strategy, sides[1], q.tail)
					}
					t.Run(fmt.Sprintf("seed=%d/%s/%s-%s/%d", seed, kind, sides[0], sides[1], qi), func(t *testing.T) {
						got := buildPlan(t, text("hash"), srcs)
						e := got.Explain()
						if pushed := strings.Contains(e, "computed below the join"); pushed != q.fold {
							t.Fatalf("computed below the join: %v, want %v:\n%s", pushed, q.fold, e)
						}
						g := planRows(t, got)
						sideExpressions = false
						above := buildPlan(t, text("hash"), srcs)
						sideExpressions = true
						if w := planRows(t, above); g != w {
							t.Fatalf("pushed:\n%s\ncomputed above the hash join:\n%s\n%s", g, w, e)
						}
						if w := planRows(t, buildPlan(t, text("nestedloop"), srcs)); rowSet(g) != rowSet(w) {
							t.Fatalf("pushed:\n%s\nsummarize over nested loop:\n%s\n%s", g, w, e)
						}
					})
				}
			}
		}
	}
}
