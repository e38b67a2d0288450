package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/source"
)

// pairWhereSources are two tables of the given sizes with duplicate and null keys and nullable columns:
// L(k, a, s) and R(k, b, t), keys drawn from about a third as many values as the larger side has rows.
func pairWhereSources(seed uint64, nl, nr int) map[string]source.Source {
	rng := rand.New(rand.NewPCG(seed, 29))
	keys := max(nl, nr)/3 + 2
	table := func(name string, cols []string, n int) source.Source {
		schema := column.Schema{{Name: "k", Type: column.Long}, {Name: cols[0], Type: column.Long}, {Name: cols[1], Type: column.String}}
		t := column.NewTable(schema)
		vecs := []*column.Vector{column.NewVector(column.Long, n), column.NewVector(column.Long, n), column.NewVector(column.String, n)}
		for range n {
			for c, v := range vecs {
				switch {
				case rng.IntN(8) == 0:
					v.AppendNull()
				case c == 0:
					v.AppendInt(int64(rng.IntN(keys)))
				case c == 2:
					v.AppendString([]string{"", "x", "y", "z"}[rng.IntN(4)])
				default:
					v.AppendInt(int64(rng.IntN(10)))
				}
			}
		}
		t.Append(column.NewBatch(vecs, n))
		return source.FromTable(name, t)
	}
	return map[string]source.Source{"L": table("L", []string{"a", "s"}, nl), "R": table("R", []string{"b", "t"}, nr)}
}

// TestWheresIntoJoinsKeepTheAnswer runs a where over both sides of a join — for every kind, the strategies
// that take it and some that do not, inputs with null keys, duplicates and empty sides, small and past one
// output batch (4,096 rows), with a project, a summarize or a top above — once evaluated by the join on its
// row pairs (pushWheresIntoJoins) and once as a filter over the join's output. The rows must be the same, in
// the same order where the query fixes one (the top) and as multisets otherwise.
func TestWheresIntoJoinsKeepTheAnswer(t *testing.T) {
	conds := []string{
		"a > b", "a + b > 9 and s != t", "isnull(b) or a < 3", "isnull(k1)", "s == t or isempty(t)", "a % 3 == 0 and b % 2 == 1",
		"coalesce(b, 9) == 9", "a > 4",
	}
	tails := []string{"", " | project s, t", " | summarize n = count(), x = sum(a), y = sum(b) by s", " | top 5 by a asc nulls first, b desc, s, t, k, k1"}
	sizes := [][2]int{{0, 7}, {9, 0}, {0, 0}, {25, 30}, {3000, 400}}
	onPairs := 0
	defer func() { wheresIntoJoins = true }()
	for i, size := range sizes {
		seed := uint64(i)
		srcs := pairWhereSources(seed, size[0], size[1])
		for _, kind := range join.Kinds {
			for _, strategy := range []string{"", "hint.strategy=hash ", "hint.strategy=grace ", "hint.strategy=nestedloop "} {
				for ci, cond := range conds {
					tail := tails[(ci+int(kind))%len(tails)]
					q := fmt.Sprintf("@L | join kind=%s %s(@R) on k | where %s%s", kind, strategy, cond, tail)
					want, got, ex, ok := rewriteAnswers(t, q, srcs, &wheresIntoJoins, strings.Contains(tail, "top"))
					if !ok {
						continue // a condition over a side the kind does not output
					}
					if !slices.Equal(got, want) {
						t.Fatalf("seed %d, %s:\non the pairs %d rows %v\nabove       %d rows %v\n%s", seed, q, len(got), leading(got), len(want), leading(want), ex)
					}
					if strings.Contains(ex, "on the row pairs") {
						onPairs++
					}
				}
			}
		}
	}
	if onPairs == 0 {
		t.Fatal("no where was evaluated on a join's row pairs: the test compared nothing")
	}
	t.Logf("%d plans evaluated their where on the row pairs", onPairs)
}

// tableRowsInOrder renders tab's rows as text, in order.
func tableRowsInOrder(tab *column.Table) []string {
	out := make([]string, tab.N)
	for i := range out {
		var b strings.Builder
		for _, c := range tab.Cols {
			fmt.Fprintf(&b, "%v|", c.Value(i))
		}
		out[i] = b.String()
	}
	return out
}

func leading(rows []string) []string { return rows[:min(len(rows), 6)] }
