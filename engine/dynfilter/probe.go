package dynfilter

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
)

// Applied is the trace kind of a dynamic filter pushed into a join's probe scan, emitted once, when the build
// keys arrive. Attributes: source, column, form (none, in, ranges, minmax, empty), keys (distinct build
// keys), slices, slice_values and slice_bytes (one per slice: IN values, rendered bytes of the continuation
// request carrying it), max_values and max_bytes (the caps they are held to, 0: none), max_distinct (the
// threshold past which the filter compacts) and why (what compacted or dropped it; "" for IN lists).
const Applied trace.Kind = "dynamic_filter"

// DetailSlices counts the filter slices the probe scans sent (summed over every dynamic-filtered probe).
const DetailSlices = "dynamic_filter_slices"

// Probe is the probe side of a join, scanning a connector source under a dynamic filter of the build side's
// keys: the join hands the keys over (SetKeys) once its build side is complete and before it reads a probe
// row, and each slice of the filter (Build: IN lists cut to the caps, else ranges) is a keyset scan of its
// own, the scans run one after another and their rows concatenated. An IN key is in exactly one slice and a
// row has one key, so no row comes twice; ranges are one slice. The filter only drops rows whose key no
// build row has, so it is correct exactly when the join never outputs an unmatched probe row (the planner
// checks the kind). Memory: one page of the current slice's scan; the keys while slicing.
type Probe struct {
	src         *connector.Source
	column      string
	schema      column.Schema
	fields      []column.Field
	pos         []int // pos[i] is the schema position of fields[i]
	maxDistinct int
	sink        trace.Sink
	details     *trace.Details

	filter *Filter
	slice  int // the slice being scanned
	it     source.Iterator
}

var _ exec.Operator = (*Probe)(nil)

// NewProbe scans the live columns of schema from src, filtered on key column col once SetKeys is called;
// maxDistinct is the IN set's threshold (0: MaxDistinctValues).
func NewProbe(src *connector.Source, col string, schema column.Schema, live []bool, maxDistinct int, env *exec.Env) *Probe {
	p := &Probe{src: src, column: col, schema: schema, maxDistinct: maxDistinct, sink: env.Trace, details: env.Details}
	for i, f := range schema {
		if live[i] {
			p.fields = append(p.fields, f)
			p.pos = append(p.pos, i)
		}
	}
	return p
}

func (p *Probe) Schema() column.Schema { return p.schema }

// Filter is the filter SetKeys made (nil before).
func (p *Probe) Filter() *Filter { return p.filter }

// NewCollector is a collector for the build keys of this probe's join, keeping as many keys as a range cut
// over this probe's threshold uses.
func (p *Probe) NewCollector() *Collector {
	return NewCollector(rangeKeysFactor * p.threshold())
}

func (p *Probe) threshold() int {
	if p.maxDistinct > 0 {
		return p.maxDistinct
	}
	return MaxDistinctValues
}

// SetKeys makes the filter from the build keys c collected and traces it.
func (p *Probe) SetKeys(c *Collector) error {
	caps := p.src.Connector().Caps()
	render := func(pred connector.Predicate) (int, error) { return p.src.ContinuationBytes(p.fields, pred) }
	var f Filter
	var err error
	if lo, hi, ok := c.Bounds(); ok && c.Over() {
		f, err = compactBounds(p.column, lo, hi, fmt.Sprintf("more than %d distinct keys went by; only the least and greatest were kept", c.limit), caps, render)
	} else {
		f, err = Build(p.column, c.Keys(), p.maxDistinct, caps, render)
	}
	if err != nil {
		return fmt.Errorf("dynfilter: probe @%s: %w", p.src.Name(), err)
	}
	p.filter = &f
	values, bytes := make([]int, len(f.Slices)), make([]int, len(f.Slices))
	for i, s := range f.Slices {
		values[i], bytes[i] = len(s.Values), s.Bytes
	}
	p.sink.Emit(trace.Event{Kind: Applied, At: p.src.Options().Clock.Now(), Op: "dynfilter@" + p.src.Name(), Attrs: map[string]any{
		"source": p.src.Name(), "column": p.column, "form": f.Kind.String(), "keys": f.Keys, "slices": len(f.Slices),
		"slice_values": values, "slice_bytes": bytes, "max_values": f.MaxValues, "max_bytes": f.MaxBytes,
		"max_distinct": p.threshold(), "why": f.Why}})
	return nil
}

func (p *Probe) Next(ctx context.Context) (*column.Batch, error) {
	if p.filter == nil {
		return nil, fmt.Errorf("dynfilter: probe @%s read before the join handed its build keys over", p.src.Name())
	}
	for {
		if p.it == nil {
			src, ok := p.nextSource()
			if !ok {
				return nil, nil
			}
			p.it = src.ScanTraced(ctx, p.fields, p.sink, p.details)
		}
		b, err := p.it.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			p.it = nil
			continue
		}
		cols := make([]*column.Vector, len(p.schema))
		for i, at := range p.pos {
			cols[at] = b.Cols[i]
		}
		return column.NewBatch(cols, b.N), nil
	}
}

// nextSource is the source of the next slice's scan: the whole source once for None, nothing for Empty.
func (p *Probe) nextSource() (*connector.Source, bool) {
	defer func() { p.slice++ }()
	if p.filter.Kind == None {
		return p.src, p.slice == 0
	}
	if p.slice >= len(p.filter.Slices) {
		return nil, false
	}
	p.details.Add(DetailSlices, 1)
	return p.src.With(p.filter.Slices[p.slice].Pred), true
}
