package ui

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/plan/planevent"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/vugu/vugu"
)

// The timeline: a run shown as it stood at any of its events. The run keeps its events (Tape); the position
// is a number of events k, and everything drawn from the trace — the strategy view, the metrics, the trace
// panel — is the fold of the first k (Run.Trace), while the results table shows the rows delivered up to
// them (the runner's rows_emitted "output" events say how many: a batch's rows come before its events).
//
// The axis is the run's virtual time, the simulated sources' clock, when the run has one; a run whose
// sources keep none (the engine's own tables, or a scenario without a connector clock) is laid out by event
// number instead, since its engine events carry no time at all. Playing moves the position at the speed
// picked, over that clock (or, with no virtual clock, over the event numbers, ten events a second at 1×), one
// tick of the page at a time: the picture itself is paced, whatever the engine did. The engine runs flat out.
//
// A phase is a stretch of consecutive events of one stage of the run: planning, reading a source, one page
// of a paged join, partitioning, joining partition pairs, re-partitioning, measuring heavy keys, salting,
// the sweep. Events of no stage of their own (rows delivered, memory high-water, a request) belong to the
// phase they fall in. Stepping by phase jumps to the next or previous phase's first event.

// TimelinePos is where a run is shown.
type TimelinePos struct {
	// Fixed: the position is Pos, the number of events shown (a link may ask for more than have come: the
	// position then waits at the last). Otherwise, the zero value, it is the run's last event and moves on as
	// events come.
	Fixed bool
	Pos   int
	// Playing: Tick moves the position on at Speed trace time per wall time.
	Playing  bool
	Speed    float64
	playhead time.Duration
	lastTick time.Time
}

// Position is the number of the run's events shown.
func (r *Run) Position() int {
	if r.Tape == nil {
		return 0
	}
	if !r.Timeline.Fixed {
		return r.Tape.Len()
	}
	return min(r.Timeline.Pos, r.Tape.Len())
}

// AtEnd reports whether the run is shown whole: following, or at its last event when the tape holds them all
// (none past its bound, none the engine did not send).
func (r *Run) AtEnd() bool {
	return r.Tape == nil || !r.Timeline.Fixed ||
		r.Position() == r.Tape.Len() && r.Tape.Lost == 0 && r.Tape.Live().Dropped == 0 && r.Status != StatusRunning
}

// show points Trace at the fold of the events up to the position.
func (r *Run) show() {
	if r.Tape == nil {
		return
	}
	if !r.Timeline.Fixed {
		r.Trace = r.Tape.Live()
		return
	}
	r.Trace = r.Tape.At(r.Position())
}

// Seek shows the run as it stood after its first k events, and stops playing.
func (r *Run) Seek(k int) {
	if r.Tape == nil {
		return
	}
	r.Timeline.Fixed, r.Timeline.Playing = true, false
	r.Timeline.Pos = max(0, min(k, r.Tape.Len()))
	r.show()
}

// FollowLive shows the whole run, moving with its events as they come.
func (r *Run) FollowLive() {
	r.Timeline.Fixed, r.Timeline.Playing = false, false
	r.show()
}

// RowsShown is how many of the run's rows the results table shows: those delivered up to the position, or
// every row the page holds when the run is shown whole.
func (r *Run) RowsShown() int {
	if r.AtEnd() {
		return r.Rows.Len()
	}
	return int(min(int64(r.Rows.Len()), r.Trace.Output))
}

// virtualClock reports whether the run's sources keep a virtual clock: an engine or connector event with a
// time.
func (t *Tape) virtualClock() bool { return t.live.VirtualAt > 0 }

// playTime is the i-th event's time on the clock playback follows. With a virtual clock it is the virtual
// time reached at the event, as a running largest so it never goes back (the runner's events, which carry
// the engine's working time instead, take the virtual time reached before them). Without one the engine's
// events carry no time and the runner's only its working time, which would play a whole Grace join at one
// instant: the events are played evenly instead, eventEvery apart, the clock of the event-number axis.
func (t *Tape) playTime(i int) time.Duration {
	if t.virtualClock() {
		return t.virt[i]
	}
	return time.Duration(i) * eventEvery
}

// playedBy is the number of events whose playback time is at most at.
func (t *Tape) playedBy(at time.Duration) int {
	if t.virtualClock() {
		return seekClock(t.virt, at)
	}
	return min(len(t.events), int(at/eventEvery)+1)
}

