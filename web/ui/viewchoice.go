package ui

import "github.com/joinlab/joinlab/web/runner/protocol"

// View names the strategy view that draws the run (protocol.ViewHash…): the one the engine's started message
// named, and before that message the view of the strategy the run was asked to use.
func (r *Run) View() string {
	if r.ViewName != "" {
		return r.ViewName
	}
	return protocol.ViewOf(r.Strategy)
}

// DrawnStrategy is the strategy the view draws: of the run's joins, the one the started message named.
func (r *Run) DrawnStrategy() string {
	if r.Drawn != "" {
		return r.Drawn
	}
	return r.Strategy
}
