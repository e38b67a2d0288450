package ui

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/engine/trace/registry"
	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/walkthrough"
)

// coverageRuns are the runs TestEveryEmittedKindIsFolded makes: every scenario's query as the planner chooses
// and under every strategy and baseline the catalogue offers (okta-crowdstrike, 70 billion rows, under the
// planner alone, as TestViewsTellTheTruth does), each scenario again with its connectors' rate limits at one
// request a second, the Okta scenario with faults and as a full outer paged join, and the user's own tables,
// read as files and served through a simulated connector.
func coverageRuns() map[string]*protocol.Run {
	cat := runner.Catalogue()
	runs := map[string]*protocol.Run{}
	for _, sc := range cat.Scenarios {
		runs[sc.Name+"/planner"] = &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1}
		for _, st := range cat.Strategies {
			if sc.Name != "okta-crowdstrike" {
				runs[sc.Name+"/"+st.Name] = &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1, Strategy: st.Name}
			}
		}
		knobs := map[string]float64{}
		for _, k := range sc.Knobs {
			if source, ok := strings.CutSuffix(k.Name, "_requests"); ok {
				knobs[k.Name], knobs[source+"_burst"], knobs[source+"_window_s"] = 1, 1, 1
			}
		}
		if len(knobs) > 0 && sc.Name != "okta-crowdstrike" {
			runs[sc.Name+"/throttled"] = &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1, Knobs: knobs}
		}
		if sc.Name == "okta-crowdstrike-small" {
			// Faults, retried; and the paged join's outer rows (the null keys and the probe side's unmatched).
			runs[sc.Name+"/faults"] = &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1,
				Knobs: map[string]float64{"transient_rate": 0.4, "truncate_rate": 0.4}}
			runs[sc.Name+"/paged-fullouter"] = &protocol.Run{Query: strings.NewReplacer("kind=inner", "kind=fullouter", "| take 100", "").Replace(sc.Query),
				Scenario: sc.Name, Seed: 1, Strategy: "paged"}
		}
	}
	users := `{"id":1,"name":"ana"}` + "\n" + `{"id":2,"name":"bob"}` + "\n" + `{"id":3,"name":"cy"}`
	listens := "user,song\n1,a\n1,b\n3,c\n"
	query := "@Users | join kind=inner (@Listens) on $left.id == $right.user"
	runs["own/files"] = &protocol.Run{Query: query, Seed: 1, Sources: map[string]protocol.Input{
		"Users": {Format: "jsonl", Data: users}, "Listens": {Format: "csv", Data: listens}}}
	runs["own/connector"] = &protocol.Run{Query: query, Seed: 1, Sources: map[string]protocol.Input{
		"Users":   {Format: "jsonl", Data: users, Connector: &protocol.Connector{Profile: "teaching", Key: []string{"id"}}},
		"Listens": {Format: "csv", Data: listens, Connector: &protocol.Connector{Profile: "teaching", Key: []string{"user", "song"}}}}}
	// The user's tables are small enough for the Grace and salted joins to list their rows (partition_keys,
	// worker_rows); full outer keeps the salted join's unmatched expanded rows apart (worker -1).
	for _, st := range []string{"grace", "salted", "salted_naive_wrong"} {
		runs["own/"+st] = &protocol.Run{Query: query, Seed: 1, Strategy: st, Sources: runs["own/files"].Sources}
	}
	runs["own/salted-fullouter"] = &protocol.Run{Query: strings.Replace(query, "kind=inner", "kind=fullouter", 1),
		Seed: 1, Strategy: "salted", Sources: runs["own/files"].Sources}
	return runs
}

// TestEveryEmittedKindIsFolded runs every strategy, baseline, scenario and connector (coverageRuns) and every
// walkthrough as the page receives them: each message through the JSON the worker posts (the registry's compact codec encodes
// each event, and refuses a kind it has no decoder for), each event decoded again as the page does
// (protocol.DecodeEvent), then folded. It fails if any event the engine or the runner emitted cannot be
// encoded or decoded, or comes back different, or is a kind no view's fold takes (TraceView.fold reports it).
// Kinds the registry lists that no run emitted are logged: their folds are tested by hand-made events only.
func TestEveryEmittedKindIsFolded(t *testing.T) {
	var mu sync.Mutex
	emitted := map[trace.Kind]string{} // kind → the first run that emitted it
	t.Run("runs", func(t *testing.T) {
		for name, run := range coverageRuns() {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				tv := NewTraceView()
				runner.Stream(t.Context(), 1, run, func(m protocol.Message) {
					if m.Type == protocol.MessageError {
						// A strategy that cannot run a query says so; its events so far still count.
						t.Logf("%s", m.Error.Message)
					}
					for _, e := range throughThePage(t, m) {
						if !tv.fold(e) {
							t.Errorf("no view folds %s events (%+v)", e.Kind(), e.Payload)
						}
						mu.Lock()
						if _, seen := emitted[e.Kind()]; !seen {
							emitted[e.Kind()] = name
						}
						mu.Unlock()
					}
				}, nil)
			})
		}
		// The walkthroughs' runs: inline tables behind connectors with the teaching caps, where pages cut tie
		// groups. The walkthrough package runs them natively; their events go through the page's codec here.
		walks, err := walkthrough.LoadDir(os.DirFS("../../assets"), "walkthroughs")
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range walks {
			t.Run("walkthrough/"+w.Name, func(t *testing.T) {
				t.Parallel()
				states, err := w.States()
				if err != nil {
					t.Fatal(err)
				}
				tv := NewTraceView()
				for _, st := range states {
					for _, e := range throughThePage(t, protocol.Message{Type: protocol.MessageBatch, Events: st.Events}) {
						if !tv.fold(e) {
							t.Errorf("no view folds %s events (%+v)", e.Kind(), e.Payload)
						}
						mu.Lock()
						if _, seen := emitted[e.Kind()]; !seen {
							emitted[e.Kind()] = w.Name
						}
						mu.Unlock()
					}
				}
			})
		}
	})
	var never []string
	for _, k := range registry.Kinds() {
		if _, ok := emitted[k]; !ok {
			never = append(never, string(k))
		}
	}
	slices.Sort(never)
	t.Logf("%d kinds emitted; registered but not emitted by these runs: %v", len(emitted), never)
}

// throughThePage sends m's events the way they reach the page: the message as JSON, its events decoded one by
// one from it. Each must come back equal to the event sent.
func throughThePage(t *testing.T, m protocol.Message) []trace.Event {
	t.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("a %s message cannot be sent: %v", m.Type, err)
	}
	in := Decode(protocol.Envelope{JSON: string(raw)})
	if in.err != nil || len(in.events) != len(m.Events) {
		t.Fatalf("the page reads %d of %d events of a %s message (%v)", len(in.events), len(m.Events), m.Type, in.err)
	}
	out := make([]trace.Event, len(in.events))
	for i, r := range in.events {
		e, err := protocol.DecodeEvent(r)
		if err != nil {
			t.Fatalf("the page cannot decode %s: %v", r, err)
		}
		if want, _ := json.Marshal(m.Events[i]); !sameEvent(e, m.Events[i]) {
			got, _ := json.Marshal(e)
			t.Fatalf("sent %s, the page decoded %s", want, got)
		}
		out[i] = e
	}
	return out
}

// sameEvent compares events by their JSON-lines form, which tells every field apart but not a nil list from an
// empty one (the codec need not either: the page reads both as no values).
func sameEvent(a, b trace.Event) bool {
	ja, erra := json.Marshal(a)
	jb, errb := json.Marshal(b)
	return erra == nil && errb == nil && string(ja) == string(jb)
}
