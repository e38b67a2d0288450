package ui

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/engine/trace/registry"
	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// checkTape feeds events to a tape one at a time and checks, at each k it is asked to, that the incremental
// fold after k events (the page's live view), the tape's At(k) asked afterwards in any order, and a fresh
// Fold of the first k events are the same state, field for field.
func checkTape(t *testing.T, events []trace.Event, ks []int) {
	t.Helper()
	want := map[int]bool{}
	for _, k := range ks {
		want[k] = true
	}
	tape := NewTape(nil)
	incremental := map[int]*TraceView{}
	if want[0] {
		incremental[0] = tape.Live().Clone()
	}
	for i, e := range events {
		tape.Add(e)
		if want[i+1] {
			incremental[i+1] = tape.Live().Clone()
		}
	}
	// Asked in a shuffled order, so At starts from checkpoints and from its last answer alike.
	order := append([]int(nil), ks...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, k := range order {
		fresh := Fold(events[:k])
		at := tape.At(k)
		if !reflect.DeepEqual(at, fresh) {
			t.Fatalf("At(%d) differs from Fold of the first %d events:\n at   %+v\n fold %+v", k, k, at, fresh)
		}
		if !reflect.DeepEqual(incremental[k], fresh) {
			t.Fatalf("the live fold after %d events differs from Fold of them:\n live %+v\n fold %+v", k, incremental[k], fresh)
		}
	}
	if !reflect.DeepEqual(tape.Live(), Fold(events)) {
		t.Fatal("the live fold of every event differs from their Fold")
	}
}

// positions are the ks checkTape looks at for n events: every one of a short run; around each checkpoint
// and a spread of others in a long one.
func positions(n int) []int {
	if n <= 400 {
		out := make([]int, n+1)
		for i := range out {
			out[i] = i
		}
		return out
	}
	seen := map[int]bool{}
	var out []int
	add := func(k int) {
		if k >= 0 && k <= n && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for c := 0; c <= n; c += checkpointEvery {
		add(c - 1)
		add(c)
		add(c + 1)
	}
	for i := range 40 {
		add(i * n / 40)
	}
	add(n)
	return out
}

// TestTapeAtEqualsFold runs every scenario's query through the real engine (as the planner chooses, and the
// paged join with many small pages and ties), and a long run of the playground's own tables that crosses
// many checkpoints, and checks the view at every event (or around every checkpoint) three ways.
func TestTapeAtEqualsFold(t *testing.T) {
	// The long run scans Listens a batch of source.BatchRows rows at a time, about two events a batch: the
	// knob's most rows make more than two checkpoints' worth of events.
	const longListens = 5_000_000
	type c struct {
		name string
		run  *protocol.Run
		min  int // events the run must have, so the case tests what it says
	}
	var cases []c
	for _, sc := range runner.Catalogue().Scenarios {
		cases = append(cases, c{sc.Name, &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1}, 1})
	}
	for _, sc := range runner.Catalogue().Scenarios {
		switch sc.Name {
		case "okta-crowdstrike-small":
			cases = append(cases, c{sc.Name + "/keyset-lt", &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1,
				Strategy: "keyset-lt"}, 1})
		case runner.ScenarioUsersListens:
			cases = append(cases, c{sc.Name + "/long", &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1,
				Knobs: map[string]float64{"listens": longListens}}, 2 * checkpointEvery})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := runForReal(t, tc.run)
			if run.err != nil {
				t.Fatalf("the run failed: %s", run.err.Message)
			}
			if len(run.events) < tc.min {
				t.Fatalf("%d events, want at least %d", len(run.events), tc.min)
			}
			checkTape(t, run.events, positions(len(run.events)))
		})
	}
}

