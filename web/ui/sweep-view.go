package ui

import (
	"strconv"

	"github.com/joinlab/joinlab/engine/column"
)

// SweepView draws the sweep join from its sweep_advanced events: the active set (both sides' intervals that
// started and have not ended) at each event, and the intervals expired and overlaps emitted so far.
type SweepView struct {
	Run *Run
	// Prefix leads every id the view draws: empty in the main view, "a-" or "b-" for a side of the compare, so
	// two views of one kind on the page never share an id.
	Prefix string
}

// plausibleNanos: a position this large is a timestamp in nanoseconds (after 2001), shown as a date.
const plausibleNanos = 1e18

// The sweep charts' plot box, in SVG units, right of the y axis's labels.
const (
	sweepPlotX, sweepPlotW, sweepPlotH = 60, 330, 50
)

func (c *SweepView) Position() string {
	p := c.Run.Trace.Sweep.Position
	if c.Run.Trace.Sweep.Advances == 0 {
		return "—"
	}
	if p >= plausibleNanos {
		return column.FormatDateTime(int64(p))
	}
	return strconv.FormatFloat(p, 'f', -1, 64)
}

// SweepChart is one chart of the sweep view: its lines in the plot box, the y axis's top label and the
// x axis's last event.
type SweepChart struct {
	Lines       []SweepLine
	Top, Events string
}

// SweepLine is one series of a chart with its legend.
type SweepLine struct {
	Points, Class, Legend string
}

// ActiveChart is the active set's size over the sweep's events.
func (c *SweepView) ActiveChart() SweepChart {
	s := &c.Run.Trace.Sweep
	return SweepChart{Lines: []SweepLine{{Points: s.Active.Polyline(sweepPlotW, sweepPlotH), Class: "line active",
		Legend: "active set (left + right)"}}, Top: count(int64(seriesTop(&s.Active))), Events: count(s.Advances)}
}

// TotalsChart is the expiries and overlaps so far over the sweep's events, on one scale.
func (c *SweepView) TotalsChart() SweepChart {
	s := &c.Run.Trace.Sweep
	top := max(seriesTop(&s.ExpiredOver), seriesTop(&s.OverlapsOver))
	return SweepChart{Lines: []SweepLine{
		{Points: polylineTo(&s.ExpiredOver, top, sweepPlotW, sweepPlotH), Class: "line expired", Legend: "expired"},
		{Points: polylineTo(&s.OverlapsOver, top, sweepPlotW, sweepPlotH), Class: "line overlaps", Legend: "overlaps emitted"},
	}, Top: count(int64(top)), Events: count(s.Advances)}
}

func seriesTop(s *Series) float64 {
	var top float64
	for _, y := range s.Y {
		top = max(top, y)
	}
	return top
}

// polylineTo is Polyline against a given top, so two series share a scale.
func polylineTo(s *Series, top, w, h float64) string { return s.PolylineTop(w, h, top) }

// Dash tells the expired line from the overlaps line without colour.
func (c *SweepView) Dash(class string) string {
	if class == "line expired" {
		return "4 3"
	}
	return ""
}
