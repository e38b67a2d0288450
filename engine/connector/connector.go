// Package connector is the contract between the engine and a remote data source that caps and throttles every
// request: Sentinel, Splunk, CrowdStrike, Okta, an S3/Athena-like store, or a simulation of one (sims/).
//
// A Connector answers one Request (table, projected columns, a predicate tree, an order and a limit) with one
// Page of rows, under the Caps it declares. It never pages by itself: paging, splitting filters that do not fit
// and retrying are the engine's job, driven by the typed errors of errors.go. The engine's scan over a connector
// (scan.go) is exposed to the planner as a source.Source, and the paged federated join builds its keyset pages
// from the same Request vocabulary (Keyset predicates, OrderBy, Limit, In lists sized by Caps).
package connector

import (
	"context"
	"time"

	"github.com/joinlab/joinlab/engine/column"
)

// Connector sends one request to a data source and returns its answer, in the manner of net/http.RoundTripper:
// it does one round trip and interprets nothing beyond what the source said.
//
// Query must be safe for concurrent use up to Caps().Concurrent requests; the engine never exceeds that.
// Query must not retain req after returning, and must not modify it. The returned Page and its batch belong to
// the caller.
//
// Query returns a nil error whenever the source answered, even with zero rows: an empty page, a short page and
// a truncated page are answers, not errors. It returns an error only when the source refused or failed, and
// then the error is (or wraps) one of the typed errors of this package, so the engine can act on it:
// *ResultTooLargeError (ask for less), *FilterTooLargeError (split the filter), *ThrottledError (wait
// RetryAfter), *TransientError (retry with backoff) or *InvalidRequestError (a bug or an unsupported request:
// do not retry). A failed request returned no rows: retrying it can neither lose nor duplicate any.
//
// Cancellation: Query honours ctx and returns ctx.Err() (not a typed error) once it is done. Time spent in a
// request is the source's latency; a simulated connector spends it on the virtual Clock, so a run is
// deterministic for a seed.
type Connector interface {
	// Caps are the limits the source publishes. They do not change while a query runs.
	Caps() Caps
	// Query sends req and returns the source's page.
	Query(ctx context.Context, req Request) (Page, error)
}

// Renderer is implemented by connectors that translate a request into a native query text (KQL, SPL, FQL,
// SQL). Caps.MaxQueryBytes applies to that text, so the engine renders before sending to size its filters, and
// the trace shows the text.
type Renderer interface {
	Render(req Request) (string, error)
}

// Describer is implemented by connectors that can describe their tables: schema, a size estimate and the
// unique order the engine may page by.
type Describer interface {
	Describe(table string) (TableInfo, error)
}

// Caps are a source's published limits. Zero means no limit.
type Caps struct {
	// MaxRows is the most rows one response may carry (Sentinel 500,000; Splunk 50,000; CrowdStrike 5,000;
	// Okta 1,000). A request whose Limit is above it is invalid; a result with more rows than it is too large
	// (or truncated, for sources that cut instead of failing).
	MaxRows int
	// MaxBytes is the most bytes one response body may carry (Sentinel 64 MB), measured by RowBytes.
	MaxBytes int64
	// MaxInValues is the most values one IN list may hold.
	MaxInValues int
	// MaxQueryBytes is the most bytes of rendered native query text one request may carry.
	MaxQueryBytes int
	// Requests per Window with bursts of Burst is the source's rate limit; past it the source answers
	// *ThrottledError with a RetryAfter.
	Requests int
	Window   time.Duration
	Burst    int
	// Concurrent is the most requests that may be in flight at once (0: one).
	Concurrent int
	// TruncatesResults says the source answers an oversized result with a truncated page (the first rows
	// that fit, Page.Truncated set) rather than a *ResultTooLargeError.
	TruncatesResults bool
}

// Request asks a source for rows of one table.
type Request struct {
	Table string
	// Columns are the columns wanted, in order: top-level names or nested paths (actor.alternateId). The
	// page's batch has one vector per entry. Empty means none (a count of matching rows only: Page.Rows).
	Columns []string
	// Where selects rows; nil selects every row.
	Where Predicate
	// OrderBy orders the answer; empty leaves the order to the source (then a truncated or limited page is
	// not a resumable prefix).
	OrderBy []OrderKey
	// Limit is the most rows wanted; 0 means every matching row (which may be too large for the caps).
	Limit int
}

// OrderKey is one key of an order. Nulls sort last in both directions (the key columns the engine pages by are
// never null: it asks for not-null first).
type OrderKey struct {
	Column string
	Desc   bool
}

// Page is one response.
type Page struct {
	// Batch holds the rows, one vector per requested column, typed as TableInfo.Schema says.
	Batch *column.Batch
	// Bytes is the size of the response body, as the source measured it (RowBytes for simulations). It is
	// what bytes_shipped counts.
	Bytes int64
	// Truncated says the source stopped before the end of the answer (a byte cap, a partial result): the rows
	// are a prefix of the answer in the requested order and more may follow. A page that is short without
	// being truncated is the end of the answer.
	Truncated bool
}

// Rows is the number of rows in the page.
func (p Page) Rows() int {
	if p.Batch == nil {
		return 0
	}
	return p.Batch.N
}

// TableInfo describes one table of a source.
type TableInfo struct {
	Name string
	// Schema lists the columns: top-level ones (a nested object is a dynamic column holding JSON text), then
	// its nested leaf paths, marked Hidden, so a query can read actor.alternateId without the whole object.
	Schema column.Schema
	// Rows is the source's estimate of the table's size (it may be 70 billion).
	Rows int64
	// Key is an order in which no two rows tie: the engine's scan pages through the table by keyset over it.
	// Empty means the table has no such order and must be fetched in one request.
	Key []OrderKey
	// NeverNull names columns the source guarantees hold a value in every row, so the engine need not ask for
	// their nulls (the paged join spends no request on a null phase of such a sort column). Optional.
	NeverNull []string
}

// Clock is the time a connector's requests take, and the engine's waits between retries. A simulation uses a
// virtual clock: Sleep advances it instantly, so a run's timings are the same on every machine.
type Clock interface {
	// Now is the time since the clock started.
	Now() time.Duration
	// Sleep waits d, returning ctx.Err() if ctx is done first.
	Sleep(ctx context.Context, d time.Duration) error
}

// RowBytes estimates the bytes of a page's rows as a JSON body: for each row, each column's name and value
// as JSON would carry them. Sources and the engine use the same measure, so byte caps mean the same on both
// sides.
func RowBytes(names []string, b *column.Batch) int64 {
	if b == nil {
		return 0
	}
	var n int64
	for c, v := range b.Cols {
		if v == nil {
			continue
		}
		name := int64(len(names[c]) + 4) // "name":  and a separator
		n += name * int64(b.N)
		switch v.Type {
		case column.String, column.Dynamic:
			for i := 0; i < b.N; i++ {
				n += int64(len(v.Strs[i])) + 2
			}
		case column.DateTime:
			n += 30 * int64(b.N) // "2024-05-01T12:00:00.123456789Z"
		case column.Bool:
			n += 5 * int64(b.N)
		default:
			n += 10 * int64(b.N)
		}
	}
	return n + 2*int64(b.N) // {} per row
}
