package ui

import (
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/share"
)

func TestErrorMarkedAtPosition(t *testing.T) {
	s, env := ready(t)
	s.SetQuery("@Users\n| where (")
	s.StartRun()
	if len(env.posted) != 1 || env.posted[0].Type != protocol.RequestRun || env.posted[0].Run.Query != s.Query {
		t.Fatalf("posted %+v", env.posted)
	}
	s.Apply(protocol.Message{Type: protocol.MessageError, ID: s.Run.ID,
		Error: &protocol.Error{Message: "2:10: expected expression, found end of query", Line: 2, Col: 10}})
	html, _ := render(t, s)
	if !strings.Contains(html, `id="error-mark"`) {
		t.Fatalf("no error mark in\n%s", html)
	}
	c := &Root{State: s}
	parts := c.ErrorParts()
	if parts[0] != "@Users\n| where (" || parts[1] != " " || parts[2] != "" {
		t.Errorf("parts %q: want the mark after the open parenthesis, at the end", parts)
	}
	if !strings.Contains(html, "2:10: expected expression") {
		t.Error("the message is not shown")
	}
	// Inside a line, the character at the position is marked.
	s.SetQuery("@Users | wher x")
	s.Run.Err = &protocol.Error{Message: "1:10: unknown operator wher", Line: 1, Col: 10}
	if p := c.ErrorParts(); p[1] != "w" || p[0] != "@Users | " {
		t.Errorf("parts %q: want the w of wher marked", p)
	}
}

func TestOffset(t *testing.T) {
	for _, tc := range []struct {
		text      string
		line, col int
		want      int
		ok        bool
	}{
		{"abc", 1, 1, 0, true},
		{"abc", 1, 4, 3, true},
		{"abc", 1, 5, 0, false},
		{"ab\ncd", 2, 2, 4, true},
		{"ab\ncd", 3, 1, 0, false},
		{"ab", 0, 1, 0, false},
	} {
		got, ok := Offset(tc.text, tc.line, tc.col)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Offset(%q, %d, %d) = %d, %v; want %d, %v", tc.text, tc.line, tc.col, got, ok, tc.want, tc.ok)
		}
	}
}

func TestShareRoundTrip(t *testing.T) {
	s, _ := ready(t)
	s.PickScenario("demo")
	s.SetKnob("rows", "42")
	s.SetKnob("rows", "not a number") // ignored
	s.SetSeed("7")
	s.SetMemoryMiB("1.5")
	s.SetStrategy("keyset-lt")
	frag := s.Fragment()

	r, _ := ready(t)
	r.LoadFragment(frag)
	if r.Notice != "" {
		t.Fatalf("notice %q", r.Notice)
	}
	if r.Scenario != "demo" || r.Knobs["rows"] != 42 || r.Seed != 7 || r.MemoryBudget != 3<<19 ||
		r.Strategy != "keyset-lt" || r.Query != s.Query {
		t.Errorf("restored %+v from %+v", r.Share(), s.Share())
	}
	// Out-of-range knobs are clamped to the scenario's range.
	st := s.Share()
	st.Knobs = map[string]float64{"rows": 1e9}
	r.LoadFragment(st.Fragment())
	if r.Knobs["rows"] != 100 {
		t.Errorf("knob %v, want it clamped to 100", r.Knobs["rows"])
	}
}

func TestMalformedShareLinks(t *testing.T) {
	good := (&share.State{Query: "@A | take 1", Seed: 1}).Fragment()
	for name, frag := range map[string]string{
		"not ours":       "section-2",
		"bad base64":     "s1.%%%",
		"not deflate":    "s1.aGVsbG8",
		"too long":       "s1." + strings.Repeat("A", 64<<10),
		"bad scenario":   (&share.State{Scenario: "nope"}).Fragment(),
		"truncated":      good[:len(good)-4],
		"negative value": (&share.State{MemoryBudget: -1}).Fragment(),
	} {
		s, _ := ready(t)
		before := s.Share()
		s.LoadFragment(frag)
		if s.Notice == "" {
			t.Errorf("%s: no notice", name)
		}
		if after := s.Share(); after.Query != before.Query || after.Scenario != before.Scenario {
			t.Errorf("%s: the settings changed to %+v", name, after)
		}
		html, _ := render(t, s)
		if !strings.Contains(html, `id="notice"`) || !strings.Contains(html, `id="query"`) {
			t.Errorf("%s: the page lacks the notice or the editor", name)
		}
	}
}

func TestMarkupInSharedStateIsText(t *testing.T) {
	s, _ := ready(t)
	s.LoadFragment((&share.State{Query: `<img src=x onerror=alert(1)>`, Seed: 1}).Fragment())
	s.StartRun()
	s.Apply(protocol.Message{Type: protocol.MessageError, ID: s.Run.ID, Error: &protocol.Error{Message: "<b>bad</b>"}})
	html, _ := render(t, s)
	if strings.Contains(html, "<img") || strings.Contains(html, "<b>bad") {
		t.Errorf("markup from the link reached the page as markup:\n%s", html)
	}
}

