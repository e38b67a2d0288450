package ui

import (
	"testing"

	"github.com/joinlab/joinlab/web/runner"
)

// Every strategy the planner registers has a drawing (viewOf), so none falls to the generic tally.
func TestEveryStrategyHasAView(t *testing.T) {
	for _, s := range runner.Catalogue().Strategies {
		if viewOf(s.Name) == viewGeneric {
			t.Errorf("strategy %s has no view", s.Name)
		}
	}
}
