package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vugu/vugu"
	"github.com/vugu/vugu/staticrender"

	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// fakeEnv records what State asks of the browser.
type fakeEnv struct {
	posted   []protocol.Request
	fragment string
	copied   string
}

func (f *fakeEnv) Post(r protocol.Request) { f.posted = append(f.posted, r) }
func (f *fakeEnv) SetFragment(s string)    { f.fragment = s }
func (f *fakeEnv) CopyText(s string)       { f.copied = s }
func (f *fakeEnv) Location() string        { return "http://playground.test/" }

var testCatalogue = &protocol.Catalogue{
	Scenarios: []protocol.Scenario{{Name: "demo", Title: "Demo", Query: "@A | join (@B) on k",
		Knobs: []protocol.Knob{{Name: "rows", Default: 10, Min: 0, Max: 100}}}},
	Strategies: []protocol.Strategy{{Name: "hash"}, {Name: "keyset-lt", Baseline: true}},
}

// ready returns a State whose engine has started.
func ready(t *testing.T) (*State, *fakeEnv) {
	t.Helper()
	env := &fakeEnv{}
	s := NewState(env)
	s.Apply(protocol.Message{Type: protocol.MessageReady, Catalogue: testCatalogue})
	// The engine parses the starting tables, as the worker would.
	for _, r := range env.posted {
		if r.Type == protocol.RequestLoad {
			s.Apply(protocol.Message{Type: protocol.MessageLoaded, Table: r.Load.Table, Summary: &protocol.Summary{
				Rows: 4, Bytes: int64(len(r.Load.Data)), Text: r.Load.Data, Columns: []protocol.Column{{Name: "user_id", Type: "long"}}}})
		}
	}
	env.posted = nil
	return s, env
}

// render renders the page as HTML with Vugu's static renderer, and how long the build took.
func render(t *testing.T, s *State) (string, time.Duration) {
	t.Helper()
	env, err := vugu.NewBuildEnv()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	start := time.Now()
	res := env.RunBuild(&Root{State: s})
	took := time.Since(start)
	if err := staticrender.New(&buf).Render(res); err != nil {
		t.Fatal(err)
	}
	return buf.String(), took
}

// streamRows starts a run and feeds it n rows and a hash join's scan events.
func streamRows(t *testing.T, s *State, n int) {
	t.Helper()
	s.StartRun()
	id := s.Run.ID
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"k", "v"},
		Explain: "logical plan (as written, before rewrites):\n  …\nphysical plan (after rewrites):\n  hash join kind=inner, build right side\n",
		Inputs:  map[string]int64{"B": 5, "A": int64(n)}})
	rows := make([][]string, n)
	for i := range rows {
		rows[i] = []string{fmt.Sprint(i), fmt.Sprintf("value %d", i)}
	}
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: protocol.PackRows(rows),
		Events: []trace.Event{
			ev(trace.KindStrategyChose, 0, "plan", map[string]any{"strategy": "hash", "strategies": "hash"}),
			ev("scan_rows", 0, "scan:B", map[string]any{"source": "B", "rows": 5.0, "total": 5.0, "scan": 1.0}),
			ev("scan_rows", 0, "scan:A", map[string]any{"source": "A", "rows": float64(n), "total": float64(n), "scan": 1.0}),
			ev(trace.KindRowsEmitted, 0, "output", map[string]any{"rows": float64(n), "total": float64(n)}),
		}})
}

func TestRenderVirtualisesRows(t *testing.T) {
	s, _ := ready(t)
	streamRows(t, s, 100_000)
	html, took := render(t, s)
	t.Logf("built the page holding 100,000 rows in %v", took)
	if n := strings.Count(html, `class="row"`); n == 0 || n > viewportRows+2*overscan {
		t.Errorf("%d rows in the DOM, want at most %d", n, viewportRows+2*overscan)
	}
	if !strings.Contains(html, "value 0<") || strings.Contains(html, "value 99999<") {
		t.Error("the first rows should be in the DOM, the last not")
	}
	s.ScrollTop = 50_000 * RowHeight
	html, _ = render(t, s)
	if !strings.Contains(html, "value 50000<") || strings.Contains(html, "value 0<") {
		t.Error("after scrolling to row 50,000 its rows should be in the DOM and the first not")
	}
	if !strings.Contains(html, `id="view-hash"`) || !strings.Contains(html, "probing") {
		t.Errorf("no hash view in the probing phase")
	}
	if !strings.Contains(html, "100,000 of 100,000") {
		t.Error("the hash view does not show the probe side read whole")
	}
}

func BenchmarkReceiveBatch(b *testing.B) {
	rows := make([][]string, 5000)
	for i := range rows {
		rows[i] = []string{fmt.Sprint(i), fmt.Sprintf("Name %d", i), fmt.Sprint(i * 7)}
	}
	msg := protocol.Message{Type: protocol.MessageBatch, ID: 1, Rows: protocol.PackRows(rows)}
	data, _ := json.Marshal(msg)
	env := protocol.Envelope{JSON: string(data), Rows: msg.Rows}
	b.SetBytes(int64(len(data) + len(msg.Rows)))
	for b.Loop() {
		s := NewState(&fakeEnv{})
		s.Run = &Run{ID: 1, Columns: []string{"a", "b", "c"}, Trace: NewTraceView()}
		s.Receive(env)
	}
}

func BenchmarkUnpackRows(b *testing.B) {
	rows := make([][]string, 5000)
	for i := range rows {
		rows[i] = []string{fmt.Sprint(i), fmt.Sprintf("Name %d", i), fmt.Sprint(i * 7)}
	}
	packed := protocol.PackRows(rows)
	for b.Loop() {
		protocol.UnpackRows(packed, 3)
	}
}
