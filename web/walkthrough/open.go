package walkthrough

import (
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/sims/clock"
)

// OpenInline opens an inline table exactly as a walkthrough run does: parsed from its lines and, when it has a
// Connector, put behind a simulated service. *clk is the run's virtual clock, shared by all its connectors;
// a nil *clk is replaced by a new clock. The playground's engine (web/runner) opens the walkthrough player's
// sources with it, so the page replays the very run that Validate checks.
func OpenInline(name string, s *InlineSource, clk **clock.Virtual) (source.Source, error) {
	return s.open(name, clk)
}
