package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/share"
)

// finish feeds run id the given rows and ends it with stats.
func finish(s *State, id int, cols []string, rows [][]string, stats *protocol.Stats) {
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: cols})
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: protocol.PackRows(rows)})
	if stats == nil {
		stats = &protocol.Stats{RowsOut: int64(len(rows))}
	}
	s.Apply(protocol.Message{Type: protocol.MessageDone, ID: id, Stats: stats})
}

func runOf(cols []string, rows [][]string) *Run {
	r := &Run{Status: StatusDone, Columns: cols, Trace: NewTraceView(), Stats: &protocol.Stats{RowsOut: int64(len(rows))}}
	r.Rows.Append(protocol.PackRows(rows))
	return r
}

func TestDiffRuns(t *testing.T) {
	cols := []string{"k", "v"}
	a := [][]string{{"1", "x"}, {"2", "y"}, {"2", "y"}, {"3", "z"}}
	tests := []struct {
		name                 string
		b                    [][]string
		lost, doubled, extra int
		outOfOrder           int
		marks                []string
	}{
		{"same", a, 0, 0, 0, 0, nil},
		{"reordered", [][]string{{"1", "x"}, {"3", "z"}, {"2", "y"}, {"2", "y"}}, 0, 0, 0, 2, nil},
		{"lost a tie", [][]string{{"1", "x"}, {"2", "y"}, {"3", "z"}}, 1, 0, 0, 0, []string{"lost"}},
		{"lost a row whole", [][]string{{"2", "y"}, {"2", "y"}, {"3", "z"}}, 1, 0, 0, 0, []string{"lost"}},
		{"doubled", append(append([][]string{}, a...), []string{"3", "z"}), 0, 1, 0, 0, []string{"doubled"}},
		{"extra", append(append([][]string{}, a...), []string{"4", "w"}), 0, 0, 1, 0, []string{"extra"}},
		{"all three", [][]string{{"1", "x"}, {"1", "x"}, {"2", "y"}, {"9", "q"}}, 2, 1, 1, 0, []string{"doubled", "lost", "lost", "extra"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DiffRuns(runOf(cols, a), runOf(cols, tt.b))
			if d.Lost != tt.lost || d.Doubled != tt.doubled || d.Extra != tt.extra || d.OutOfOrder != tt.outOfOrder {
				t.Errorf("lost %d doubled %d extra %d out of order %d; want %d %d %d %d", d.Lost, d.Doubled, d.Extra,
					d.OutOfOrder, tt.lost, tt.doubled, tt.extra, tt.outOfOrder)
			}
			var marks []string
			for _, r := range d.Rows {
				marks = append(marks, r.Mark)
			}
			if strings.Join(marks, ",") != strings.Join(tt.marks, ",") {
				t.Errorf("marks %v, want %v", marks, tt.marks)
			}
			if d.Same() != (tt.name == "same") {
				t.Errorf("Same() = %v", d.Same())
			}
		})
	}
	if d := DiffRuns(runOf(cols, a), runOf([]string{"k"}, nil)); !strings.Contains(d.Note, "different columns") {
		t.Errorf("different columns: note %q", d.Note)
	}
	failed := runOf(cols, a)
	failed.Status = StatusFailed
	if d := DiffRuns(runOf(cols, a), failed); d.Note == "" {
		t.Error("a failed run must not be compared")
	}
}

func TestCompareRunsBothAndMarksRows(t *testing.T) {
	s, env := ready(t)
	s.PickScenario("demo")
	s.SetStrategy("hash")
	s.SetCompare("keyset-lt")
	s.StartRun()
	if len(env.posted) != 2 || env.posted[0].Run.Strategy != "hash" || env.posted[1].Run.Strategy != "keyset-lt" ||
		env.posted[0].Run.Query != env.posted[1].Run.Query || env.posted[1].Run.Seed != env.posted[0].Run.Seed {
		t.Fatalf("posted %+v", env.posted)
	}
	a, b := env.posted[0].ID, env.posted[1].ID
	cols := []string{"k"}
	finish(s, a, cols, [][]string{{"1"}, {"2"}, {"2"}}, nil)
	if s.Diff != nil {
		t.Fatal("compared before the second run was over")
	}
	finish(s, b, cols, [][]string{{"1"}, {"2"}}, nil)
	if s.Diff == nil || s.Diff.Lost != 1 {
		t.Fatalf("diff %+v", s.Diff)
	}
	html, _ := render(t, s)
	for _, want := range []string{`id="compare"`, `data-mark="lost"`, "B: keyset-lt (baseline)", "A: hash", "1 rows lost"} {
		if !strings.Contains(html, want) {
			t.Errorf("compare panel lacks %q", want)
		}
	}
	// Pause and cancel reach both runs; switching compare off drops the second.
	env.posted = nil
	s.StartRun()
	s.TogglePause()
	s.CancelRun()
	var types []string
	for _, p := range env.posted {
		types = append(types, p.Type)
	}
	if got := strings.Join(types, " "); got != "run run pause pause cancel cancel" {
		t.Errorf("requests %q", got)
	}
	s.SetCompare(CompareOff)
	if s.CompareRun != nil || s.Comparing {
		t.Error("compare off leaves a second run")
	}
	if html, _ := render(t, s); strings.Contains(html, `id="compare"`) {
		t.Error("compare panel shown with comparison off")
	}
}

