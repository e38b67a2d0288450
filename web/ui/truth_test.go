package ui

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// realRun is one run of the engine as the page receives it: its events and its stats.
type realRun struct {
	events  []trace.Event
	stats   *protocol.Stats
	err     *protocol.Error
	rows    [][]string
	cols    []string
	explain string
	// view and drawn are the view and the join the started message named.
	view, drawn string
}

func runForReal(t *testing.T, r *protocol.Run) realRun {
	t.Helper()
	var out realRun
	// No wall-clock limit: on a busy machine any run may be slow, and a stuck one is stopped by go test's own
	// -timeout, which names the test. The scenarios too large for a strategy are left out by the callers.
	runner.Stream(t.Context(), 1, r, func(m protocol.Message) {
		out.events = append(out.events, m.Events...)
		switch m.Type {
		case protocol.MessageStarted:
			out.cols, out.explain, out.view, out.drawn = m.Columns, m.Explain, m.View, m.Strategy
		case protocol.MessageBatch:
			out.rows = append(out.rows, protocol.UnpackRows(m.Rows, len(out.cols))...)
		case protocol.MessageDone:
			out.stats = m.Stats
		case protocol.MessageError:
			out.err, out.stats = m.Error, m.Stats
		}
	}, nil)
	return out
}

// detailInt reads an integer detail as the engine sets it.
func detailInt(t *testing.T, d map[string]any, key string) int64 {
	t.Helper()
	switch v := d[key].(type) {
	case int64:
		return v
	case int:
		return int64(v)
	case float64:
		return int64(v)
	}
	t.Fatalf("detail %s = %#v: not a number (details %v)", key, d[key], d)
	return 0
}

// detailLen is the length of a list detail.
func detailLen(t *testing.T, d map[string]any, key string) int {
	t.Helper()
	v := reflect.ValueOf(d[key])
	if v.Kind() != reflect.Slice {
		t.Fatalf("detail %s = %#v: not a list", key, d[key])
	}
	return v.Len()
}

// TestViewsTellTheTruth runs every scenario's query, as the planner chooses and under every strategy and
// baseline the catalogue offers, through the real engine, folds the events as the page does and checks each
// figure the chosen view draws against the run's stats and details.
func TestViewsTellTheTruth(t *testing.T) {
	cat := runner.Catalogue()
	strategies := []string{""}
	for _, s := range cat.Strategies {
		strategies = append(strategies, s.Name)
	}
	for _, sc := range cat.Scenarios {
		for _, strategy := range strategies {
			if strategy != "" && sc.Name == "okta-crowdstrike" {
				continue // 70 billion rows: only a paged plan reads a part of them; okta-crowdstrike-small takes the rest
			}
			name := sc.Name + "/" + cmp(strategy, "planner")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				run := runForReal(t, &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1, Strategy: strategy})
				if run.err != nil {
					if strategy == "" {
						t.Fatalf("the scenario's own query failed: %s", run.err.Message)
					}
					t.Skipf("%s cannot run this query: %s", strategy, run.err.Message)
				}
				checkTruth(t, strategy, run)
			})
		}
	}
}

