package plan

import (
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

// lookupSources are a fact table and a dimension table over a key k with ties, nulls, keys missing on either
// side and a second column of the same name on both (v), generated from seed.
func lookupSources(seed uint64) map[string]source.Source {
	r := rand.New(rand.NewPCG(seed, 23))
	facts := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "v", Type: column.String}, {Name: "a", Type: column.Long}})
	for i := 0; i < 300; i++ {
		if r.IntN(10) == 0 {
			facts.Cols[0].AppendNull()
		} else {
			facts.Cols[0].AppendInt(int64(r.IntN(40)))
		}
		facts.Cols[1].AppendString(fmt.Sprint("f", i))
		facts.Cols[2].AppendInt(int64(r.IntN(40)))
	}
	facts.N = 300
	dim := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "v", Type: column.String}, {Name: "b", Type: column.Long}})
	for i := 0; i < 30; i++ {
		if r.IntN(12) == 0 {
			dim.Cols[0].AppendNull()
		} else {
			dim.Cols[0].AppendInt(int64(r.IntN(50)))
		}
		dim.Cols[1].AppendString(fmt.Sprint("d", i))
		dim.Cols[2].AppendInt(int64(r.IntN(50)))
	}
	dim.N = 30
	return map[string]source.Source{"Facts": source.FromTable("Facts", facts), "Dim": source.FromTable("Dim", dim)}
}

// sortedRows is planRows' lines sorted, with the output schema first.
func sortedRows(t *testing.T, p *Plan) string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(planRows(t, p), "\n"), "\n")
	slices.Sort(lines)
	var names []string
	for _, f := range p.Schema() {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	return strings.Join(names, ",") + "\n" + strings.Join(lines, "\n")
}

// TestLookupMatchesJoin: a lookup is the join of its kind (leftouter by default, or inner) without the right
// key columns that repeat a left key's name, run as a hash join building the right side; a right key of another
// name stays; other kinds and any hint are errors at their position.
func TestLookupMatchesJoin(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		srcs := lookupSources(seed)
		for _, c := range []struct{ lookup, join string }{
			{"@Facts | lookup (@Dim) on k", "@Facts | join kind=leftouter (@Dim) on k | project-away k1"},
			{"@Facts | lookup kind=leftouter (@Dim) on $left.k == $right.k", "@Facts | join kind=leftouter (@Dim) on k | project-away k1"},
			{"@Facts | lookup kind=inner (@Dim) on k", "@Facts | join kind=inner (@Dim) on k | project-away k1"},
			{"@Facts | lookup (@Dim) on $left.a == $right.b", "@Facts | join kind=leftouter (@Dim) on $left.a == $right.b"},
			{"@Facts | lookup kind=inner (@Dim) on k, $left.a == $right.b", "@Facts | join kind=inner (@Dim) on k, $left.a == $right.b | project-away k1"},
			{"@Facts | lookup (@Dim | where b > 10) on k | where isnotnull(v1) | count", "@Facts | join kind=leftouter (@Dim | where b > 10) on k | where isnotnull(v1) | count"},
		} {
			got := buildPlan(t, c.lookup, srcs)
			if !strings.Contains(got.Explain(), "lookup: the right side is the dimension table") || !strings.Contains(got.Explain(), "build right side") {
				t.Fatalf("%s: explain does not say the lookup builds the right side:\n%s", c.lookup, got.Explain())
			}
			want := sortedRows(t, buildPlan(t, c.join, srcs))
			if g := sortedRows(t, got); g != want {
				t.Fatalf("seed %d: %s\ngot:\n%s\nwant (%s):\n%s", seed, c.lookup, head(g), c.join, head(want))
			}
		}
	}
	if _, err := kql.Parse("@Facts | lookup kind=leftanti (@Dim) on k"); err == nil ||
		!strings.HasPrefix(err.Error(), "1:10: lookup kind=leftanti: lookup serves only kind=leftouter (the default) and kind=inner") {
		t.Errorf("lookup kind=leftanti: %v", err)
	}
	for q, want := range map[string]string{
		"@Facts | lookup hint.strategy=broadcast (@Dim) on k":     "1:17: lookup takes no hint.strategy",
		"@Facts | lookup kind=inner hint.remote=auto (@Dim) on k": "1:28: lookup takes no hint.remote",
	} {
		err := buildErr(t, q, lookupSources(1))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %s", q, err, want)
		}
	}
}

func head(s string) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[:min(len(lines), 10)], "\n")
}

// TestKustoStrategiesMatchHash: forced broadcast and shuffle joins give the hash join's rows for every kind
// they serve, through the planner (binding, W, Open), and broadcast refuses the others at the hint.
func TestKustoStrategiesMatchHash(t *testing.T) {
	srcs := lookupSources(9)
	for _, kind := range join.Kinds {
		want := sortedRows(t, buildPlan(t, fmt.Sprintf("@Facts | join kind=%s hint.strategy=hash (@Dim) on k", kind), srcs))
		for _, hint := range []string{"hint.strategy=broadcast", "hint.strategy=shuffle", "hint.shufflekey=k hint.num_partitions=5"} {
			q := fmt.Sprintf("@Facts | join kind=%s %s (@Dim) on k", kind, hint)
			if hint == "hint.strategy=broadcast" && join.BroadcastServes(kind) != nil {
				if err := buildErr(t, q, srcs); err == nil || !strings.HasPrefix(err.Error(), "1:"+fmt.Sprint(len("@Facts | join kind=")+len(kind.String())+2)+": ") {
					t.Errorf("%s: %v, want an error at the hint", q, err)
				}
				continue
			}
			if got := sortedRows(t, buildPlan(t, q, srcs)); got != want {
				t.Errorf("%s: the rows differ from the hash join's\ngot:\n%s\nwant:\n%s", q, head(got), head(want))
			}
		}
	}
}
