package join

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/dynfilter"
	"github.com/joinlab/joinlab/engine/trace"
)

// Remote is one side of a federated join: a table behind a connector, with the conditions the planner pushed
// into it. The paged join and its baselines send their own requests through it.
type Remote struct {
	// Name is the source's name (after '@'), used in trace ops and per-source request counts.
	Name string
	Conn connector.Connector
	Info connector.TableInfo
	// Where is the pushed predicate every request carries (nil: none).
	Where connector.Predicate
	// Engine are the side's conditions its connector does not compute: the paged join fetches the columns
	// they read and applies them itself (see paged_enginecond.go). The baselines apply none and refuse them.
	Engine []EngineCond
	// Columns are the side's columns in the join spec's order (Spec.Left or Spec.Right), by connector name.
	Columns []string
	// Live marks the columns the query reads; the others are never fetched and stay nil (dead) in batches.
	Live []bool
	// Key is the join key's index in Columns.
	Key   int
	Clock connector.Clock
	Retry connector.RetryPolicy
	Seed  uint64
	// Pacer paces the overlapped requests to the source's published rate (nil: none); the source's own, so
	// the join's requests and the scans' are counted together.
	Pacer *connector.Pacer
}

// keyColumn is the join key's connector column.
func (r *Remote) keyColumn() string { return r.Columns[r.Key] }

// shrinkDivisor is how much smaller a request asks after a result-too-large answer: halving finds a size that
// fits in log2 steps whatever the row width.
const shrinkDivisor = 2

// fetcher sends one operator's requests to one remote through a connector.Retrier (the retry client the
// connector scan uses too, so throttles, faults, the deadline, trace events and detail keys mean the same on
// both), and builds the paged join's requests: pushed predicates, filters split to the caps, keyset
// continuations.
type fetcher struct {
	r       *Remote
	retry   *connector.Retrier
	details *trace.Details
	// sequential sends one request at a time whatever the connector allows (PagedConfig.Sequential).
	sequential bool
}

func newFetcher(r *Remote, op string, sink trace.Sink, details *trace.Details) *fetcher {
	if details == nil {
		details = &trace.Details{}
	}
	opts := connector.Options{Clock: r.Clock, Retry: r.Retry, Seed: r.Seed, Pacer: r.Pacer}
	return &fetcher{r: r, retry: connector.NewRetrier(r.Conn, r.Name, op, opts, sink, details), details: details}
}

func (f *fetcher) now() time.Duration { return f.r.Clock.Now() }

// inFlight is how many of the remote's requests may overlap: the connector's published Caps.Concurrent (0:
// one), or one when the join runs sequentially.
func (f *fetcher) inFlight() int {
	if f.sequential {
		return 1
	}
	return max(1, f.r.Conn.Caps().Concurrent)
}

// completeSlices completes each slice's keys from cursor (nil: from the start; see completeFrom), the slices'
// requests overlapping up to inFlight on the remote's clock (connector.Overlap), and returns the answers in
// slice order. first bounds the first slice's answer and rest each later one's. A first slice that may end the
// whole fetch (stopAt.firstOnly: a full first response is dropped, and the slices after it are not wanted) is
// sent alone, before the others: the later slices depend on its answer, so overlapping them could only send
// requests a sequential run never sends. Either way the requests sent are those of a sequential run.
func (f *fetcher) completeSlices(ctx context.Context, kf keyFilter, slices []dynfilter.Slice, cursor []column.Value, cols []string, order, keyset []connector.OrderKey, purpose string, first, rest stopAt) ([]*column.Table, error) {
	var head []*column.Table
	if first.firstOnly && len(slices) > 1 {
		t, err := f.completeFrom(ctx, kf, slices[0].Values, cursor, cols, order, keyset, purpose, first)
		if err != nil {
			return nil, err
		}
		head, slices, first = []*column.Table{t}, slices[1:], rest
	}
	tabs, err := connector.Overlap(ctx, f.r.Clock, f.inFlight(), len(slices), func(ctx context.Context, i int) (*column.Table, error) {
		stop := rest
		if i == 0 {
			stop = first
		}
		return f.completeFrom(ctx, kf, slices[i].Values, cursor, cols, order, keyset, purpose, stop)
	})
	if err != nil {
		return nil, err
	}
	return append(head, tabs...), nil
}

// where is the pushed predicate and'ed with extra terms (nil terms skipped).
func (f *fetcher) where(extra ...connector.Predicate) connector.Predicate {
	var and connector.And
	if f.r.Where != nil {
		and = append(and, f.r.Where)
	}
	for _, x := range extra {
		if x != nil {
			and = append(and, x)
		}
	}
	switch len(and) {
	case 0:
		return nil
	case 1:
		return and[0]
	}
	return and
}

// send sends req through the retrier; purpose names the request in the trace (thin, probe, refetch…). The
// answer always has a batch, empty when the source sent no rows.
func (f *fetcher) send(ctx context.Context, req connector.Request, purpose string) (connector.Page, error) {
	page, err := f.retry.Send(ctx, req, purpose)
	if err != nil {
		return connector.Page{}, err
	}
	if page.Batch == nil {
		page.Batch = emptyBatch(req.Columns, f.r.Info.Schema)
	}
	return page, nil
}