// A hand-built run of every kind the views fold, long enough to cross checkpoints, in a random order.
func TestTapeAtEqualsFoldMixed(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	make1 := func(i int) trace.Event {
		at := time.Duration(i) * time.Millisecond
		switch r.IntN(9) {
		case 0:
			return ev(joinevent.KindPageFetched, at, "paged", map[string]any{"page": float64(i), "rows": 10.0})
		case 1:
			return ev(joinevent.KindTieGroupCut, at, "paged", map[string]any{"page": float64(i + 1)})
		case 2:
			return ev(joinevent.KindPartitionWritten, at, "grace", map[string]any{"partition": fmt.Sprint(r.IntN(80)), "rows": 5.0})
		case 3:
			return ev(joinevent.KindWorkerLoad, at, "", map[string]any{"worker": float64(r.IntN(8)), "load_before": 3.0, "load_after": 1.0})
		case 4:
			return ev(joinevent.KindSweepAdvanced, at, "", map[string]any{"active_left": 1.0, "active_right": 2.0, "expired": float64(i), "overlaps": float64(i)})
		case 5:
			return ev(trace.KindRowsEmitted, at, protocol.OpOutput, map[string]any{"rows": 1.0, "total": float64(i)})
		case 6:
			return ev(connevent.KindRequestSent, at, "", map[string]any{"native": "GET /x", "source": "S"})
		case 7:
			return ev(memory.KindHighWater, at, "", map[string]any{"bytes": float64(i * 10)})
		}
		return ev(joinevent.KindHeavyKey, at, "", map[string]any{"key": fmt.Sprint(i), "left_rows": 1.0})
	}
	events := make([]trace.Event, 3*checkpointEvery+17)
	for i := range events {
		events[i] = make1(i)
	}
	checkTape(t, events, positions(len(events)))
}

// streamInto runs a query through the real engine and applies its messages to a page's state, as the page
// does, so the run on the page has its tape, rows and stats.
func streamInto(t *testing.T, s *State, run *protocol.Run) {
	t.Helper()
	s.Query, s.Scenario, s.Strategy, s.Knobs = run.Query, run.Scenario, run.Strategy, run.Knobs
	s.StartRun()
	id := s.Run.ID
	runner.Stream(t.Context(), id, run, func(m protocol.Message) {
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		s.Receive(protocol.Envelope{JSON: string(data), Rows: m.Rows})
	}, nil)
	if s.Run.Status != StatusDone {
		t.Fatalf("run %s: status %s", run.Scenario, s.Run.Status)
	}
}

// The results table at a position shows the rows delivered up to it: the runner's output events say how many.
func TestRowsShownFollowTheOutputEvents(t *testing.T) {
	s, _ := ready(t)
	s.Catalogue = *runner.Catalogue()
	s.PickScenario(runner.ScenarioUsersListens)
	streamInto(t, s, &protocol.Run{Query: s.Query, Scenario: runner.ScenarioUsersListens, Seed: 1,
		Knobs: map[string]float64{"listens": 200_000}})
	r := s.Run
	if !r.AtEnd() || r.RowsShown() != r.Rows.Len() || r.Rows.Len() == 0 {
		t.Fatalf("whole run: %d rows shown of %d", r.RowsShown(), r.Rows.Len())
	}
	var total int64
	checked := 0
	for i := range r.Tape.Len() {
		e := r.Tape.Event(i)
		if out, ok := e.Payload.(trace.RowsEmitted); ok && e.Op == protocol.OpOutput {
			total = out.Total
		}
		r.Seek(i + 1)
		if got := r.RowsShown(); int64(got) != min(total, int64(r.Rows.Len())) {
			t.Fatalf("at event %d: %d rows shown, the output events say %d", i+1, got, total)
		}
		if w := (&Results{State: s}).Window(); len(w) > r.RowsShown() {
			t.Fatalf("at event %d: the table draws %d rows of %d", i+1, len(w), r.RowsShown())
		}
		checked++
	}
	r.Seek(0)
	if r.RowsShown() != 0 || r.Trace.Events != 0 {
		t.Errorf("at 0: %d rows, %d events", r.RowsShown(), r.Trace.Events)
	}
	if checked < 10 {
		t.Errorf("only %d positions", checked)
	}
}

