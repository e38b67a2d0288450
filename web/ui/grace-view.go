package ui

import (
	"strconv"
	"strings"
)

// GraceView draws the Grace join's partitions as bins, from its partition written/read, spill,
// re-partition and hot-key events.
type GraceView struct {
	Run *Run
	// Prefix leads every id the view draws: empty in the main view, "a-" or "b-" for a side of the compare, so
	// two views of one kind on the page never share an id.
	Prefix string
}

// BinBox is one partition's rectangle.
type BinBox struct {
	X, W, H      float64
	Class, Label string
}

func (c *GraceView) Bins() []BinBox {
	g := &c.Run.Trace.Grace
	bins := g.Bins
	if len(bins) == 0 {
		return nil
	}
	top := g.MaxRows()
	w := 400 / float64(len(bins))
	out := make([]BinBox, len(bins))
	for i, b := range bins {
		h := 0.0
		if top > 0 {
			h = 90 * b.Rows / top
		}
		class := "fill"
		if b.Spilled {
			class += " spilled"
		}
		if b.Level > 0 {
			class += " level" + strconv.Itoa(min(b.Level, 3))
		}
		if i > 0 && b.Op != bins[i-1].Op {
			class += " next-join" // the first partition of the query's next join
		}
		label := ""
		if len(bins) <= 16 || i%4 == 0 {
			label = b.ID
		}
		out[i] = BinBox{X: float64(i)*w + 1, W: max(1, w-2), H: h, Class: class, Label: label}
	}
	return out
}

func (c *GraceView) HotKeys() string { return strings.Join(c.Run.Trace.Grace.HotKeys, ", ") }

// SubNote counts the sub-partitions re-partitioning made, beside the first split's partitions.
func (c *GraceView) SubNote() string {
	g := &c.Run.Trace.Grace
	return " (and " + count(int64(len(g.Bins)-g.TopPartitions())) + " sub-partitions from re-partitioning)"
}
