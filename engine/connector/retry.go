package connector

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/trace"
)

// RetryPolicy is how a Retrier rides out a source's refusals. It tells two kinds apart:
//
//   - A throttle (*ThrottledError) is the source pacing its clients, not a failure: the request was not run,
//     and the source said when to come back. It is waited out — RetryAfter plus up to Base of seeded jitter,
//     so retries from many operators do not arrive together — as often as the source asks, and it counts
//     against neither Attempts nor Budget. Only Deadline bounds it.
//   - A fault (*TransientError: a 5xx, a timeout, a truncated page with no rows) may or may not recur. It is
//     retried after an exponential backoff, at most Attempts sends of one request and Budget retries over the
//     whole operator, so a source that keeps failing stops the query instead of being asked forever.
//
// A zero field takes DefaultRetry's value.
type RetryPolicy struct {
	// Attempts is the most sends of one request that fails with faults, the first included.
	Attempts int
	// Budget is the most retries after faults over one operator (a scan, one side of a paged join).
	Budget int
	// Base and Max bound the backoff after a fault: the n-th retry waits a seeded-random time in [d/2, d] for
	// d = min(Max, Base·2ⁿ⁻¹). Base is also the most jitter added to a throttle's RetryAfter.
	Base, Max time.Duration
	// Deadline is the virtual time (Clock.Now, which starts with the query) by which the query must be done:
	// once the clock is past it no request is sent, no wait is begun that would end past it, and an answer
	// arriving past it is an error (*DeadlineError). Zero means none: throttles are then waited out for as
	// long as the source asks, and only the context ends a query. Connector profiles state one (sims/profile).
	Deadline time.Duration
}

// DefaultRetry rides out a burst of 5xx and gives up on a source that is down; it sets no deadline.
var DefaultRetry = RetryPolicy{Attempts: 8, Budget: 64, Base: 200 * time.Millisecond, Max: 30 * time.Second}

// withDefaults fills p's zero fields from DefaultRetry.
func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Attempts <= 0 {
		p.Attempts = DefaultRetry.Attempts
	}
	if p.Budget <= 0 {
		p.Budget = DefaultRetry.Budget
	}
	if p.Base <= 0 {
		p.Base = DefaultRetry.Base
	}
	if p.Max <= 0 {
		p.Max = DefaultRetry.Max
	}
	return p
}

// DeadlineError says a query passed its deadline in virtual time: the clock reached Reached, past Deadline —
// or would have, had the source's wait been taken: Wait after the refusal Cause.
type DeadlineError struct {
	Source            string
	Deadline, Reached time.Duration
	Wait              time.Duration // the wait that would have passed the deadline; 0 when the clock did
	// Cause is the throttle or fault that asked for the wait (nil when none). It is told, not unwrapped: a
	// deadline is final, whatever the source said.
	Cause error
}

func (e *DeadlineError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("query deadline exceeded: waiting %s after %v would bring the clock to %s of virtual time, past the %s deadline of @%s",
			e.Wait, e.Cause, e.Reached, e.Deadline, e.Source)
	}
	return fmt.Sprintf("query deadline exceeded: the clock reached %s of virtual time, past the %s deadline of @%s",
		e.Reached, e.Deadline, e.Source)
}

