package runner

import (
	"context"
	"testing"

	"github.com/joinlab/joinlab/web/runner/protocol"
)

// orderKnobs size each scenario's data for TestEveryRunOpensWithStarted when a strategy is forced: a
// baseline forced on the full default tables (fetch-all over a simulated 70-billion-row source) runs for
// minutes, and what is tested here is the order of the messages, not the strategy.
var orderKnobs = map[string]map[string]float64{
	ScenarioUsersListens: {"users": 200, "listens": 3000, "skew": 0.5},
}

// TestEveryRunOpensWithStarted runs every scenario of the catalogue with its own query as the planner
// chooses, and the playground's in-memory scenario — the one whose reads while planning the runner itself
// traces — with each strategy forced too, on a clock that moves a whole FlushEvery at every reading: every
// chance the stream has to post then comes due. Each run's first message must be started — or, for a run
// that fails before it starts, its only message an error — and the whole conversation must pass
// protocol.Order.
func TestEveryRunOpensWithStarted(t *testing.T) {
	cat := Catalogue()
	var all []string
	for _, st := range cat.Strategies {
		all = append(all, st.Name)
	}
	for _, sc := range cat.Scenarios {
		strategies := []string{""}
		if _, ok := orderKnobs[sc.Name]; ok {
			strategies = append(strategies, all...)
		}
		for _, strategy := range strategies {
			name := sc.Name + "/" + strategy
			if strategy == "" {
				name = sc.Name + "/planner"
			}
			t.Run(name, func(t *testing.T) {
				var msgs []protocol.Message
				var order protocol.Order
				run := &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1, Strategy: strategy}
				if strategy != "" {
					run.Knobs = orderKnobs[sc.Name]
				}
				streamWith(context.Background(), newFakeClock(FlushEvery), nil, 1, run, func(m protocol.Message) {
					msgs = append(msgs, m)
					if err := order.Next(m); err != nil {
						t.Errorf("message %d: %v", len(msgs), err)
					}
				}, nil)
				if len(msgs) == 0 {
					t.Fatal("no messages")
				}
				if !order.Ended() {
					t.Errorf("the run did not end: messages %v", types(msgs))
				}
				first := msgs[0]
				switch {
				case first.Type == protocol.MessageStarted:
				case first.Type == protocol.MessageError && len(msgs) == 1:
					if strategy == "" {
						t.Errorf("the scenario's own query failed: %s", first.Error.Message)
					}
				default:
					t.Errorf("first message %s of %v", first.Type, types(msgs))
				}
			})
		}
	}
}