// eventEvery is how far apart playback puts a run's events where its sources keep no virtual clock: ten a
// second at 1×, so a Grace join's few dozen events play in seconds and a step is readable at 0.1×.
const eventEvery = 100 * time.Millisecond

// seekClock is the number of events whose clock time is at most at.
func seekClock(clock []time.Duration, at time.Duration) int {
	return sort.Search(len(clock), func(i int) bool { return clock[i] > at })
}

// atEvent is the position a share link records: the run's, when it is held at an event, else the one a
// link asked for and no run has used yet.
func (s *State) atEvent() int {
	if r := s.Run; r != nil {
		if r.Timeline.Fixed && !r.Timeline.Playing {
			return r.Timeline.Pos
		}
		return 0
	}
	return s.AtEvent
}

// Tick moves a playing run's position on by the wall time since the last tick, at the timeline's speed.
// wasm/app calls it before each render; a run that reaches its last event stops playing once the engine is
// done, or waits at the last while events still come.
func (s *State) Tick(now time.Time) {
	defer s.syncCompare() // B follows A's position: the compare's one timeline
	r := s.Run
	if r == nil || r.Tape == nil || !r.Timeline.Playing {
		return
	}
	tl := &r.Timeline
	if !tl.lastTick.IsZero() {
		tl.playhead += time.Duration(float64(now.Sub(tl.lastTick)) * tl.Speed)
	}
	tl.lastTick = now
	k := r.Tape.playedBy(tl.playhead)
	if k >= r.Tape.Len() && r.Status != StatusRunning {
		r.FollowLive()
		s.saveFragment()
	} else {
		tl.Pos = k
		r.show()
	}
	s.Dirty = true
}

// Play plays the run from its position (from its start when it is shown whole), at the speed picked, or at
// 1× when the picker says flat out.
func (s *State) Play() {
	r := s.Run
	if r == nil || r.Tape == nil {
		return
	}
	k := r.Position()
	if k >= r.Tape.Len() && r.Status != StatusRunning {
		k = 0
	}
	r.Seek(k)
	r.Timeline.Playing, r.Timeline.Speed = true, playSpeed(s.Speed)
	r.Timeline.lastTick = time.Time{}
	if k > 0 {
		r.Timeline.playhead = r.Tape.playTime(k - 1)
	} else {
		r.Timeline.playhead = 0
	}
	s.syncCompare()
	s.Dirty = true
}

func playSpeed(v float64) float64 {
	if v > 0 {
		return v
	}
	return 1
}

// StopPlaying holds the position where it is.
func (s *State) StopPlaying() {
	if r := s.Run; r != nil && r.Timeline.Playing {
		r.Seek(r.Position())
		s.syncCompare()
		s.saveFragment()
	}
}

// SeekTo shows the run at k events and puts the position in the share link.
func (s *State) SeekTo(k int) {
	if r := s.Run; r != nil {
		r.Seek(k)
		s.syncCompare()
		s.saveFragment()
		s.Dirty = true
	}
}

// SeekToMarker moves the position to the event of the marker a click on the strip picked: the marker of the
// lane at y nearest to x (both in the strip's units: 0 to stripWidth across, laneHeight per drawn lane down),
// so the view shows the run up to and including that event. A click on a lane's empty stretch picks its
// nearest marker; a click below the lanes, or on a strip with none, does nothing.
func (s *State) SeekToMarker(x, y float64) {
	r := s.Run
	if r == nil || r.Tape == nil || y < 0 {
		return
	}
	lanes := r.Tape.Lanes()
	drawn := int(y) / laneHeight
	if drawn >= len(lanes) {
		return
	}
	if i, ok := r.Tape.markerNear(lanes[drawn].ID, x); ok {
		s.SeekTo(i + 1)
	}
}

// markerNear is the index of the event marked in the lane named id nearest to x on the strip (the earliest of
// a column's events, which the strip draws as one stroke), or false when the lane marks none.
func (t *Tape) markerNear(id string, x float64) (int, bool) {
	lane := slices.IndexFunc(markerLanes, func(l markerLane) bool { return l.ID == id })
	best, bestDist := -1, math.Inf(1)
	for _, m := range t.marks {
		if int(m.lane) != lane {
			continue
		}
		col := float64(min(int(t.x(int(m.event))), stripWidth-1)) + 0.5
		if d := math.Abs(col - x); d < bestDist {
			best, bestDist = int(m.event), d
		}
	}
	return best, best >= 0
}

