package plan

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
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
	p, err := Build(context.Background(), parsed, srcs, Options{})
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
	// Five songs, 4,000 plays each: every one is above the heavy threshold of an 8-worker shuffle (250 plays),
	// and five keys leave three workers idle, but no key outweighs the others: few keys, not skew.
	few := skewSources(0)
	plays := column.NewTable(column.Schema{{Name: "song", Type: column.Long}, {Name: "n", Type: column.Long}})
	for i := range 20_000 {
		plays.Cols[0].AppendInt(int64(i % 5))
		plays.Cols[1].AppendInt(int64(i))
	}
	plays.N = 20_000
	few["Plays"] = source.FromTable("Plays", plays)
	if ex := buildPlan(t, q, few).Explain(); strings.Contains(ex, "salted join") {
		t.Fatalf("five evenly used keys were salted:\n%s", ex)
	}
	// The reason names the salted key's weight: song 0 has 40% of the plays, 120 times the mean song played.
	if !regexp.MustCompile(`measured skew: 1 heavy key\(s\), [0-9]+× the mean key's rows`).MatchString(ex) {
		t.Fatalf("explain does not weigh the heavy key:\n%s", ex)
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

// saltEstimate reads the salted join's estimates out of explain: load max/median before and after, and bytes
// moved before and after.
var saltEstimate = regexp.MustCompile(`predicted load max/median ([0-9.]+) → ([0-9.]+); bytes moved est\. ([0-9.]+) ([KMGT]?i?B) → ([0-9.]+) ([KMGT]?i?B)`)

// parseExplainBytes reads a size as memory.Bytes writes it.
func parseExplainBytes(t *testing.T, n, unit string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(n, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v * map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[unit]
}

// checkSaltEstimates asserts that explain's estimates are within a quarter of what the run measured.
func checkSaltEstimates(t *testing.T, explain string, d map[string]any) {
	t.Helper()
	m := saltEstimate.FindStringSubmatch(explain)
	if m == nil {
		t.Fatalf("explain has no salted estimates:\n%s", explain)
	}
	est := func(i int) float64 {
		v, err := strconv.ParseFloat(m[i], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		what           string
		est0, measured float64
	}{
		{"load max/median before", est(1), d["load_max_over_median_before"].(float64)},
		{"load max/median after", est(2), d["load_max_over_median_after"].(float64)},
		{"bytes moved before", parseExplainBytes(t, m[3], m[4]), float64(d["bytes_moved_before"].(int64))},
		{"bytes moved after", parseExplainBytes(t, m[5], m[6]), float64(d["bytes_moved_after"].(int64))},
	} {
		t.Logf("%s: estimated %.3g, measured %.3g", c.what, c.est0, c.measured)
		if math.Abs(c.est0-c.measured) > saltEstimateTolerance*c.measured {
			t.Errorf("%s: estimated %.3g, measured %.3g: more than %.0f%% apart", c.what, c.est0, c.measured,
				100*saltEstimateTolerance)
		}
	}
}

// saltEstimateTolerance is how far the issue allows explain's estimates to be from the run's figures.
const saltEstimateTolerance = 0.25

// generatedSkew is plays over keys songs where hot songs 0..hot-1 share hotShare of the plays, a fraction
// nulls of plays has no song, and the catalogue lists each song once with a title of varying length.
func generatedSkew(seed uint64, plays, songs, hot int, hotShare, nulls float64) map[string]source.Source {
	r := rand.New(rand.NewPCG(seed, seed^0x5a17))
	p := column.NewTable(column.Schema{{Name: "song", Type: column.Long}, {Name: "n", Type: column.Long},
		{Name: "who", Type: column.String}})
	for i := range plays {
		switch x := r.Float64(); {
		case x < nulls:
			p.Cols[0].AppendNull()
		case x < nulls+hotShare:
			p.Cols[0].AppendInt(int64(r.IntN(hot)))
		default:
			p.Cols[0].AppendInt(int64(r.IntN(songs)))
		}
		p.Cols[1].AppendInt(int64(i))
		p.Cols[2].AppendString(strings.Repeat("u", 1+r.IntN(12)))
	}
	p.N = plays
	s := column.NewTable(column.Schema{{Name: "song", Type: column.Long}, {Name: "title", Type: column.String}})
	for k := range songs {
		s.Cols[0].AppendInt(int64(k))
		s.Cols[1].AppendString(fmt.Sprint("song ", k, strings.Repeat("!", r.IntN(20))))
	}
	s.N = songs
	return map[string]source.Source{"Plays": source.FromTable("Plays", p), "Songs": source.FromTable("Songs", s)}
}

// TestSaltedEstimatesMatchRun: over generated skews (hot keys on the left, on the right, with null keys, and
// one measured by the sketch), for kinds that spread either side, explain's predicted loads and bytes land
// within a quarter of the run's.
func TestSaltedEstimatesMatchRun(t *testing.T) {
	for _, c := range []struct {
		seed            uint64
		plays, songs    int
		hot             int
		hotShare, nulls float64
		kind            string
		playsLeft       bool
	}{
		{1, 40_000, 2_000, 1, 0.4, 0, "leftouter", true},
		{2, 60_000, 5_000, 3, 0.3, 0.02, "leftouter", true},
		{3, 30_000, 1_000, 8, 0.5, 0, "inner", true},
		{4, 50_000, 3_000, 2, 0.25, 0.05, "rightouter", false},
		{5, 40_000, 4_000, 4, 0.35, 0.01, "fullouter", true},
		{6, 25_000, 500, 1, 0.6, 0, "innerunique", false},
		{7, 20_000, 10_000, 5, 0.2, 0.1, "leftanti", true},
		// More distinct keys than skew.ExactKeys: the sketch measures, and only heavy keys are replayed.
		{8, 150_000, 100_000, 2, 0.3, 0.01, "leftouter", true},
	} {
		t.Run(fmt.Sprintf("seed%d_%s", c.seed, c.kind), func(t *testing.T) {
			t.Logf("seed=%d", c.seed)
			q := fmt.Sprintf("@Plays | join kind=%s hint.strategy=salted (@Songs) on song", c.kind)
			if !c.playsLeft {
				q = fmt.Sprintf("@Songs | join kind=%s hint.strategy=salted (@Plays) on song", c.kind)
			}
			srcs := generatedSkew(c.seed, c.plays, c.songs, c.hot, c.hotShare, c.nulls)
			p := buildPlan(t, q, srcs)
			ex := p.Explain()
			_, d := runRows(t, p)
			checkSaltEstimates(t, ex, d)
		})
	}
}

// TestPlanningStopsWithItsContext: the salted join's skew sample reads the sources while planning; a cancelled
// context stops it, and planning fails with the cancel instead of choosing as if the sample had found nothing.
func TestPlanningStopsWithItsContext(t *testing.T) {
	parsed, err := kql.Parse("@Plays | join kind=inner (@Songs) on song")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Build(ctx, parsed, skewSources(0.4), Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("planning under a cancelled context: %v, want context.Canceled", err)
	}
	if p := buildPlan(t, "@Plays | join kind=inner (@Songs) on song", skewSources(0.4)); !strings.Contains(p.Strategies(), "salted") {
		t.Fatalf("under a live context the skewed join plans %s, want salted", p.Strategies())
	}
}

// scanCounter is a source that counts the scans opened on it.
type scanCounter struct {
	source.Source
	scans int
}

func (s *scanCounter) Scan(ctx context.Context, cols []column.Field) source.Iterator {
	s.scans++
	return s.Source.Scan(ctx, cols)
}

// TestPlanningSamplesNoJoinOutput: the skew sample reads a join's sides only where their first rows come
// cheaply. A join over another join is not sampled — its left side's first row would cost the lower join's
// whole build — so planning a chain scans its tables exactly as often as planning its first join alone, and
// the upper join, skewed as its input is, runs as a hash join unless salting is forced.
func TestPlanningSamplesNoJoinOutput(t *testing.T) {
	scans := func(q string) (int, int, string) {
		srcs := skewSources(0.4)
		plays, songs := &scanCounter{Source: srcs["Plays"]}, &scanCounter{Source: srcs["Songs"]}
		p := buildPlan(t, q, map[string]source.Source{"Plays": plays, "Songs": songs})
		return plays.scans, songs.scans, p.Explain()
	}
	one := "@Plays | join kind=inner (@Songs) on song"
	p1, s1, _ := scans(one)
	if p1 == 0 || s1 == 0 {
		t.Fatalf("planning one skewed join scanned Plays %d and Songs %d times: no sample taken", p1, s1)
	}
	p2, s2, ex := scans(one + " | join kind=inner (@Songs) on song")
	if p2 != p1 || s2 != s1 {
		t.Fatalf("planning the chain scanned Plays %d and Songs %d times, the first join alone %d and %d:\n%s", p2, s2, p1, s1, ex)
	}
	if strings.Count(ex, "salted join") != 1 || !strings.Contains(ex, "hash join kind=inner") {
		t.Fatalf("the lower join should be salted on its sample and the upper one hashed:\n%s", ex)
	}
}
