package scenario

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/dynfilter"
	"github.com/joinlab/joinlab/engine/dynfilter/dfevent"
)

// oktaProbeRun runs the join of the highest-severity detections (27 rows, 22 users) with Okta on
// okta-crowdstrike-small under strategy, and returns the count, the requests and rows read from Okta, and the
// run's dynamic filter events.
func oktaProbeRun(t *testing.T, strategy string) (count int64, requests, rows int, filters []dfevent.Applied) {
	t.Helper()
	q := fmt.Sprintf(`@OktaSystemLogs
| join kind=inner hint.strategy=%s (@CrowdStrikeDetections | where severity >= 100) on $left.actor.alternateId == $right.user_name
| count`, strategy)
	p, rec := prepareOn(t, "okta-crowdstrike-small", nil, q)
	if _, err := p.Run(context.Background(), func(b *column.Batch) error { count += b.Cols[0].Value(0).Int; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, e := range rec.Events() {
		switch p := e.Payload.(type) {
		case dfevent.Applied:
			filters = append(filters, p)
		case connevent.RequestSent:
			if p.Source == "OktaSystemLogs" {
				requests++
			}
		}
	}
	for _, e := range rec.Events() {
		if p, ok := e.Payload.(connevent.PageReturned); ok && e.Op == "scan@OktaSystemLogs" {
			rows += p.Rows
		}
	}
	return count, requests, rows, filters
}

// TestOktaHashJoinDynamicFilter: on okta-crowdstrike-small the hash join of the 27 highest-severity detections
// with Okta sends their 22 users to Okta as one IN list, and reads at most 60% of the rows and of the
// requests of the nested loop, which scans Okta whole (20,000 rows in 21 requests); both count the same rows.
// User activity is Zipf-skewed and these users include heavy ones, so they hold about half of Okta's rows
// (10,559 in 11 requests at seed 1). The figures come from the simulated sources: the same on every machine.
func TestOktaHashJoinDynamicFilter(t *testing.T) {
	want, baseRequests, baseRows, none := oktaProbeRun(t, "nestedloop")
	if len(none) != 0 || baseRows < 20_000 {
		t.Fatalf("the nested loop read %d Okta rows with filters %v: want the whole table, unfiltered", baseRows, none)
	}
	got, requests, rows, filters := oktaProbeRun(t, "hash")
	if got != want {
		t.Fatalf("the hash join counts %d rows, the nested loop %d", got, want)
	}
	if len(filters) != 1 || filters[0].Form != "in" || filters[0].Keys != 22 || filters[0].Slices != 1 {
		t.Fatalf("want one IN list of the 22 users, got %v", filters)
	}
	if rows*10 > baseRows*6 || requests*10 > baseRequests*6 {
		t.Errorf("with the filter Okta served %d rows in %d requests; unfiltered %d in %d", rows, requests, baseRows, baseRequests)
	}
	t.Logf("Okta rows %d in %d requests with the dynamic filter, %d in %d without; %d joined rows", rows, requests, baseRows, baseRequests, got)
}

// TestHashProbeSlicesOverlap runs the hash join of the detections with severity >= 90 and Okta on
// okta-crowdstrike-small with IN lists of 10 values on Okta, so the probe is nine slices: they overlap up to
// Okta's 2 in flight, and one at a time with the okta_concurrent knob at 1. Both give the same rows in the same
// order (no sort: the hash join's output follows the probe's order) from the same requests, the overlapped run ends earlier in virtual time, a second run gives the same
// trace byte for byte, and no more requests are in flight than the knob or the profile allows.
func TestHashProbeSlicesOverlap(t *testing.T) {
	q := `@OktaSystemLogs
| where eventType == "user.session.start" and outcome.result == "SUCCESS"
| join kind=inner hint.strategy=hash (@CrowdStrikeDetections | where severity >= 90) on $left.actor.alternateId == $right.user_name
| project published, user = actor.alternateId, ip = client.ipAddress, tactic`
	set := map[string]float64{"okta_max_in_values": 10}
	rows, st, tr, events := tracedRun(t, "okta-crowdstrike-small", set, q)
	seqRows, seq, _, seqEvents := tracedRun(t, "okta-crowdstrike-small", withKnobs(set, map[string]float64{"okta_concurrent": 1}), q)
	if strings.Join(rows, "\n") != strings.Join(seqRows, "\n") || len(rows) == 0 {
		t.Fatalf("overlapped and sequential slices give different rows (%d and %d)", len(rows), len(seqRows))
	}
	if n, _ := st.Details[dynfilter.DetailSlices].(int64); n < 4 {
		t.Fatalf("%d slices: the test needs several", n)
	}
	if st.Requests != seq.Requests || st.VirtualTotal >= seq.VirtualTotal {
		t.Errorf("overlapped: %d requests, %.0f ms; sequential: %d requests, %.0f ms", st.Requests, st.VirtualTotal, seq.Requests, seq.VirtualTotal)
	}
	if m := connector.MaxInFlight(events)["OktaSystemLogs"]; m != 2 {
		t.Errorf("%d Okta requests in flight at once, want Okta's 2", m)
	}
	if m := connector.MaxInFlight(seqEvents)["OktaSystemLogs"]; m != 1 {
		t.Errorf("okta_concurrent=1: %d Okta requests in flight at once", m)
	}
	if _, _, again, _ := tracedRun(t, "okta-crowdstrike-small", set, q); again != tr {
		t.Error("a second run's trace differs from the first's")
	}
	t.Logf("virtual total %.0f ms overlapped, %.0f ms sequential, %d requests", st.VirtualTotal, seq.VirtualTotal, st.Requests)
}
