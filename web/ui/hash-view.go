package ui

import "fmt"

// HashView draws the hash join: the build table filling, then the probe side streaming and rows coming out.
// It needs only the runner's scan and output events, which every run has. The build side is the source read
// first: the hash join drains its build input before it reads a probe row.
type HashView struct {
	Run *Run
	// Prefix leads every id the view draws: empty in the main view, "a-" or "b-" for a side of the compare, so
	// two views of one kind on the page never share an id.
	Prefix string
}

// Bar is one horizontal progress bar of a view.
type Bar struct {
	Label, Text, Class string
	Y, Width           float64
}

// barWidth is the track's width in the views' SVG units.
const barWidth = 270

func (c *HashView) build() (Scan, bool) {
	if s := c.Run.Trace.Scans; len(s) > 0 {
		return s[0], true
	}
	return Scan{}, false
}

func (c *HashView) probe() (Scan, bool) {
	if s := c.Run.Trace.Scans; len(s) > 1 {
		return s[1], true
	}
	return Scan{}, false
}

// Phase names what the join is doing now.
func (c *HashView) Phase() string {
	switch {
	case c.Run.Status == StatusDone:
		return "done"
	case c.Run.Status != StatusRunning:
		return c.Run.Status
	}
	if _, ok := c.probe(); ok {
		return "probing"
	}
	if _, ok := c.build(); ok {
		return "building"
	}
	return "planning"
}

// Bars are build, probe and output, each against its total where one is known.
func (c *HashView) Bars() []Bar {
	t := c.Run.Trace
	bar := func(i int, label string, n int64, of int64, class string) Bar {
		b := Bar{Label: label, Class: class, Y: float64(i*30 + 2)}
		switch {
		case of > 0:
			b.Width = barWidth * min(1, float64(n)/float64(of))
			b.Text = fmt.Sprintf("%s of %s", count(n), count(of))
		default:
			b.Width = 0
			if n > 0 {
				b.Width = barWidth
			}
			b.Text = count(n)
		}
		return b
	}
	var bars []Bar
	if s, ok := c.build(); ok {
		bars = append(bars, bar(0, "build @"+s.Source, s.Rows, t.Inputs[s.Source], "fill build"))
	} else {
		bars = append(bars, bar(0, "build", 0, 0, "fill build"))
	}
	if s, ok := c.probe(); ok {
		bars = append(bars, bar(1, "probe @"+s.Source, s.Rows, t.Inputs[s.Source], "fill probe"))
	} else {
		bars = append(bars, bar(1, "probe", 0, 0, "fill probe"))
	}
	out := bar(2, "rows out", statsRows(c.Run), 0, "fill out")
	bars = append(bars, out)
	return bars
}
