// Package service is a simulated remote service: a connector.Connector over generated tables that enforces a
// profile's caps on the rendered native query and on the answer, rate-limits with a token bucket on the
// virtual clock, takes a latency for every response and injects faults, all from one seed.
package service

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sync"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/sims/clock"
	"github.com/joinlab/joinlab/sims/dialect"
	"github.com/joinlab/joinlab/sims/profile"
	"github.com/joinlab/joinlab/sims/throttle"
)

// Table is a generated table a service answers from.
type Table interface {
	Info() connector.TableInfo
	// Answer returns up to max rows (max < 0: all) of the rows matching req.Where, in req.OrderBy, with one
	// vector per req.Columns entry. Errors are *connector.InvalidRequestError, or ctx's error: a table whose
	// answer takes real work (a seek through a virtual table, a filter that keeps few rows) checks ctx as it
	// goes, so a cancelled query stops inside a request.
	Answer(ctx context.Context, req connector.Request, max int) (*column.Batch, error)
}

// Service is one simulated connector.
type Service struct {
	prof    profile.Profile
	dialect dialect.Dialect
	clock   *clock.Virtual
	tables  map[string]Table

	mu     sync.Mutex
	bucket *throttle.Bucket
	rng    *rand.Rand
	stats  Stats
}

// Source serves the service's table info as the engine's source name: its requests timed on the service's
// clock, with seed seeding the retries' jitter, and the query stopped at the profile's deadline in virtual
// time. Scenarios, the command line and the walkthroughs all build their connector sources here, so every one
// keeps its profile's deadline.
func (s *Service) Source(name string, info connector.TableInfo, seed uint64) (*connector.Source, error) {
	return connector.NewSource(name, s, info, connector.Options{Clock: s.clock, Seed: seed,
		Retry: connector.RetryPolicy{Deadline: s.prof.Deadline}})
}

// Stats count what the service did.
type Stats struct {
	Requests, Throttled, Faults, Truncated int
	Bytes                                  int64
}

var (
	_ connector.Connector = (*Service)(nil)
	_ connector.Renderer  = (*Service)(nil)
	_ connector.Describer = (*Service)(nil)
)

// New returns a service with prof's behaviour over tables, timed on clk, its randomness seeded by seed.
func New(prof profile.Profile, clk *clock.Virtual, seed uint64, tables ...Table) (*Service, error) {
	d, err := dialect.ByName(prof.Dialect)
	if err != nil {
		return nil, fmt.Errorf("service %s: %w", prof.Name, err)
	}
	h := fnv.New64a()
	h.Write([]byte(prof.Name))
	s := &Service{prof: prof, dialect: d, clock: clk, tables: map[string]Table{},
		bucket: throttle.NewBucket(prof.Caps.Requests, prof.Caps.Window, prof.Caps.Burst),
		rng:    rand.New(rand.NewPCG(seed, h.Sum64()))}
	for _, t := range tables {
		s.tables[t.Info().Name] = t
	}
	return s, nil
}

func (s *Service) Caps() connector.Caps { return s.prof.Caps }

// Profile is the service's profile.
func (s *Service) Profile() profile.Profile { return s.prof }

// Stats returns the counts so far.
func (s *Service) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func (s *Service) Render(req connector.Request) (string, error) { return s.dialect.Render(req) }

func (s *Service) Describe(table string) (connector.TableInfo, error) {
	t, ok := s.tables[table]
	if !ok {
		return connector.TableInfo{}, &connector.InvalidRequestError{Reason: fmt.Sprintf("unknown table %q", table)}
	}
	return t.Info(), nil
}

