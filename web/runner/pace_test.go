package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/joinlab/joinlab/web/runner/protocol"
)

// fakeClock plays a run back without waiting: Sleep only moves the clock on.
type fakeClock struct {
	mu    sync.Mutex
	slept time.Duration
}

func (c *fakeClock) Since(t time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Since(t) + c.slept
}

func (c *fakeClock) Sleep(d time.Duration) {
	c.mu.Lock()
	c.slept += d
	c.mu.Unlock()
}

// playback runs r on a fake clock and checks, for every batch, that no event in it was posted before its
// time at the run's speed. It returns the messages and the time slept.
func playback(t *testing.T, r *protocol.Run) ([]protocol.Message, time.Duration) {
	t.Helper()
	clock := &fakeClock{}
	start := time.Now() // no later than the stream's own start, so Since(start) bounds its playback time
	var msgs []protocol.Message
	late := 0
	streamWith(context.Background(), clock, 1, r, func(m protocol.Message) {
		msgs = append(msgs, m)
		if r.Speed <= 0 {
			return
		}
		now := clock.Since(start)
		for _, e := range m.Events {
			if e.Attrs["phase"] == "plan" {
				continue // reads while planning are not paced
			}
			if due := time.Duration(float64(e.At) / r.Speed); due > now+paceGrain {
				late++
				if late < 5 {
					t.Errorf("%s at trace time %v posted at playback %v; due at %v", e.Kind, e.At, now, due)
				}
			}
		}
	}, nil)
	if m := last(msgs); m.Type != protocol.MessageDone {
		t.Fatalf("run ended with %s: %+v", m.Type, m.Error)
	}
	return msgs, clock.slept
}

func TestPlaybackSpeed(t *testing.T) {
	base := protocol.Run{Query: "", Scenario: "okta-crowdstrike-small", Seed: 1}
	sc, err := findScenario(base.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	base.Query = sc.Query
	flat, slept := playback(t, &base)
	if slept != 0 {
		t.Fatalf("flat out slept %v", slept)
	}
	virtual := last(flat).Stats.VirtualTotal
	if virtual <= 0 {
		t.Fatalf("scenario %s keeps no virtual clock (virtual_ms_total %v); the test needs one", base.Scenario, virtual)
	}
	want := rowsOf(flat)
	for _, speed := range []float64{1, 10, 1000} {
		r := base
		r.Speed = speed
		msgs, slept := playback(t, &r)
		// Playback time is at least the trace's time at that speed: the engine's own time plus the waits.
		due := time.Duration(virtual / speed * float64(time.Millisecond))
		t.Logf("speed %g: virtual %.0f ms, slept %v, %d messages", speed, virtual, slept, len(msgs))
		if due > 10*paceGrain && slept < due/2 {
			t.Errorf("speed %g: slept %v for %v of trace time", speed, slept, due)
		}
		if got := rowsOf(msgs); len(got) != len(want) {
			t.Errorf("speed %g: %d rows, flat out %d", speed, len(got), len(want))
		}
	}
}

func rowsOf(msgs []protocol.Message) []string {
	var cols int
	var rows []string
	for _, m := range msgs {
		switch m.Type {
		case protocol.MessageStarted:
			cols = len(m.Columns)
		case protocol.MessageBatch:
			for _, r := range protocol.UnpackRows(m.Rows, cols) {
				rows = append(rows, protocol.PackRows([][]string{r}))
			}
		}
	}
	return rows
}

func TestValidSpeed(t *testing.T) {
	for in, want := range map[float64]float64{-1: 0, 0: 0, 2: 2, 1e12: maxSpeed} {
		if got := validSpeed(in); got != want {
			t.Errorf("validSpeed(%g) = %g, want %g", in, got, want)
		}
	}
}
