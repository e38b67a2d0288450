package runner

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/joinlab/joinlab/web/runner/protocol"
)

// fakeClock is the stream's clock in tests: it moves only when the stream sleeps, and by tick at each
// reading, never with wall time, so what a test sees does not depend on how fast or how loaded the machine
// is. With tick 0 the engine's work takes no time at all and playback is exactly the waits.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	tick  time.Duration
	slept time.Duration
}

// fakeEpoch is where fake clocks start; any fixed time would do.
var fakeEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newFakeClock(tick time.Duration) *fakeClock { return &fakeClock{now: fakeEpoch, tick: tick} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.tick)
	return c.now
}

func (c *fakeClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

func (c *fakeClock) Sleep(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.slept += d
	c.mu.Unlock()
}

// playback runs r on a fake clock and checks, for every batch, that no event in it was posted before its
// time at the run's speed. It returns the messages and the time slept.
func playback(t *testing.T, r *protocol.Run) ([]protocol.Message, time.Duration) {
	t.Helper()
	clock := newFakeClock(0)
	start := clock.Now() // the stream's own start, since the clock moves only when it sleeps
	var msgs []protocol.Message
	late := 0
	streamWith(context.Background(), clock, nil, 1, r, func(m protocol.Message) {
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

// TestPlaybackSpeed plays a run over simulated sources at several speeds on a fake clock, on which the
// engine's work takes no time: playback is then exactly the waits, so they must add up to the trace's last
// event at that speed, within one paceGrain (a wait shorter than that is skipped) and never past it.
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
	if virtual := last(flat).Stats.VirtualTotal; virtual <= 0 {
		t.Fatalf("scenario %s keeps no virtual clock (virtual_ms_total %v); the test needs one", base.Scenario, virtual)
	}
	var lastAt time.Duration // the trace time of the last paced event
	for _, m := range flat {
		for _, e := range m.Events {
			if e.Attrs["phase"] != "plan" {
				lastAt = max(lastAt, e.At)
			}
		}
	}
	want := rowsOf(flat)
	for _, speed := range []float64{1, 10, 1000} {
		r := base
		r.Speed = speed
		msgs, slept := playback(t, &r)
		due := time.Duration(float64(lastAt) / speed)
		t.Logf("speed %g: last event at trace time %v, due at %v, slept %v, %d messages", speed, lastAt, due, slept, len(msgs))
		if slept > due || slept < due-paceGrain {
			t.Errorf("speed %g: slept %v; the last event is due at %v, so want within %v before it", speed, slept, due, paceGrain)
		}
		if got := rowsOf(msgs); !slices.Equal(got, want) {
			t.Errorf("speed %g: %d rows, flat out %d (or in another order)", speed, len(got), len(want))
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
