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

// SmallRows is a small run's rows by partition, in the table's order (GraceSummary.InOrder), or nil for a run
// too large to list them.
func (c *GraceView) SmallRows() []*PartitionRows { return c.Run.Trace.Grace.InOrder() }

// PartName names a partition's row of the table: its id, or what the null-key rows are.
func (c *GraceView) PartName(p *PartitionRows) string {
	if p.ID == "" {
		return "null keys"
	}
	return p.ID
}

// PartWhere says where a partition's rows are: spilled (and then re-partitioned, or joined holding one side)
// or, for the null-key rows, set aside without being spilled.
func (c *GraceView) PartWhere(p *PartitionRows) string {
	switch {
	case !p.Spilled():
		return "set aside, never spilled: a null key matches nothing"
	case p.Split:
		return "spilled, then re-partitioned"
	case p.Build != "" && p.Method == "blocks":
		return "spilled; joined in blocks of the " + p.Build + " side (hot key)"
	case p.Build != "":
		return "spilled; joined holding the " + p.Build + " side in memory"
	}
	return "spilled"
}

// PartClass styles a partition's row by where its rows are and its level.
func (c *GraceView) PartClass(p *PartitionRows) string {
	class := "part"
	if p.Spilled() {
		class += " spilled"
	} else {
		class += " apart"
	}
	if p.Level > 0 {
		class += " level" + strconv.Itoa(min(p.Level, 3))
	}
	return class
}

// KeysClass marks the side a partition's pair held in memory (the build side).
func (c *GraceView) KeysClass(p *PartitionRows, side string) string {
	if p.Build == side && !p.Split {
		return "keys build"
	}
	return "keys"
}
