package connector

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/trace"
)

// rateConn is a source with a published rate limit it enforces with a TokenBucket, as the simulated services
// do: a request with no token left is throttled (answered in 1 ms); the others take their Limit in ms.
type rateConn struct {
	clock  Clock
	caps   Caps
	bucket *TokenBucket
}

func newRateConn(clk Clock) *rateConn {
	caps := Caps{Requests: 10, Window: time.Second, Burst: 2, Concurrent: 4}
	return &rateConn{clock: clk, caps: caps, bucket: NewTokenBucket(caps.Requests, caps.Window, caps.Burst)}
}

func (c *rateConn) Caps() Caps { return c.caps }

func (c *rateConn) Query(ctx context.Context, req Request) (Page, error) {
	if ok, after := c.bucket.Take(c.clock.Now()); !ok {
		c.clock.Sleep(ctx, time.Millisecond)
		return Page{}, &ThrottledError{RetryAfter: after}
	}
	c.clock.Sleep(ctx, time.Duration(req.Limit)*time.Millisecond)
	v := column.NewVector(column.Long, 0)
	v.AppendInt(int64(req.Limit))
	return Page{Batch: column.NewBatch([]*column.Vector{v}, 1), Bytes: 10}, nil
}

// pacedRun sends one request per latency (ms) to conn, at most limit at once, through one retrier paced by
// pacer (nil: none), and returns the answers, the trace and the clock's end.
func pacedRun(t *testing.T, clk Clock, conn *rateConn, pacer *Pacer, limit int, lat []int) ([]int64, []trace.Event, time.Duration) {
	t.Helper()
	rec := &trace.Recorder{}
	r := NewRetrier(conn, "Src", "test", Options{Clock: clk, Seed: 7, Retry: RetryPolicy{Base: 50 * time.Millisecond}, Pacer: pacer}, rec, nil)
	got, err := Overlap(context.Background(), clk, limit, len(lat), func(ctx context.Context, i int) (int64, error) {
		p, err := r.Send(ctx, Request{Table: "T", Columns: []string{"v"}, Limit: lat[i]}, "")
		if err != nil {
			return 0, err
		}
		return p.Batch.Cols[0].Ints[0], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, rec.Events(), clk.Now()
}

func countKind(events []trace.Event, kind trace.Kind) int {
	n := 0
	for _, e := range events {
		if e.Kind() == kind {
			n++
		}
	}
	return n
}

// Overlapped requests paced to the published rate (10 a second, bursts of 2) are never throttled: each waits
// on its lane for a token, the source accepts every one, no two accepted sends beyond the burst come closer
// than a token's 100 ms, and the run replays byte for byte. Unpaced, the same group is throttled.
func TestPacerSparesThrottles(t *testing.T) {
	lat := []int{30, 40, 50, 60, 70, 80, 90, 100}
	var first string
	for run := 0; run < 3; run++ {
		clk := &laneClock{}
		conn := newRateConn(clk)
		got, events, end := pacedRun(t, clk, conn, NewPacer(conn.Caps()), 4, lat)
		if fmt.Sprint(got) != fmt.Sprint(lat) {
			t.Fatalf("answers %v, want %v", got, lat)
		}
		if n := countKind(events, connevent.KindRequestThrottled); n != 0 {
			t.Fatalf("%d paced requests were throttled", n)
		}
		var sends []time.Duration
		paced := 0
		for _, e := range events {
			if p, ok := e.Payload.(connevent.RequestSent); ok {
				sends = append(sends, e.At)
				if p.PacedNanos > 0 {
					paced++
				}
			}
		}
		if paced == 0 {
			t.Fatal("no request waited for the pacer: the test does not test pacing")
		}
		// A full bucket of 2, then a token every 100 ms: the k-th send (from 0) comes no earlier than (k-1)·100 ms.
		for k, at := range sends {
			if want := time.Duration(k-1) * 100 * time.Millisecond; at < want {
				t.Fatalf("send %d at %s, before the rate allows (%s)", k, at, want)
			}
		}
		if m := MaxInFlight(events); m["Src"] > 4 {
			t.Errorf("%d in flight, over the 4 allowed", m["Src"])
		}
		tb := traceBytes(t, events) + end.String()
		if run == 0 {
			first = tb
		} else if tb != first {
			t.Fatal("a paced run's trace differs from the first run's")
		}
	}
	clk := &laneClock{}
	conn := newRateConn(clk)
	if _, events, _ := pacedRun(t, clk, conn, nil, 4, lat); countKind(events, connevent.KindRequestThrottled) == 0 {
		t.Error("unpaced, the group was never throttled: the rate does not bind")
	}
}

// Requests sent one at a time are counted but never held back: with and without a pacer their traces are the
// same, throttles and retries included.
func TestPacerLeavesSequentialAlone(t *testing.T) {
	lat := []int{30, 40, 50, 60, 70, 80}
	run := func(paced bool) string {
		clk := &plainClock{}
		conn := newRateConn(clk)
		var p *Pacer
		if paced {
			p = NewPacer(conn.Caps())
		}
		_, events, end := pacedRun(t, clk, conn, p, 4, lat)
		if countKind(events, connevent.KindRequestThrottled) == 0 {
			t.Fatal("no sequential request was throttled: the test does not compare retries")
		}
		return traceBytes(t, events) + end.String()
	}
	if run(true) != run(false) {
		t.Error("a pacer changed the trace of requests sent one at a time")
	}
}

// A source that also serves requests the pacer never saw (another client took its burst) throttles the first
// paced request; the pacer takes the source's retry-after as its count, the request is retried as usual, and
// the requests after it are paced without another throttle.
func TestPacerFollowsTheSourceAfterAThrottle(t *testing.T) {
	clk := &laneClock{}
	conn := newRateConn(clk)
	conn.bucket.Take(0)
	conn.bucket.Take(0) // another client's burst
	lat := []int{30, 40, 50, 60}
	got, events, _ := pacedRun(t, clk, conn, NewPacer(conn.Caps()), 4, lat)
	if fmt.Sprint(got) != fmt.Sprint(lat) {
		t.Fatalf("answers %v, want %v", got, lat)
	}
	if n := countKind(events, connevent.KindRequestThrottled); n != 1 {
		t.Errorf("%d throttles, want the one the pacer could not foresee", n)
	}
	if n := countKind(events, connevent.KindPageReturned); n != len(lat) {
		t.Errorf("%d answers, want %d", n, len(lat))
	}
}