// sendShrinking is send that halves the request's row limit after each result-too-large answer (the bytes cap:
// rows wider than guessed). It returns the answer and the limit it was asked with, which says whether the
// answer is full.
func (f *fetcher) sendShrinking(ctx context.Context, req connector.Request, purpose string) (connector.Page, int, error) {
	for {
		page, err := f.send(ctx, req, purpose)
		var big *connector.ResultTooLargeError
		if errors.As(err, &big) && req.Limit > 1 {
			req.Limit = max(1, req.Limit/shrinkDivisor)
			continue
		}
		if err != nil {
			return connector.Page{}, 0, fmt.Errorf("%s: %w", purpose, err)
		}
		return page, req.Limit, nil
	}
}

func emptyBatch(cols []string, schema column.Schema) *column.Batch {
	vecs := make([]*column.Vector, len(cols))
	for i, c := range cols {
		t := column.Dynamic
		if j := schema.Index(c); j >= 0 {
			t = schema[j].Type
		}
		vecs[i] = column.NewVector(t, 0)
	}
	return column.NewBatch(vecs, 0)
}

// keyFilter is the predicate of a request that carries one IN list over a key column. with wraps a list in the
// rest of the request's predicate, so the text that is measured is the text that is sent, and completeFrom can cut
// the list again when a continuation's cursor makes the request outgrow the query cap.
type keyFilter struct {
	column string
	with   func(in connector.Predicate) connector.Predicate
}

// request is shape with its predicate: the IN list of vals wrapped by kf, and'ed with cursor (nil: none).
func (kf keyFilter) request(shape connector.Request, vals []column.Value, cursor connector.Predicate) connector.Request {
	req := shape
	req.Where = and(kf.with(connector.In{Column: kf.column, Values: vals}), cursor)
	return req
}

// completeFrom fetches every row whose key is one of keys (the IN list kf wraps), however many requests it takes:
// requests ordered by order (which must have no ties: it ends with the table's key), at most a response's rows
// each, continuing with a keyset past the last row while pages come back full or truncated, and halving the
// request after a too-large answer. keyset are the order's columns the continuation compares (order minus
// columns known to be null). cols must contain every keyset column. No row limit is asked of the answer as a
// whole: this is how a re-fetch gets every twin of a tie group. stop may end it early.
//
// keys were split to fit the query cap without a cursor (see filter). A continuation adds the keyset clause of
// the last row's values, which are known only then: completeFrom renders that request, and when it does not fit, it
// splits the remaining keys again with the cursor in place and merges the slices' answers in order. So every
// request sent fits the cap, and none is refused that would fit.
// It starts after cursor (nil: from the start).
func (f *fetcher) completeFrom(ctx context.Context, kf keyFilter, keys []column.Value, cursor []column.Value, cols []string, order, keyset []connector.OrderKey, purpose string, stop stopAt) (*column.Table, error) {
	caps := f.r.Conn.Caps()
	limit := caps.MaxRows
	if stop.most > 0 && (limit == 0 || stop.most < limit) {
		limit = stop.most
	}
	pos := make([]int, len(keyset))
	for i, k := range keyset {
		pos[i] = indexOfName(cols, k.Column)
		if pos[i] < 0 {
			return nil, fmt.Errorf("%s: continuation column %s is not fetched", purpose, k.Column)
		}
	}
	out := column.NewTable(schemaOf(cols, f.r.Info.Schema))
	for {
		var after connector.Predicate
		if cursor != nil {
			after = connector.Keyset{Keys: keyset, Values: cursor, Bound: connector.After}
		}
		shape := connector.Request{Table: f.r.Info.Name, Columns: cols, OrderBy: order, Limit: limit}
		req := kf.request(shape, keys, after)
		if after != nil && caps.MaxQueryBytes > 0 {
			n, err := f.queryBytes(req)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", purpose, err)
			}
			if n > caps.MaxQueryBytes {
				rest, err := f.completeResplit(ctx, kf, keys, cursor, after, shape, cols, order, keyset, purpose, stopAt{most: remaining(stop.most, out.N)})
				if err != nil {
					return nil, err
				}
				out.Append(rest.Batch())
				return out, nil
			}
		}
		page, err := f.send(ctx, req, purpose)
		var big *connector.ResultTooLargeError
		if errors.As(err, &big) {
			if limit == 0 {
				limit = max(1, int(big.Rows)/shrinkDivisor)
			} else if limit > 1 {
				limit = max(1, limit/shrinkDivisor)
			} else {
				return nil, fmt.Errorf("%s: even one row is too large: %w", purpose, err)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", purpose, err)
		}
		n := page.Rows()
		if n == 0 || (!page.Truncated && (limit == 0 || n < limit)) {
			out.Append(page.Batch)
			return out, nil
		}
		if stop.most > 0 && out.N+n >= stop.most {
			out.Append(page.Batch.Slice(0, stop.most-out.N))
			return out, nil
		}
		if stop.firstOnly {
			return nil, &responseFull{page: page.Batch}
		}
		out.Append(page.Batch)
		cursor = make([]column.Value, len(pos))
		for i, p := range pos {
			cursor[i] = page.Batch.Cols[p].Value(n - 1)
		}
	}
}

