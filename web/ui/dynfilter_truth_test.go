package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/dynfilter/dfevent"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// checkDynFilters holds every figure the hash, Grace and salted views draw of the run's dynamic filters to the
// dynamic_filter events the engine emitted and to the run's details: one panel per event, its form, keys,
// slice count, caps and reason as the event says, one column per slice (up to maxPages) whose height is its
// figure against the larger of the cap and the tallest figure, and the slices the probes scanned.
func checkDynFilters(t *testing.T, r *Run, events []trace.Event, details map[string]any) {
	t.Helper()
	var evs []dfevent.Applied
	for _, e := range events {
		if a, ok := e.Payload.(dfevent.Applied); ok {
			evs = append(evs, a)
		}
	}
	panels := (&DynfilterView{Run: r}).Panels()
	if len(panels) != min(len(evs), maxFilters) {
		t.Fatalf("%d dynamic filter panels drawn, %d dynamic_filter events", len(panels), len(evs))
	}
	var scanned int64
	for i, p := range panels {
		a := evs[i]
		form, keys, slicesN := a.Form, int64(a.Keys), int64(a.Slices)
		if p.Form != form || p.Why != a.Why || p.Title != fmt.Sprintf("dynamic filter on @%s.%s", a.Source, a.Column) {
			t.Errorf("filter %d drawn as %q %q %q; the event: %v", i, p.Title, p.Form, p.Why, a)
		}
		switch form {
		case "in":
			if !strings.Contains(p.Summary, count(keys)+" distinct build keys in "+count(slicesN)+" IN lists") {
				t.Errorf("filter %d: %q, the event says %d keys in %d slices", i, p.Summary, keys, slicesN)
			}
		case "ranges", "minmax":
			if keys > 0 && !strings.HasPrefix(p.Summary, count(keys)+" distinct build keys compacted") {
				t.Errorf("filter %d: %q, the event says %d keys", i, p.Summary, keys)
			}
		}
		if form != "none" && form != "empty" {
			scanned += slicesN
		}
		for _, c := range []struct {
			what, key string
			cap       string
			figures   []int
			limit     float64
		}{{"values", "slice_values", "max_values", a.SliceValues, float64(a.MaxValues)}, {"bytes", "slice_bytes", "max_bytes", a.SliceBytes, float64(a.MaxBytes)}} {
			var figures []float64
			for _, f := range c.figures {
				figures = append(figures, float64(f))
			}
			if int64(len(figures)) != slicesN {
				t.Fatalf("filter %d: %d %s for %d slices", i, len(figures), c.key, slicesN)
			}
			limit := c.limit
			if limit > 0 && (p.Caps == "" || !strings.Contains(p.Caps, count(int64(limit)))) {
				t.Errorf("filter %d: caps drawn as %q, the event's %s is %v", i, p.Caps, c.cap, limit)
			}
			cols, capY := p.Bytes, p.BytesCapY
			if c.what == "values" {
				cols, capY = p.Values, p.ValuesCapY
				if form != "in" {
					if len(cols) != 0 {
						t.Errorf("filter %d (%s): %d values columns drawn", i, form, len(cols))
					}
					continue
				}
			}
			figures = figures[:min(len(figures), maxPages)]
			top := slices.Max(append([]float64{limit}, figures...))
			if top == 0 {
				continue
			}
			if len(cols) != len(figures) {
				t.Fatalf("filter %d: %d %s columns drawn for %d slices", i, len(cols), c.what, len(figures))
			}
			for k, f := range figures {
				if !near(cols[k].H, stripHeight*f/top) {
					t.Errorf("filter %d slice %d: %s column %v high for %v of %v", i, k, c.what, cols[k].H, f, top)
				}
			}
			if limit > 0 && !near(capY, stripBase-stripHeight*limit/top) {
				t.Errorf("filter %d: %s cap line at %v for a cap of %v of %v", i, c.what, capY, limit, top)
			}
		}
	}
	if n, ok := details["dynamic_filter_slices"]; ok || scanned > 0 {
		if want := detailInt(t, details, "dynamic_filter_slices"); want != scanned {
			t.Errorf("the panels' filters have %d slices, the probes scanned %v", scanned, n)
		}
	}
}

// TestDynamicFilterDrawnTruthfully runs, through the real engine, joins whose probe is a connector with a
// filter of many slices (okta-crowdstrike-small with IN lists of 10 values on Okta and 20 on CrowdStrike) under
// the hash, Grace and salted joins, and checks the views' figures against the run, the filters' included.
func TestDynamicFilterDrawnTruthfully(t *testing.T) {
	q := `@OktaSystemLogs
| where eventType == "user.session.start" and outcome.result == "SUCCESS"
| join kind=inner (@CrowdStrikeDetections | where severity >= 90) on $left.actor.alternateId == $right.user_name
| count`
	for _, strategy := range []string{"hash", "grace", "salted"} {
		t.Run(strategy, func(t *testing.T) {
			t.Parallel()
			run := runForReal(t, &protocol.Run{Query: q, Scenario: "okta-crowdstrike-small", Seed: 1, Strategy: strategy,
				Knobs: map[string]float64{"okta_max_in_values": 10, "crowdstrike_max_in_values": 20}})
			if run.err != nil {
				t.Fatal(run.err.Message)
			}
			tv := Fold(run.events)
			if len(tv.DynFilters) == 0 || tv.DynFilters[0].SliceCount < 2 {
				t.Fatalf("want a dynamic filter of several slices, got %+v", tv.DynFilters)
			}
			checkTruth(t, strategy, run)
		})
	}
}
