package connector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
)

// DefaultPageRows is the page the scan asks for when the source publishes no row cap: large enough to
// amortise a round trip, small enough that a page of wide rows is a few megabytes.
const DefaultPageRows = 10_000

// shrinkDivisor is how much smaller the next page is asked after a result-too-large answer: halving finds a
// page that fits in log2(page) steps whatever the row width.
const shrinkDivisor = 2

// DetailPushFallbacks counts the requests a scan sent without its pushed condition because, with the cursor
// it had to carry, they would have been over the connector's query-byte cap; the scan applied the condition to
// those pages itself.
const DetailPushFallbacks = "push_fallbacks"

// Options tune a scan over a connector.
type Options struct {
	// Clock times the requests and the waits; required.
	Clock Clock
	// Retry is the retry policy (zero fields: DefaultRetry's).
	Retry RetryPolicy
	// Seed seeds the retries' jitter, so a run is deterministic.
	Seed uint64
	// PageRows is the page asked for (0: Caps.MaxRows, else DefaultPageRows).
	PageRows int
	// Pacer paces the source's overlapped requests to its published rate (nil: none). NewSource makes one from
	// the connector's caps when it is nil, shared by every scan of the source and its copies.
	Pacer *Pacer
}

// Source is a table behind a connector, exposed to the planner as a source.Source.
//
// A scan pages through the table by keyset over TableInfo.Key: each request asks for the rows strictly after
// the previous page's last key, in key order, at most a page of them. Because the key has no ties and a failed
// request returns no rows, a retried or re-sized request neither skips nor repeats a row. A short page that the
// source did not mark truncated ends the scan. Cost: ⌈rows/page⌉ requests (more after too-large answers), one
// page of rows held at a time.
type Source struct {
	name  string
	conn  Connector
	info  TableInfo
	opts  Options
	where []Predicate // conjuncts pushed by the planner
}

var _ source.Pushdown = (*Source)(nil)

// NewSource serves table info through conn under the name queries use after '@'.
func NewSource(name string, conn Connector, info TableInfo, opts Options) (*Source, error) {
	if opts.Clock == nil {
		return nil, fmt.Errorf("connector: source %s: no clock", name)
	}
	opts.Retry = opts.Retry.withDefaults()
	if opts.Pacer == nil {
		opts.Pacer = NewPacer(conn.Caps())
	}
	for _, k := range info.Key {
		if info.Schema.Index(k.Column) < 0 {
			return nil, fmt.Errorf("connector: source %s: key column %q is not in the schema", name, k.Column)
		}
	}
	return &Source{name: name, conn: conn, info: info, opts: opts}, nil
}

func (s *Source) Name() string { return s.name }

// Rows is the table's size estimate, capped at what an int holds.
func (s *Source) Rows() int { return int(min(s.info.Rows, math.MaxInt)) }

// Connector is the connector behind the source, for strategies that send their own requests (the paged join).
func (s *Source) Connector() Connector { return s.conn }

// Info describes the table.
func (s *Source) Info() TableInfo { return s.info }

// Options are the scan's options (its clock, retry policy and seed), for strategies that send their own requests.
func (s *Source) Options() Options { return s.opts }

// Where is the predicate pushed into every request (nil when none).
func (s *Source) Where() Predicate {
	switch len(s.where) {
	case 0:
		return nil
	case 1:
		return s.where[0]
	}
	return And(append([]Predicate(nil), s.where...))
}

// Schema returns the top-level columns and the nested paths the query mentions.
func (s *Source) Schema(paths []string) column.Schema {
	var out column.Schema
	for _, f := range s.info.Schema {
		if !f.Hidden {
			out = append(out, f)
		}
	}
	for _, p := range paths {
		if i := s.info.Schema.Index(p); i >= 0 && s.info.Schema[i].Hidden && out.Index(p) < 0 {
			out = append(out, s.info.Schema[i])
		}
	}
	return out
}

