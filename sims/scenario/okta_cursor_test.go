package scenario

import (
	"context"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/plan"
)

// oktaCursorQuery is the scenario's query sorted by two columns: the paged join's cursor is then
// (published desc, uuid asc, actor.alternateId asc).
const oktaCursorQuery = `@OktaSystemLogs
| where eventType == "user.session.start" and outcome.result == "SUCCESS"
| join kind=inner (@CrowdStrikeDetections | where severity >= 70) on $left.actor.alternateId == $right.user_name
| project published, uuid, user = actor.alternateId, ip = client.ipAddress, tactic, detection_severity = severity1, device.hostname
| sort by published desc, uuid asc
| take 100`

// TestOktaTwoColumnSortFirstRow is issue 23's target on virtual figures: on okta-crowdstrike (70 billion rows
// behind Sentinel's caps, seed 1), sorting by published desc, uuid asc, the paged join reaches its first row
// within 1.5 s of virtual time in at most 4 requests, and the 100 rows come in that order.
func TestOktaTwoColumnSortFirstRow(t *testing.T) {
	const (
		maxFirstRowMs = 1500
		maxRequests   = 4
	)
	p, _ := prepareOn(t, "okta-crowdstrike", nil, oktaCursorQuery)
	var rows [][2]column.Value
	st, err := p.Run(context.Background(), func(b *column.Batch) error {
		for i := 0; i < b.N; i++ {
			rows = append(rows, [2]column.Value{b.Cols[0].Value(i), b.Cols[1].Value(i)})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("strategy %s, %d rows, %d requests, first row at %.0f ms, total %.0f ms, %d bytes shipped, peak memory %d bytes",
		st.Strategy, st.RowsOut, st.Requests, st.VirtualFirstRow, st.VirtualTotal, st.BytesShipped, st.MemoryPeak)
	if st.Strategy != string(plan.StrategyPaged) || st.RowsOut != 100 {
		t.Fatalf("strategy %s with %d rows, want paged with 100", st.Strategy, st.RowsOut)
	}
	if st.VirtualFirstRow > maxFirstRowMs || st.Requests > maxRequests {
		t.Errorf("first row at %.0f ms of virtual time after %d requests, want within %d ms and %d requests",
			st.VirtualFirstRow, st.Requests, maxFirstRowMs, maxRequests)
	}
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		if a[0].Int < b[0].Int || (a[0].Int == b[0].Int && a[1].Str > b[1].Str) {
			t.Fatalf("row %d (%v, %s) comes before row %d (%v, %s): not in published desc, uuid asc", i-1, a[0].Int, a[1].Str, i, b[0].Int, b[1].Str)
		}
	}
}