// StepEvent moves the position by n events.
func (s *State) StepEvent(n int) {
	if r := s.Run; r != nil {
		s.SeekTo(r.Position() + n)
	}
}

// StepPhase moves the position to the start of the next phase (n > 0) or of the previous one (n < 0): the
// first event of a phase is shown with it, so "at a phase" means the phase's first event has happened.
func (s *State) StepPhase(n int) {
	r := s.Run
	if r == nil || r.Tape == nil {
		return
	}
	k := r.Position()
	starts := r.Tape.PhaseStarts()
	if n > 0 {
		for _, p := range starts {
			if p.Start+1 > k {
				s.SeekTo(p.Start + 1)
				return
			}
		}
		s.SeekTo(r.Tape.Len())
		return
	}
	for i := len(starts) - 1; i >= 0; i-- {
		if starts[i].Start+1 < k {
			s.SeekTo(starts[i].Start + 1)
			return
		}
	}
	s.SeekTo(0)
}

// Phase is a stretch of the run's events of one stage: Start is its first event's index.
type Phase struct {
	Start int
	Label string
}

// PhaseStarts lists the run's phases in order. The slice is the tape's: do not change it.
func (t *Tape) PhaseStarts() []Phase { return t.phases }

// PhaseAt is the label of the phase the k-th event (from 1) falls in; "" before any.
func (t *Tape) PhaseAt(k int) string {
	i := sort.Search(len(t.phases), func(i int) bool { return t.phases[i].Start >= k })
	if i == 0 {
		return ""
	}
	return t.phases[i-1].Label
}

// phaseOf names the stage an event belongs to, or "" for an event that belongs to whatever stage it falls in.
func phaseOf(e trace.Event) string {
	on := func(stage string) string {
		if e.Op == "" {
			return stage
		}
		return stage + " (" + e.Op + ")"
	}
	page := func(n int) string { return "page " + strconv.Itoa(n) }
	switch p := e.Payload.(type) {
	case trace.StrategyChose, planevent.PartitionsPruned:
		return "planning"
	case trace.ScanRows:
		if p.Phase == "plan" {
			return "planning"
		}
		return "reading @" + p.Source
	case joinevent.PartitionWritten, joinevent.Spill:
		return on("partitioning")
	case joinevent.PartitionRead, joinevent.PairJoined:
		return on("joining partition pairs")
	case joinevent.Repartition, joinevent.HotKey:
		return on("re-partitioning")
	case joinevent.HeavyKey:
		return on("measuring heavy keys")
	case joinevent.SaltAssigned, joinevent.RowsReplicated:
		return on("salting")
	case joinevent.WorkerLoad:
		return on("worker loads")
	case joinevent.SweepAdvanced:
		return on("sweep")
	// The paged join's events of one page (its rows out are the page's too, but belong to whatever stage
	// they fall in).
	case joinevent.PageSized:
		return page(p.Page)
	case joinevent.PageRequested:
		return page(p.Page)
	case joinevent.PageFetched:
		return page(p.Page)
	case joinevent.TieGroupCut:
		return page(p.Page)
	case joinevent.FilterSplit:
		return page(p.Page)
	case joinevent.ProbeResults:
		return page(p.Page)
	case joinevent.Refetched:
		return page(p.Page)
	case joinevent.PageWindow:
		return page(p.Page)
	}
	return ""
}

// markerLane is one row of the timeline's marker strip: the events has picks.
type markerLane struct {
	ID, Label string
	has       func(trace.Event) bool
}

// is picks the events whose payload is a P.
func is[P trace.Payload](e trace.Event) bool {
	_, ok := e.Payload.(P)
	return ok
}

var markerLanes = []markerLane{
	{ID: "pages", Label: "pages", has: is[joinevent.PageFetched]},
	{ID: "requests", Label: "requests", has: is[connevent.RequestSent]},
	{ID: "throttles", Label: "throttles", has: is[connevent.RequestThrottled]},
	{ID: "faults", Label: "faults", has: is[connevent.RequestFailed]},
	{ID: "spills", Label: "spills", has: is[joinevent.Spill]},
	{ID: "repartitions", Label: "re-partitions", has: is[joinevent.Repartition]},
	{ID: "salted", Label: "salted keys", has: is[joinevent.SaltAssigned]},
	// Rows delivered are the runner's output events alone, not each join's.
	{ID: "rows", Label: "rows out", has: func(e trace.Event) bool { return is[trace.RowsEmitted](e) && e.Op == protocol.OpOutput }},
}

