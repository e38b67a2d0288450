package ui

import (
	"encoding/json"
	"fmt"

	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/vugu/vugu"
)

// The browser compiles the page's WebAssembly lazily, each function the first time it runs. Nothing a run
// shows runs before the first Run click, so that click paid for compiling the run's code (applying its
// messages, the strategy views, the metrics, the table) inside its own handler and first render: a trace of a
// fresh page's first run counted 64 ms of compiling inside its long tasks, and 3 ms once Warm had run. Warm
// runs that code once, while the page waits for its first click, on a State and a build of its own that reach
// neither the engine nor the DOM.

// WarmViews are the strategies Warm builds a view for: one of each kind Root.View picks.
var WarmViews = []string{"hash", "grace", "salted", "sweep", "paged", ""}

// Warm plays a small made-up run through a throwaway State and builds the page for it, showing the view of
// strategy (one of WarmViews). It is safe to call at any time: it shares nothing with the page's State.
func Warm(strategy string) { warmRun(strategy) }

// warmRun is Warm, returning its State.
func warmRun(strategy string) *State {
	s := NewState(quietEnv{})
	s.Apply(protocol.Message{Type: protocol.MessageReady, Catalogue: &protocol.Catalogue{}})
	s.Strategy = strategy
	s.StartRun()
	id := s.Run.ID
	s.Receive(warmEnvelope(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"k", "v"},
		Explain: "physical plan (after rewrites):\n  " + strategy + " join kind=inner\n", Inputs: map[string]int64{"A": 4, "B": 2}}))
	rows := [][]string{{"1", "a"}, {"2", ""}, {"3", "c"}}
	scan := func(source string, n int64) trace.Event {
		return trace.Event{Op: "scan:" + source, Payload: trace.ScanRows{Source: source, Rows: n, Total: n, Scan: 1, Phase: "run"}}
	}
	s.Receive(warmEnvelope(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: protocol.PackRows(rows),
		Events: []trace.Event{
			{Payload: trace.StrategyChose{Strategy: strategy, Reason: "warm"}},
			scan("B", 2), scan("A", 4),
			{Op: memory.OpMemory, Payload: memory.HighWater{Bytes: 1 << 20}},
			{Op: protocol.OpOutput, Payload: trace.RowsEmitted{Rows: 3, Total: 3}},
		}}))
	build := func() {
		env, err := vugu.NewBuildEnv()
		if err == nil {
			env.RunBuild(&Root{State: s})
		}
	}
	build()
	s.Receive(warmEnvelope(protocol.Message{Type: protocol.MessageDone, ID: id,
		Stats: &protocol.Stats{RowsOut: 3, MemoryPeak: 1 << 20, Budget: 1 << 26, WallMillis: 1,
			Details: map[string]any{"warm": 1}}}))
	build()
	return s
}

func warmEnvelope(m protocol.Message) protocol.Envelope {
	b, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("ui: warm message: %v", err)) // only unencodable values fail, and there are none
	}
	return protocol.Envelope{JSON: string(b), Rows: m.Rows}
}

// quietEnv is the Env of Warm's State: it posts nothing and has no URL.
type quietEnv struct{}

func (quietEnv) Post(protocol.Request) {}
func (quietEnv) SetFragment(string)    {}
func (quietEnv) CopyText(string)       {}
func (quietEnv) Location() string      { return "" }