// Query checks the request against the caps (limit, IN values, rendered bytes), then the rate limit, then
// draws a fault, then answers; every step but a refused cap takes virtual time.
func (s *Service) Query(ctx context.Context, req connector.Request) (connector.Page, error) {
	if err := ctx.Err(); err != nil {
		return connector.Page{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Requests++
	caps := s.prof.Caps
	t, ok := s.tables[req.Table]
	if !ok {
		return connector.Page{}, &connector.InvalidRequestError{Reason: fmt.Sprintf("unknown table %q", req.Table)}
	}
	if req.Limit < 0 || (caps.MaxRows > 0 && req.Limit > caps.MaxRows) {
		return connector.Page{}, &connector.InvalidRequestError{Reason: fmt.Sprintf("limit %d is outside [0, %d]", req.Limit, caps.MaxRows)}
	}
	if n := connector.InValues(req.Where); caps.MaxInValues > 0 && n > caps.MaxInValues {
		return connector.Page{}, &connector.FilterTooLargeError{Values: n, MaxValues: caps.MaxInValues}
	}
	text, err := s.dialect.Render(req)
	if err != nil {
		return connector.Page{}, &connector.InvalidRequestError{Reason: err.Error()}
	}
	if caps.MaxQueryBytes > 0 && len(text) > caps.MaxQueryBytes {
		return connector.Page{}, &connector.FilterTooLargeError{Bytes: len(text), MaxBytes: caps.MaxQueryBytes}
	}
	if ok, after := s.bucket.Take(s.clock.Now()); !ok {
		s.stats.Throttled++
		s.clock.Advance(s.prof.Latency.Base / 4) // a 429 is answered quickly
		return connector.Page{}, &connector.ThrottledError{RetryAfter: after}
	}
	fault := s.prof.Faults.Draw(s.rng)
	switch fault {
	case throttle.Unavailable:
		s.stats.Faults++
		s.clock.Advance(s.prof.Latency.Of(0, s.rng))
		return connector.Page{}, &connector.TransientError{Status: 503, Reason: "service unavailable"}
	case throttle.TimedOut:
		s.stats.Faults++
		s.clock.Advance(max(s.prof.Faults.TimeoutAfter, s.prof.Latency.Base))
		return connector.Page{}, &connector.TransientError{Reason: "timeout"}
	}
	want := req.Limit
	if want == 0 {
		want = -1
		if caps.MaxRows > 0 {
			want = caps.MaxRows + 1 // one past the cap tells "too large" from "exactly full"
		}
	}
	b, err := t.Answer(ctx, req, want)
	if err != nil {
		return connector.Page{}, err
	}
	page := connector.Page{Batch: b}
	if req.Limit == 0 && caps.MaxRows > 0 && b.N > caps.MaxRows {
		if !caps.TruncatesResults {
			s.clock.Advance(s.prof.Latency.Of(0, s.rng))
			return connector.Page{}, &connector.ResultTooLargeError{Rows: int64(b.N), MaxRows: int64(caps.MaxRows)}
		}
		page.Batch, page.Truncated = b.Slice(0, caps.MaxRows), true
	}
	page.Bytes = connector.RowBytes(req.Columns, page.Batch)
	if caps.MaxBytes > 0 && page.Bytes > caps.MaxBytes {
		if !caps.TruncatesResults {
			s.clock.Advance(s.prof.Latency.Of(0, s.rng))
			return connector.Page{}, &connector.ResultTooLargeError{Rows: int64(page.Rows()), MaxRows: int64(caps.MaxRows),
				Bytes: page.Bytes, MaxBytes: caps.MaxBytes}
		}
		page = fitBytes(req.Columns, page, caps.MaxBytes)
	}
	if fault == throttle.Truncated && page.Rows() > 1 {
		s.stats.Truncated++
		page.Batch = page.Batch.Slice(0, 1+s.rng.IntN(page.Rows()-1))
		page.Bytes = connector.RowBytes(req.Columns, page.Batch)
		page.Truncated = true
	}
	s.stats.Bytes += page.Bytes
	s.clock.Advance(s.prof.Latency.Of(page.Bytes, s.rng))
	return page, nil
}

// fitBytes cuts a page to the longest prefix within maxBytes (binary search on the prefix length).
func fitBytes(cols []string, p connector.Page, maxBytes int64) connector.Page {
	lo, hi := 0, p.Rows()
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if connector.RowBytes(cols, p.Batch.Slice(0, mid)) <= maxBytes {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	b := p.Batch.Slice(0, lo)
	return connector.Page{Batch: b, Bytes: connector.RowBytes(cols, b), Truncated: true}
}