// Retrier sends one operator's requests to one connector and answers with the page, retrying under a
// RetryPolicy on the operator's clock. It is the one place the engine retries: the connector scan and the
// paged join's fetches both send through one. Every send is reported to the trace (RequestSent, then
// PageReturned, or RequestFailed with RequestThrottled or RequestRetried) and counted in the run's details
// (DetailRequests, DetailRequestsOf+source, DetailBytesShipped, DetailRowsScanned, and DetailRetries for every
// send of a request again, throttled or faulted).
//
// A failed request returned no rows, so sending it again neither loses nor repeats one. The jitter comes from
// a generator seeded by the seed, the operator and the source, so a seed replays the same waits. A Retrier is
// not safe for concurrent use, except by the tasks of one Overlap group, which run one at a time and take
// their turns (and so their sequence numbers and jitter draws) in the same order on every run.
//
// Every send is counted by the source's Pacer (Options.Pacer, nil: none); a send from an Overlap task first
// waits on its lane, as long as the pacer says, for a token of the source's published rate (DetailPacedWaits,
// and paced_ns on its RequestSent), and a throttle tells the pacer what the source said.
type Retrier struct {
	conn    Connector
	source  string
	op      string
	clock   Clock
	pol     RetryPolicy
	sink    trace.Sink
	details *trace.Details
	rng     *rand.Rand
	pacer   *Pacer

	seq    int // requests sent, each counted once however many times it was retried
	faults int // retries after faults, against pol.Budget
}

// NewRetrier returns a retrier sending op's requests to conn, the source named source, under opts's clock,
// retry policy and seed. A nil sink or details discards.
func NewRetrier(conn Connector, source, op string, opts Options, sink trace.Sink, details *trace.Details) *Retrier {
	if sink == nil {
		sink = trace.Discard
	}
	if details == nil {
		details = &trace.Details{}
	}
	h := fnv.New64a()
	h.Write([]byte(op + "@" + source))
	return &Retrier{conn: conn, source: source, op: op, clock: opts.Clock, pol: opts.Retry.withDefaults(),
		sink: sink, details: details, rng: rand.New(rand.NewPCG(opts.Seed, h.Sum64())), pacer: opts.Pacer}
}