// Push accepts the conjuncts Translate can express, as long as the resulting request still fits the caps.
// The size is measured on the continuation request, cursor included (see widestCursors): where every key type
// is bounded, a pushed condition then fits every request the scan sends; where a key is a string, a longer
// cursor than measured makes the scan apply the condition itself for that request (see request).
func (s *Source) Push(conjuncts []kql.Expr) (source.Pushdown, []kql.Expr) {
	caps := s.conn.Caps()
	out := *s
	out.where = append([]Predicate(nil), s.where...)
	var rejected []kql.Expr
	for _, c := range conjuncts {
		p, ok := Translate(c, s.info.Schema)
		if !ok {
			rejected = append(rejected, c)
			continue
		}
		if caps.MaxInValues > 0 && InValues(p) > caps.MaxInValues {
			rejected = append(rejected, c)
			continue
		}
		trial := append(append([]Predicate(nil), out.where...), p)
		if caps.MaxQueryBytes > 0 {
			if r, ok := s.conn.(Renderer); ok {
				n, err := s.continuationBytes(r, s.RequestColumns(nil), trial)
				if err != nil || n > caps.MaxQueryBytes {
					rejected = append(rejected, c)
					continue
				}
			}
		}
		out.where = trial
	}
	return &out, rejected
}

// continuationBytes is the rendered size of a continuation request carrying where: the pushed conditions and
// a keyset cursor over the table's key at the widest values the key types take (the first request, with no
// cursor, is never longer), asking for cols. The planner pushes before it knows the columns and measures with
// the key columns alone, which every scan reads; the scan re-measures each request it sends.
func (s *Source) continuationBytes(r Renderer, cols []string, where []Predicate) (int, error) {
	widest := 0
	for _, cur := range widestCursors(s.info) {
		preds := append(append([]Predicate(nil), where...), Keyset{Keys: s.info.Key, Values: cur, Bound: After})
		text, err := r.Render(Request{Table: s.info.Name, Columns: cols, Where: And(preds), OrderBy: s.info.Key, Limit: 1})
		if err != nil {
			return 0, err
		}
		widest = max(widest, len(text))
	}
	if len(s.info.Key) == 0 {
		text, err := r.Render(Request{Table: s.info.Name, Columns: cols, Where: And(where), OrderBy: s.info.Key, Limit: 1})
		if err != nil {
			return 0, err
		}
		widest = len(text)
	}
	return widest, nil
}

// widestCursors are the cursors whose rendering is longest for the key's types, one candidate set per
// extreme: a dialect may write a number in decimal, a datetime as ISO text or as epoch units, so both ends of
// the range are rendered and the longer counts. A string key has no widest value: it takes the empty string
// (its quotes still count), and a longer cursor at run time is handled by the scan's fallback.
func widestCursors(info TableInfo) [][]column.Value {
	if len(info.Key) == 0 {
		return nil
	}
	var low, high []column.Value
	for _, k := range info.Key {
		t := column.String
		if i := info.Schema.Index(k.Column); i >= 0 {
			t = info.Schema[i].Type
		}
		lo, hi := column.Value{Type: t}, column.Value{Type: t}
		switch t {
		case column.Long, column.DateTime, column.Timespan:
			lo.Int, hi.Int = math.MinInt64, math.MaxInt64
		case column.Real:
			lo.Real, hi.Real = -math.MaxFloat64, -0x1p-1022 // the least normal: 17 digits and a 3-digit exponent too
		case column.Bool:
			lo.Bool, hi.Bool = false, true
		}
		low, high = append(low, lo), append(high, hi)
	}
	return [][]column.Value{low, high}
}

// ContinuationBytes is the rendered size of a continuation request of a scan of cols with extra added to its
// pushed conditions (see continuationBytes), for a dynamic filter cut to the caps; 0 when the connector
// renders no text.
func (s *Source) ContinuationBytes(cols []column.Field, extra Predicate) (int, error) {
	r, ok := s.conn.(Renderer)
	if !ok {
		return 0, nil
	}
	return s.continuationBytes(r, s.RequestColumns(cols), append(append([]Predicate(nil), s.where...), extra))
}

