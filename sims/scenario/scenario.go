// Package scenario is the catalogue of joinlab's ready-made scenarios: a named, seeded dataset with the query
// that shows one join strategy at work. The playground's scenario picker, the walkthroughs and the command line
// (`joinlab query --scenario NAME`) all read it. Each scenario registers itself from its own file.
package scenario

import (
	"fmt"
	"sort"
	"strings"

	"github.com/joinlab/joinlab/engine/source"
)

// Scenario is one entry of the catalogue.
type Scenario struct {
	// Name is the identifier used in links and on the command line, such as users-listens-grace.
	Name string
	// Title and Description are shown to people.
	Title, Description string
	// Query is the scenario's KQL query.
	Query string
	// Knobs are the settings a user may turn, with their defaults.
	Knobs []Knob
	// Sources generates the scenario's tables. The same seed and knobs always give the same tables.
	Sources func(seed uint64, knobs map[string]float64) (map[string]source.Source, error)
	// MemoryBudget is the budget the scenario runs under by default (0: the engine's default).
	MemoryBudget int64
}

// Knob is one numeric setting of a scenario.
type Knob struct {
	Name     string
	Help     string
	Default  float64
	Min, Max float64
}

// Resolve fills in the defaults for knobs not set and checks the set ones are known and in range.
func (s *Scenario) Resolve(set map[string]float64) (map[string]float64, error) {
	out := map[string]float64{}
	for _, k := range s.Knobs {
		out[k.Name] = k.Default
	}
	for name, v := range set {
		var knob *Knob
		for i := range s.Knobs {
			if s.Knobs[i].Name == name {
				knob = &s.Knobs[i]
			}
		}
		if knob == nil {
			return nil, fmt.Errorf("scenario %s: unknown knob %q (knobs: %s)", s.Name, name, s.knobNames())
		}
		if v < knob.Min || v > knob.Max {
			return nil, fmt.Errorf("scenario %s: knob %s=%g is outside [%g, %g]", s.Name, name, v, knob.Min, knob.Max)
		}
		out[name] = v
	}
	return out, nil
}

func (s *Scenario) knobNames() string {
	var names []string
	for _, k := range s.Knobs {
		names = append(names, k.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

var registry = map[string]*Scenario{}

// Register adds a scenario; a duplicate name panics (registration runs in init, so any test finds it).
func Register(s *Scenario) {
	if _, dup := registry[s.Name]; dup {
		panic("scenario: registered twice: " + s.Name)
	}
	registry[s.Name] = s
}

// Get returns the named scenario.
func Get(name string) (*Scenario, error) {
	if s, ok := registry[name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("unknown scenario %q (scenarios: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the scenarios, sorted.
func Names() []string {
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