func TestSpeedAndPausedStepInLink(t *testing.T) {
	s, env := ready(t)
	s.PickScenario("demo")
	s.SetSpeed("10")
	s.SetSpeed("-3") // ignored
	st, err := share.DecodeFragment(env.fragment)
	if err != nil || st.Speed != 10 {
		t.Fatalf("fragment %q: %+v, %v", env.fragment, st, err)
	}
	s.StartRun()
	if env.posted[0].Run.Speed != 10 {
		t.Errorf("run posted with speed %v", env.posted[0].Run.Speed)
	}
	id := s.Run.ID
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"k"}})
	for range 3 {
		s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: "1"})
	}
	s.TogglePause()
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: "2"}) // the one being posted
	st, _ = share.DecodeFragment(env.fragment)
	if st.PausedAt != 4 {
		t.Fatalf("paused after 4 batches; the link says %d", st.PausedAt)
	}

	// Opening the link: the same speed, and the next run is held at batch 4.
	o, oenv := ready(t)
	o.LoadFragment(env.fragment)
	if o.Speed != 10 || o.PausedAt != 4 || o.Scenario != "demo" {
		t.Fatalf("restored speed %v, paused at %d, scenario %q", o.Speed, o.PausedAt, o.Scenario)
	}
	if html, _ := render(t, o); !strings.Contains(html, `<option selected="selected" value="10">`) {
		t.Error("the speed picker does not show 10×")
	}
	o.StartRun()
	if r := oenv.posted[0].Run; r.PauseAfter != 4 || r.Speed != 10 {
		t.Fatalf("run posted %+v", r)
	}
	if st, _ := share.DecodeFragment(oenv.fragment); st.PausedAt != 4 {
		t.Errorf("while going to its pause the link says paused_at %d", st.PausedAt)
	}
	oid := o.Run.ID
	o.Apply(protocol.Message{Type: protocol.MessageStarted, ID: oid, Columns: []string{"k"}})
	for i := range 4 {
		if o.Run.Paused {
			t.Fatalf("paused after %d batches", i)
		}
		o.Apply(protocol.Message{Type: protocol.MessageBatch, ID: oid, Rows: "1"})
	}
	if !o.Run.Paused {
		t.Fatal("not paused at batch 4")
	}
	html, _ := render(t, o)
	if !strings.Contains(html, "Paused at 4 rows") {
		t.Errorf("status does not say paused")
	}
	o.Step()
	if last := oenv.posted[len(oenv.posted)-1]; last.Type != protocol.RequestStep {
		t.Errorf("step posted %q", last.Type)
	}
}

func TestMetricsShowConnectorFiguresAndCharts(t *testing.T) {
	s, _ := ready(t)
	s.PickScenario("demo")
	s.StartRun()
	id := s.Run.ID
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"k"}, Explain: "physical plan:\n  paged join kind=inner\n"})
	var events []trace.Event
	for i := 1; i <= 5; i++ {
		at := time.Duration(i) * 100 * time.Millisecond
		events = append(events,
			trace.Event{Kind: "request_sent", At: at, Op: "scan@Okta", Attrs: map[string]any{"source": "Okta", "native": "q", "query_bytes": 10.0}},
			trace.Event{Kind: trace.MemoryHigh, At: at, Attrs: map[string]any{"bytes": float64(i << 20)}},
			trace.Event{Kind: trace.RowsEmitted, At: at, Op: "output", Attrs: map[string]any{"rows": 10.0, "total": float64(10 * i)}})
	}
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: "1", Events: events})
	html, _ := render(t, s)
	for _, want := range []string{`id="chart-rows"`, `id="chart-requests"`, `id="chart-memory"`, "up to 5.0 MiB", "over 500.0ms of trace time"} {
		if !strings.Contains(html, want) {
			t.Errorf("running: metrics lack %q", want)
		}
	}
	s.Apply(protocol.Message{Type: protocol.MessageDone, ID: id, Stats: &protocol.Stats{RowsOut: 50, Requests: 7,
		RequestsBySource: map[string]int64{"Okta": 5, "CrowdStrike": 2}, Retries: 1, BytesShipped: 2048, RowsScanned: 900,
		VirtualFirstRow: 120, VirtualTotal: 1500}})
	html, _ = render(t, s)
	for _, want := range []string{"7 (@CrowdStrike 2, @Okta 5); 1 retried", "2.0 KiB; 900 rows scanned", "first row at 120.0ms, done at 1.50s"} {
		if !strings.Contains(html, want) {
			t.Errorf("done: metrics lack %q", want)
		}
	}
}

func TestFileInputPerTable(t *testing.T) {
	s, _ := ready(t)
	html, _ := render(t, s)
	for _, tb := range s.Tables {
		if !strings.Contains(html, `id="file-`+tb.Name+`"`) || !strings.Contains(html, `data-table="`+tb.Name+`"`) {
			t.Errorf("no file input for @%s", tb.Name)
		}
	}
}
