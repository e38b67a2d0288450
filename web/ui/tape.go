package ui

import (
	"maps"
	"slices"
	"time"

	"github.com/joinlab/joinlab/engine/trace"
)

// Tape keeps a run's trace events, in the order they came, so the page can show the run as it stood at any
// event: At(k) is the TraceView of the first k events, Fold(events[:k]), whatever else has come since.
//
// The invariant: At(k) equals Fold(events[:k]) field for field (TestTapeAtEqualsFold), and Live, the fold of
// every event as it came, equals At(Len()) — unless events were past maxTapeEvents, which Live has and the
// tape does not (Lost counts them).
//
// Cost: every checkpointEvery events the tape keeps a copy of the fold so far, so At(k) copies the nearest
// checkpoint at or before k and folds at most checkpointEvery-1 events on from it, whatever the run's length;
// the last view asked for is kept too, so stepping forward folds one event and asking again folds none.
// Memory: the events themselves (the page decoded them anyway; keeping them is what a timeline costs —
// 530–930 bytes an event with its attribute map, decoded from JSON as the page does, checkpoints included,
// as BenchmarkTapeMemory measures natively: a 5M-row hash join's 9,834 events, a paged join's 512 with their
// rendered requests; so a run's 50,000, the most the runner sends, hold some 26–45 MiB), plus one
// checkpoint per checkpointEvery events, each a bounded summary (the views cap their bins, pages and series)
// of a few KiB. Past
// maxTapeEvents the tape keeps nothing more, and the page says that the timeline covers the first
// maxTapeEvents events.
type Tape struct {
	events []trace.Event
	// checkpoints[i] is Fold(events[:(i+1)*checkpointEvery]), a copy no one else changes.
	checkpoints []*TraceView
	live        *TraceView
	// Lost counts events past maxTapeEvents, folded into Live but not kept.
	Lost int64
	// virt is, for each event kept, the latest virtual time up to it (playTime); phases and marks are the
	// timeline's phases and markers, found as events come, so a render of the timeline costs its markers,
	// not the run's events.
	virt   []time.Duration
	phases []Phase
	marks  []mark
	// lanes are the marker strip as last drawn, of the first lanesAt events.
	lanes   []Lane
	lanesAt int
	// shown is the last view At made, of the first shownAt events: At's cache, owned by the tape.
	shown   *TraceView
	shownAt int
}

const (
	// checkpointEvery bounds the events At folds: in the page's WebAssembly a fold costs a few microseconds
	// an event, so a scrub anywhere folds for a few milliseconds at most.
	checkpointEvery = 1024
	// maxTapeEvents bounds what a tape keeps. The runner sends at most 50,000 events a run (web/runner's
	// maxEventsPerRun), so a run from the engine fits whole; the bound is for anything else that feeds one.
	maxTapeEvents = 1 << 16
)

// NewTape returns an empty tape whose live fold is live (a new one when nil).
func NewTape(live *TraceView) *Tape {
	if live == nil {
		live = NewTraceView()
	}
	return &Tape{live: live}
}

// Live is the fold of every event added, as they came.
func (t *Tape) Live() *TraceView { return t.live }

// Len is the number of events kept.
func (t *Tape) Len() int { return len(t.events) }

// Event returns the i-th event kept (from 0).
func (t *Tape) Event(i int) trace.Event { return t.events[i] }

// Add folds e into the live view and keeps it, with a checkpoint when one is due.
func (t *Tape) Add(e trace.Event) {
	t.live.Add(e)
	if len(t.events) >= maxTapeEvents {
		t.Lost++
		return
	}
	i := len(t.events)
	t.events = append(t.events, e)
	var v time.Duration
	if i > 0 {
		v = t.virt[i-1]
	}
	if !runnerEvent(e) {
		v = max(v, e.At)
	}
	t.virt = append(t.virt, v)
	if l := phaseOf(e); l != "" && (len(t.phases) == 0 || t.phases[len(t.phases)-1].Label != l) {
		t.phases = append(t.phases, Phase{Start: i, Label: l})
	}
	for lane, l := range markerLanes {
		if l.has(e) {
			t.marks = append(t.marks, mark{event: int32(i), lane: int8(lane)})
			break
		}
	}
	if len(t.events)%checkpointEvery == 0 {
		t.checkpoints = append(t.checkpoints, t.live.Clone())
	}
}