// stripWidth is the marker strip's width in SVG units; markers are merged into columns of one unit, so a
// lane's path has at most stripWidth pieces however many events the run has.
const stripWidth = 600

// Lane is a marker lane as drawn: its path, and how many events it marks.
type Lane struct {
	ID, Label string
	N         int
	Path      string
}

// laneHeight is one lane's height in the strip.
const laneHeight = 12

// x is where the i-th event sits on the strip, 0 to stripWidth: by virtual time, or by event number.
func (t *Tape) x(i int) float64 {
	n := len(t.events)
	if t.virtualClock() {
		if end := t.virt[n-1]; end > 0 {
			return float64(t.virt[i]) / float64(end) * stripWidth
		}
		return 0
	}
	return float64(i+1) / float64(n) * stripWidth
}

// Lanes draws the marker strip: the lanes that mark at least one event. They are drawn again only when
// events have come since, so a render of a still run costs nothing here.
func (t *Tape) Lanes() []Lane {
	if len(t.events) == 0 {
		return nil
	}
	if t.lanesAt == len(t.events) {
		return t.lanes
	}
	t.lanes, t.lanesAt = t.drawLanes(), len(t.events)
	return t.lanes
}

func (t *Tape) drawLanes() []Lane {
	paths := make([]strings.Builder, len(markerLanes))
	counts := make([]int, len(markerLanes))
	last := make([]int, len(markerLanes))
	for i := range last {
		last[i] = -1
	}
	for _, m := range t.marks {
		counts[m.lane]++
		col := min(int(t.x(int(m.event))), stripWidth-1)
		if col == last[m.lane] {
			continue
		}
		last[m.lane] = col
		b := &paths[m.lane]
		b.WriteByte('M')
		b.WriteString(strconv.Itoa(col))
		b.WriteString(".5 ")
	}
	var out []Lane
	for i, l := range markerLanes {
		if counts[i] == 0 {
			continue
		}
		y := len(out) * laneHeight
		// Each piece is "Mx.5 " so far: give it its lane's y and a vertical stroke.
		d := strings.ReplaceAll(paths[i].String(), ".5 ", ".5 "+strconv.Itoa(y+1)+"v"+strconv.Itoa(laneHeight-2))
		out = append(out, Lane{ID: l.ID, Label: l.Label, N: counts[i], Path: d})
	}
	return out
}

// TimelineView is what the timeline component draws for one render, computed once.
type TimelineView struct {
	K, N  int
	Lanes []Lane
	// Lost counts the run's events the timeline does not hold: past the tape's bound, or never sent by the
	// engine (Message.Dropped).
	// Virtual says the axis is virtual time; AtText says where the position is on it.
	Virtual bool
	// Head is the position's x on the strip; RangeMax and RangeValue the scrubber's, in its units
	// (microseconds of virtual time, or events).
	Head                 float64
	RangeMax, RangeValue int64
	Phase                string
	Playing, Follow      bool
	Lost                 int64
	clock                []time.Duration
}

// TimelineView computes the timeline of the current run, or nil when there is none.
func (s *State) TimelineView() *TimelineView {
	r := s.Run
	if r == nil || r.Tape == nil {
		return nil
	}
	t := r.Tape
	v := &TimelineView{K: r.Position(), N: t.Len(), Virtual: t.virtualClock(), Playing: r.Timeline.Playing,
		Follow: !r.Timeline.Fixed, Lost: t.Lost + t.Live().Dropped}
	if v.N == 0 {
		return v
	}
	v.Lanes = t.Lanes()
	v.Phase = t.PhaseAt(v.K)
	if v.Virtual {
		v.clock = t.virt
		end := v.clock[v.N-1]
		v.RangeMax = end.Microseconds()
		if v.K > 0 {
			v.RangeValue = v.clock[v.K-1].Microseconds()
			if end > 0 {
				v.Head = float64(v.clock[v.K-1]) / float64(end) * stripWidth
			}
		}
		return v
	}
	v.RangeMax, v.RangeValue = int64(v.N), int64(v.K)
	v.Head = float64(v.K) / float64(v.N) * stripWidth
	return v
}

