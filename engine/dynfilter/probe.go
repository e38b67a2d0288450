package dynfilter

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/dynfilter/dfevent"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
)

// The probe's trace event, emitted once when the build keys arrive, is dfevent.Applied.

// DetailSlices counts the filter slices the probe scans sent (summed over every dynamic-filtered probe).
const DetailSlices = "dynamic_filter_slices"

// Probe is the probe side of a join, scanning a connector source under a dynamic filter of the build side's
// keys: the join hands the keys over (SetKeys) once its build side is complete and before it reads a probe
// row, and each slice of the filter (Build: IN lists cut to the caps, else ranges) is a keyset scan of its
// own. An IN key is in exactly one slice and a row has one key, so no row comes twice; ranges are one slice.
// The filter only drops rows whose key no build row has, so it is correct exactly when the join never
// outputs an unmatched probe row (the planner checks the kind).
//
// The slices' scans overlap up to the connector's Caps.Concurrent (connector.Overlap, on the source's clock):
// a window of that many slices, from the one being handed out, each holding at most one page. When the
// slice being handed out needs its next request, every slice of the window without a page sends its next
// request in the same group, so W slices of one page each cost one latency, not W. Rows are handed out in
// slice order, each slice's pages in their order — the rows and their order of a sequential scan (a
// Concurrent of 0 or 1), whatever order the answers came in; the requests are the sequential scan's too,
// unless the join stops reading early (a take above it), when the window's slices may have sent requests
// a sequential scan would not have. Memory: at most one page per slice of the window, each charged to the
// budget from its arrival until its last row is handed out (a join that stops reading early leaves the
// rest charged until the query's budget goes); the keys while slicing.
type Probe struct {
	src         *connector.Source
	column      string
	schema      column.Schema
	fields      []column.Field
	pos         []int // pos[i] is the schema position of fields[i]
	maxDistinct int
	sink        trace.Sink
	details     *trace.Details
	budget      *memory.Budget

	filter *Filter
	scans  []*sliceScan // one per slice to scan (the whole source once for None); nil until opened
	cur    int          // the slice being handed out; every slice before it is done
}

// sliceScan is the scan of one slice: its pages, and the page it holds (nil: none yet, or handed out).
type sliceScan struct {
	pages *connector.Pages
	page  *column.Batch
	pos   int   // rows of page handed out
	held  int64 // bytes of page charged to the budget
}

var _ exec.Operator = (*Probe)(nil)

// NewProbe scans the live columns of schema from src, filtered on key column col once SetKeys is called;
// maxDistinct is the IN set's threshold (0: MaxDistinctValues).
func NewProbe(src *connector.Source, col string, schema column.Schema, live []bool, maxDistinct int, env *exec.Env) *Probe {
	p := &Probe{src: src, column: col, schema: schema, maxDistinct: maxDistinct, sink: env.Trace, details: env.Details, budget: env.Budget}
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
	switch f.Kind {
	case None:
		p.scans = make([]*sliceScan, 1)
	case Empty:
	default:
		p.scans = make([]*sliceScan, len(f.Slices))
	}
	values, bytes := make([]int, len(f.Slices)), make([]int, len(f.Slices))
	for i, s := range f.Slices {
		values[i], bytes[i] = len(s.Values), s.Bytes
	}
	p.sink.Emit(trace.Event{At: p.src.Options().Clock.Now(), Op: "dynfilter@" + p.src.Name(), Payload: dfevent.Applied{
		Source: p.src.Name(), Column: p.column, Form: f.Kind.String(), Keys: f.Keys, Slices: len(f.Slices),
		SliceValues: values, SliceBytes: bytes, MaxValues: f.MaxValues, MaxBytes: f.MaxBytes,
		MaxDistinct: p.threshold(), Why: f.Why}})
	return nil
}

func (p *Probe) Next(ctx context.Context) (*column.Batch, error) {
	if p.filter == nil {
		return nil, fmt.Errorf("dynfilter: probe @%s read before the join handed its build keys over", p.src.Name())
	}
	for p.cur < len(p.scans) {
		s := p.scans[p.cur]
		if s != nil && s.page != nil {
			hi := min(s.pos+source.BatchRows, s.page.N)
			b := s.page.Slice(s.pos, hi)
			if s.pos = hi; s.pos == s.page.N {
				p.budget.Shrink(s.held)
				s.page, s.pos, s.held = nil, 0, 0
			}
			cols := make([]*column.Vector, len(p.schema))
			for i, at := range p.pos {
				cols[at] = b.Cols[i]
			}
			return column.NewBatch(cols, b.N), nil
		}
		if s != nil && s.pages.Done() {
			p.scans[p.cur] = nil
			p.cur++
			continue
		}
		if err := p.fill(ctx); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// inFlight is how many slices' requests may overlap: the connector's published Caps.Concurrent (0: one).
func (p *Probe) inFlight() int { return max(1, p.src.Connector().Caps().Concurrent) }

// fill opens the slices of the window (the inFlight slices from the one being handed out) not yet opened and
// sends, as one overlapped group, the next request of every one of them that holds no page and has more.
// The slice being handed out is always among them.
func (p *Probe) fill(ctx context.Context) error {
	limit := p.inFlight()
	var want []int
	for i := p.cur; i < min(p.cur+limit, len(p.scans)); i++ {
		s := p.scans[i]
		if s == nil {
			s = &sliceScan{pages: p.sliceSource(i).ScanPages(p.fields, p.sink, p.details)}
			p.scans[i] = s
		}
		if s.page == nil && !s.pages.Done() {
			want = append(want, i)
		}
	}
	pages, err := connector.Overlap(ctx, p.src.Options().Clock, limit, len(want), func(ctx context.Context, k int) (*column.Batch, error) {
		return p.scans[want[k]].pages.NextPage(ctx)
	})
	if err != nil {
		return err
	}
	for k, i := range want {
		if pages[k] == nil {
			continue // the slice ended on an empty page: Done says so
		}
		n := pages[k].Bytes()
		if err := p.budget.Grow(fmt.Sprintf("a page of dynamic filter slice %d of @%s", i+1, p.src.Name()), n); err != nil {
			return fmt.Errorf("dynfilter: probe @%s: %w", p.src.Name(), err)
		}
		p.scans[i].page, p.scans[i].pos, p.scans[i].held = pages[k], 0, n
	}
	return nil
}

// sliceSource is the source of slice i's scan (the whole source for None), counted in DetailSlices.
func (p *Probe) sliceSource(i int) *connector.Source {
	if p.filter.Kind == None {
		return p.src
	}
	p.details.Add(DetailSlices, 1)
	return p.src.With(p.filter.Slices[i].Pred)
}
