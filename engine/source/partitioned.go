package source

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
)

// TimePartitioned is a source stored as partitions that each cover a known range of one time column, as time
// series are stored in files per hour or per day. The planner prunes it: a filter that bounds the time column
// (where timestamp between (a .. b)) reads only the partitions whose range meets the bounds.
type TimePartitioned interface {
	Source
	// TimeColumn is the column the partitions are ranged on.
	TimeColumn() string
	// Prune returns a view that scans only the partitions that may hold a time in [lo, hi], and how many of
	// the source's partitions it skips. The view's rows are a subset of the source's, in the same order.
	Prune(lo, hi int64) (Source, int)
	// Partitions is the number of partitions.
	Partitions() int
}

// Partition is one partition of a Partitioned source: rows whose time lies in [Lo, Hi].
type Partition struct {
	Lo, Hi int64
	Table  *column.Table
}

// Partitioned is an in-memory TimePartitioned source, used for generated data: its partitions, in order, share
// one schema.
type Partitioned struct {
	name  string
	time  string
	parts []Partition
	rows  int
}

var _ TimePartitioned = (*Partitioned)(nil)

// NewPartitioned makes a partitioned source. Every partition must share the first one's schema, have the time
// column, and hold only times within its [Lo, Hi] (checked, so pruning can trust the ranges).
func NewPartitioned(name, timeColumn string, parts []Partition) (*Partitioned, error) {
	p := &Partitioned{name: name, time: timeColumn, parts: parts}
	for i, part := range parts {
		tc := part.Table.Schema.Index(timeColumn)
		if tc < 0 {
			return nil, fmt.Errorf("source %s: partition %d has no time column %s", name, i, timeColumn)
		}
		if len(part.Table.Schema) != len(parts[0].Table.Schema) {
			return nil, fmt.Errorf("source %s: partition %d has a different schema", name, i)
		}
		v := part.Table.Cols[tc]
		for r := 0; r < part.Table.N; r++ {
			if !v.IsNull(r) && (v.Ints[r] < part.Lo || v.Ints[r] > part.Hi) {
				return nil, fmt.Errorf("source %s: partition %d [%d, %d] holds time %d", name, i, part.Lo, part.Hi, v.Ints[r])
			}
		}
		p.rows += part.Table.N
	}
	return p, nil
}

func (p *Partitioned) Name() string       { return p.name }
func (p *Partitioned) TimeColumn() string { return p.time }
func (p *Partitioned) Rows() int          { return p.rows }
func (p *Partitioned) Partitions() int    { return len(p.parts) }

func (p *Partitioned) Schema([]string) column.Schema {
	if len(p.parts) == 0 {
		return nil
	}
	return p.parts[0].Table.Schema
}

func (p *Partitioned) Prune(lo, hi int64) (Source, int) {
	view := &Partitioned{name: p.name, time: p.time}
	for _, part := range p.parts {
		if part.Hi >= lo && part.Lo <= hi {
			view.parts = append(view.parts, part)
			view.rows += part.Table.N
		}
	}
	if len(view.parts) == 0 && len(p.parts) > 0 {
		// Keep an empty first partition so the view still knows its schema.
		view.parts = []Partition{{Lo: p.parts[0].Lo, Hi: p.parts[0].Hi, Table: column.NewTable(p.parts[0].Table.Schema)}}
	}
	return view, len(p.parts) - p.prunedKept(lo, hi)
}

// prunedKept counts the partitions Prune keeps.
func (p *Partitioned) prunedKept(lo, hi int64) int {
	n := 0
	for _, part := range p.parts {
		if part.Hi >= lo && part.Lo <= hi {
			n++
		}
	}
	return n
}

func (p *Partitioned) Scan(ctx context.Context, cols []column.Field) Iterator {
	its := make([]Iterator, len(p.parts))
	for i, part := range p.parts {
		its[i] = FromTable(p.name, part.Table).Scan(ctx, cols)
	}
	return &chainIter{its: its}
}

// chainIter reads iterators one after the other.
type chainIter struct{ its []Iterator }

func (c *chainIter) Next(ctx context.Context) (*column.Batch, error) {
	for len(c.its) > 0 {
		b, err := c.its[0].Next(ctx)
		if err != nil || b != nil {
			return b, err
		}
		c.its = c.its[1:]
	}
	return nil, nil
}
