package join

import (
	"context"
	"errors"
	"fmt"
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
	// Columns are the side's columns in the join spec's order (Spec.Left or Spec.Right), by connector name.
	Columns []string
	// Live marks the columns the query reads; the others are never fetched and stay nil (dead) in batches.
	Live []bool
	// Key is the join key's index in Columns.
	Key   int
	Clock connector.Clock
	Retry connector.RetryPolicy
	Seed  uint64
}

// keyColumn is the join key's connector column.
func (r *Remote) keyColumn() string { return r.Columns[r.Key] }

// cursorReserve is the query text a continuation keyset adds to a request whose filter was sized without it
// (a few quoted values and comparisons), kept free under Caps.MaxQueryBytes when splitting filters.
const cursorReserve = 512

// shrinkDivisor is how much smaller a request asks after a result-too-large answer: halving finds a size that
// fits in log2 steps whatever the row width.
const shrinkDivisor = 2

// fetcher sends one operator's requests to one remote through a connector.Retrier (the retry client the
// connector scan uses too, so throttles, faults, the deadline, trace events and detail keys mean the same on
// both), and builds the paged join's requests: pushed predicates, filters split to the caps, keyset
// continuations.
type fetcher struct {
	r     *Remote
	retry *connector.Retrier
}

func newFetcher(r *Remote, op string, sink trace.Sink, details *trace.Details) *fetcher {
	opts := connector.Options{Clock: r.Clock, Retry: r.Retry, Seed: r.Seed}
	return &fetcher{r: r, retry: connector.NewRetrier(r.Conn, r.Name, op, opts, sink, details)}
}

func (f *fetcher) now() time.Duration { return f.r.Clock.Now() }

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

// complete fetches every row matching where, however many requests it takes: requests ordered by order (which
// must have no ties: it ends with the table's key), at most a response's rows each, continuing with a keyset
// past the last row while pages come back full or truncated, and halving the request after a too-large answer.
// keyset are the order's columns the continuation compares (order minus columns known to be null). cols must
// contain every keyset column. No row limit is asked of the answer as a whole: this is how a re-fetch gets every
// twin of a tie group. stop may end it early.
func (f *fetcher) complete(ctx context.Context, where connector.Predicate, cols []string, order, keyset []connector.OrderKey, purpose string, stop stopAt) (*column.Table, error) {
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
	var cursor []column.Value
	for {
		w := where
		if cursor != nil {
			w = and(where, connector.Keyset{Keys: keyset, Values: cursor, Bound: connector.After})
		}
		req := connector.Request{Table: f.r.Info.Name, Columns: cols, Where: w, OrderBy: order, Limit: limit}
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

// stopAt ends complete early: after the first most rows in the order (0: every row), or, with firstOnly, with a
// *responseFull instead of a second request when the first response is full.
type stopAt struct {
	most      int
	firstOnly bool
}

// responseFull is complete's answer when its first response came back full and only one was wanted. page is
// that response, which the caller may read (as a sample) before dropping it.
type responseFull struct{ page *column.Batch }

func (e *responseFull) Error() string {
	return fmt.Sprintf("the first response is full (%d rows)", e.page.N)
}

// filter splits keys to fit this remote's caps for requests shaped like tmpl (its Where is and'ed with each
// slice's IN list), keeping cursorReserve bytes free for a continuation keyset.
func (f *fetcher) filter(keys []column.Value, col string, tmpl connector.Request) (dynfilter.Filter, error) {
	caps := f.r.Conn.Caps()
	if caps.MaxQueryBytes > 0 {
		caps.MaxQueryBytes = max(1, caps.MaxQueryBytes-cursorReserve)
	}
	var render dynfilter.Render
	if r, ok := f.r.Conn.(connector.Renderer); ok {
		render = func(p connector.Predicate) (int, error) {
			req := tmpl
			req.Where = and(tmpl.Where, p)
			text, err := r.Render(req)
			return len(text), err
		}
	}
	return dynfilter.SplitToFit(col, keys, caps, render)
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