// Stepping by phase lands on each phase's first event; by event, one at a time; a link carries the position.
func TestTimelineStepsAndLink(t *testing.T) {
	s, env := ready(t)
	s.StartRun()
	id := s.Run.ID
	ev := func(kind trace.Kind, op string, attrs map[string]any) trace.Event {
		return ev(kind, 0, op, attrs)
	}
	events := []trace.Event{
		ev(trace.KindStrategyChose, "plan", map[string]any{"strategy": "grace"}),  // planning
		ev(joinevent.KindPartitionWritten, "g", map[string]any{"partition": "0"}), // partitioning
		ev(memory.KindHighWater, "memory", map[string]any{"bytes": 10.0}),
		ev(joinevent.KindSpill, "g", nil),
		ev(joinevent.KindPartitionRead, "g", map[string]any{"partition": "0"}), // joining partition pairs
		ev(joinevent.KindPairJoined, "g", nil),
		ev(trace.KindRowsEmitted, protocol.OpOutput, map[string]any{"rows": 2.0, "total": 2.0}),
	}
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"k"}})
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: "a\x1eb", Events: events})
	s.Apply(protocol.Message{Type: protocol.MessageDone, ID: id, Stats: &protocol.Stats{RowsOut: 2}})
	r := s.Run
	if got := r.Tape.PhaseStarts(); len(got) != 3 || got[0].Start != 0 || got[1].Start != 1 || got[2].Start != 4 ||
		got[1].Label != "partitioning (g)" {
		t.Fatalf("phases %+v", got)
	}
	s.SeekTo(0)
	var at []int
	for range 4 {
		s.StepPhase(1)
		at = append(at, r.Position())
	}
	if fmt.Sprint(at) != "[1 2 5 7]" {
		t.Errorf("phase forward went %v, want [1 2 5 7] (each phase's first event, then the end)", at)
	}
	at = nil
	for range 4 {
		s.StepPhase(-1)
		at = append(at, r.Position())
	}
	if fmt.Sprint(at) != "[5 2 1 0]" {
		t.Errorf("phase back went %v, want [5 2 1 0]", at)
	}
	s.StepEvent(1)
	s.StepEvent(1)
	s.StepEvent(-1)
	if r.Position() != 1 || r.Trace.Events != 1 || r.Trace.Chosen != "grace" {
		t.Errorf("stepped to %d, %d events folded", r.Position(), r.Trace.Events)
	}
	s.SeekTo(4)
	if r.Trace.Grace.Spills != 1 || r.Trace.Grace.Pairs != 0 || r.RowsShown() != 0 {
		t.Errorf("at 4: %d spills, %d pairs, %d rows", r.Trace.Grace.Spills, r.Trace.Grace.Pairs, r.RowsShown())
	}
	// The link carries the position; the page it opens runs to it and holds there.
	o, _ := ready(t)
	o.LoadFragment(env.fragment)
	if o.AtEvent != 4 {
		t.Fatalf("the link opens at event %d", o.AtEvent)
	}
	o.StartRun()
	oid := o.Run.ID
	o.Apply(protocol.Message{Type: protocol.MessageStarted, ID: oid, Columns: []string{"k"}})
	o.Apply(protocol.Message{Type: protocol.MessageBatch, ID: oid, Events: events[:2]})
	if o.Run.Position() != 2 || o.Run.Trace.Events != 2 {
		t.Errorf("before the events reach the link's position: at %d", o.Run.Position())
	}
	o.Apply(protocol.Message{Type: protocol.MessageBatch, ID: oid, Rows: "a\x1eb", Events: events[2:]})
	if o.Run.Position() != 4 || o.Run.Trace.Grace.Spills != 1 || o.Run.RowsShown() != 0 {
		t.Errorf("opened at %d with %d spills and %d rows", o.Run.Position(), o.Run.Trace.Grace.Spills, o.Run.RowsShown())
	}
	// The whole run again: the link no longer names a position.
	s.Run.FollowLive()
	s.saveFragment()
	if o2, _ := ready(t); true {
		o2.LoadFragment(env.fragment)
		if o2.AtEvent != 0 {
			t.Errorf("a link of the whole run opens at %d", o2.AtEvent)
		}
	}
}

