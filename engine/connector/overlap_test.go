package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/trace"
)

// laneClock is a virtual clock with lanes, as sims/clock's is (the engine does not import sims).
type laneClock struct {
	mu  sync.Mutex
	now time.Duration
}

func (c *laneClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *laneClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.now += d
	c.mu.Unlock()
	return nil
}

func (c *laneClock) SetNow(t time.Duration) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// plainClock has no lanes: Overlap runs its tasks one after another on it.
type plainClock struct{ c laneClock }

func (c *plainClock) Now() time.Duration                               { return c.c.Now() }
func (c *plainClock) Sleep(ctx context.Context, d time.Duration) error { return c.c.Sleep(ctx, d) }

// latencyConn answers every request after the latency its Limit names (Limit ms), with one row holding the
// limit; limits in refuse fail as invalid requests. With every > 0 it is rate limited: a request that comes
// less than every after the last accepted one is throttled, retry after the rest of the interval.
type latencyConn struct {
	clock  Clock
	every  time.Duration
	refuse map[int]bool
	last   time.Duration
	primed bool
	seen   []int // limits in the order they reached the source
}

func (c *latencyConn) Caps() Caps { return Caps{Concurrent: 3} }

func (c *latencyConn) Query(ctx context.Context, req Request) (Page, error) {
	now := c.clock.Now()
	c.seen = append(c.seen, req.Limit)
	sleep := func(d time.Duration) { c.clock.Sleep(ctx, d) }
	if c.every > 0 && c.primed && now-c.last < c.every {
		sleep(time.Millisecond)
		return Page{}, &ThrottledError{RetryAfter: c.every - (now - c.last)}
	}
	c.last, c.primed = now, true
	if c.refuse[req.Limit] {
		sleep(time.Millisecond)
		return Page{}, &InvalidRequestError{Reason: fmt.Sprint("refused ", req.Limit)}
	}
	sleep(time.Duration(req.Limit) * time.Millisecond)
	v := column.NewVector(column.Long, 0)
	v.AppendInt(int64(req.Limit))
	return Page{Batch: column.NewBatch([]*column.Vector{v}, 1), Bytes: 10}, nil
}

// overlapRun sends one request per latency (ms) through one retrier, at most limit at once, and returns the
// answers, the trace and the clock's end.
func overlapRun(t *testing.T, clk Clock, conn *latencyConn, limit int, lat []int) ([]int64, []trace.Event, time.Duration, error) {
	t.Helper()
	rec := &trace.Recorder{}
	r := NewRetrier(conn, "Src", "test", Options{Clock: clk, Seed: 7, Retry: RetryPolicy{Base: time.Millisecond}}, rec, nil)
	got, err := Overlap(context.Background(), clk, limit, len(lat), func(ctx context.Context, i int) (int64, error) {
		p, err := r.Send(ctx, Request{Table: "T", Columns: []string{"v"}, Limit: lat[i]}, "")
		if err != nil {
			return 0, err
		}
		return p.Batch.Cols[0].Ints[0], nil
	})
	return got, rec.Events(), clk.Now(), err
}

func traceBytes(t *testing.T, events []trace.Event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// Requests in flight at once cost the longest latency: with two slots, latencies 300, 100, 200, 400 and 250 ms
// run as 0–300 and 0–100, then 100–300, then 300–700 and 300–550: 700 ms, not the 1,250 ms of one at a time.
func TestOverlapCostsTheLongest(t *testing.T) {
	lat := []int{300, 100, 200, 400, 250}
	clk := &laneClock{}
	got, events, end, err := overlapRun(t, clk, &latencyConn{clock: clk}, 2, lat)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[300 100 200 400 250]" {
		t.Errorf("answers %v, want them in task order", got)
	}
	if end != 700*time.Millisecond {
		t.Errorf("the group ended at %s, want 700ms", end)
	}
	if m := MaxInFlight(events); m["Src"] != 2 {
		t.Errorf("at most %d in flight, want 2", m["Src"])
	}
	// Each answer names its own request: request k (task k-1) took lat[k-1] from its send.
	sent := map[int]time.Duration{}
	for _, e := range events {
		switch p := e.Payload.(type) {
		case connevent.RequestSent:
			sent[p.Request] = e.At
		case connevent.PageReturned:
			k := p.Request
			if took := e.At - sent[k]; took != time.Duration(lat[k-1])*time.Millisecond || p.LatencyNanos != int64(took) {
				t.Errorf("request %d answered %s after its send (latency_ns %v), want %d ms", k, took, p.LatencyNanos, lat[k-1])
			}
		}
	}
	for i := 1; i < len(events); i++ {
		if events[i].At < events[i-1].At {
			t.Fatalf("event %d (%s at %s) comes before the time of event %d (%s)", i, events[i].Kind(), events[i].At, i-1, events[i-1].At)
		}
	}

	seq := &plainClock{}
	got, _, end, err = overlapRun(t, seq, &latencyConn{clock: seq}, 2, lat)
	if err != nil || fmt.Sprint(got) != "[300 100 200 400 250]" || end != 1250*time.Millisecond {
		t.Errorf("without lanes: %v, %s, %v; want the answers in order after 1.25s", got, end, err)
	}
}

