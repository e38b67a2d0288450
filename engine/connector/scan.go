package connector

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/joinlab/joinlab/engine/column"
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

// cursorReserve is the query text a keyset cursor adds to a rendered request (a few quoted values and
// comparisons); a pushed filter must leave that room under Caps.MaxQueryBytes.
const cursorReserve = 512

// RetryPolicy bounds the scan's retries of throttled and transient failures.
type RetryPolicy struct {
	// Attempts is the most sends of one request, the first included.
	Attempts int
	// Budget is the most retries over a whole scan; past it the scan stops with an error.
	Budget int
	// Base and Max bound the exponential backoff after a transient failure: the n-th retry waits a
	// seeded-random time in [d/2, d] for d = min(Max, Base·2ⁿ). A throttle waits its RetryAfter plus up to
	// Base of jitter, so retries from many scans do not arrive together.
	Base, Max time.Duration
}

// DefaultRetry is a policy that rides out a rate limit or a burst of 5xx and gives up on a source that is down.
var DefaultRetry = RetryPolicy{Attempts: 8, Budget: 64, Base: 200 * time.Millisecond, Max: 30 * time.Second}

// Options tune a scan over a connector.
type Options struct {
	// Clock times the requests and the waits; required.
	Clock Clock
	// Retry is the retry policy (zero: DefaultRetry).
	Retry RetryPolicy
	// Seed seeds the backoff jitter, so a run is deterministic.
	Seed uint64
	// PageRows is the page asked for (0: Caps.MaxRows, else DefaultPageRows).
	PageRows int
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
	if opts.Retry == (RetryPolicy{}) {
		opts.Retry = DefaultRetry
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
				text, err := r.Render(Request{Table: s.info.Name, Where: And(trial), OrderBy: s.info.Key, Limit: 1})
				if err != nil || len(text)+cursorReserve > caps.MaxQueryBytes {
					rejected = append(rejected, c)
					continue
				}
			}
		}
		out.where = trial
	}
	return &out, rejected
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
	if sink == nil {
		sink = trace.Discard
	}
	if details == nil {
		details = &trace.Details{}
	}
	it := &scanIter{s: s, sink: sink, details: details, op: "scan@" + s.name}
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
	h := fnv.New64a()
	h.Write([]byte(s.name))
	it.rng = rand.New(rand.NewPCG(s.opts.Seed, h.Sum64()))
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
	details *trace.Details
	op      string

	columns []string // requested: the scan's columns, then key columns it needs for the cursor
	out     []int    // positions in columns of the scan's own columns
	keyPos  []int    // positions in columns of the key

	limit   int
	cursor  []column.Value // last key returned; nil before the first page
	done    bool
	page    *column.Batch
	pagePos int
	seq     int
	retries int
	rng     *rand.Rand
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
		page, err := it.send(ctx, req)
		var big *ResultTooLargeError
		if errors.As(err, &big) && it.limit > 1 {
			next := max(1, it.limit/shrinkDivisor)
			it.sink.Emit(trace.Event{Kind: PageResized, At: it.s.opts.Clock.Now(), Op: it.op,
				Attrs: map[string]any{"from": it.limit, "to": next, "reason": big.Error()}})
			it.limit = next
			continue
		}
		if err != nil {
			return err
		}
		n := page.Rows()
		if page.Batch != nil && len(page.Batch.Cols) != len(it.columns) {
			return fmt.Errorf("connector answered %d columns for %d requested", len(page.Batch.Cols), len(it.columns))
		}
		it.page, it.pagePos = page.Batch, 0
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

// request is the next page's request: the pushed predicate and, after the first page, the keyset seek.
func (it *scanIter) request() Request {
	where := append([]Predicate(nil), it.s.where...)
	if it.cursor != nil {
		where = append(where, Keyset{Keys: it.s.info.Key, Values: it.cursor, Bound: After})
	}
	req := Request{Table: it.s.info.Name, Columns: it.columns, OrderBy: it.s.info.Key, Limit: it.limit}
	switch len(where) {
	case 0:
	case 1:
		req.Where = where[0]
	default:
		req.Where = And(where)
	}
	return req
}

// send sends req until it is answered, retrying throttles and transient failures under the retry policy.
func (it *scanIter) send(ctx context.Context, req Request) (Page, error) {
	clock, pol := it.s.opts.Clock, it.s.opts.Retry
	it.seq++
	native := ""
	if r, ok := it.s.conn.(Renderer); ok {
		if text, err := r.Render(req); err == nil {
			native = text
		}
	}
	for attempt := 1; ; attempt++ {
		it.sink.Emit(trace.Event{Kind: RequestSent, At: clock.Now(), Op: it.op,
			Attrs: SentAttrs(it.s.name, req, it.seq, attempt, native, it.s.conn.Caps())})
		it.details.Add(DetailRequests, 1)
		it.details.Add(DetailRequestsOf+it.s.name, 1)
		start := clock.Now()
		page, err := it.s.conn.Query(ctx, req)
		it.details.Max(trace.VirtualNanos, int64(clock.Now())) // a refused request took time too
		if err == nil && page.Truncated && page.Rows() == 0 {
			err = &TransientError{Reason: "truncated page with no rows"}
		}
		if err == nil {
			it.sink.Emit(trace.Event{Kind: PageReturned, At: clock.Now(), Op: it.op, Attrs: map[string]any{
				"request": it.seq, "rows": page.Rows(), "bytes": page.Bytes, "truncated": page.Truncated,
				"latency_ns": int64(clock.Now() - start)}})
			it.details.Add(DetailBytesShipped, page.Bytes)
			it.details.Add(DetailRowsScanned, int64(page.Rows()))
			return page, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Page{}, ctxErr
		}
		retryable := Retryable(err)
		it.sink.Emit(trace.Event{Kind: RequestFailed, At: clock.Now(), Op: it.op, Attrs: map[string]any{
			"request": it.seq, "error": err.Error(), "retryable": retryable}})
		if !retryable {
			return Page{}, err
		}
		if attempt >= pol.Attempts || it.retries >= pol.Budget {
			return Page{}, fmt.Errorf("retry budget spent (%d attempts of request %d, %d retries this scan, limits %d and %d): %w",
				attempt, it.seq, it.retries, pol.Attempts, pol.Budget, err)
		}
		wait := it.backoff(attempt)
		var th *ThrottledError
		if errors.As(err, &th) {
			it.sink.Emit(trace.Event{Kind: RequestThrottled, At: clock.Now(), Op: it.op, Attrs: map[string]any{
				"request": it.seq, "retry_after_ns": int64(th.RetryAfter)}})
			wait = th.RetryAfter + time.Duration(it.rng.Int64N(int64(pol.Base)+1))
		}
		it.retries++
		it.details.Add(DetailRetries, 1)
		it.sink.Emit(trace.Event{Kind: RequestRetried, At: clock.Now(), Op: it.op, Attrs: map[string]any{
			"request": it.seq, "attempt": attempt + 1, "wait_ns": int64(wait)}})
		if err := clock.Sleep(ctx, wait); err != nil {
			return Page{}, err
		}
		it.details.Max(trace.VirtualNanos, int64(clock.Now()))
	}
}

// backoff is the wait before retry n (1-based) after a transient failure: seeded-random in [d/2, d].
func (it *scanIter) backoff(n int) time.Duration {
	pol := it.s.opts.Retry
	d := pol.Max
	if n < 32 && pol.Base<<uint(n-1) < pol.Max && pol.Base<<uint(n-1) > 0 {
		d = pol.Base << uint(n-1)
	}
	return d/2 + time.Duration(it.rng.Int64N(int64(d/2)+1))
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