// Playing moves the position over the run's virtual clock at the speed picked, tick by tick.
func TestPlaybackPacesThePicture(t *testing.T) {
	s, _ := ready(t)
	s.Speed = 0.5
	s.StartRun()
	id := s.Run.ID
	var events []trace.Event
	for i := range 10 { // one request every 100 ms of virtual time
		events = append(events, ev(connevent.KindRequestSent, time.Duration(i)*100*time.Millisecond, "", map[string]any{"native": "q"}))
	}
	// The runner's own output event carries the engine's working time, not the virtual clock: it sits at
	// the virtual time reached before it.
	events = append(events, ev(trace.KindRowsEmitted, 30*time.Second, protocol.OpOutput, map[string]any{"rows": 1.0, "total": 1.0}))
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"k"}})
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: "x", Events: events})
	s.Apply(protocol.Message{Type: protocol.MessageDone, ID: id, Stats: &protocol.Stats{RowsOut: 1}})
	r := s.Run
	t0 := time.Unix(1000, 0)
	s.Tick(t0)
	if r.Position() != 1 || !r.Timeline.Playing {
		t.Fatalf("first tick: at %d, playing %v", r.Position(), r.Timeline.Playing)
	}
	s.Tick(t0.Add(time.Second)) // 0.5 s of virtual time: the requests at 0 … 500 ms
	if r.Position() != 6 || r.Trace.Requests != 6 || r.RowsShown() != 0 {
		t.Errorf("after 1 s at 0.5×: at %d, %d requests, %d rows", r.Position(), r.Trace.Requests, r.RowsShown())
	}
	s.SetSpeed("2") // the picker moved while playing: 0.1 s at 2× is 200 ms more, to 700 ms
	s.Tick(t0.Add(1100 * time.Millisecond))
	if r.Position() != 8 {
		t.Errorf("after 0.1 s more at 2×: at %d", r.Position())
	}
	s.SetSpeed("0.5")
	s.Tick(t0.Add(1400 * time.Millisecond)) // 150 ms more: 850 ms, the requests up to 800 ms
	if r.Position() != 9 || !r.Timeline.Playing {
		t.Errorf("after 1.4 s: at %d", r.Position())
	}
	s.Tick(t0.Add(2 * time.Second)) // past the end: the whole run, no longer playing
	if !r.AtEnd() || r.Timeline.Playing || r.RowsShown() != 1 {
		t.Errorf("at the end: at %d, playing %v, %d rows", r.Position(), r.Timeline.Playing, r.RowsShown())
	}
	v := s.TimelineView()
	if !v.Virtual || v.RangeMax != 900_000 || !v.Follow {
		t.Errorf("timeline %+v", v)
	}
}

// BenchmarkTapeAt scrubs a tape of 50,000 mixed events (the most the runner sends a run) back and forth
// between positions a checkpoint's length apart less one, the most events one At folds.
func BenchmarkTapeAt(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 3))
	tape := NewTape(nil)
	for i := range 50_000 {
		at := time.Duration(i) * time.Millisecond
		switch r.IntN(4) {
		case 0:
			tape.Add(ev(joinevent.KindPageFetched, at, "paged", map[string]any{"page": float64(i), "rows": 10.0}))
		case 1:
			tape.Add(ev(connevent.KindRequestSent, at, "", map[string]any{"native": "GET /x", "source": "S"}))
		case 2:
			tape.Add(ev(trace.KindRowsEmitted, at, protocol.OpOutput, map[string]any{"rows": 1.0, "total": float64(i)}))
		default:
			tape.Add(ev(joinevent.KindPartitionWritten, at, "grace", map[string]any{"partition": fmt.Sprint(r.IntN(80)), "rows": 5.0}))
		}
	}
	b.ResetTimer()
	for i := range b.N {
		k := (i%40)*checkpointEvery + checkpointEvery - 1
		tape.At(k)
	}
}

