package plan

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/source"
)

// filterSources are two small tables with duplicate and null keys and nullable columns, so that a filter
// pushed to the wrong side (the null-extended one, innerunique's reduced left) would change the answer.
func filterSources(seed uint64) map[string]source.Source {
	rng := rand.New(rand.NewPCG(seed, 11))
	table := func(name string, cols []string, n int) source.Source {
		schema := column.Schema{{Name: "k", Type: column.Long}, {Name: cols[0], Type: column.Long}, {Name: cols[1], Type: column.String}}
		t := column.NewTable(schema)
		vecs := []*column.Vector{column.NewVector(column.Long, n), column.NewVector(column.Long, n), column.NewVector(column.String, n)}
		for range n {
			for c, v := range vecs {
				switch {
				case rng.IntN(8) == 0:
					v.AppendNull()
				case c == 2:
					v.AppendString([]string{"x", "y", "z"}[rng.IntN(3)])
				default:
					v.AppendInt(int64(rng.IntN(6)))
				}
			}
		}
		t.Append(column.NewBatch(vecs, n))
		return source.FromTable(name, t)
	}
	return map[string]source.Source{"L": table("L", []string{"a", "s"}, 5+rng.IntN(30)), "R": table("R", []string{"b", "t"}, 5+rng.IntN(30))}
}

// TestFiltersIntoJoinsKeepTheAnswer runs a where over a join, for every kind and several strategies, with the
// where's one-side conjuncts pushed below the join and without: the rows must be the same (as multisets; the
// strategies choose their order), and the pushing must have happened where the kind allows it.
func TestFiltersIntoJoinsKeepTheAnswer(t *testing.T) {
	conds := []string{
		"a > 2", "b > 2", "a > 2 and b < 4", "isnull(b)", "isnotnull(a) and t == 'x'", "a + b > 4", "k > 2",
		"k1 > 2", "s == t", "a > 2 or b > 2", "isempty(s) and k1 != 3", "coalesce(b, 9) == 9",
	}
	pushed := 0
	defer func() { filterIntoJoins = true }()
	for seed := range uint64(6) {
		srcs := filterSources(seed)
		for _, kind := range join.Kinds {
			for _, strategy := range []string{"", "hint.strategy=hash ", "hint.strategy=nestedloop ", "hint.strategy=grace "} {
				for _, cond := range conds {
					q := fmt.Sprintf("@L | join kind=%s %s(@R) on k | where %s", kind, strategy, cond)
					want, got, ex, ok := rewriteAnswers(t, q, srcs, &filterIntoJoins, false)
					if !ok {
						continue // a condition over a side the kind does not output
					}
					if !slices.Equal(got, want) {
						t.Fatalf("seed %d, %s:\nbelow %v\nabove %v\n%s", seed, q, got, want, ex)
					}
					if _, physical, _ := strings.Cut(ex, "physical plan"); strings.Contains(physical, "join kind="+kind.String()) &&
						strings.Index(physical, "filter") > strings.Index(physical, " join kind=") {
						pushed++
					}
				}
			}
		}
	}
	if pushed == 0 {
		t.Fatal("no filter was pushed below a join: the test compared nothing")
	}
	t.Logf("%d plans with a filter below their join", pushed)
}

// TestFilterIntoJoinPlaces checks where each kind lets a one-side conjunct go (the rest stays above the join,
// which the hash join evaluates on its row pairs), and that a renamed right column
// (k1 is the right side's k) is not taken for the right side's own k.
func TestFilterIntoJoinPlaces(t *testing.T) {
	srcs := filterSources(1)
	for _, c := range []struct {
		q            string
		below, above []string // conjuncts expected under the join, and left above it
	}{
		{"@L | join kind=inner (@R) on k | where a > 1 and b > 1 and a + b > 3", []string{"(a > 1)", "(b > 1)"}, []string{"((a + b) > 3)"}},
		{"@L | join kind=innerunique (@R) on k | where a > 1 and b > 1", []string{"(b > 1)"}, []string{"(a > 1)"}},
		{"@L | join kind=leftouter (@R) on k | where a > 1 and b > 1", []string{"(a > 1)"}, []string{"(b > 1)"}},
		{"@L | join kind=rightouter (@R) on k | where a > 1 and b > 1", []string{"(b > 1)"}, []string{"(a > 1)"}},
		{"@L | join kind=fullouter (@R) on k | where a > 1 and b > 1", nil, []string{"((a > 1) and (b > 1))"}},
		{"@L | join kind=inner (@R) on k | where k1 > 1", nil, []string{"(k1 > 1)"}},
	} {
		p := buildPlan(t, c.q, srcs)
		_, physical, _ := strings.Cut(p.Explain(), "physical plan")
		joinAt := strings.Index(physical, " join kind=")
		joinLine, _, _ := strings.Cut(physical[joinAt:], "\n")
		for _, b := range c.below {
			if i := strings.Index(physical, "filter "+b); i < joinAt {
				t.Errorf("%s: %s is not below the join:\n%s", c.q, b, physical)
			}
		}
		for _, a := range c.above { // above the join, or evaluated by it on its row pairs (pairwhere.go)
			if i := strings.Index(physical, "filter "+a); (i < 0 || i > joinAt) && !strings.Contains(joinLine, "where "+a) {
				t.Errorf("%s: %s is not above the join:\n%s", c.q, a, physical)
			}
		}
	}
}

// rewriteAnswers runs q against srcs twice, with the rewrite knob turns on turned off and then on, and returns
// both answers' rows (sorted, unless ordered: a top's order is part of its answer) and the explain of the run
// with the rewrite on. ok is false when both runs refused q (a column the kind does not output); it fails t
// when only one did.
func rewriteAnswers(t *testing.T, q string, srcs map[string]source.Source, knob *bool, ordered bool) (off, on []string, ex string, ok bool) {
	t.Helper()
	run := func(v bool) ([]string, string, error) {
		*knob = v
		p, err := buildPlanErr(q, srcs)
		if err != nil {
			return nil, "", err
		}
		tab, _ := runRows(t, p)
		return tableRowsInOrder(tab), p.Explain(), nil
	}
	off, _, offErr := run(false)
	on, ex, onErr := run(true)
	if (offErr != nil) != (onErr != nil) {
		t.Fatalf("%s: error %v with the rewrite off, %v with it on", q, offErr, onErr)
	}
	if !ordered {
		slices.Sort(off)
		slices.Sort(on)
	}
	return off, on, ex, offErr == nil
}

// buildPlanErr is buildPlan returning the error, for queries that may not bind.
func buildPlanErr(q string, srcs map[string]source.Source) (*Plan, error) {
	parsed, err := kql.Parse(q)
	if err != nil {
		return nil, err
	}
	return Build(context.Background(), parsed, srcs, Options{})
}
