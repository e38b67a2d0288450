package ui

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/memory"
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
	if d := DiffRuns(failed, runOf(cols, a)); d.Note == "" {
		t.Error("a failed reference must not be compared with")
	}
	// B failed partway, after repeating a row: compared over what it sent, nothing counted lost.
	stopped := runOf(cols, [][]string{{"1", "x"}, {"1", "x"}})
	stopped.Status, stopped.Err = StatusFailed, &protocol.Error{Message: "the cursor has not advanced"}
	d := DiffRuns(runOf(cols, a), stopped)
	if d.Stopped != "the cursor has not advanced" || d.Lost != 0 || d.Doubled != 1 || d.Extra != 0 {
		t.Errorf("stopped B: %+v", d)
	}
	if d.A.Marks[0] != "doubled" || len(d.A.Marks) != 1 || d.B.Marks[1] != "doubled" || len(d.B.Marks) != 1 {
		t.Errorf("stopped B's marks: A %v, B %v", d.A.Marks, d.B.Marks)
	}
}

// TestDiffMarksBothTables checks the marks of each run's table: lost rows in A with a gap in B where they
// belong, repeated rows in both, reordered rows moved in both, and nothing marked for arbitrary rows.
func TestDiffMarksBothTables(t *testing.T) {
	cols := []string{"k"}
	a := [][]string{{"1"}, {"2"}, {"3"}, {"4"}}
	for _, tt := range []struct {
		name  string
		b     [][]string
		wantA map[int]string
		wantB map[int]string
	}{
		{"lost", [][]string{{"1"}, {"4"}}, map[int]string{1: "lost", 2: "lost"}, map[int]string{1: "gap"}},
		{"doubled", [][]string{{"1"}, {"2"}, {"2"}, {"3"}, {"4"}}, map[int]string{1: "doubled"}, map[int]string{2: "doubled"}},
		{"lost the last", [][]string{{"1"}, {"2"}, {"3"}}, map[int]string{3: "lost"}, map[int]string{}},
		{"extra", [][]string{{"1"}, {"2"}, {"3"}, {"4"}, {"5"}}, map[int]string{}, map[int]string{4: "extra"}},
		{"moved", [][]string{{"1"}, {"3"}, {"2"}, {"4"}}, map[int]string{1: "moved", 2: "moved"}, map[int]string{1: "moved", 2: "moved"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := DiffRuns(runOf(cols, a), runOf(cols, tt.b))
			if !maps.Equal(d.A.Marks, tt.wantA) && !(len(d.A.Marks) == 0 && len(tt.wantA) == 0) {
				t.Errorf("A's marks %v, want %v", d.A.Marks, tt.wantA)
			}
			if !maps.Equal(d.B.Marks, tt.wantB) && !(len(d.B.Marks) == 0 && len(tt.wantB) == 0) {
				t.Errorf("B's marks %v, want %v", d.B.Marks, tt.wantB)
			}
		})
	}
	// A tie group of two identical rows, one copy lost: the second copy is marked, the gap before "3".
	d := DiffRuns(runOf(cols, [][]string{{"1"}, {"2"}, {"2"}, {"3"}}), runOf(cols, [][]string{{"1"}, {"2"}, {"3"}}))
	if !maps.Equal(d.A.Marks, map[int]string{2: "lost"}) || !maps.Equal(d.B.Marks, map[int]string{2: "gap"}) {
		t.Errorf("a lost copy: A's marks %v, B's %v", d.A.Marks, d.B.Marks)
	}
	ra, rb := runOf(cols, a), runOf(cols, [][]string{{"7"}, {"8"}, {"9"}, {"4"}})
	ra.Arbitrary, rb.Arbitrary = true, true
	d = DiffRuns(ra, rb)
	if !d.Arbitrary || len(d.A.Marks)+len(d.B.Marks) != 0 {
		t.Errorf("arbitrary rows: %+v", d)
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
	// The engine runs flat out; the page plays the picture back at the speed (timeline.go).
	if !s.Run.Timeline.Playing || s.Run.Timeline.Speed != 10 {
		t.Errorf("timeline %+v, want it playing at 10x", s.Run.Timeline)
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
	if r := oenv.posted[0].Run; r.PauseAfter != 4 || o.Run.Timeline.Speed != 10 {
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
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"k"}, Explain: "physical plan (after rewrites):\n  paged join kind=inner\n"})
	var events []trace.Event
	for i := 1; i <= 5; i++ {
		at := time.Duration(i) * 100 * time.Millisecond
		events = append(events,
			ev("request_sent", at, "scan@Okta", map[string]any{"source": "Okta", "native": "q", "query_bytes": 10.0}),
			ev(memory.KindHighWater, at, "", map[string]any{"bytes": float64(i << 20)}),
			ev(trace.KindRowsEmitted, at, "output", map[string]any{"rows": 10.0, "total": float64(10 * i)}))
	}
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: "1", Events: events})
	html, _ := render(t, s)
	for _, want := range []string{`id="chart-rows"`, `id="chart-requests"`, `id="chart-memory"`, "up to 5.0 MiB", "over 500.0ms of virtual time"} {
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

// TestOwnTablesByHandle adds a file's table, names it from the file, renames it (refusing bad and taken
// names), renders its progress, summary and parse error, and runs over it by handle, never by text.
func TestOwnTablesByHandle(t *testing.T) {
	s, env := ready(t)
	req := s.AddFile("clicks-2024.v2.jsonl", 50<<20)
	if req.Type != protocol.RequestLoad || req.Load.Data != "" || req.Load.Format != "jsonl" || req.Load.Size != 50<<20 {
		t.Fatalf("load request %+v", req.Load)
	}
	tb := s.tableByID(req.Load.Table)
	if tb.Name != "clicks_2024_v2" {
		t.Errorf("name from file %q, want clicks_2024_v2", tb.Name)
	}
	if again := s.AddFile("clicks-2024.v2.jsonl", 1); s.tableByID(again.Load.Table).Name != "clicks_2024_v22" {
		t.Errorf("a second file of the same name is @%s", s.tableByID(again.Load.Table).Name)
	}
	if csv := s.AddFile("9lives.CSV", 10); s.tableByID(csv.Load.Table).Name != "_9lives" || csv.Load.Format != "csv" {
		t.Errorf("CSV file: %+v as @%s", csv.Load, s.tableByID(csv.Load.Table).Name)
	}
	tb = s.tableByID(req.Load.Table) // the slice moved as tables were added
	s.Apply(protocol.Message{Type: protocol.MessageLoadProgress, Table: tb.ID, Read: 25 << 20})
	html, _ := render(t, s)
	if !strings.Contains(html, "Parsing… 25.0 MiB of 50.0 MiB (50%)") {
		t.Errorf("no progress in\n%s", html)
	}
	if !strings.Contains(html, `data-progress="{&#34;reports&#34;:1,&#34;rises&#34;:0,&#34;falls&#34;:0,&#34;first&#34;:0.5,&#34;last&#34;:0.5,&#34;least&#34;:0.5,&#34;most&#34;:0.5}" data-progress-reports="1" data-read="26214400"`) {
		t.Errorf("no count or fold of progress reports in\n%s", html)
	}
	for _, bad := range []string{"has space", "1abc", "Users", ""} {
		s.RenameTable(tb.ID, bad)
		if tb.Name != "clicks_2024_v2" || tb.NameErr == "" {
			t.Errorf("rename to %q: name %q, error %q", bad, tb.Name, tb.NameErr)
		}
	}
	s.RenameTable(tb.ID, "@Clicks")
	if tb.Name != "Clicks" || tb.NameErr != "" {
		t.Errorf("rename: %q, %q", tb.Name, tb.NameErr)
	}
	s.Apply(protocol.Message{Type: protocol.MessageLoaded, Table: tb.ID, Summary: &protocol.Summary{Rows: 1234567, Bytes: 50 << 20,
		Columns: []protocol.Column{{Name: "user_id", Type: "long"}, {Name: "at", Type: "datetime"}}}})
	html, _ = render(t, s)
	if !strings.Contains(html, "1,234,567 rows · 2 columns: user_id long, at datetime") {
		t.Errorf("no summary in\n%s", html)
	}
	other := s.tableByID(req.Load.Table + 1)
	s.Apply(protocol.Message{Type: protocol.MessageLoadFailed, Table: other.ID, Error: &protocol.Error{Message: "line 7: malformed JSON", Line: 7}})
	html, _ = render(t, s)
	if !strings.Contains(html, `data-line="7"`) || !strings.Contains(html, "line 7: malformed JSON") {
		t.Errorf("no parse error in\n%s", html)
	}
	s.StartRun()
	run := env.posted[len(env.posted)-1].Run
	if in := run.Sources["Clicks"]; in.Table != tb.ID || in.Data != "" {
		t.Errorf("run input %+v, want the handle %d", in, tb.ID)
	}
	id := tb.ID
	s.RemoveTable(id)
	if last := env.posted[len(env.posted)-1]; last.Type != protocol.RequestDrop || last.Load.Table != id || s.tableNamed("Clicks") != nil {
		t.Errorf("remove posted %+v", last)
	}
}

// TestShareLinkOwnData: small tables travel in the link, and say so; a large one is named only, and the
// link's opener is told the data stayed with the sender.
func TestShareLinkOwnData(t *testing.T) {
	s, env := ready(t)
	if note := s.ShareNote(); !strings.Contains(note, "the link carries them") {
		t.Errorf("note for small tables %q", note)
	}
	st, err := share.DecodeFragment(s.Fragment())
	if err != nil || len(st.Tables) != 2 || !strings.Contains(st.Tables[0].Data, "Mickey") {
		t.Fatalf("small tables in the link: %+v, %v", st, err)
	}
	big := s.AddFile("events.jsonl", 100<<20)
	s.Apply(protocol.Message{Type: protocol.MessageLoaded, Table: big.Load.Table, Summary: &protocol.Summary{Rows: 10, Bytes: 100 << 20}})
	if note := s.ShareNote(); !strings.Contains(note, "Your data stayed on this device") {
		t.Errorf("note for large data %q", note)
	}
	frag := s.Fragment()
	st, _ = share.DecodeFragment(frag)
	if len(st.Tables) != 3 || st.Tables[0].Data == "" || st.Tables[1].Data == "" || st.Tables[2].Data != "" {
		t.Errorf("link tables %+v: want the small ones' text, the large one's name only", st.Tables)
	}
	o, oenv := ready(t)
	oenv.posted = nil
	o.LoadFragment(frag)
	loads := 0
	for _, r := range oenv.posted {
		if r.Type == protocol.RequestLoad && r.Load.Data != "" {
			loads++
		}
	}
	if loads != 2 {
		t.Errorf("the opened link handed %d tables to the engine, want the two small ones", loads)
	}
	if len(o.Tables) != 3 || o.Tables[2].Status != TableMissing || !strings.Contains(o.Notice, "@events") ||
		o.Tables[0].Status != TableLoading {
		t.Errorf("opened link: tables %+v, notice %q", o.Tables, o.Notice)
	}
	oenv.posted = nil
	o.StartRun()
	if len(oenv.posted) != 0 || !strings.Contains(o.Notice, "cannot run yet: @events") {
		t.Errorf("a run with a table missing: posted %+v, notice %q", oenv.posted, o.Notice)
	}
	// The opener's own file, named so, takes the placeholder's place.
	mine := o.AddFile("events.jsonl", 10)
	if tb := o.tableByID(mine.Load.Table); tb.Name != "events" || o.missingTables() != "" {
		t.Errorf("own file for a missing table: @%s, missing %q", tb.Name, o.missingTables())
	}
	_ = env
}

// TestDownloadRunsTheRunAgain: a download asks the engine for the finished run's request again, one at a
// time, and the note says what was saved.
func TestDownloadRunsTheRunAgain(t *testing.T) {
	s, env := ready(t)
	s.StartRun()
	run := env.posted[0].Run
	s.Download("csv")
	if len(env.posted) != 1 {
		t.Fatalf("a download before the run was done: %+v", env.posted[1:])
	}
	id := s.Run.ID
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"name", "song_id"}})
	s.Apply(protocol.Message{Type: protocol.MessageDone, ID: id, Stats: &protocol.Stats{RowsOut: 8}})
	s.Download("csv")
	s.Download("jsonl") // ignored: one download at a time
	if len(env.posted) != 2 || env.posted[1].Type != protocol.RequestDownload || env.posted[1].Download.Run != run ||
		env.posted[1].Download.Format != "csv" {
		t.Fatalf("posted %+v", env.posted[1:])
	}
	s.Apply(protocol.Message{Type: protocol.MessageDownload, ID: env.posted[1].ID, File: "joinlab-results.csv", Read: 2048})
	if s.Downloading != "" || s.DownloadBytes != 2048 || s.DownloadNote != "Saved joinlab-results.csv (2.0 KiB), made on this device." {
		t.Errorf("after the download: %q %d %q", s.Downloading, s.DownloadBytes, s.DownloadNote)
	}
	html, _ := render(t, s)
	for _, id := range []string{"download-csv", "download-jsonl", "download-trace"} {
		if !strings.Contains(html, `id="`+id+`"`) {
			t.Errorf("no #%s", id)
		}
	}
}
