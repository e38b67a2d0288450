package ui

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// The metrics panel's figures from the connectors (engine/query.Stats lifts them to the top level) and its
// small charts over the trace's time. While a run goes, the trace's counts stand in for the stats.

// Requests is the requests sent to connectors, per source once the run is done.
func (c *Metrics) Requests() string {
	s := c.Run.Stats
	if s == nil || s.Requests == 0 {
		if n := c.Run.Trace.Requests; n > 0 {
			return count(n)
		}
		return "—"
	}
	text := count(s.Requests)
	if len(s.RequestsBySource) > 0 {
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(s.RequestsBySource)) {
			parts = append(parts, fmt.Sprintf("@%s %s", name, count(s.RequestsBySource[name])))
		}
		text += " (" + strings.Join(parts, ", ") + ")"
	}
	if s.Retries > 0 {
		text += fmt.Sprintf("; %s retried", count(s.Retries))
	}
	return text
}

// Shipped is the bytes the connectors returned and the rows their sources scanned to answer.
func (c *Metrics) Shipped() string {
	s := c.Run.Stats
	if s == nil || s.BytesShipped == 0 && s.RowsScanned == 0 {
		return "—"
	}
	return fmt.Sprintf("%s; %s rows scanned at the sources", bytesText(float64(s.BytesShipped)), count(s.RowsScanned))
}

// HasVirtual reports whether the run's sources keep a virtual clock.
func (c *Metrics) HasVirtual() bool { return c.Run.Stats != nil && c.Run.Stats.VirtualTotal > 0 }

// Virtual is the simulated sources' clock at the first row and at the end.
func (c *Metrics) Virtual() string {
	s := c.Run.Stats
	return fmt.Sprintf("first row at %s, done at %s", virtualMS(s.VirtualFirstRow), virtualMS(s.VirtualTotal))
}

func virtualMS(ms float64) string { return fmtDuration(time.Duration(ms * float64(time.Millisecond))) }

// Chart is one small chart of a series over the trace's time.
type Chart struct {
	ID, Label string
	Points    string
	// Top is the series' largest value (the y axis's top, in the series' unit: bytes for memory), Span the
	// trace time it covers, both as text; Unit names the x axis's time.
	Top, Span, Unit string
}

// chartW and chartH are a chart's drawing box in SVG units.
const chartW, chartH = 200, 36

// Charts are rows out, requests and held memory over the trace's time; a series with no point is left out.
func (c *Metrics) Charts() []Chart {
	t := c.Run.Trace
	var out []Chart
	for _, ch := range []struct {
		id, label string
		s         *Series
		fmt       func(float64) string
	}{
		{"chart-rows", "rows out", &t.RowsOver, func(v float64) string { return count(int64(v)) }},
		{"chart-requests", "requests", &t.RequestsOver, func(v float64) string { return count(int64(v)) }},
		{"chart-memory", "memory held", &t.MemoryOver, bytesText},
	} {
		if len(ch.s.X) == 0 {
			continue
		}
		top := slices.Max(ch.s.Y)
		span := time.Duration(ch.s.X[len(ch.s.X)-1] * float64(time.Millisecond))
		out = append(out, Chart{ID: ch.id, Label: ch.label, Points: ch.s.Polyline(chartW, chartH),
			Top: ch.fmt(top), Span: fmtDuration(span), Unit: t.ClockName()})
	}
	return out
}
