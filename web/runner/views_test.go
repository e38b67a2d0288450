package runner

import (
	"testing"

	"github.com/joinlab/joinlab/web/runner/protocol"
)

// Every strategy the planner registers has a drawing (protocol.ViewOf), so none falls to the generic tally.
func TestEveryStrategyHasAView(t *testing.T) {
	for _, s := range Catalogue().Strategies {
		if protocol.ViewOf(s.Name) == protocol.ViewGeneric {
			t.Errorf("strategy %s has no view", s.Name)
		}
	}
}

func TestDrawnJoin(t *testing.T) {
	for _, c := range []struct {
		strategies     []string
		view, strategy string
	}{
		{[]string{"hash", "hash", "sweep"}, protocol.ViewSweep, "sweep"},
		{[]string{"hash"}, protocol.ViewHash, "hash"},
		{[]string{"salted_naive_wrong"}, protocol.ViewSalted, "salted_naive_wrong"},
		{[]string{"grace", "grace"}, protocol.ViewGrace, "grace"},
		{nil, protocol.ViewGeneric, ""},
		{[]string{"mystery"}, protocol.ViewGeneric, "mystery"},
	} {
		if v, s := drawnJoin(c.strategies); v != c.view || s != c.strategy {
			t.Errorf("%v: the %s view drawing %q, want the %s view drawing %q", c.strategies, v, s, c.view, c.strategy)
		}
	}
}

// The started message says which strategies run and which view draws them.
func TestStartedNamesTheView(t *testing.T) {
	for _, sc := range Catalogue().Scenarios {
		if sc.Name != "metrics-events-alerting" {
			continue
		}
		msgs := collect(t, t.Context(), &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1})
		if m := msgs[0]; m.Type != protocol.MessageStarted || m.View != protocol.ViewSweep || m.Strategy != "sweep" || len(m.Strategies) < 2 {
			t.Errorf("started %s: strategies %v, view %q drawing %q; want the sweep under its lookups", m.Type, m.Strategies, m.View, m.Strategy)
		}
	}
}
