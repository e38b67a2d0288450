package runner

import (
	"math"
	"time"
)

// Playback at a speed. A run's trace has its own time: the simulated sources' virtual clock (Event.At of the
// connectors' and strategies' events), or, where no source keeps one, the engine's working time (the runner's
// own events). Run flat out, a run that simulates minutes of requests is over in milliseconds and the page
// only sees the end; played at a speed, the runner holds the engine so that trace time t is not posted before
// wall time t/speed of playback, and the views move as the sources would have answered.
//
// The cost is only waiting: an event is held by sleeping in the goroutine that emitted it (the engine stalls
// there, which is the point), first posting what came before so the page shows the run up to now. Time the
// page held the run (pause, the gate's yield) and time spent waiting are not the engine's: since() leaves both
// out, so the engine's own clock does not run ahead of itself while it waits for it.

const (
	// paceGrain is how far ahead of playback an event may be before the engine waits: waits shorter than a
	// frame would post more messages than the page renders (ui.RenderEvery is 100 ms).
	paceGrain = 20 * time.Millisecond
	// maxSpeed bounds a playback speed; past it playing is indistinguishable from flat out.
	maxSpeed = 1e9
)

// wallClock is wall time as the stream sees it: every reading of time the stream takes (flush cadence,
// playback, the page's holds) goes through it, so tests play a run back on a clock of their own, with no
// wall time and no sleeping in them.
type wallClock interface {
	Now() time.Time
	Since(time.Time) time.Duration
	Sleep(time.Duration)
}

type realClock struct{}

func (realClock) Now() time.Time                  { return time.Now() }
func (realClock) Since(t time.Time) time.Duration { return time.Since(t) }
func (realClock) Sleep(d time.Duration)           { time.Sleep(d) }

// validSpeed turns a requested speed into the one played: 0 (flat out) for anything not a positive finite
// number, capped at maxSpeed.
func validSpeed(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0
	}
	return min(v, maxSpeed)
}

// played is the wall time of playback so far: since the start, less what the page held the run for.
// s.mu must be held.
func (s *stream) played() time.Duration { return s.clock.Since(s.start) - s.held }

// behind reports, with s.mu held, how long playback must wait until trace time at may be shown.
func (s *stream) behind(at time.Duration) time.Duration {
	if s.speed == 0 {
		return 0
	}
	return time.Duration(float64(at)/s.speed) - s.played()
}

// pace holds the calling goroutine until playback reaches trace time at. It waits in slices of FlushEvery,
// flushing (and so passing the page's gate: pause, step, the yield that lets a cancel in) before each, so a
// long wait still stops when asked. A paused run's Step therefore lets one slice of playback through.
func (s *stream) pace(at time.Duration) {
	for s.ctx.Err() == nil {
		s.mu.Lock()
		wait := s.behind(at)
		s.mu.Unlock()
		if wait < paceGrain {
			return
		}
		s.flush()
		wait = min(wait, FlushEvery)
		s.clock.Sleep(wait)
		s.mu.Lock()
		s.slept += wait
		s.mu.Unlock()
	}
}
