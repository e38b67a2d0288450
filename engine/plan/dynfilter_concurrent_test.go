package plan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/dynfilter/dfevent"
	"github.com/joinlab/joinlab/engine/trace"
)

// traceBytes is a recorded run's trace as JSON lines, the bytes a replay must reproduce.
func traceBytes(t *testing.T, rec *trace.Recorder) string {
	t.Helper()
	var b strings.Builder
	for _, e := range rec.Events() {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// concurrentSlices is the most requests to one source the overlap test lets be in flight at once.
const concurrentSlices = 4

// TestDynamicFilterSlicesOverlap runs the hash, Grace and salted joins of Accounts and Events with a dynamic
// filter of many slices on their probe side (Events, or Accounts where the salted join spreads Events): 5
// values per IN list, the teaching profile's 50 rows per response (so some slices take two pages) and its rate
// of 10 requests a second with bursts of 5. The probe's slices overlap up to concurrentSlices, or go one at a
// time. Overlapped: the rows are the sequential run's in the same order and the nested loop's as a set; a
// second run gives the same trace byte for byte; no more than concurrentSlices requests to the probe are in
// flight at once, and at least two are; no request is over the caps; the run ends earlier in virtual time;
// and the overlapped requests are paced to the rate, so the run is throttled no more often than the
// sequential one.
func TestDynamicFilterSlicesOverlap(t *testing.T) {
	for _, strategy := range []string{"hash", "grace", "salted"} {
		for _, kind := range []string{"inner", "innerunique", "rightsemi"} {
			for _, key := range []string{"uid", "user"} {
				name := fmt.Sprintf("%s/%s/%s", strategy, kind, key)
				t.Run(name, func(t *testing.T) {
					// The hash join builds Accounts, the smaller side, wherever it stands; Grace and the salted
					// join read their left side first here, so Events goes on the right.
					q := fmt.Sprintf("@Accounts | join kind=%s hint.strategy=%%s (@Events) on %s", kind, key)
					// run returns the rows in order, the rows sorted, the trace bytes, the details, the events and the plan.
					run := func(strategy string, concurrent int) (string, string, string, map[string]any, []trace.Event, *Plan) {
						rec := &trace.Recorder{}
						p := buildPlan(t, fmt.Sprintf(q, strategy), dynSourcesCapped(t, connector.Caps{MaxInValues: 5, Concurrent: concurrent}))
						tab, details := runTraced(t, p, rec)
						return rowsText(tab), strings.Join(tableRowsSorted(tab), "\n"), traceBytes(t, rec), details, rec.Events(), p
					}
					_, want, _, _, _, _ := run("nestedloop", 1)
					seqRows, _, _, seqDetails, seqEvents, _ := run(strategy, 1)
					rows, sorted, tr, details, events, p := run(strategy, concurrentSlices)
					evs, probe := 0, ""
					for _, e := range events {
						if a, ok := e.Payload.(dfevent.Applied); ok {
							evs++
							probe = a.Source
							if n := a.Slices; n < concurrentSlices {
								t.Fatalf("%d slices: the test needs more than the %d that overlap", n, concurrentSlices)
							}
						}
					}
					if evs != 1 {
						t.Fatalf("%d dynamic filters ran, want 1; explain:\n%s", evs, p.Explain())
					}
					if want := fmt.Sprintf("up to %d slices' requests in flight at once", concurrentSlices); !strings.Contains(p.Explain(), want) {
						t.Errorf("explain does not say %q:\n%s", want, p.Explain())
					}
					if rows != seqRows {
						t.Fatalf("overlapped slices give other rows, or the same in another order, than sequential ones:\n%s\nsequential:\n%s", rows, seqRows)
					}
					if sorted != want {
						t.Fatalf("%s: %d rows, nested loop %d", strategy, strings.Count(rows, "\n"), strings.Count(want, "\n"))
					}
					if _, _, again, _, _, _ := run(strategy, concurrentSlices); again != tr {
						t.Fatal("a second overlapped run's trace differs from the first's")
					}
					if m := connector.MaxInFlight(events)[probe]; m < 2 || m > concurrentSlices {
						t.Errorf("%d requests to the probe @%s in flight at once, want 2 to %d", m, probe, concurrentSlices)
					}
					for src, m := range connector.MaxInFlight(seqEvents) {
						if m != 1 {
							t.Errorf("sequential run: %d requests to @%s in flight at once, want 1", m, src)
						}
					}
					for _, e := range events {
						if s, ok := e.Payload.(connevent.RequestSent); ok && (s.QueryBytes > s.MaxQueryBytes ||
							s.InValues > s.MaxInValues) {
							t.Fatalf("a request over the caps: %+v", s)
						}
					}
					vt, seqVT := details[trace.VirtualNanos].(int64), seqDetails[trace.VirtualNanos].(int64)
					if vt >= seqVT {
						t.Errorf("overlapped run ends at %d ns of virtual time, sequential at %d", vt, seqVT)
					}
					retries, _ := details[connector.DetailRetries].(int64)
					seqRetries, _ := seqDetails[connector.DetailRetries].(int64)
					if paced, _ := details[connector.DetailPacedWaits].(int64); paced == 0 || retries > seqRetries {
						t.Errorf("overlapped: %d requests paced, %d retries; sequential: %d retries", paced, retries, seqRetries)
					}
					t.Logf("virtual time %.0f ms overlapped, %.0f ms sequential; retries %d and %d", float64(vt)/1e6, float64(seqVT)/1e6, retries, seqRetries)
				})
			}
		}
	}
}
