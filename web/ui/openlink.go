package ui

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/web/share"
)

// An opened share link is shown before it runs: the query, the scenario, the strategies and the knobs it
// sets, with a button that runs it. A presenter's link may ask to run at once instead — the state's run field
// (short links carry it), or a run parameter in the page's URL (?run=1, for a fragment link written by hand).
// Either is checked first: a link that names tables left on the sender's device, a strategy or knob this
// playground lacks, or a knob outside its range is shown and not run, with the reason.

// OpenedLink is a share link's run as the page shows it before running it.
type OpenedLink struct {
	Query, Scenario, Strategy, Compare string
	Seed                               uint64
	// Memory is the budget in words ("default" when the link sets none).
	Memory string
	// Knobs are the knobs the link moves off their defaults, by name; the others stay at their defaults.
	Knobs []KnobSetting
	// Refused says why a link that asked to run at once did not ("" when it ran or did not ask).
	Refused string
}

// KnobSetting is one knob as an opened link sets it.
type KnobSetting struct{ Name, Value, Default string }

// runParam is the URL query parameter that runs an opened link at once.
const runParam = "run"

// openLink records what a decoded share link will run, restores its comparison, and runs it at once when the
// link asks and passes the checks. It is called by LoadFragment after the settings are in place.
func (s *State) openLink(st *share.State) {
	var refused []string
	switch {
	case st.Compare == "":
		s.Comparing, s.CompareStrategy = false, ""
	case st.Compare == share.CompareAuto:
		s.Comparing, s.CompareStrategy = true, ""
	case s.knownStrategy(st.Compare):
		s.Comparing, s.CompareStrategy = true, st.Compare
	default:
		s.Comparing, s.CompareStrategy = false, ""
		refused = append(refused, fmt.Sprintf("it compares with the strategy %q, which this playground does not have", st.Compare))
	}
	if st.Strategy != "" && !s.knownStrategy(st.Strategy) {
		refused = append(refused, fmt.Sprintf("it names the strategy %q, which this playground does not have", st.Strategy))
	}
	o := &OpenedLink{Query: st.Query, Scenario: st.Scenario, Strategy: orAuto(st.Strategy), Seed: st.Seed,
		Memory: "default"}
	if s.Comparing {
		o.Compare = orAuto(s.CompareStrategy)
	}
	if st.MemoryBudget > 0 {
		o.Memory = bytesText(float64(st.MemoryBudget))
	}
	if sc := s.ScenarioInfo(); sc != nil {
		known := map[string]bool{}
		for _, k := range sc.Knobs {
			known[k.Name] = true
			v, set := st.Knobs[k.Name]
			if !set {
				continue
			}
			if v < k.Min || v > k.Max {
				refused = append(refused, fmt.Sprintf("its knob %s = %s is outside %s…%s", k.Name, knobNum(v), knobNum(k.Min), knobNum(k.Max)))
			}
			o.Knobs = append(o.Knobs, KnobSetting{Name: k.Name, Value: knobNum(s.Knobs[k.Name]), Default: knobNum(k.Default)})
		}
		var unknown []string
		for name := range st.Knobs {
			if !known[name] {
				unknown = append(unknown, name)
			}
		}
		sort.Strings(unknown)
		for _, name := range unknown {
			refused = append(refused, fmt.Sprintf("it sets the knob %s, which %s does not have", name, sc.Name))
		}
	}
	if missing := s.missingTables(); missing != "" && st.Scenario == OwnScenario {
		refused = append(refused, missing+" stayed on the sender's device")
	}
	s.Opened = o
	asked, paramErr := s.runAsked(st)
	if paramErr != "" {
		o.Refused = paramErr
		return
	}
	if !asked {
		return
	}
	if len(refused) > 0 {
		o.Refused = "The link asks to run at once, but " + strings.Join(refused, "; ") + ": check it, then press Run."
		return
	}
	s.StartRun()
}

// runAsked reports whether the link asks to run at once: its state's run field, or the page URL's run
// parameter, which must be 1 or true (0 or false say no). A parameter with another value is not guessed at:
// the second result says so.
func (s *State) runAsked(st *share.State) (bool, string) {
	if st.Run {
		return true, ""
	}
	if s.Env == nil {
		return false, ""
	}
	u, err := url.Parse(s.Env.Location())
	if err != nil {
		return false, ""
	}
	vals, ok := u.Query()[runParam]
	if !ok {
		return false, ""
	}
	switch v := vals[len(vals)-1]; strings.ToLower(v) {
	case "", "1", "true":
		return true, ""
	case "0", "false":
		return false, ""
	default:
		return false, fmt.Sprintf("The page's address has run=%q, which is neither 1 nor 0: the link was not run. Press Run to run it.",
			truncateText(v, 32))
	}
}

// LinkCard is the opened link while it waits for its first run: nil once anything ran.
func (s *State) LinkCard() *OpenedLink {
	if s.Opened == nil || s.Run != nil || s.walkFragment() != "" {
		return nil
	}
	return s.Opened
}

// DismissLink hides the opened link's card; the settings stay.
func (s *State) DismissLink() { s.Opened = nil }

// knownStrategy reports whether the catalogue has a strategy of that name.
func (s *State) knownStrategy(name string) bool {
	for _, st := range s.Catalogue.Strategies {
		if st.Name == name {
			return true
		}
	}
	return false
}

// shareCompare is the comparison as a link carries it.
func (s *State) shareCompare() string {
	switch {
	case !s.Comparing:
		return ""
	case s.CompareStrategy == "":
		return share.CompareAuto
	}
	return s.CompareStrategy
}

func orAuto(strategy string) string {
	if strategy == "" {
		return "auto (the planner chooses)"
	}
	return strategy
}

func knobNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
