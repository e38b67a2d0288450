package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Metrics shows a run's figures: what the trace says while it runs, the engine's stats once it is done.
type Metrics struct {
	Run *Run
}

// Strategy is the join strategy; for a query of several joins that differ, each of them as strategy_chose
// lists them (outermost first) and the one the view draws.
func (c *Metrics) Strategy() string {
	var distinct []string
	for _, s := range c.Run.Trace.Strategies {
		if !slices.Contains(distinct, s) {
			distinct = append(distinct, s)
		}
	}
	if len(distinct) > 1 {
		return strings.Join(c.Run.Trace.Strategies, ", ") + " (drawn: " + c.Run.DrawnStrategy() + ")"
	}
	if c.Run.Strategy == "" {
		return "—"
	}
	return c.Run.Strategy
}

func (c *Metrics) Rows() string { return count(statsRows(c.Run)) }

// Read is the rows read from the sources, with those read while planning (a strategy measuring its
// input) said apart.
func (c *Metrics) Read() string {
	t := c.Run.Trace
	switch {
	case t.RunReads == 0 && t.PlanReads == 0:
		return "—"
	case t.PlanReads == 0:
		return count(t.RunReads)
	}
	return fmt.Sprintf("%s (and %s while planning)", count(t.RunReads), count(t.PlanReads))
}

func (c *Metrics) Memory() string {
	if s := c.Run.Stats; s != nil && s.MemoryPeak > 0 {
		return fmt.Sprintf("%s of %s", bytesText(float64(s.MemoryPeak)), bytesText(float64(s.Budget)))
	}
	if m := c.Run.Trace.MemoryHigh; m > 0 {
		return bytesText(float64(m))
	}
	return "—"
}

func (c *Metrics) FirstRow() string {
	if c.Run.FirstRow == 0 {
		return "—"
	}
	return fmtDuration(c.Run.FirstRow) + " (wall)"
}

func (c *Metrics) Time() string {
	switch {
	case c.Run.Stats != nil && c.Run.Stats.WallMillis > 0:
		return fmt.Sprintf("%.1f ms in the engine", c.Run.Stats.WallMillis)
	case c.Run.Finished > 0:
		return fmtDuration(c.Run.Finished)
	}
	return "running…"
}

// Details are the strategy's own figures (stats "details"), sorted by name, values as JSON.
func (c *Metrics) Details() [][2]string {
	if c.Run.Stats == nil {
		return nil
	}
	var out [][2]string
	for k, v := range c.Run.Stats.Details {
		b, err := json.Marshal(v)
		s := string(b)
		if err != nil {
			s = fmt.Sprint(v)
		}
		if len(s) > 120 {
			s = s[:117] + "…"
		}
		out = append(out, [2]string{k, s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
