package query_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
)

// TestRunEmitsStrategyAndMemory checks the two events every run emits against the run's own stats: the
// strategy the planner chose, first, and memory high-water marks that climb to exactly the reported peak.
func TestRunEmitsStrategyAndMemory(t *testing.T) {
	var users, listens strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&users, `{"user_id":%d,"name":"u%d"}`+"\n", i, i)
		for j := range 3 {
			fmt.Fprintf(&listens, `{"user_id":%d,"song_id":%d}`+"\n", i, j)
		}
	}
	u, err := source.FromJSONL("Users", []byte(users.String()))
	if err != nil {
		t.Fatal(err)
	}
	l, err := source.FromJSONL("Listens", []byte(listens.String()))
	if err != nil {
		t.Fatal(err)
	}
	rec := &trace.Recorder{}
	p, err := query.Prepare(context.Background(), "@Listens | join kind=inner (@Users) on user_id | summarize n=count() by name",
		map[string]source.Source{"Users": u, "Listens": l}, query.Options{Trace: rec})
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Run(context.Background(), func(*column.Batch) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	events := rec.Events()
	if len(events) == 0 || events[0].Kind() != trace.KindStrategyChose {
		t.Fatalf("the first event is not %s: %v", trace.KindStrategyChose, events[:min(len(events), 1)])
	}
	if got := events[0].Payload.(trace.StrategyChose); got.Strategy != st.Strategy || got.Reason == "" {
		t.Errorf("strategy_chose %+v, stats say %q", got, st.Strategy)
	}
	var highs []int64
	for _, e := range events {
		if h, ok := e.Payload.(memory.HighWater); ok {
			highs = append(highs, h.Bytes)
		}
	}
	if len(highs) < 2 {
		t.Fatalf("%d memory_high events, want the climb to the peak (%d bytes)", len(highs), st.MemoryPeak)
	}
	for i := 1; i < len(highs); i++ {
		if highs[i] <= highs[i-1] {
			t.Fatalf("memory_high went %d then %d: not a climb", highs[i-1], highs[i])
		}
	}
	if last := highs[len(highs)-1]; last != st.MemoryPeak {
		t.Errorf("the last memory_high is %d bytes, the stats' peak %d", last, st.MemoryPeak)
	}
}
