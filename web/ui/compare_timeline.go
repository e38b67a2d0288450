package ui

import (
	"fmt"
	"math"
)

// The compare's one timeline: the page's timeline (#timeline) scrubs A, and B follows it. B's position is
// the moment A's is at: when both runs keep the simulated sources' virtual clock (every connector scenario)
// B shows the events it had reached by the virtual time of A's position, so the two pictures are the same
// instant of the same sources' clock and a baseline that pages slower is seen behind; when either keeps no
// virtual clock the engine's events carry no time, and B is put at the same fraction of its events as A.
// A shown whole (following) shows B whole too.
//
// Cost: one binary search over B's kept virtual times (or one division) and, when the position moved, B's
// fold at it (Tape.At: at most checkpointEvery-1 events folded).

// comparePosition maps A's position k (events shown, of tape a) to B's on tape b.
func comparePosition(a, b *Tape, k int) int {
	switch {
	case k <= 0 || a.Len() == 0:
		return 0
	case a.virtualClock() && b.virtualClock():
		return b.playedBy(a.playTime(min(k, a.Len()) - 1))
	case k >= a.Len():
		return b.Len()
	}
	return int(math.Round(float64(k) * float64(b.Len()) / float64(a.Len())))
}

// syncCompare puts B where A's position says. The timeline's moves (SeekTo, StepEvent, StepPhase, Play,
// StopPlaying, Whole run) and every render tick (Tick) call it, so B follows A while A plays and while B's
// events still come.
func (s *State) syncCompare() {
	a, b := s.Run, s.CompareRun
	if a == nil || b == nil || a.Tape == nil || b.Tape == nil {
		return
	}
	if !a.Timeline.Fixed {
		if b.Timeline.Fixed {
			b.FollowLive()
			s.Dirty = true
		}
		return
	}
	k := comparePosition(a.Tape, b.Tape, a.Position())
	if b.Timeline.Fixed && b.Timeline.Pos == k && b.Trace == b.Tape.At(k) {
		return
	}
	b.Seek(k)
	s.Dirty = true
}

// TimelineNote says where each run stands on the shared timeline, and on which axis.
func (c *Compare) TimelineNote() string {
	a, b := c.A(), c.B()
	if a.Tape == nil || b.Tape == nil {
		return ""
	}
	if !a.Timeline.Fixed {
		return "Both runs shown whole: scrub the timeline above to see A and B at the same moment."
	}
	at := func(r *Run) string {
		return fmt.Sprintf("event %s of %s", count(int64(r.Position())), count(int64(r.Tape.Len())))
	}
	if a.Tape.virtualClock() && b.Tape.virtualClock() {
		v := "0s"
		if k := a.Position(); k > 0 {
			v = fullDuration(a.Tape.playTime(k - 1))
		}
		return fmt.Sprintf("At virtual time %s of the sources' clock: A at %s, B at %s.", v, at(a), at(b))
	}
	return fmt.Sprintf("No virtual clock: B is put at the same fraction of its events as A. A at %s, B at %s.",
		at(a), at(b))
}
