package scenario

import (
	"context"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/plan"
)

// TestOktaCrowdStrikeTightQueryCap: with CrowdStrike's query text capped at 600 bytes, the scenario's own query
// (the detections' `severity >= 70` pushed into their connector) still runs the paged join to its 100 rows, and
// every request sent fits its connector's cap. A fixed 512-byte cursor reserve refused the condition here.
func TestOktaCrowdStrikeTightQueryCap(t *testing.T) {
	p, rec := prepareOn(t, "okta-crowdstrike", map[string]float64{"crowdstrike_max_query_bytes": 600}, "")
	rows := 0
	st, err := p.Run(context.Background(), func(b *column.Batch) error { rows += b.N; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if st.Strategy != string(plan.StrategyPaged) || rows != 100 {
		t.Fatalf("strategy %q with %d rows; want the paged join's 100", st.Strategy, rows)
	}
	sent := 0
	for _, e := range rec.Events() {
		s, ok := e.Payload.(connevent.RequestSent)
		if !ok {
			continue
		}
		sent++
		if max := s.MaxQueryBytes; max > 0 && s.QueryBytes > max {
			t.Fatalf("a %d-byte request to %v, over its %d-byte cap", s.QueryBytes, s.Source, max)
		}
	}
	t.Logf("%d requests, first row at %.0f virtual ms", sent, st.VirtualFirstRow)
}
