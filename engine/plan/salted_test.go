package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/source"
)

// skewSources are plays (20,000 rows, 40% on song 0) and songs (500 rows, one per song).
func skewSources(hot float64) map[string]source.Source {
	plays := column.NewTable(column.Schema{{Name: "song", Type: column.Long}, {Name: "n", Type: column.Long}})
	for i := 0; i < 20_000; i++ {
		song := int64((i * 7919) % 500)
		if i%100 < int(hot*100) {
			song = 0
		}
		plays.Cols[0].AppendInt(song)
		plays.Cols[1].AppendInt(int64(i))
	}
	plays.N = 20_000
	songs := column.NewTable(column.Schema{{Name: "song", Type: column.Long}, {Name: "title", Type: column.String}})
	for s := 0; s < 500; s++ {
		songs.Cols[0].AppendInt(int64(s))
		songs.Cols[1].AppendString(fmt.Sprint("song ", s))
	}
	songs.N = 500
	return map[string]source.Source{"Plays": source.FromTable("Plays", plays), "Songs": source.FromTable("Songs", songs)}
}

func buildPlan(t *testing.T, q string, srcs map[string]source.Source) *Plan {
	t.Helper()
	parsed, err := kql.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(parsed, srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runCount(t *testing.T, p *Plan) (int, map[string]any) {
	t.Helper()
	tab, details := runRows(t, p)
	return tab.N, details
}

// TestSaltedChosenOnMeasuredSkew: skewed inputs are salted without a hint, uniform ones are not, and the
// answer is the hash join's.
func TestSaltedChosenOnMeasuredSkew(t *testing.T) {
	q := "@Plays | join kind=leftouter (@Songs) on song | project n, title"
	skewed := buildPlan(t, q, skewSources(0.4))
	ex := skewed.Explain()
	for _, want := range []string{"salted join kind=leftouter", "W=8 workers", "spread left side", "0 (left 8",
		"measured skew", "rows under a spread key", "bytes moved for those keys"} {
		if !strings.Contains(ex, want) {
			t.Fatalf("explain lacks %q:\n%s", want, ex)
		}
	}
	n, d := runCount(t, skewed)
	if n != 20_000 || d["workers"] != 8 || d["load_max_over_median_after"].(float64) > 1.5 ||
		d["load_max_over_median_before"].(float64) < 2 {
		t.Fatalf("salted run: %d rows, details %v", n, d)
	}
	hashed := buildPlan(t, "@Plays | join kind=leftouter hint.strategy=hash (@Songs) on song | project n, title", skewSources(0.4))
	if m, _ := runCount(t, hashed); m != n {
		t.Fatalf("hash join gave %d rows, salted %d", m, n)
	}
	uniform := buildPlan(t, q, skewSources(0))
	if ex := uniform.Explain(); strings.Contains(ex, "salted join") {
		t.Fatalf("uniform keys were salted:\n%s", ex)
	}
}

// TestSaltedForced: hint.strategy=salted runs it on any input, and the naive variant is labelled.
func TestSaltedForced(t *testing.T) {
	srcs := explainSourcesFor(t)
	p := buildPlan(t, "@Users | join kind=rightouter hint.strategy=salted (@Listens) on user_id", srcs)
	if ex := p.Explain(); !strings.Contains(ex, "salted join kind=rightouter, W=4 workers, spread right side") {
		t.Fatalf("forced explain:\n%s", ex)
	}
	if n, _ := runCount(t, p); n != 8 {
		t.Fatalf("forced salted rightouter gave %d rows, want 8", n)
	}
	naive := buildPlan(t, "@Users | join kind=rightouter hint.strategy=salted_naive_wrong (@Listens) on user_id", srcs)
	if ex := naive.Explain(); !strings.Contains(ex, "TEACHING VARIANT, WRONG") {
		t.Fatalf("naive explain is not labelled:\n%s", ex)
	}
	if d := strategies[StrategySaltedNaiveWrong]; !d.Baseline || d.Choose != nil {
		t.Fatal("the naive variant must be a baseline that is never chosen")
	}
}

func explainSourcesFor(t *testing.T) map[string]source.Source { return explainSources(t) }
