package scenario

import (
	"context"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/sims/profile"
)

// TestProfileKnobDefaultsArePresets checks that an unset profile knob leaves the preset exactly as published.
func TestProfileKnobDefaultsArePresets(t *testing.T) {
	for _, name := range profile.Names() {
		p := mustProfile(name)
		k := map[string]float64{}
		for _, knob := range profileKnobs("src", "T", p) {
			k[knob.Name] = knob.Default
		}
		if got := applyProfileKnobs("src", p, k); got != p {
			t.Errorf("%s: defaults changed the profile:\n%+v\nwant\n%+v", name, got, p)
		}
	}
}

// TestProfileKnobsChangeRequestsNotRows runs okta-crowdstrike-small with CrowdStrike's response cap and IN
// list cut down by knobs: more requests to CrowdStrike, the same rows.
func TestProfileKnobsChangeRequestsNotRows(t *testing.T) {
	sc, err := Get("okta-crowdstrike-small")
	if err != nil {
		t.Fatal(err)
	}
	run := func(set map[string]float64) ([]string, *query.Stats) {
		knobs, err := sc.Resolve(set)
		if err != nil {
			t.Fatal(err)
		}
		srcs, err := sc.Sources(1, knobs)
		if err != nil {
			t.Fatal(err)
		}
		p, err := query.Prepare(context.Background(), sc.Query, srcs, query.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		st, err := p.Run(context.Background(), func(b *column.Batch) error {
			for r := 0; r < b.N; r++ {
				var line string
				for _, c := range b.Cols {
					line += connector.Literal(c.Value(r)) + "|"
				}
				rows = append(rows, line)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return rows, st
	}
	base, bst := run(nil)
	tight, tst := run(map[string]float64{"crowdstrike_max_rows": 3, "crowdstrike_max_in_values": 2, "crowdstrike_latency_ms": 1000})
	if len(base) == 0 || len(tight) != len(base) {
		t.Fatalf("rows: %d by default, %d with tight caps", len(base), len(tight))
	}
	for i := range base {
		if base[i] != tight[i] {
			t.Fatalf("row %d differs: %s against %s", i, tight[i], base[i])
		}
	}
	if tst.RequestsBySource["CrowdStrikeDetections"] <= bst.RequestsBySource["CrowdStrikeDetections"] {
		t.Errorf("CrowdStrike requests: %d with 3-row responses, %d by default; want more", tst.RequestsBySource["CrowdStrikeDetections"], bst.RequestsBySource["CrowdStrikeDetections"])
	}
	if tst.VirtualTotal <= bst.VirtualTotal {
		t.Errorf("virtual time %v with 1 s latency, %v by default; want longer", tst.VirtualTotal, bst.VirtualTotal)
	}
	if _, err := sc.Resolve(map[string]float64{"okta_max_rows": -1}); err == nil {
		t.Error("a negative row cap was accepted")
	}
}
