package ui

import "strconv"

// SaltedView draws per-worker load before and after salting, and the measured heavy keys.
type SaltedView struct {
	Run *Run
	// Prefix leads every id the view draws: empty in the main view, "a-" or "b-" for a side of the compare, so
	// two views of one kind on the page never share an id.
	Prefix string
}

// LoadBar is one worker's columns, heights in SVG units.
type LoadBar struct {
	X, W, Before, After float64
}

// loadHeight is the tallest column's height.
const loadHeight = 45

func (c *SaltedView) Bars() []LoadBar {
	before, after, top := c.Run.Trace.Salted.Loads()
	if len(before) == 0 || top == 0 {
		return nil
	}
	w := 350 / float64(len(before))
	out := make([]LoadBar, len(before))
	for i := range before {
		out[i] = LoadBar{X: 50 + float64(i)*w, W: max(1, w-2), Before: loadHeight * before[i] / top,
			After: loadHeight * after[i] / top}
	}
	return out
}

func (c *SaltedView) Workers() string {
	if w := c.Run.Trace.Salted.Workers; w > 0 {
		return strconv.Itoa(w)
	}
	if n := len(c.Bars()); n > 0 {
		return strconv.Itoa(n)
	}
	return "—"
}

// Naive says the run is the deliberately wrong teaching variant.
func (c *SaltedView) Naive() bool { return c.Run.DrawnStrategy() == "salted_naive_wrong" }

// Wrong is the naive variant's wrong rows, once the run is done.
func (c *SaltedView) Wrong() *WrongRows { return c.Run.wrongRows() }

// WrongShown are the first few wrong rows, for the table under the drawing.
func (c *SaltedView) WrongShown() []WrongRow {
	w := c.Wrong()
	if w == nil {
		return nil
	}
	return w.Rows[:min(len(w.Rows), wrongShown)]
}

// wrongShown bounds the wrong rows listed.
const wrongShown = 20

// Cell shows a null as such.
func (c *SaltedView) Cell(s string) string {
	if s == "" {
		return "null"
	}
	return s
}
