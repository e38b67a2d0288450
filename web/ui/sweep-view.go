package ui

import (
	"strconv"

	"github.com/joinlab/joinlab/engine/column"
)

// SweepView draws the sweep join: where the sweep line is and how large the active set has been.
type SweepView struct {
	Run *Run
}

// plausibleNanos: a position this large is a timestamp in nanoseconds (after 2001), shown as a date.
const plausibleNanos = 1e18

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
