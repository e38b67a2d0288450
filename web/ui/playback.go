package ui

import (
	"strconv"
	"strings"
)

// Playback speed and the paused step. A run's trace keeps its own time (the simulated sources' virtual clock,
// or the engine's working time); the page plays the picture back at State.Speed over that clock (the
// timeline, timeline.go), so the views move as the sources would have answered, or in slow motion, while the
// engine runs flat out. A share link carries the speed and, for a run paused when the link was made, the
// batch it was paused at: the next run is held at that batch.

// Speed is one entry of the speed picker.
type Speed struct {
	Value float64
	Label string
}

// Speeds are the picker's entries: flat out, then trace time per wall time.
var Speeds = []Speed{
	{0, "flat out"},
	{0.1, "0.1× (slow motion)"},
	{1, "1× (as the sources answer)"},
	{10, "10×"},
	{100, "100×"},
	{1000, "1,000×"},
}

// SetSpeed sets the playback speed of the next run from the picker's value; text that is no number, or a
// negative one, is ignored.
func (s *State) SetSpeed(text string) {
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || !(v >= 0) || v > 1e9 {
		return
	}
	s.Speed = v
	if r := s.Run; r != nil && r.Timeline.Playing {
		r.Timeline.Speed = playSpeed(v) // a picture playing goes on at the new speed
	}
	s.saveFragment()
}

// SpeedText is a speed as the picker's option value.
func SpeedText(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// pausedAt is the batch a share link records: the running run's, where it is paused or about to be, else the
// one a link asked for and no run has used yet.
func (s *State) pausedAt() int {
	if r := s.Run; r != nil && r.Status == StatusRunning {
		switch {
		case r.Paused:
			return r.Batches
		case r.PauseAfter > r.Batches:
			return r.PauseAfter
		}
		return 0
	}
	return s.PausedAt
}

// batchArrived counts a run's batches; at the one the run was asked to pause at, the engine holds it, and the
// page says so (the engine counts the same messages).
func (s *State) batchArrived(r *Run) {
	r.Batches++
	if r.PauseAfter > 0 && r.Batches == r.PauseAfter {
		r.Paused = true
	}
	if r.Paused && r == s.Run {
		s.saveFragment() // the paused step moved (a step, or the pause taking hold)
	}
}
