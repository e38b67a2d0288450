package ui

import (
	"fmt"
	"strings"

	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/share"
)

// A share link carries the page's settings in the URL fragment, encoded by web/share (the same state the
// Worker's short links store), so it works with no server and never reaches one. A run on the user's own
// tables names them; their data stays on the device, except for small tables (share.MaxTableData in all),
// whose text the link may carry. ShareNote says which, beside the link button.

// Share returns the settings a link carries. Knobs at their default are left out, as web/share asks.
func (s *State) Share() *share.State {
	st := &share.State{Query: s.Query, Scenario: s.Scenario, Seed: s.Seed, MemoryBudget: s.MemoryBudget,
		Strategy: s.Strategy, Speed: s.Speed, PausedAt: s.pausedAt(), Compare: s.shareCompare()}
	if s.Scenario == OwnScenario && s.walkFragment() == "" {
		st.Tables = s.shareTables()
	}
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
	if st.Scenario == OwnScenario && len(st.Tables) > 0 {
		s.openLinkTables(st.Tables)
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
	s.openLink(st)
}

// shareTables are the own tables a link names: each small one with its text, as long as the texts together
// stay within share.MaxTableData; the others by name only, their data left on the device.
func (s *State) shareTables() []share.Table {
	var out []share.Table
	size := 0
	for _, t := range s.Tables {
		if t.ID == 0 || t.Status == TableFailed {
			continue
		}
		st := share.Table{Name: t.Name, Format: t.Format}
		if t.Status == TableReady && t.Data != "" && size+len(t.Data) <= share.MaxTableData {
			st.Data = t.Data
			size += len(t.Data)
		}
		out = append(out, st)
	}
	return out
}

// openLinkTables replaces the own tables with a link's: those it carries are handed to the engine, the
// others are placeholders saying the data stayed with the sender.
func (s *State) openLinkTables(tables []share.Table) {
	for _, t := range s.Tables {
		if t.ID > 0 && s.Env != nil {
			s.Env.Post(protocol.Request{Type: protocol.RequestDrop, Load: &protocol.Load{Table: t.ID}})
		}
	}
	s.Tables = nil
	var missing []string
	for _, t := range tables {
		if t.Data != "" {
			s.AddText(t.Name, t.Format, t.Data)
			continue
		}
		s.tableID++
		s.Tables = append(s.Tables, Table{ID: s.tableID, Name: t.Name, Format: t.Format, Status: TableMissing})
		missing = append(missing, "@"+t.Name)
	}
	if len(missing) > 0 {
		s.Notice = "This link ran on its sender's own data, which stayed on their device: " + strings.Join(missing, ", ") +
			" must be loaded here from your own files (drop them below and name them so) before the query can run."
	}
}

// ShareNote says what a link to the current state carries of the user's own data; "" for a scenario.
func (s *State) ShareNote() string {
	if s.Scenario != OwnScenario || len(s.Tables) == 0 || s.walkFragment() != "" {
		return ""
	}
	var inside, stayed []string
	size := 0
	for _, t := range s.shareTables() {
		if t.Data != "" {
			inside = append(inside, "@"+t.Name)
			size += len(t.Data)
		} else {
			stayed = append(stayed, "@"+t.Name)
		}
	}
	switch {
	case len(stayed) == 0:
		return fmt.Sprintf("Your tables are small (%s): the link carries them in its fragment, which no server sees. Nothing was uploaded.",
			bytesText(float64(size)))
	case len(inside) == 0:
		return "Your data stayed on this device: the link carries the query, the settings and the tables' names, " +
			"never their rows. Whoever opens it loads their own files."
	}
	return fmt.Sprintf("Your data stayed on this device: the link names %s without their rows, and carries only "+
		"the small %s (%s) in its fragment, which no server sees.", strings.Join(stayed, ", "), strings.Join(inside, ", "),
		bytesText(float64(size)))
}
