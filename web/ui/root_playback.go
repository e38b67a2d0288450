package ui

import "github.com/vugu/vugu"

// The root component's handlers for the playback speed, the comparison and the compare picker's state.

func (c *Root) PickSpeed(e vugu.DOMEvent)   { c.State.SetSpeed(e.PropString("target", "value")) }
func (c *Root) PickCompare(e vugu.DOMEvent) { c.State.SetCompare(e.PropString("target", "value")) }

// CompareSelected says whether the compare picker's entry value is the current choice.
func (c *Root) CompareSelected(value string) bool {
	if !c.State.Comparing {
		return value == CompareOff
	}
	return value == c.State.CompareStrategy
}

// ShowCompare says whether the comparison panel has runs to show.
func (c *Root) ShowCompare() bool { return c.State.Run != nil && c.State.CompareRun != nil }