// AtText says where the position is, on the axis's own clock only.
func (v *TimelineView) AtText() string {
	if v.N == 0 {
		return "No trace events yet."
	}
	s := fmt.Sprintf("Event %s of %s", count(int64(v.K)), count(int64(v.N)))
	if v.Virtual {
		var at time.Duration
		if v.K > 0 {
			at = v.clock[v.K-1]
		}
		s += fmt.Sprintf(" · virtual time %s of %s", fullDuration(at), fullDuration(v.clock[v.N-1]))
	}
	if v.Phase != "" {
		s += " · " + v.Phase
	}
	return s
}

// AxisText names the axis, so no one reads virtual time as wall time or the reverse.
func (v *TimelineView) AxisText() string {
	if v.Virtual {
		return "Axis: virtual time, the simulated sources' clock (not the wall time this page took)."
	}
	return "Axis: event number. These sources keep no virtual clock, and the engine's events carry no time."
}

// ScopeText says what follows the position and what does not, while the page is not showing the whole run.
func (v *TimelineView) ScopeText() string {
	if v.Follow {
		return ""
	}
	return "The strategy view, the metrics drawn from the trace, the trace panel and the results show the run " +
		"as it stood after this event; the run's totals from the engine (rows out, time, Details) are the whole run's."
}

// LostText says how much of the run the timeline covers, when not all of it.
func (v *TimelineView) LostText() string {
	if v.Lost == 0 {
		return ""
	}
	return fmt.Sprintf("The timeline covers the run's first %s events; %s later ones were not kept (the engine "+
		"sends a page at most 50,000 a run), so they are in the whole run's figures only.", count(int64(v.N)), count(v.Lost))
}

// seekRange is the position a scrubber value names: the events up to that virtual time, or that many.
func (v *TimelineView) seekRange(value int64) int {
	if v.Virtual {
		return seekClock(v.clock, time.Duration(value)*time.Microsecond)
	}
	return int(value)
}

// fullDuration is a duration to the microsecond, so two events close in time are told apart.
func fullDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.3f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.6f s", d.Seconds())
}

// Timeline is the timeline component: the marker strip, the scrubber and the step buttons.
type Timeline struct {
	State *State
	v     *TimelineView
}

// Compute prepares the timeline for this build.
func (c *Timeline) Compute() { c.v = c.State.TimelineView() }

// V is the timeline as computed for this build.
func (c *Timeline) V() *TimelineView { return c.v }

func (c *Timeline) Scrub(e vugu.DOMEvent) {
	text := e.PropString("target", "value")
	value, err := strconv.ParseFloat(text, 64)
	if err != nil || c.v == nil {
		return
	}
	c.State.SeekTo(c.v.seekRange(int64(value)))
}

// ClickStrip seeks to the marker under a click on the strip: the click's place in the strip's box, scaled to the
// strip's units (its viewBox is stretched to the box, preserveAspectRatio none).
func (c *Timeline) ClickStrip(e vugu.DOMEvent) {
	box := e.JSEventCurrentTarget().Call("getBoundingClientRect")
	w, h := box.Get("width").Float(), box.Get("height").Float()
	if w <= 0 || h <= 0 {
		return
	}
	x := (e.PropFloat64("clientX") - box.Get("left").Float()) / w * stripWidth
	y := (e.PropFloat64("clientY") - box.Get("top").Float()) / h * float64(c.StripHeight())
	c.State.SeekToMarker(x, y)
}

func (c *Timeline) TogglePlay() {
	if c.State.Run != nil && c.State.Run.Timeline.Playing {
		c.State.StopPlaying()
		return
	}
	c.State.Play()
}

func (c *Timeline) PlayText() string {
	if c.v != nil && c.v.Playing {
		return "Pause playback"
	}
	return "Play"
}

func (c *Timeline) Live() {
	if r := c.State.Run; r != nil {
		r.FollowLive()
		c.State.syncCompare()
		c.State.saveFragment()
	}
}

// StripHeight is the strip's height in SVG units.
func (c *Timeline) StripHeight() int { return max(1, len(c.v.Lanes)) * laneHeight }

// HeadPath is the position's line across every lane.
func (c *Timeline) HeadPath() string {
	return fmt.Sprintf("M%.1f 0v%d", c.v.Head, c.StripHeight())
}

func (c *Timeline) Itoa(n int64) string { return strconv.FormatInt(n, 10) }

// LaneText is a lane's legend entry.
func (c *Timeline) LaneText(l Lane) string { return l.Label + " " + count(int64(l.N)) }
