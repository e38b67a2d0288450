package runner

import (
	"encoding/json"
	"testing"

	"github.com/joinlab/joinlab/web/runner/protocol"
)

// TestCompactEventsAreSmaller measures what a run's trace costs on the way to the page: the bytes of its events
// in the compact form a batch carries (protocol.Events) against their JSON-lines form (kind, at_ns, op and attrs
// by name: what the page received before the typed codec, and what the trace download still writes). It logs
// the figures for one run of each join strategy's scenario, and fails if the compact form is not at most three
// quarters of the other: the point of it.
func TestCompactEventsAreSmaller(t *testing.T) {
	for _, c := range []struct{ scenario, strategy string }{
		{"okta-crowdstrike-small", ""},
		{"okta-crowdstrike", ""},
		{"users-listens-grace", ""},
		{"skewed-listens", "salted"},
		{"metrics-events-alerting", ""},
	} {
		run := &protocol.Run{Scenario: c.scenario, Seed: 1, Strategy: c.strategy}
		for _, sc := range Catalogue().Scenarios {
			if sc.Name == c.scenario {
				run.Query = sc.Query
			}
		}
		var events protocol.Events
		for _, m := range collect(t, t.Context(), run) {
			events = append(events, m.Events...)
		}
		compact, err := json.Marshal(events)
		if err != nil {
			t.Fatal(err)
		}
		var lines int
		for _, e := range events {
			line, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			lines += len(line) + 1 // and its separator, as in a batch's array or a file's lines
		}
		n := len(events)
		if n == 0 {
			t.Fatalf("%s: no events", c.scenario)
		}
		t.Logf("%s/%s: %d events, %.1f bytes each compact, %.1f as JSON lines (%.0f%%)", c.scenario, cmp(c.strategy),
			n, float64(len(compact))/float64(n), float64(lines)/float64(n), 100*float64(len(compact))/float64(lines))
		if len(compact)*4 > lines*3 {
			t.Errorf("%s: %d bytes compact against %d as JSON lines", c.scenario, len(compact), lines)
		}
	}
}

func cmp(strategy string) string {
	if strategy == "" {
		return "planner"
	}
	return strategy
}