func TestOldRunMessagesIgnored(t *testing.T) {
	s, env := ready(t)
	s.StartRun()
	first := s.Run.ID
	s.StartRun() // cancels the first
	if last := env.posted[len(env.posted)-2]; last.Type != protocol.RequestCancel || last.ID != first {
		t.Errorf("restarting did not cancel run %d: %+v", first, env.posted)
	}
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: first, Rows: "a\x1fb"})
	if s.Run.Rows.Len() != 0 {
		t.Error("a batch of the canceled run reached the new one")
	}
}

func TestRowStore(t *testing.T) {
	var st RowStore
	st.Append(protocol.PackRows([][]string{{"a", "1"}, {"b", ""}}))
	st.Append("")
	st.Append(protocol.PackRows([][]string{{"c", "3"}}))
	if st.Len() != 3 {
		t.Fatalf("len %d", st.Len())
	}
	got := st.Slice(0, 10, 2)
	want := [][]string{{"a", "1"}, {"b", ""}, {"c", "3"}}
	for i := range want {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d %q, want %q", i, got[i], want[i])
		}
	}
	if r := st.Row(2, 2); r[0] != "c" {
		t.Errorf("row 2 %q", r)
	}
}

// Every strategy view renders, and does not break, with no events, with zero-valued events, and with the
// fields their issues name.
func TestStrategyViews(t *testing.T) {
	// The kinds and fields engine/join/joinevent declares (grace.go, salted.go, sweep.go, paged.go), some events
	// zero-valued, and a payload no view knows.
	events := map[string][]trace.Event{
		"grace": {
			ev("spill", 0, "", map[string]any{"side": "left", "level": 0.0, "partitions": 2.0, "rows": 50.0}),
			ev("partition_written", 0, "", map[string]any{"side": "left", "partition": "0", "rows": 40.0, "bytes": 800.0}),
			ev("partition_written", 0, "", map[string]any{"side": "left", "partition": "1", "rows": 10.0, "level": 1.0}),
			ev("partition_read", 0, "", map[string]any{"partition": "1", "rows": 10.0}),
			ev("repartition", 0, "", map[string]any{"level": 1.0, "fanout": 4.0}),
			ev("hot_key", 0, "", map[string]any{"key": "user 42", "rows": 30.0}),
			ev("pair_joined", 0, "", map[string]any{"partition": "0", "method": "hash", "rows": 12.0}),
			ev("partition_written", 0, "", nil),
		},
		"salted": {
			ev("heavy_key_found", 0, "", map[string]any{"key": "k1", "left_rows": 900.0, "right_rows": 3.0}),
			ev("worker_load", 0, "", map[string]any{"worker": 0.0, "load_before": 900.0, "load_after": 300.0}),
			ev("worker_load", 0, "", map[string]any{"worker": 1.0, "load_before": 10.0, "load_after": 310.0}),
			ev("worker_load", 0, "", map[string]any{"worker": 3.0, "load_before": 5.0, "load_after": 2.0}),
			ev("salt_assigned", 0, "", map[string]any{"key": "k1", "rows_per_salt": []any{300.0, 300.0, 300.0}}),
			ev("rows_replicated", 0, "", map[string]any{"rows": 20.0, "copies": 4.0}),
		},
		"sweep": {
			ev("sweep_advanced", 0, "", map[string]any{"position": 1.7e18, "active_left": 1.0, "active_right": 2.0}),
			ev("sweep_advanced", 0, "", map[string]any{"position": 1.8e18, "active_left": 2.0, "active_right": 3.0,
				"expired": 2.0, "overlaps": 1.0}),
			ev("sweep_advanced", 0, "", nil),
		},
		"paged": {
			ev("page_requested", 0, "", map[string]any{"page": 1.0, "cursor": []any{"2024-01-01", "bob"}}),
			ev("request_sent", 0, "", map[string]any{"native": "SigninLogs | take 50", "query_bytes": 20.0, "source": "SigninLogs",
				"max_query_bytes": 4096.0, "in_values": 3.0, "max_in_values": 20.0, "limit": 50.0, "max_rows": 500000.0}),
			ev("page_returned", 0, "", map[string]any{"rows": 50.0, "bytes": 4000.0}),
			ev("page_fetched", 0, "", map[string]any{"page": 1.0, "rows": 50.0, "bytes": 4000.0, "distinct_keys": 12.0}),
			ev("tie_group_cut", 0, "", map[string]any{"page": 1.0, "tuple": "2024-01-01"}),
			ev("filter_split", 0, "", map[string]any{"slices": 3.0, "slice_bytes": []any{900.0, 1000.0, 400.0}, "max_bytes": 1024.0}),
			ev("page_fetched", 0, "", nil),
			ev("refetch", 0, "", map[string]any{"rows": 7.0}),
			ev("page_requested", 0, "", map[string]any{"page": 2.0, "wide": true}),
			ev("refetch", 0, "", map[string]any{"rows": 2.0, "from_page": true}),
			ev("request_throttled", 0, "", map[string]any{"retry_after_ns": 1e9}),
		},
		"mystery": {{Payload: mystery{X: []int{1, 2}}}},
	}
	for strategy, evs := range events {
		for _, n := range []int{0, 1, len(evs)} {
			s, _ := ready(t)
			s.SetStrategy(strategy)
			s.StartRun()
			s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: s.Run.ID, Columns: []string{"a"}})
			s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: s.Run.ID, Events: evs[:n]})
			html, _ := render(t, s)
			view := (&Root{State: s}).View()
			if !strings.Contains(html, `id="view-`+view+`"`) {
				t.Errorf("%s with %d events: no %s view", strategy, n, view)
			}
			if strategy != "mystery" && view != strategy {
				t.Errorf("%s: shown as the %s view", strategy, view)
			}
		}
	}
	// With all its events, each view shows what they said.
	s, _ := ready(t)
	s.StartRun()
	for _, evs := range events {
		for _, e := range evs {
			s.Run.Trace.Add(e)
		}
	}
	tv := s.Run.Trace
	if len(tv.Grace.Bins) != 2 || tv.Grace.Levels != 1 || len(tv.Grace.HotKeys) != 1 || tv.Grace.Pairs != 1 ||
		tv.Grace.Spills != 1 || tv.Grace.Bins[0].Rows != 40 || !tv.Grace.Bins[1].Spilled {
		t.Errorf("grace summary %+v", tv.Grace)
	}
	if b, a, _ := tv.Salted.Loads(); len(b) != 4 || b[0] != 900 || a[1] != 310 || b[3] != 5 ||
		len(tv.Salted.HeavyKeys) != 1 || tv.Salted.HeavyKeys[0].Left+tv.Salted.HeavyKeys[0].Right != 903 || tv.Salted.Workers != 4 {
		t.Errorf("salted loads %v %v, summary %+v", b, a, tv.Salted)
	}
	if len(tv.Natives) != 1 || tv.Natives[0].Bytes != 20 {
		t.Errorf("natives %+v", tv.Natives)
	}
	s.Tab = "trace"
	if html, _ := render(t, s); !strings.Contains(html, "SigninLogs | take 50") || !strings.Contains(html, "@SigninLogs · 20 B of 4.0 KiB (query text cap) · 3 of 20 IN values per list · take 50 of 500,000 rows per response") {
		t.Error("the trace tab does not list the native request")
	}
	if tv.Sweep.ActiveMax != 5 || tv.Sweep.Expired != 2 || tv.Sweep.Overlaps != 1 {
		t.Errorf("sweep summary %+v", tv.Sweep)
	}
	if len(tv.Paged.Pages) != 2 || !tv.Paged.Pages[0].Tie || tv.Paged.TiesCut != 1 || len(tv.Paged.Slices) != 3 ||
		tv.Paged.SliceCap != 1024 || tv.Paged.Requests != 1 || tv.Paged.Thin != 1 || tv.Paged.Wide != 1 || tv.Paged.FromPage != 1 || tv.Paged.Refetches != 2 || tv.Paged.Throttled != 1 ||
		tv.Paged.Pages[0].Keys != 12 {
		t.Errorf("paged summary %+v", tv.Paged)
	}
}

