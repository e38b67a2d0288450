package runner

import (
	"sync"
	"time"
)

// fakeClock is the stream's clock in tests: it moves by tick at each reading, never with wall time, so what a
// test sees does not depend on how fast or how loaded the machine is.
type fakeClock struct {
	mu   sync.Mutex
	now  time.Time
	tick time.Duration
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