// completeResplit finishes completeFrom after cursor when the continuation with every remaining key is over the
// query cap: the keys are split again against requests carrying that cursor clause, each slice is completed from
// the cursor, and the answers, disjoint by key, are merged in order (cut to stop.most).
func (f *fetcher) completeResplit(ctx context.Context, kf keyFilter, keys, cursor []column.Value, after connector.Predicate, shape connector.Request, cols []string, order, keyset []connector.OrderKey, purpose string, stop stopAt) (*column.Table, error) {
	split, err := f.split(kf, keys, shape, after)
	if err != nil {
		return nil, fmt.Errorf("%s: continue after %s: %w", purpose, valuesText(cursor), err)
	}
	f.details.Add(DetailFilterSlices, int64(len(split.Slices)))
	out := column.NewTable(schemaOf(cols, f.r.Info.Schema))
	tabs, err := f.completeSlices(ctx, kf, split.Slices, cursor, cols, order, keyset, purpose, stop, stop)
	if err != nil {
		return nil, err
	}
	for _, t := range tabs {
		out.Append(t.Batch())
	}
	out = sortTable(out, order)
	if stop.most > 0 && out.N > stop.most {
		cut := column.NewTable(out.Schema)
		cut.Append(out.Batch().Slice(0, stop.most))
		out = cut
	}
	return out, nil
}

// remaining is what is left of a row bound most (0: none) once have rows are held.
func remaining(most, have int) int {
	if most <= 0 {
		return 0
	}
	return max(1, most-have)
}

func valuesText(vals []column.Value) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = connector.Literal(v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// stopAt ends completeFrom early: after the first most rows in the order (0: every row), or, with firstOnly, with a
// *responseFull instead of a second request when the first response is full.
type stopAt struct {
	most      int
	firstOnly bool
}

// responseFull is completeFrom's answer when its first response came back full and only one was wanted. page is
// that response, which the caller may read (as a sample) before dropping it.
type responseFull struct{ page *column.Batch }

func (e *responseFull) Error() string {
	return fmt.Sprintf("the first response is full (%d rows)", e.page.N)
}

// filter splits keys to fit this remote's caps for requests shaped like shape (Table, Columns, OrderBy, Limit)
// whose predicate is kf around each slice's IN list. Sizes are the rendered text of exactly those first
// requests: nothing is reserved for a continuation cursor, whose values are known only when a response comes
// back full; completeFrom measures that request then and splits again if it must.
func (f *fetcher) filter(kf keyFilter, keys []column.Value, shape connector.Request) (dynfilter.Filter, error) {
	return f.split(kf, keys, shape, nil)
}

// split is filter for requests that also carry cursor (nil: none).
func (f *fetcher) split(kf keyFilter, keys []column.Value, shape connector.Request, cursor connector.Predicate) (dynfilter.Filter, error) {
	var render dynfilter.Render
	if _, ok := f.r.Conn.(connector.Renderer); ok {
		render = func(in connector.Predicate) (int, error) {
			req := shape
			req.Where = and(kf.with(in), cursor)
			return f.queryBytes(req)
		}
	}
	return dynfilter.SplitToFit(kf.column, keys, f.r.Conn.Caps(), render)
}

// queryBytes is the size of req's native query text, the measure Caps.MaxQueryBytes applies to (0 when the
// connector renders no text).
func (f *fetcher) queryBytes(req connector.Request) (int, error) {
	r, ok := f.r.Conn.(connector.Renderer)
	if !ok {
		return 0, nil
	}
	text, err := r.Render(req)
	if err != nil {
		return 0, fmt.Errorf("render the request: %w", err)
	}
	return len(text), nil
}

func and(a, b connector.Predicate) connector.Predicate {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	if x, ok := a.(connector.And); ok {
		return append(append(connector.And(nil), x...), b)
	}
	return connector.And{a, b}
}

func indexOfName(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

func schemaOf(cols []string, schema column.Schema) column.Schema {
	out := make(column.Schema, len(cols))
	for i, c := range cols {
		out[i] = column.Field{Name: c, Type: column.Dynamic}
		if j := schema.Index(c); j >= 0 {
			out[i] = schema[j]
		}
	}
	return out
}

// pageTable streams one in-memory table once, in batches of at most outRows rows.
type pageTable struct {
	schema column.Schema
	t      *column.Table
	pos    int
}

func (o *pageTable) Schema() column.Schema { return o.schema }

func (o *pageTable) Next(ctx context.Context) (*column.Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.t == nil || o.pos >= o.t.N {
		return nil, nil
	}
	hi := min(o.t.N, o.pos+outRows)
	b := o.t.Batch().Slice(o.pos, hi)
	o.pos = hi
	return b, nil
}
