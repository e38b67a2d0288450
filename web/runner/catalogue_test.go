package runner

import (
	"testing"

	"github.com/joinlab/joinlab/engine/plan"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// The page labels baselines as the planner's registry marks them, not from a list of its own.
func TestCatalogueBaselinesFromPlanner(t *testing.T) {
	seen := map[string]bool{}
	for _, st := range Catalogue().Strategies {
		seen[st.Name] = st.Baseline
		if st.Baseline != plan.IsBaseline(st.Name) {
			t.Errorf("%s: baseline %v, the planner says %v", st.Name, st.Baseline, plan.IsBaseline(st.Name))
		}
	}
	if !seen["keyset-lt"] || seen["hash"] || seen["paged"] {
		t.Errorf("keyset-lt must be a baseline, hash and paged not: %v", seen)
	}
}

// The done message carries the connectors' figures that engine/query.Stats lifts to its top level.
func TestStatsCarryConnectorFigures(t *testing.T) {
	sc, err := findScenario("okta-crowdstrike-small")
	if err != nil {
		t.Fatal(err)
	}
	var done *protocol.Stats
	Stream(t.Context(), 1, &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1}, func(m protocol.Message) {
		if m.Type == protocol.MessageDone {
			done = m.Stats
		}
	}, nil)
	if done == nil {
		t.Fatal("no done message")
	}
	if done.Requests <= 0 || len(done.RequestsBySource) == 0 || done.BytesShipped <= 0 || done.RowsScanned <= 0 ||
		done.VirtualTotal <= 0 || done.VirtualFirstRow <= 0 {
		t.Errorf("stats miss connector figures: %+v", done)
	}
	var sum int64
	for _, n := range done.RequestsBySource {
		sum += n
	}
	if sum != done.Requests {
		t.Errorf("requests by source sum to %d, requests %d", sum, done.Requests)
	}
}

// Every strategy of the catalogue can be forced from the page, hyphenated names included.
func TestForceHyphenatedStrategy(t *testing.T) {
	sc, err := findScenario("okta-crowdstrike-small")
	if err != nil {
		t.Fatal(err)
	}
	var done *protocol.Stats
	var failed *protocol.Error
	Stream(t.Context(), 1, &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1, Strategy: "keyset-lt"},
		func(m protocol.Message) {
			switch m.Type {
			case protocol.MessageDone:
				done = m.Stats
			case protocol.MessageError:
				failed = m.Error
			}
		}, nil)
	if failed != nil || done == nil || done.RowsOut == 0 {
		t.Fatalf("forced keyset-lt: error %+v, stats %+v", failed, done)
	}
}
