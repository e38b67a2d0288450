package scenario

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/trace"
)

// sequentialKnobs turn off the overlap of requests on both sources of the okta-crowdstrike scenarios.
var sequentialKnobs = map[string]float64{"okta_concurrent": 1, "crowdstrike_concurrent": 1}

// tracedRun runs a scenario's query and returns its rows, its stats, its trace as JSON lines and its events.
func tracedRun(t *testing.T, name string, set map[string]float64, text string) ([]string, *query.Stats, string, []trace.Event) {
	t.Helper()
	sc, err := Get(name)
	if err != nil {
		t.Fatal(err)
	}
	knobs, err := sc.Resolve(set)
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := sc.Sources(1, knobs)
	if err != nil {
		t.Fatal(err)
	}
	if text == "" {
		text = sc.Query
	}
	rec := &trace.Recorder{}
	p, err := query.Prepare(context.Background(), text, srcs, query.Options{MemoryBudget: sc.MemoryBudget, Trace: rec})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	st, err := p.Run(context.Background(), func(b *column.Batch) error {
		for r := 0; r < b.N; r++ {
			var line strings.Builder
			for _, c := range b.Cols {
				line.WriteString(connector.Literal(c.Value(r)) + "|")
			}
			rows = append(rows, line.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range rec.Events() {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return rows, st, b.String(), rec.Events()
}

func withKnobs(a, b map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// TestConcurrentRequestsOverlap runs okta-crowdstrike with IN lists of 10 values, so the first page's probe
// is five slices, and with fewer detections, so no response overflows: the five go to CrowdStrike at once
// (10 in flight allowed) and the first row comes after the longest of them instead of their sum. The rows are
// those of the sequential run, in order; a second run gives the same trace, byte for byte; no source has more
// in flight than its profile allows.
func TestConcurrentRequestsOverlap(t *testing.T) {
	set := map[string]float64{"detections": 5000, "crowdstrike_max_in_values": 10}
	rows, st, tr, events := tracedRun(t, "okta-crowdstrike", set, "")
	seqRows, seq, _, seqEvents := tracedRun(t, "okta-crowdstrike", withKnobs(set, sequentialKnobs), "")
	if strings.Join(rows, "\n") != strings.Join(seqRows, "\n") || len(rows) != 100 {
		t.Fatalf("concurrent and sequential runs give different rows (%d and %d)", len(rows), len(seqRows))
	}
	if st.Requests != seq.Requests {
		t.Errorf("%d requests concurrent, %d sequential: the same requests should be sent", st.Requests, seq.Requests)
	}
	if st.VirtualFirstRow >= seq.VirtualFirstRow || st.VirtualTotal >= seq.VirtualTotal {
		t.Errorf("concurrent: first row %.0f ms, total %.0f ms; sequential: %.0f ms, %.0f ms; want the concurrent run faster",
			st.VirtualFirstRow, st.VirtualTotal, seq.VirtualFirstRow, seq.VirtualTotal)
	}
	m := connector.MaxInFlight(events)
	if m["CrowdStrikeDetections"] < 2 || m["CrowdStrikeDetections"] > 10 || m["OktaSystemLogs"] > 5 {
		t.Errorf("in flight at once: %v; want CrowdStrike overlapping within its 10, Sentinel within 5", m)
	}
	if m := connector.MaxInFlight(seqEvents); m["CrowdStrikeDetections"] != 1 || m["OktaSystemLogs"] != 1 {
		t.Errorf("sequential run: in flight at once %v, want 1 each", m)
	}
	if _, _, again, _ := tracedRun(t, "okta-crowdstrike", set, ""); again != tr {
		t.Error("a second run's trace differs from the first's")
	}
}

// TestConcurrentRequestsThrottled runs the whole okta-crowdstrike-small join (no take) against a CrowdStrike
// rate limit of 120 requests a minute with bursts of 3. Sent one at a time, requests are throttled and
// retried; overlapped, they are paced to that published rate (connector.Pacer), each waiting on its own lane's
// time, so they earn fewer throttles than the sequential run. The run still replays byte for byte, stays
// within the caps and gives the sequential run's rows in order.
func TestConcurrentRequestsThrottled(t *testing.T) {
	q := `@OktaSystemLogs
| where eventType == "user.session.start" and outcome.result == "SUCCESS"
| join kind=inner (@CrowdStrikeDetections | where severity >= 70) on $left.actor.alternateId == $right.user_name
| project published, user = actor.alternateId, ip = client.ipAddress, tactic, detection_severity = severity1, device.hostname
| sort by published desc`
	set := map[string]float64{"crowdstrike_max_in_values": 20, "crowdstrike_requests": 120, "crowdstrike_burst": 3}
	rows, st, tr, events := tracedRun(t, "okta-crowdstrike-small", set, q)
	seqRows, seq, _, _ := tracedRun(t, "okta-crowdstrike-small", withKnobs(set, sequentialKnobs), q)
	if strings.Join(rows, "\n") != strings.Join(seqRows, "\n") || len(rows) == 0 {
		t.Fatalf("concurrent and sequential runs give different rows (%d and %d)", len(rows), len(seqRows))
	}
	if seq.Retries == 0 {
		t.Fatal("no request of the sequential run was throttled: the test does not test the rate limit")
	}
	paced, _ := st.Details[connector.DetailPacedWaits].(int64)
	if paced == 0 || st.Retries >= seq.Retries {
		t.Errorf("overlapped: %d requests paced, %d retries; sequential: %d retries; want pacing to spare throttles", paced, st.Retries, seq.Retries)
	}
	t.Logf("overlapped: %d paced, %d retries, %.0f ms; sequential: %d retries, %.0f ms", paced, st.Retries, st.VirtualTotal, seq.Retries, seq.VirtualTotal)
	if m := connector.MaxInFlight(events); m["CrowdStrikeDetections"] > 10 || m["OktaSystemLogs"] > 2 {
		t.Errorf("in flight at once: %v; want CrowdStrike within 10, Okta within 2", m)
	}
	if _, _, again, _ := tracedRun(t, "okta-crowdstrike-small", set, q); again != tr {
		t.Error("a second run's trace differs from the first's")
	}
}
