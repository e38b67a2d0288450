package scenario

import (
	"context"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/query"
)

// saltedEstimate reads the salted join's estimates out of explain: load max/median before and after, bytes
// moved before and after (as memory.Bytes writes them).
var saltedEstimate = regexp.MustCompile(`predicted load max/median ([0-9.]+) → ([0-9.]+); bytes moved est\. ([0-9.]+) ([KMGT]?i?B) → ([0-9.]+) ([KMGT]?i?B)`)

// estimateTolerance is how far issue 23 allows explain's salted estimates to be from the run's figures.
const estimateTolerance = 0.25

// TestSkewedListensEstimates: on the skewed-listens scenario, at its defaults and at other skews, explain's
// predicted loads and bytes are within a quarter of what the run measures.
func TestSkewedListensEstimates(t *testing.T) {
	sc, err := Get("skewed-listens")
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []map[string]float64{
		{},
		{"viral": 5, "viral_share": 0.6},
		{"viral": 1, "viral_share": 0.1, "unknown": 0.1},
		{"listens": 50_000, "songs": 20_000, "viral": 20, "viral_share": 0.5},
	} {
		const seed = 1
		t.Logf("seed=%d knobs=%v", seed, set)
		knobs, err := sc.Resolve(set)
		if err != nil {
			t.Fatal(err)
		}
		srcs, err := sc.Sources(seed, knobs)
		if err != nil {
			t.Fatal(err)
		}
		p, err := query.Prepare(context.Background(), sc.Query, srcs, query.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := saltedEstimate.FindStringSubmatch(p.Explain())
		if m == nil {
			t.Fatalf("knobs %v: explain has no salted estimates:\n%s", set, p.Explain())
		}
		st, err := p.Run(context.Background(), func(*column.Batch) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		num := func(s string) float64 {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		size := func(n, unit string) float64 {
			return num(n) * map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[unit]
		}
		d := st.Details
		for _, c := range []struct {
			what          string
			est, measured float64
		}{
			{"load max/median before", num(m[1]), d["load_max_over_median_before"].(float64)},
			{"load max/median after", num(m[2]), d["load_max_over_median_after"].(float64)},
			{"bytes moved before", size(m[3], m[4]), float64(d["bytes_moved_before"].(int64))},
			{"bytes moved after", size(m[5], m[6]), float64(d["bytes_moved_after"].(int64))},
		} {
			t.Logf("  %s: estimated %.3g, measured %.3g", c.what, c.est, c.measured)
			if math.Abs(c.est-c.measured) > estimateTolerance*c.measured {
				t.Errorf("knobs %v: %s estimated %.3g, measured %.3g: more than %.0f%% apart", set, c.what, c.est,
					c.measured, 100*estimateTolerance)
			}
		}
	}
}
