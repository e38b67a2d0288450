package ui

import (
	"fmt"
	"strings"

	"github.com/joinlab/joinlab/web/share"
)

// A share link carries the page's settings in the URL fragment, encoded by web/share (the same state the
// Worker's short links store), so it works with no server and never reaches one. The user's own pasted
// tables are left out: links must stay short, and that data is theirs.

// Share returns the settings a link carries. Knobs at their default are left out, as web/share asks.
func (s *State) Share() *share.State {
	st := &share.State{Query: s.Query, Scenario: s.Scenario, Seed: s.Seed, MemoryBudget: s.MemoryBudget,
		Strategy: s.Strategy, Speed: s.Speed, PausedAt: s.pausedAt()}
	if sc := s.ScenarioInfo(); sc != nil {
		for _, k := range sc.Knobs {
			if v, ok := s.Knobs[k.Name]; ok && v != k.Default {
				if st.Knobs == nil {
					st.Knobs = map[string]float64{}
				}
				st.Knobs[k.Name] = v
			}
		}
	}
	return st
}

// Fragment encodes the settings for the URL fragment (without '#').
func (s *State) Fragment() string {
	if f := s.walkFragment(); f != "" {
		return f // a walkthrough is open: the link opens its step
	}
	return s.Share().Fragment()
}

// LoadFragment restores the settings in a share link. A link that cannot be read leaves the defaults in
// place and says why in Notice; it never leaves the page blank. Call it once the catalogue is known, so a
// link naming a scenario that does not exist is caught here too. An empty fragment changes nothing.
func (s *State) LoadFragment(fragment string) {
	fragment = strings.TrimPrefix(fragment, "#")
	if fragment == "" {
		return
	}
	if IsWalkLink(fragment) {
		s.OpenWalkLink(fragment)
		return
	}
	st, err := share.DecodeFragment(fragment)
	if err != nil {
		s.Notice = "This share link could not be opened (" + strings.TrimPrefix(err.Error(), "share: ") +
			"). Showing the defaults instead."
		return
	}
	saved := s.Scenario
	s.Scenario = st.Scenario
	if st.Scenario != OwnScenario && s.ScenarioInfo() == nil {
		s.Scenario = saved
		s.Notice = fmt.Sprintf("This share link names the scenario %q, which this playground does not have. "+
			"Showing the defaults instead.", st.Scenario)
		return
	}
	s.Query, s.Seed, s.MemoryBudget, s.Strategy = st.Query, st.Seed, st.MemoryBudget, st.Strategy
	s.Speed, s.PausedAt = st.Speed, st.PausedAt
	s.Knobs = map[string]float64{}
	if sc := s.ScenarioInfo(); sc != nil {
		for _, k := range sc.Knobs {
			s.Knobs[k.Name] = k.Default
			if v, set := st.Knobs[k.Name]; set {
				s.Knobs[k.Name] = min(max(v, k.Min), k.Max)
			}
		}
	}
}