// RequestColumns are the columns a scan of cols asks for: cols, then the key columns it pages by.
func (s *Source) RequestColumns(cols []column.Field) []string {
	var names []string
	for _, f := range cols {
		names = append(names, f.Name)
	}
	for _, k := range s.info.Key {
		if indexOf(names, k.Column) < 0 {
			names = append(names, k.Column)
		}
	}
	return names
}

// With is the source with cond added to its pushed conditions, unchecked against the caps: the caller has
// measured it (a dynamic filter's slice, see ContinuationBytes).
func (s *Source) With(cond Predicate) *Source {
	out := *s
	out.where = append(append([]Predicate(nil), s.where...), cond)
	return &out
}

// Pushed describes the pushed predicate.
func (s *Source) Pushed() string {
	if w := s.Where(); w != nil {
		return w.String()
	}
	return ""
}

func (s *Source) Scan(ctx context.Context, cols []column.Field) source.Iterator {
	return s.ScanTraced(ctx, cols, trace.Discard, &trace.Details{})
}

// ScanTraced scans the named columns, paging as the type's comment says.
func (s *Source) ScanTraced(_ context.Context, cols []column.Field, sink trace.Sink, details *trace.Details) source.Iterator {
	return s.newScan(cols, sink, details)
}

// newScan is a scan of cols that has sent nothing yet.
func (s *Source) newScan(cols []column.Field, sink trace.Sink, details *trace.Details) *scanIter {
	if sink == nil {
		sink = trace.Discard
	}
	if details == nil {
		details = &trace.Details{}
	}
	it := &scanIter{s: s, sink: sink, op: "scan@" + s.name, details: details}
	for _, f := range cols {
		it.out = append(it.out, len(it.columns))
		it.columns = append(it.columns, f.Name)
	}
	for _, k := range s.info.Key {
		i := indexOf(it.columns, k.Column)
		if i < 0 {
			i = len(it.columns)
			it.columns = append(it.columns, k.Column)
		}
		it.keyPos = append(it.keyPos, i)
	}
	caps := s.conn.Caps()
	it.limit = s.opts.PageRows
	if it.limit <= 0 {
		it.limit = DefaultPageRows
		if caps.MaxRows > 0 {
			it.limit = caps.MaxRows
		}
	}
	if caps.MaxRows > 0 {
		it.limit = min(it.limit, caps.MaxRows)
	}
	if len(s.info.Key) == 0 {
		it.limit = 0 // no order to page by: one request for everything
	}
	it.retry = NewRetrier(s.conn, s.name, it.op, s.opts, sink, details)
	return it
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// scanIter is one running scan: a cursor, the page size and the current page being handed out in batches.
type scanIter struct {
	s       *Source
	sink    trace.Sink
	op      string
	retry   *Retrier
	details *trace.Details

	columns []string // requested: the scan's columns, then key columns it needs for the cursor
	out     []int    // positions in columns of the scan's own columns
	keyPos  []int    // positions in columns of the key

	limit   int
	cursor  []column.Value // last key returned; nil before the first page
	local   Predicate      // the pushed condition, applied here to the current page when its request left it out
	done    bool
	page    *column.Batch
	pagePos int
}

func (it *scanIter) Next(ctx context.Context) (*column.Batch, error) {
	for it.page == nil || it.pagePos >= it.page.N {
		if it.done {
			return nil, nil
		}
		if err := it.fetch(ctx); err != nil {
			return nil, fmt.Errorf("connector: scan @%s: %w", it.s.name, err)
		}
	}
	hi := min(it.pagePos+source.BatchRows, it.page.N)
	b := it.page.Slice(it.pagePos, hi)
	it.pagePos = hi
	cols := make([]*column.Vector, len(it.out))
	for i, p := range it.out {
		cols[i] = b.Cols[p]
	}
	return column.NewBatch(cols, b.N), nil
}

// fetch gets the next page, shrinking it while the source says the result is too large.
func (it *scanIter) fetch(ctx context.Context) error {
	for {
		req := it.request()
		page, err := it.retry.Send(ctx, req, "")
		var big *ResultTooLargeError
		if errors.As(err, &big) && it.limit > 1 {
			next := max(1, it.limit/shrinkDivisor)
			it.sink.Emit(trace.Event{At: it.s.opts.Clock.Now(), Op: it.op,
				Payload: connevent.PageResized{From: it.limit, To: next, Reason: big.Error()}})
			it.limit = next
			continue
		}
		if err != nil {
			return err
		}
		n := page.Rows()
		it.page, it.pagePos = page.Batch, 0
		if it.local != nil && n > 0 {
			keep, err := Eval(it.local, req.Columns, page.Batch)
			if err != nil {
				return fmt.Errorf("apply the pushed condition in the engine: %w", err)
			}
			var idx []int32
			for i, k := range keep {
				if k {
					idx = append(idx, int32(i))
				}
			}
			it.page = page.Batch.Gather(idx)
		}
		switch {
		case it.limit == 0 || len(it.keyPos) == 0:
			if page.Truncated {
				return fmt.Errorf("table %s has no key to page by and its answer was truncated", it.s.info.Name)
			}
			it.done = true
		case n < it.limit && !page.Truncated:
			it.done = true
		}
		if n > 0 && len(it.keyPos) > 0 {
			it.cursor = make([]column.Value, len(it.keyPos))
			for k, p := range it.keyPos {
				it.cursor[k] = page.Batch.Cols[p].Value(n - 1)
			}
		}
		return nil
	}
}

// request is the next page's request: the pushed predicate and, after the first page, the keyset seek. When
// that request's rendered text is over Caps.MaxQueryBytes (a string cursor longer than Push measured, or the
// columns' names), it is sent with the seek alone and the columns the pushed condition reads, and fetch applies
// the condition to the page: the answer is the same rows, at the cost of shipping the page's unmatched rows.
// The cursor still comes from the page's last row before filtering, so no row is skipped or repeated.
func (it *scanIter) request() Request {
	it.local = nil
	req := it.build(it.s.where, it.columns)
	if len(it.s.where) == 0 {
		return req
	}
	if maxBytes := it.s.conn.Caps().MaxQueryBytes; maxBytes > 0 {
		if r, ok := it.s.conn.(Renderer); ok {
			if text, err := r.Render(req); err == nil && len(text) > maxBytes {
				cols := it.columns
				for _, c := range Columns(it.s.Where(), nil) {
					if indexOf(cols, c) < 0 {
						cols = append(append([]string(nil), cols...), c)
					}
				}
				it.local = it.s.Where()
				it.details.Add(DetailPushFallbacks, 1)
				return it.build(nil, cols)
			}
		}
	}
	return req
}

// build is a request for cols under the conditions where, plus the keyset seek once a cursor is known.
func (it *scanIter) build(conds []Predicate, cols []string) Request {
	where := append([]Predicate(nil), conds...)
	if it.cursor != nil {
		where = append(where, Keyset{Keys: it.s.info.Key, Values: it.cursor, Bound: After})
	}
	req := Request{Table: it.s.info.Name, Columns: cols, OrderBy: it.s.info.Key, Limit: it.limit}
	switch len(where) {
	case 0:
	case 1:
		req.Where = where[0]
	default:
		req.Where = And(where)
	}
	return req
}

// Describe names the request a scan of cols would send first, for explain.
func (s *Source) Describe(cols []string) string {
	req := Request{Table: s.info.Name, Columns: cols, Where: s.Where(), OrderBy: s.info.Key}
	if r, ok := s.conn.(Renderer); ok {
		if text, err := r.Render(req); err == nil {
			return strings.ReplaceAll(text, "\n", " ")
		}
	}
	return ""
}
