package ui

import (
	"fmt"
	"strconv"

	"github.com/vugu/vugu"
)

// The results table is virtualised: only the rows in view, and a few either side, are in the DOM; two
// padding rows stand for the rest, so the scroll bar is right. A Vugu render rebuilds every element, so
// this keeps a render's cost flat however many rows stream in.
const (
	// RowHeight is a table row's height in pixels; style.css fixes rows at this height.
	RowHeight = 24
	// viewportRows is how many rows the viewport shows (its CSS height is viewportRows*RowHeight).
	viewportRows = 15
	// overscan rows either side of the view keep a fast scroll from showing blank rows between renders.
	overscan = 8
)

// Results is the streamed, virtualised results table.
type Results struct {
	State *State
}

func (c *Results) run() *Run { return c.State.Run }

// shown is how many rows the table shows: those delivered up to the timeline's position.
func (c *Results) shown() int { return c.run().RowsShown() }

func (c *Results) Columns() []string { return c.run().Columns }

func (c *Results) ColumnCount() int { return max(1, len(c.run().Columns)) }

// First is the index of the first row in the DOM.
func (c *Results) First() int {
	first := int(c.State.ScrollTop/RowHeight) - overscan
	return max(0, min(first, c.shown()-1))
}

// Window is the rows in the DOM: those in view and overscan either side, fewer at the top, where no row
// precedes the view.
func (c *Results) Window() [][]string {
	end := min(int(c.State.ScrollTop/RowHeight)+viewportRows+overscan, c.shown())
	return c.run().Rows.Slice(c.First(), end, len(c.run().Columns))
}

// After is how many rows follow the window.
func (c *Results) After() int {
	return max(0, c.shown()-c.First()-len(c.Window()))
}

// PadStyle is the height of a padding row standing for n rows.
func (c *Results) PadStyle(n int) string { return fmt.Sprintf("height: %dpx", n*RowHeight) }

func (c *Results) OnScroll(e vugu.DOMEvent) {
	c.State.ScrollTop = e.PropFloat64("target", "scrollTop")
}

// RowCount says how many rows there are, and how many the page holds when it holds fewer.
func (c *Results) RowCount() string {
	r := c.run()
	total := statsRows(r)
	held := int64(r.Rows.Len())
	switch {
	case !r.AtEnd():
		return fmt.Sprintf("%s rows delivered up to event %s (the timeline's position)", count(int64(c.shown())),
			count(int64(r.Position())))
	case r.Status == StatusRunning:
		return count(held) + " rows so far"
	case total > held:
		return fmt.Sprintf("%s of %s rows kept", count(held), count(total))
	case total == 1:
		return "1 row"
	}
	return count(total) + " rows"
}

// Progress is the share of the input rows read so far, as the scans report it.
func (c *Results) Progress() float64 {
	share, ok := readShare(c.run().Trace)
	if !ok {
		return 0
	}
	// A source read more than once (a nested loop's inner side) makes this a rough guide, capped at done.
	return min(1, share)
}

// readShare is the rows the scans of t have read over the rows of the run's inputs; ok is false while the
// inputs are not known (or hold no rows).
func readShare(t *TraceView) (share float64, ok bool) {
	var total, read float64
	for _, n := range t.Inputs {
		total += float64(n)
	}
	for _, s := range t.Scans {
		read += float64(s.Rows)
	}
	if total == 0 {
		return 0, false
	}
	return read / total, true
}

// ProgressFold is the run's progress reports folded (Run.Progress), as a data attribute for tests.
func (c *Results) ProgressFold() string {
	if c.run() == nil {
		return ""
	}
	return c.run().Progress.Attr()
}

func (c *Results) ShowProgress() bool { return c.run().Status == StatusRunning }

func (c *Results) ProgressText() string {
	return strconv.Itoa(int(c.Progress()*100)) + "%"
}

func cellClass(cell string) string {
	if cell == "" {
		return "null"
	}
	if _, err := strconv.ParseFloat(cell, 64); err == nil {
		return "num"
	}
	return ""
}
