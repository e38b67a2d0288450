package ui

import (
	"strings"

	"github.com/vugu/vugu"
)

// Presenter holds what a person showing the playground reaches for: the first screen (the walkthroughs and
// the scenarios), the card of an opened link, the short-link button and the compare presets.
type Presenter struct {
	State *State
}

// ShowStart says whether the first screen is up: before anything ran, with no walkthrough open and no
// opened link waiting.
func (c *Presenter) ShowStart() bool {
	s := c.State
	return !s.Loading && s.LoadError == "" && s.Run == nil && s.LinkCard() == nil && (s.Walk == nil || s.Walk.Open == nil)
}

func (c *Presenter) Stories() []*Story { return c.State.walk().Stories }
func (c *Presenter) WalksLoaded() bool { return c.State.walk().Loaded }
func (c *Presenter) WalkError() string {
	if e := c.State.walk().LoadError; e != "" {
		return "The walkthroughs could not be loaded: " + e
	}
	return ""
}

// LinkScenario names the opened link's scenario, or says it runs on own tables.
func (c *Presenter) LinkScenario() string {
	o := c.State.LinkCard()
	if o.Scenario == OwnScenario {
		return "your own tables"
	}
	if sc := c.State.ScenarioInfo(); sc != nil && sc.Name == o.Scenario {
		return sc.Name + " — " + sc.Title
	}
	return o.Scenario
}

// LinkKnobs lists the knobs the link sets, each with its default.
func (c *Presenter) LinkKnobs() string {
	o := c.State.LinkCard()
	if o.Scenario == OwnScenario {
		return "none (own tables)"
	}
	if len(o.Knobs) == 0 {
		return "all at their defaults"
	}
	var parts []string
	for _, k := range o.Knobs {
		parts = append(parts, k.Name+" = "+k.Value+" (default "+k.Default+")")
	}
	return strings.Join(parts, "; ") + "; the others at their defaults"
}

func (c *Presenter) MakeShortLink(e vugu.DOMEvent) { c.State.MakeShortLink(e.EventEnv()) }
func (c *Presenter) SetShortRun(e vugu.DOMEvent) {
	c.State.SetShortRun(e.PropBool("target", "checked"))
}

func (c *Presenter) ShortBusy() bool { return c.State.Short != nil && c.State.Short.Busy }
func (c *Presenter) ShortRun() bool  { return c.State.Short != nil && c.State.Short.RunAtOnce }
func (c *Presenter) ShortURL() string {
	if c.State.Short == nil {
		return ""
	}
	return c.State.Short.URL
}
func (c *Presenter) ShortCopied() bool { return c.State.Short != nil && c.State.Short.Copied }

// ShortNote says why there is no short link, that one is on its way, or that the settings changed since.
func (c *Presenter) ShortNote() string {
	sh := c.State.Short
	switch {
	case sh == nil:
		return ""
	case sh.Busy:
		return "Asking the Worker for a short link…"
	case c.State.ShortStale():
		return "The settings changed since this link was made: it opens the earlier ones. Press Short link again for these."
	}
	return sh.Note
}

// PresetGroup is a scenario's presets.
type PresetGroup struct {
	Scenario string
	Presets  []Preset
}

// PresetGroups are the presets by scenario, in Presets' order, leaving out any the catalogue cannot run.
func (c *Presenter) PresetGroups() []PresetGroup {
	var out []PresetGroup
	for _, p := range Presets {
		if c.State.presetProblem(&p) != nil {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Scenario != p.Scenario {
			out = append(out, PresetGroup{Scenario: p.Scenario})
		}
		g := &out[len(out)-1]
		g.Presets = append(g.Presets, p)
	}
	return out
}

// RunPreset sets up a preset and runs it.
func (c *Presenter) RunPreset(id string) {
	if err := c.State.ApplyPreset(id); err != nil {
		c.State.Notice = err.Error()
		return
	}
	c.State.StartRun()
}