func TestSeriesStaysBounded(t *testing.T) {
	var s Series
	for i := range 10_000 {
		s.Add(float64(i), float64(i))
	}
	if len(s.X) > maxPoints || s.X[len(s.X)-1] != 9999 {
		t.Errorf("%d points, last %v", len(s.X), s.X[len(s.X)-1])
	}
}

func TestScansSplitPlanningFromRunning(t *testing.T) {
	tv := NewTraceView()
	scan := func(src, phase string, n, scan float64) {
		tv.Add(ev("scan_rows", 0, "", map[string]any{"source": src, "rows": n, "total": n,
			"scan": scan, "phase": phase}))
	}
	scan("Listens", "plan", 500, 1) // a strategy measuring its input
	scan("Users", "run", 10, 1)
	scan("Listens", "run", 100, 2)
	scan("Listens", "run", 40, 3) // read again: the bar shows the latest pass
	if len(tv.Scans) != 2 || tv.Scans[0].Source != "Users" || tv.Scans[1].Rows != 40 || tv.Scans[1].Scans != 3 {
		t.Errorf("scans %+v", tv.Scans)
	}
	if tv.PlanReads != 500 || tv.RunReads != 150 {
		t.Errorf("reads: %d planning, %d running", tv.PlanReads, tv.RunReads)
	}
}

// mystery is a payload no view knows: the page counts it and draws nothing of it.
type mystery struct{ X []int }

func (mystery) Kind() trace.Kind { return "something_new" }