// Under a rate limit, each throttled request waits on its own lane and the runs replay byte for byte.
func TestOverlapThrottledIsDeterministic(t *testing.T) {
	lat := []int{50, 60, 70, 80, 90, 100, 110, 120}
	var first string
	for run := 0; run < 5; run++ {
		clk := &laneClock{}
		conn := &latencyConn{clock: clk, every: 40 * time.Millisecond}
		got, events, end, err := overlapRun(t, clk, conn, 3, lat)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(lat) {
			t.Fatalf("answers %v, want %v", got, lat)
		}
		throttled := 0
		for _, e := range events {
			if e.Kind() == connevent.KindRequestThrottled {
				throttled++
			}
		}
		if throttled == 0 {
			t.Fatal("no request was throttled: the test does not test the rate limit")
		}
		if m := MaxInFlight(events); m["Src"] > 3 {
			t.Errorf("%d in flight, over the 3 allowed", m["Src"])
		}
		// The source saw accepted requests at least every apart: the lanes reached it in time order.
		var at []time.Duration
		for _, e := range events {
			if p, ok := e.Payload.(connevent.PageReturned); ok {
				at = append(at, e.At-time.Duration(p.LatencyNanos))
			}
		}
		sort.Slice(at, func(a, b int) bool { return at[a] < at[b] })
		for i := 1; i < len(at); i++ {
			if at[i]-at[i-1] < conn.every {
				t.Fatalf("accepted requests at %s and %s, closer than the rate limit allows", at[i-1], at[i])
			}
		}
		tb := traceBytes(t, events) + end.String()
		if run == 0 {
			first = tb
		} else if tb != first {
			t.Fatalf("run %d's trace differs from the first's", run)
		}
	}
}

// A failing task stops the tasks after it; the tasks before it finish, and its error is the one returned.
func TestOverlapFailureStopsLaterTasks(t *testing.T) {
	lat := []int{300, 20, 100, 40, 50, 60}
	clk := &laneClock{}
	conn := &latencyConn{clock: clk, refuse: map[int]bool{20: true, 100: true}}
	_, _, _, err := overlapRun(t, clk, conn, 2, lat)
	var inv *InvalidRequestError
	if !errors.As(err, &inv) || inv.Reason != "refused 20" {
		t.Fatalf("error %v, want task 1's refusal", err)
	}
	// Task 1 fails at 1 ms: tasks 2… are never sent; task 0 runs to its end.
	if fmt.Sprint(conn.seen) != "[300 20]" {
		t.Errorf("the source saw %v, want [300 20]", conn.seen)
	}
	if clk.Now() != 300*time.Millisecond {
		t.Errorf("ended at %s, want task 0's end, 300ms", clk.Now())
	}
}

// A group started inside another group's task runs in that task's lane, one request after another.
func TestOverlapNestedRunsInline(t *testing.T) {
	clk := &laneClock{}
	conn := &latencyConn{clock: clk}
	r := NewRetrier(conn, "Src", "test", Options{Clock: clk, Seed: 1}, nil, nil)
	send := func(ctx context.Context, ms int) (int64, error) {
		p, err := r.Send(ctx, Request{Table: "T", Columns: []string{"v"}, Limit: ms}, "")
		if err != nil {
			return 0, err
		}
		return p.Batch.Cols[0].Ints[0], nil
	}
	got, err := Overlap(context.Background(), clk, 2, 2, func(ctx context.Context, i int) (int64, error) {
		inner, err := Overlap(ctx, clk, 2, 2, func(ctx context.Context, j int) (int64, error) { return send(ctx, 100*(i+1)) })
		if err != nil {
			return 0, err
		}
		return inner[0] + inner[1], nil
	})
	if err != nil || fmt.Sprint(got) != "[200 400]" {
		t.Fatalf("got %v, %v", got, err)
	}
	if clk.Now() != 400*time.Millisecond { // lane 1: two 200 ms requests one after the other
		t.Errorf("ended at %s, want 400ms", clk.Now())
	}
}

// A task's panic reaches the caller's goroutine, after the other lanes have ended.
func TestOverlapPanicReachesTheCaller(t *testing.T) {
	clk := &laneClock{}
	conn := &latencyConn{clock: clk}
	r := NewRetrier(conn, "Src", "test", Options{Clock: clk, Seed: 1}, nil, nil)
	defer func() {
		if p := recover(); p != "task 1" {
			t.Fatalf("recovered %v, want task 1's panic", p)
		}
		if fmt.Sprint(conn.seen) != "[300 20]" {
			t.Errorf("the source saw %v, want [300 20]: no task starts after the panic", conn.seen)
		}
	}()
	lat := []int{300, 20, 100}
	_, _ = Overlap(context.Background(), clk, 2, len(lat), func(ctx context.Context, i int) (int, error) {
		if _, err := r.Send(ctx, Request{Table: "T", Columns: []string{"v"}, Limit: lat[i]}, ""); err != nil {
			return 0, err
		}
		if i == 1 {
			panic("task 1")
		}
		return i, nil
	})
	t.Fatal("Overlap returned after a task panicked")
}