// At returns the view of the first k events (k clamped to [0, Len()]). The view is the tape's: read it, do
// not change it, and do not keep it past the next At, which may fold it on.
func (t *Tape) At(k int) *TraceView {
	k = max(0, min(k, len(t.events)))
	if t.shown != nil && t.shownAt == k {
		return t.shown
	}
	from := k / checkpointEvery * checkpointEvery
	var v *TraceView
	switch {
	case t.shown != nil && t.shownAt <= k && t.shownAt >= from:
		v, from = t.shown, t.shownAt // nearer than the checkpoint: fold on from it
	case from == 0:
		v = NewTraceView()
	default:
		v = t.checkpoints[from/checkpointEvery-1].Clone()
	}
	for _, e := range t.events[from:k] {
		v.Add(e)
	}
	// What the run knows apart from its events belongs to every position.
	v.Inputs = t.live.Inputs
	t.shown, t.shownAt = v, k
	return v
}

// Clone returns a copy of the view that shares nothing another Add would change: folding into either leaves
// the other as it was. (Events in Recent are shared: an event is never changed once made.)
func (t *TraceView) Clone() *TraceView {
	c := *t
	c.Kinds = maps.Clone(t.Kinds)
	c.Recent = slices.Clone(t.Recent)
	c.Strategies = slices.Clone(t.Strategies)
	c.Scans = slices.Clone(t.Scans)
	c.OutputSeries = t.OutputSeries.clone()
	c.RowsOver, c.RequestsOver, c.MemoryOver = t.RowsOver.clone(), t.RequestsOver.clone(), t.MemoryOver.clone()
	c.Natives = slices.Clone(t.Natives)

	c.Grace.Bins = make([]*Bin, len(t.Grace.Bins))
	for i, b := range t.Grace.Bins {
		nb := *b
		c.Grace.Bins[i] = &nb
	}
	if t.Grace.Bins == nil {
		c.Grace.Bins = nil
	}
	c.Grace.index = maps.Clone(t.Grace.index)
	c.Grace.HotKeys = slices.Clone(t.Grace.HotKeys)
	c.Grace.Small = nil // as a fold leaves it with no small run, so a clone compares equal
	if t.Grace.Small != nil {
		c.Grace.Small = make([]*PartitionRows, len(t.Grace.Small))
	}
	for i, p := range t.Grace.Small {
		np := *p
		np.Left, np.Right = slices.Clip(p.Left), slices.Clip(p.Right) // an append then copies, not shares
		c.Grace.Small[i] = &np
	}
	c.Grace.smallIndex = maps.Clone(t.Grace.smallIndex)

	c.Salted.Before, c.Salted.After = maps.Clone(t.Salted.Before), maps.Clone(t.Salted.After)
	c.Salted.HeavyKeys = slices.Clone(t.Salted.HeavyKeys)
	c.Salted.Small = nil
	if t.Salted.Small != nil {
		c.Salted.Small = make([]*WorkerRows, len(t.Salted.Small))
	}
	for i, w := range t.Salted.Small {
		nw := *w
		nw.Left, nw.Right = slices.Clip(w.Left), slices.Clip(w.Right)
		c.Salted.Small[i] = &nw
	}

	c.Sweep.Active = t.Sweep.Active.clone()
	c.Sweep.ExpiredOver, c.Sweep.OverlapsOver = t.Sweep.ExpiredOver.clone(), t.Sweep.OverlapsOver.clone()

	c.Paged.Pages = slices.Clone(t.Paged.Pages)
	c.Paged.cutPending = maps.Clone(t.Paged.cutPending)
	c.Paged.Slices = slices.Clone(t.Paged.Slices)
	c.Paged.Emitted = slices.Clone(t.Paged.Emitted)
	c.Baseline.Edges = slices.Clone(t.Baseline.Edges)
	c.Baseline.inFlight = maps.Clone(t.Baseline.inFlight) // Refused is never changed once set: shared
	return &c
}

func (s Series) clone() Series { return Series{X: slices.Clone(s.X), Y: slices.Clone(s.Y)} }

// mark is an event the timeline marks, in its lane of markerLanes.
type mark struct {
	event int32
	lane  int8
}
