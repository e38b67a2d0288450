package runner

import "time"

// The stream's time. The runner's own events carry the engine's working time: wall time since the run started,
// less what the page held the run for (pause, the gate's yield), so a paused run's clock stops with it. The page
// plays a run back at a speed itself, over the events it keeps (web/ui timeline.go): the engine always runs
// flat out.

// wallClock is wall time as the stream sees it: every reading of time the stream takes (flush cadence, the
// page's holds) goes through it, so tests run on a clock of their own, with no wall time in them.
type wallClock interface {
	Now() time.Time
	Since(time.Time) time.Duration
}

type realClock struct{}

func (realClock) Now() time.Time                  { return time.Now() }
func (realClock) Since(t time.Time) time.Duration { return time.Since(t) }

// played is the engine's working time so far: since the start, less what the page held the run for. s.mu
// must be held.
func (s *stream) played() time.Duration { return s.clock.Since(s.start) - s.held }