// Events the engine did not send, or past the tape's bound, are said on the page: the timeline covers the
// first ones only, and the end of the tape is not the end of the run.
func TestTimelineSaysWhatItCovers(t *testing.T) {
	s, _ := ready(t)
	s.StartRun()
	id := s.Run.ID
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"k"}})
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Dropped: 7, Events: []trace.Event{
		ev(trace.KindRowsEmitted, 0, protocol.OpOutput, map[string]any{"rows": 1.0, "total": 1.0})}, Rows: "a"})
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: "b"}) // rows whose output event was dropped
	s.Apply(protocol.Message{Type: protocol.MessageDone, ID: id, Stats: &protocol.Stats{RowsOut: 2}})
	v := s.TimelineView()
	if v.Lost != 7 || !strings.Contains(v.LostText(), "first 1 events; 7 later") {
		t.Errorf("lost %d: %q", v.Lost, v.LostText())
	}
	if s.Run.RowsShown() != 2 {
		t.Errorf("the whole run shows %d rows", s.Run.RowsShown())
	}
	s.SeekTo(1)
	if s.Run.AtEnd() || s.Run.RowsShown() != 1 {
		t.Errorf("at the tape's last event: at end %v, %d rows", s.Run.AtEnd(), s.Run.RowsShown())
	}
}

// The timeline of a real paged run is drawn: a lane per kind of marker it has, the position on the virtual
// clock, and the scrubber spanning the run's virtual time.
func TestTimelineRendersARealRun(t *testing.T) {
	s, _ := ready(t)
	s.Catalogue = *runner.Catalogue()
	s.PickScenario("okta-crowdstrike-small")
	streamInto(t, s, &protocol.Run{Query: s.Query, Scenario: s.Scenario, Seed: 1, Knobs: s.Knobs})
	html, _ := render(t, s)
	for _, want := range []string{`id="timeline"`, `id="tl-lane-pages"`, `id="tl-lane-requests"`, `id="tl-lane-rows"`,
		"virtual time", "Axis: virtual time"} {
		if !strings.Contains(html, want) {
			t.Errorf("the timeline lacks %q", want)
		}
	}
	if strings.Contains(html, `id="tl-lane-spills"`) {
		t.Error("a lane drawn for spills, which a paged run has none of")
	}
	v := s.TimelineView()
	if want := s.Run.Stats.VirtualTotal * 1000; v.RangeMax != int64(want) && v.RangeMax != int64(want)-1 {
		t.Errorf("the scrubber spans %d µs, the run's virtual clock ended at %.0f µs", v.RangeMax, want)
	}
	s.SeekTo(3)
	html, _ = render(t, s)
	if !strings.Contains(html, `data-k="3"`) || !strings.Contains(html, "Event 3 of ") || !strings.Contains(html, `id="tl-scope"`) {
		t.Errorf("at event 3 the timeline does not say so")
	}
}

// A run whose sources keep no virtual clock plays its events evenly, ten a second at 1×: its engine events
// carry no time, and the one output event's engine time would otherwise hold the whole picture at once.
func TestPlaybackWithoutAVirtualClock(t *testing.T) {
	s, _ := ready(t)
	s.Speed = 1
	s.StartRun()
	id := s.Run.ID
	var events []trace.Event
	for i := range 20 {
		events = append(events, ev(joinevent.KindPartitionWritten, 0, "g", map[string]any{"partition": fmt.Sprint(i)}))
	}
	events = append(events, ev(trace.KindRowsEmitted, 90*time.Millisecond, protocol.OpOutput, map[string]any{"rows": 1.0, "total": 1.0}))
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"k"}})
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: "x", Events: events})
	s.Apply(protocol.Message{Type: protocol.MessageDone, ID: id, Stats: &protocol.Stats{RowsOut: 1}})
	r := s.Run
	t0 := time.Unix(0, 0)
	s.Tick(t0)
	s.Tick(t0.Add(500 * time.Millisecond))
	if r.Position() != 6 || r.Trace.Events != 6 || !r.Timeline.Playing {
		t.Errorf("half a second at 1×: at %d (%d events folded)", r.Position(), r.Trace.Events)
	}
	if v := s.TimelineView(); v.Virtual || v.RangeMax != 21 || v.RangeValue != 6 {
		t.Errorf("timeline %+v", v)
	}
	s.Tick(t0.Add(3 * time.Second))
	if !r.AtEnd() || r.Timeline.Playing {
		t.Errorf("after 3 s: at %d, playing %v", r.Position(), r.Timeline.Playing)
	}
}