// Send sends req until the source answers it, and returns the answer, whose batch has one vector per
// requested column (or is nil). purpose, when not empty, names the request in the trace (thin, probe,
// refetch…). Errors other than throttles and faults come back at once, unwrapped, so the caller can act on
// them (*ResultTooLargeError: ask for less; *FilterTooLargeError: split).
func (r *Retrier) Send(ctx context.Context, req Request, purpose string) (Page, error) {
	r.seq++
	seq := r.seq // the request's number: other lanes may send theirs while this one is in flight
	native := ""
	if rd, ok := r.conn.(Renderer); ok {
		if text, err := rd.Render(req); err == nil {
			native = text
		}
	}
	attempt, faulted := 1, 0 // sends so far, and how many of them failed with a fault
	var paced time.Duration  // waited for the pacer before this send
	overlapped := laneOf(ctx) != nil
	for {
		// In an Overlap group, a send waits until no other lane of the group is earlier: the source then sees
		// the group's requests in the order of their start times.
		awaitTurn(ctx, r.clock)
		if err := ctx.Err(); err != nil {
			return Page{}, err
		}
		if err := r.beforeDeadline(0, nil); err != nil {
			return Page{}, err
		}
		// An overlapped send waits on its lane for a token of the source's published rate, then takes its turn
		// again: a lane earlier by then may take the token first.
		if wait := r.pacer.take(r.clock.Now(), overlapped); wait > 0 {
			if err := r.beforeDeadline(wait, nil); err != nil {
				return Page{}, err
			}
			if err := r.clock.Sleep(ctx, wait); err != nil {
				return Page{}, err
			}
			paced += wait
			continue
		}
		sent := sentEvent(r.source, req, seq, attempt, native, r.conn.Caps())
		sent.Purpose = purpose
		if paced > 0 {
			sent.PacedNanos = int64(paced)
			r.details.Add(DetailPacedWaits, 1)
			paced = 0
		}
		r.sink.Emit(trace.Event{At: r.clock.Now(), Op: r.op, Payload: sent})
		r.details.Add(DetailRequests, 1)
		r.details.Add(DetailRequestsOf+r.source, 1)
		start := r.clock.Now()
		page, err := r.conn.Query(ctx, req)
		r.details.Max(trace.VirtualNanos, int64(r.clock.Now())) // a refused request took time too
		var th *ThrottledError
		if errors.As(err, &th) {
			r.pacer.refused(start, th.RetryAfter) // before another lane sends: the pacer's times only go forward
		}
		awaitTurn(ctx, r.clock) // the answer is told at its own time, after earlier ones
		if err == nil && page.Truncated && page.Rows() == 0 {
			err = &TransientError{Reason: "truncated page with no rows"}
		}
		if err == nil && page.Batch != nil && len(page.Batch.Cols) != len(req.Columns) {
			return Page{}, fmt.Errorf("@%s answered %d columns for %d requested", r.source, len(page.Batch.Cols), len(req.Columns))
		}
		if err == nil {
			r.sink.Emit(trace.Event{At: r.clock.Now(), Op: r.op, Payload: connevent.PageReturned{
				Source: r.source, Request: seq, Rows: page.Rows(), Bytes: page.Bytes, Truncated: page.Truncated,
				LatencyNanos: int64(r.clock.Now() - start), Purpose: purpose}})
			r.details.Add(DetailBytesShipped, page.Bytes)
			r.details.Add(DetailRowsScanned, int64(page.Rows()))
			if err := r.beforeDeadline(0, nil); err != nil {
				return Page{}, err
			}
			return page, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Page{}, ctxErr
		}
		retryable := Retryable(err)
		r.sink.Emit(trace.Event{At: r.clock.Now(), Op: r.op, Payload: connevent.RequestFailed{
			Source: r.source, Request: seq, Error: err.Error(), Retryable: retryable}})
		if !retryable {
			return Page{}, err
		}
		var wait time.Duration
		if errors.As(err, &th) {
			r.sink.Emit(trace.Event{At: r.clock.Now(), Op: r.op, Payload: connevent.RequestThrottled{
				Request: seq, RetryAfterNanos: int64(th.RetryAfter)}})
			wait = th.RetryAfter + time.Duration(r.rng.Int64N(int64(r.pol.Base)+1))
		} else {
			faulted++
			if faulted >= r.pol.Attempts || r.faults >= r.pol.Budget {
				return Page{}, fmt.Errorf("retry budget spent (%d faults in %d sends of request %d, %d fault retries by this operator, limits %d and %d): %w",
					faulted, attempt, seq, r.faults, r.pol.Attempts, r.pol.Budget, err)
			}
			r.faults++
			wait = r.backoff(faulted)
		}
		if err := r.beforeDeadline(wait, err); err != nil {
			return Page{}, err
		}
		attempt++
		r.details.Add(DetailRetries, 1)
		r.sink.Emit(trace.Event{At: r.clock.Now(), Op: r.op, Payload: connevent.RequestRetried{
			Request: seq, Attempt: attempt, WaitNanos: int64(wait)}})
		if err := r.clock.Sleep(ctx, wait); err != nil {
			return Page{}, err
		}
		r.details.Max(trace.VirtualNanos, int64(r.clock.Now()))
	}
}

// beforeDeadline is a *DeadlineError if the clock, moved on by the wait that cause asks for, would be past the
// policy's deadline.
func (r *Retrier) beforeDeadline(wait time.Duration, cause error) error {
	if r.pol.Deadline <= 0 {
		return nil
	}
	if at := r.clock.Now() + wait; at > r.pol.Deadline {
		return &DeadlineError{Source: r.source, Deadline: r.pol.Deadline, Reached: at, Wait: wait, Cause: cause}
	}
	return nil
}

// backoff is the wait before the retry after the n-th fault (1-based): seeded-random in [d/2, d].
func (r *Retrier) backoff(n int) time.Duration {
	d := r.pol.Max
	if n < 32 && r.pol.Base<<uint(n-1) < r.pol.Max && r.pol.Base<<uint(n-1) > 0 {
		d = r.pol.Base << uint(n-1)
	}
	return d/2 + time.Duration(r.rng.Int64N(int64(d/2)+1))
}
