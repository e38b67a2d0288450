// Package clock is the simulations' virtual time. Nothing sleeps: a request's latency and the engine's waits
// between retries advance the clock instantly, so time to first row and total time are figures of the run,
// the same for a seed on every machine.
package clock

import (
	"context"
	"sync"
	"time"

	"github.com/joinlab/joinlab/engine/connector"
)

// Virtual is a clock that moves only when told. It is safe for concurrent use. Requests the engine sends one
// after another share its one timeline, so their latencies add up; requests it overlaps (connector.Overlap,
// up to a source's Caps.Concurrent) each run on a lane of their own: the engine sets the clock back to a
// lane's time before that lane runs (SetNow), and to the latest lane's end after the group, so requests in
// flight at once cost the longest of their latencies.
type Virtual struct {
	mu  sync.Mutex
	now time.Duration
}

var _ connector.LaneClock = (*Virtual)(nil)

// New returns a clock at zero.
func New() *Virtual { return &Virtual{} }

// Now is the virtual time since the start.
func (c *Virtual) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d (a negative d is ignored: time never goes back).
func (c *Virtual) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	c.now += d
	c.mu.Unlock()
}

// SetNow sets the clock to t, earlier or later than Now: the time of the lane of an overlapped request about
// to run (see connector.LaneClock). Outside a group of overlapped requests time only moves forward.
func (c *Virtual) SetNow(t time.Duration) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Sleep advances the clock by d at once, unless ctx is already done.
func (c *Virtual) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.Advance(d)
	return nil
}