func cmp(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

func checkTruth(t *testing.T, forced string, run realRun) {
	tv := Fold(run.events)
	st := run.stats
	d := st.Details
	r := &Run{Status: StatusDone, Strategy: forced, Trace: tv, Stats: st, Columns: run.cols, ViewName: run.view, Drawn: run.drawn}
	for _, row := range run.rows {
		r.Rows.Append(protocol.PackRows([][]string{row}))
	}
	if tv.Dropped > 0 {
		t.Skipf("%d events not sent: the views show less than the run", tv.Dropped)
	}
	if len(tv.Strategies) == 0 {
		t.Fatal("no strategy_chose event")
	}
	if forced != "" && !slices.Contains(tv.Strategies, forced) {
		t.Fatalf("forced %s, the engine ran %v", forced, tv.Strategies)
	}
	view := r.View()
	if forced != "" && view != protocol.ViewOf(forced) {
		t.Errorf("forced %s, drawn by the %s view", forced, view)
	}
	if view == protocol.ViewGeneric || (view == protocol.ViewHash && slices.ContainsFunc(tv.Strategies, func(s string) bool { return protocol.ViewOf(s) != protocol.ViewHash })) {
		t.Errorf("strategies %v drawn by the %s view", tv.Strategies, view)
	}
	if tv.MemoryHigh != st.MemoryPeak {
		t.Errorf("memory chart tops at %d bytes, the run's peak was %d", tv.MemoryHigh, st.MemoryPeak)
	}
	if len(tv.MemoryOver.X) == 0 {
		t.Error("no memory_high event: the memory chart is empty")
	}
	if tv.Output != st.RowsOut {
		t.Errorf("rows out %d, stats %d", tv.Output, st.RowsOut)
	}
	if tv.Requests != st.Requests {
		t.Errorf("requests %d in the trace, stats %d", tv.Requests, st.Requests)
	}
	// Rows read: a connector source's come from its pages, which the engine's rows_scanned counts too; the
	// hash view's build and probe bars are those sources' reads.
	if st.RowsScanned > 0 {
		var pages int64
		for _, s := range tv.Scans {
			pages += s.Rows
		}
		if pages != st.RowsScanned || tv.RunReads != st.RowsScanned {
			t.Errorf("rows read from connectors: %d by source, %d in all, stats %d", pages, tv.RunReads, st.RowsScanned)
		}
		if view == protocol.ViewHash && len(tv.Scans) > 0 && (&HashView{Run: r}).Bars()[0].Text == "0" {
			t.Errorf("the hash view's build bar shows no rows: %+v", (&HashView{Run: r}).Bars()[0])
		}
	}
	switch view {
	case protocol.ViewHash, protocol.ViewGrace, protocol.ViewSalted:
		checkDynFilters(t, r, run.events, d)
	}
	switch view {
	case protocol.ViewSweep:
		s := tv.Sweep
		for _, c := range []struct {
			what string
			got  float64
			key  string
		}{{"expired", s.Expired, "expired"}, {"overlaps", s.Overlaps, "overlaps"}} {
			if want := detailInt(t, d, c.key); int64(c.got) != want {
				t.Errorf("sweep view: %s %v, details %d", c.what, c.got, want)
			}
		}
		// The sweep's events carry its running largest active set (active_max), so the view's is exact.
		if activeMax := detailInt(t, d, "active_set_max"); int64(s.ActiveMax) != activeMax {
			t.Errorf("sweep view: largest active set %v, details %d", s.ActiveMax, activeMax)
		}
		if _, ok := d["partitions_pruned"]; ok {
			if want := detailInt(t, d, "partitions_pruned"); int64(s.Pruned) != want {
				t.Errorf("sweep view: %v partitions pruned, details %d", s.Pruned, want)
			}
		}
	case protocol.ViewSalted:
		s := tv.Salted
		if s.ReplicatedKeys > 0 {
			if want := detailInt(t, d, "rows_replicated"); int64(s.Replicated) != want {
				t.Errorf("salted view: rows replicated %v, details %d", s.Replicated, want)
			}
		} else if n, _ := d["rows_replicated"].(int64); n > 0 {
			t.Errorf("no rows_replicated event, but the details count %d rows replicated", n)
		}
		if want := detailInt(t, d, "workers"); int64(s.Workers) != want {
			t.Errorf("salted view: %d workers, details %d", s.Workers, want)
		}
		if _, ok := d["heavy_keys"]; ok {
			if want := detailLen(t, d, "heavy_keys"); s.HeavyCount != int64(want) {
				t.Errorf("salted view: %d heavy keys, details list %d", s.HeavyCount, want)
			}
		}
		if _, ok := d["salted_keys"]; ok && s.ReplicatedKeys > 0 {
			if want := detailInt(t, d, "salted_keys"); s.Salts != want {
				t.Errorf("salted view: %d salts assigned, details %d salted keys", s.Salts, want)
			}
		}
		before, after, _ := s.Loads()
		for _, c := range []struct {
			what string
			got  []float64
			key  string
		}{{"before", before, "worker_load_before"}, {"after", after, "worker_load_after"}} {
			want, _ := d[c.key].([]int64)
			if len(want) == 0 {
				continue
			}
			if len(c.got) != len(want) {
				t.Errorf("salted view: %d workers' load %s, details %d", len(c.got), c.what, len(want))
				continue
			}
			for i := range want {
				if int64(c.got[i]) != want[i] {
					t.Errorf("salted view: worker %d load %s %v, details %d", i, c.what, c.got[i], want[i])
					break
				}
			}
		}
		if r.DrawnStrategy() == "salted_naive_wrong" {
			w := r.wrongRows()
			t.Logf("salted_naive_wrong: %d wrong rows of %d", len(w.Rows), w.Checked)
		}
	case protocol.ViewPaged:
		p := tv.Paged
		if n, ok := d["pages"]; ok && len(p.Pages) < maxPages {
			if want := detailInt(t, d, "pages"); int64(len(p.Pages)) != want {
				t.Errorf("paged view: %d pages drawn, details %v", len(p.Pages), n)
			}
		}
		cut := int64(0)
		if _, ok := d["tie_groups_cut"]; ok {
			cut = detailInt(t, d, "tie_groups_cut")
		}
		if p.TiesCut != cut || (len(p.Pages) < maxPages && p.TieMarks() != cut) {
			t.Errorf("paged view: \"tie groups cut: %d\" with %d marks, details %d", p.TiesCut, p.TieMarks(), cut)
		}
		if _, ok := d["filter_slices"]; ok && len(p.Slices) < maxPages {
			if want := detailInt(t, d, "filter_slices"); int64(len(p.Slices)) != want {
				t.Errorf("paged view: %d filter slices drawn, details %d", len(p.Slices), want)
			}
		}
	case protocol.ViewGrace:
		g := tv.Grace
		if want := detailInt(t, d, "repartition_levels"); int64(g.Levels) != want {
			t.Errorf("grace view: re-partition level %d, details %d", g.Levels, want)
		}
		if want := detailInt(t, d, "hot_keys"); g.HotKeyCount != want {
			t.Errorf("grace view: %d hot keys, details %d", g.HotKeyCount, want)
		}
		if want := detailInt(t, d, "partitions"); int64(g.TopPartitions()) != want && len(g.Bins) < maxBins {
			t.Errorf("grace view: %d partitions drawn at level 0, details %d", g.TopPartitions(), want)
		}
	}
	t.Logf("%s view: %s", view, strings.Join(strings.Fields(fmt.Sprint(tv.Strategies)), " "))
}

// The salting walkthrough's outer-join trap, run for real: the naive variant's wrong rows are marked, the
// repaired run's none, and both are drawn by the salted view.
func TestSaltedTrapMarksWrongRows(t *testing.T) {
	listens := "user,song_id\nann,1\nbob,1\ncat,1\ndan,2\neve,3\n"
	songs := "song_id,title\n1,Viral\n2,Quiet\n3,Calm\n4,Lost (take 1)\n4,Lost (take 2)\n4,Lost (take 3)\n"
	for _, c := range []struct {
		kind, strategy string
		wrong          bool
	}{
		{"rightouter", "salted_naive_wrong", true},
		{"fullouter", "salted_naive_wrong", true},
		{"rightouter", "salted", false},
		{"fullouter", "salted", false},
	} {
		t.Run(c.kind+"/"+c.strategy, func(t *testing.T) {
			run := runForReal(t, &protocol.Run{
				Query: "@Listens | join kind=" + c.kind + " hint.strategy=" + c.strategy + " (@Songs) on song_id",
				Sources: map[string]protocol.Input{"Listens": {Format: "csv", Data: listens},
					"Songs": {Format: "csv", Data: songs}},
			})
			if run.err != nil {
				t.Fatal(run.err.Message)
			}
			checkTruth(t, c.strategy, run)
			r := &Run{ID: 1, Status: StatusDone, Trace: Fold(run.events), Stats: run.stats, Columns: run.cols,
				Explain: run.explain, ViewName: run.view, Drawn: run.drawn}
			for _, row := range run.rows {
				r.Rows.Append(protocol.PackRows([][]string{row}))
			}
			if v := r.View(); v != protocol.ViewSalted {
				t.Fatalf("drawn by the %s view", v)
			}
			w := r.wrongRows()
			for _, row := range w.Rows {
				t.Logf("row %d %q: %s", row.N, row.Cells, row.Reason)
			}
			if got := len(w.Rows) > 0; got != c.wrong {
				t.Errorf("%d wrong rows marked of %d: want some %v", len(w.Rows), w.Checked, c.wrong)
			}
			s, _ := ready(t)
			s.Run = r
			html, _ := render(t, s)
			if c.wrong != strings.Contains(html, `id="salted-wrong-rows"`) {
				t.Errorf("the wrong rows' table shown: %v, want %v", !c.wrong, c.wrong)
			}
		})
	}
}

func TestFindWrongRows(t *testing.T) {
	rows := [][]string{
		{"ann", "1", "1", "Viral"},
		{"", "", "1", "Viral"}, // null-extended, yet song 1 matched
		{"", "", "4", "Lost"},
		{"", "", "4", "Lost"}, // a second copy
		{"", "", "5", "Alone"},
	}
	w := findWrongRows(rows)
	var got []int
	for _, r := range w.Rows {
		got = append(got, r.N)
	}
	if !slices.Equal(got, []int{2, 4}) {
		t.Errorf("wrong rows %v, want 2 and 4", got)
	}
}