// BenchmarkTapeMemory reports what a tape holds per event (bytes/event) for real runs, their events decoded
// from the compact codec as the page decodes them: a 5,000,000-row hash join over the playground's tables, and a paged
// join of the small Okta scenario in pages of 20 rows.
func BenchmarkTapeMemory(b *testing.B) {
	for _, c := range []struct {
		name string
		run  *protocol.Run
	}{
		{"hash-5M", &protocol.Run{Scenario: runner.ScenarioUsersListens, Seed: 1, Knobs: map[string]float64{"listens": 5_000_000},
			Query: "@Users | join kind=inner (@Listens) on user_id | project name, user_id, song_id"}},
		{"paged-20", &protocol.Run{Scenario: "okta-crowdstrike-small", Seed: 1, Knobs: map[string]float64{"okta_rows": 2000},
			Query: "@OktaSystemLogs\n| where eventType == \"user.session.start\" and outcome.result == \"SUCCESS\"\n" +
				"| join kind=inner hint.page_rows=20 (@CrowdStrikeDetections | where severity >= 70) on $left.actor.alternateId == $right.user_name\n" +
				"| project published, user = actor.alternateId, ip = client.ipAddress, tactic"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var raws [][]byte
			runner.Stream(b.Context(), 1, c.run, func(m protocol.Message) {
				if m.Type == protocol.MessageError {
					b.Fatalf("the run failed: %s", m.Error.Message)
				}
				for _, e := range m.Events {
					data, err := registry.AppendCompact(nil, e)
					if err != nil {
						b.Fatal(err)
					}
					raws = append(raws, data)
				}
			}, nil)
			var held float64
			for b.Loop() {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				tape := NewTape(nil)
				for _, raw := range raws {
					e, err := protocol.DecodeEvent(raw)
					if err != nil {
						b.Fatal(err)
					}
					tape.Add(e)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				held = float64(after.HeapAlloc) - float64(before.HeapAlloc)
				runtime.KeepAlive(tape)
			}
			b.ReportMetric(held/float64(len(raws)), "bytes/event")
			b.ReportMetric(float64(len(raws)), "events")
		})
	}
}

// A click on the marker strip shows the run at the marker's event: the lane is the one drawn at the click's
// height, the marker the one nearest across; below the lanes nothing moves.
func TestClickingAMarkerSeeksToItsEvent(t *testing.T) {
	s, _ := ready(t)
	s.StartRun()
	id := s.Run.ID
	events := []trace.Event{
		{Op: "plan", Payload: trace.StrategyChose{Strategy: "grace"}},
		{Op: "g", Payload: joinevent.Spill{Side: "left"}},
		{Op: "g", Payload: joinevent.PartitionWritten{Partition: "0"}},
		{Op: "g", Payload: joinevent.Spill{Side: "right"}},
		{Op: "g", Payload: joinevent.PairJoined{Partition: "0"}},
		{Op: protocol.OpOutput, Payload: trace.RowsEmitted{Rows: 2, Total: 2}},
	}
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"k"}})
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: "a\x1eb", Events: events})
	s.Apply(protocol.Message{Type: protocol.MessageDone, ID: id, Stats: &protocol.Stats{RowsOut: 2}})
	r := s.Run
	lanes := r.Tape.Lanes()
	if len(lanes) != 2 || lanes[0].ID != "spills" || lanes[1].ID != "rows" {
		t.Fatalf("lanes %+v, want spills then rows out", lanes)
	}
	// No virtual clock: event i sits at (i+1)/6 of the strip's 600 units.
	for _, c := range []struct {
		x, y float64
		want int
	}{
		{401, 5, 4},  // the second spill, event 3: the run up to and including it
		{0, 11, 2},   // the first spill, the nearest to the strip's left end
		{300, 20, 6}, // the rows lane's only marker, event 5
		{200, 24, 6}, // below the lanes: the position stays
	} {
		s.SeekToMarker(c.x, c.y)
		if r.Position() != c.want || r.Trace.Events != int64(c.want) {
			t.Errorf("a click at (%v, %v) shows %d events (folded %d), want %d", c.x, c.y, r.Position(), r.Trace.Events, c.want)
		}
	}
}
