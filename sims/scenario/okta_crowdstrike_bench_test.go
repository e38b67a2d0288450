package scenario

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/plan"
	"github.com/joinlab/joinlab/engine/query"
)

// benchSeed is the seed every Okta ⋈ CrowdStrike benchmark generates its tables from, so the virtual figures
// are the same run to run until the engine changes.
const benchSeed = 1

// benchTake is the row count of the benchmark queries' take: a run that emits any other number failed.
const benchTake = 100

// benchStrategyTimeout bounds one forced-strategy run in wall time. The baselines are allowed to be hopeless;
// a benchmark that never returns tells nothing, so a run past this is reported as timed out.
const benchStrategyTimeout = time.Minute

// oktaCrowdStrikeTake100 is source document 000's join, as this engine writes it: the whole Okta table against
// every detection, newest sign-ins first, the first page of results only. strategyHint, when not empty, is a
// join parameter such as `hint.strategy=paged`.
func oktaCrowdStrikeTake100(strategyHint string) string {
	join := "join kind=inner"
	if strategyHint != "" {
		join += " " + strategyHint
	}
	return `@OktaSystemLogs
| ` + join + ` (@CrowdStrikeDetections) on $left.actor.alternateId == $right.user_name
| sort by published desc
| take 100`
}

// benchRun is one measured run: fresh sources (generated outside the timer), prepare and run. Stats come back
// even when the run fails, as query.Run returns them.
func benchRun(ctx context.Context, b *testing.B, sc *Scenario, knobs map[string]float64, text string) (*query.Stats, error) {
	b.Helper()
	b.StopTimer()
	srcs, err := sc.Sources(benchSeed, knobs)
	if err != nil {
		b.Fatalf("%s: sources: %v", sc.Name, err)
	}
	b.StartTimer()
	p, err := query.Prepare(context.Background(), text, srcs, query.Options{MemoryBudget: sc.MemoryBudget})
	if err != nil {
		b.Fatalf("%s: prepare: %v", sc.Name, err)
	}
	return p.Run(ctx, func(*column.Batch) error { return nil })
}

// benchFigures sums the virtual figures of a benchmark's runs and reports them per run.
type benchFigures struct {
	firstRowMs, totalMs    float64
	requests, bytesShipped float64
	peakMemBytes, rowsOut  float64
	runs                   int
}

func (f *benchFigures) add(st *query.Stats) {
	f.firstRowMs += st.VirtualFirstRow
	f.totalMs += st.VirtualTotal
	f.requests += float64(st.Requests)
	f.bytesShipped += float64(st.BytesShipped)
	f.peakMemBytes += float64(st.MemoryPeak)
	f.rowsOut += float64(st.RowsOut)
	f.runs++
}

func (f *benchFigures) report(b *testing.B) {
	if f.runs == 0 {
		return
	}
	n := float64(f.runs)
	b.ReportMetric(f.firstRowMs/n, "virtual-ms-first-row")
	b.ReportMetric(f.totalMs/n, "virtual-ms-total")
	b.ReportMetric(f.requests/n, "requests")
	b.ReportMetric(f.bytesShipped/n, "bytes-shipped")
	b.ReportMetric(f.peakMemBytes/n, "peak-mem-bytes")
	b.ReportMetric(f.rowsOut/n, "rows-out")
}

// checkPagedRun fails the benchmark unless the run succeeded with the paged join and emitted exactly the take:
// a benchmark that times a failed or truncated run measures nothing.
func checkPagedRun(b *testing.B, st *query.Stats, err error) {
	b.Helper()
	if err != nil {
		b.Fatalf("run failed after %d rows (strategy %q): %v", st.RowsOut, st.Strategy, err)
	}
	if st.Strategy != string(plan.StrategyPaged) {
		b.Fatalf("strategy %q, want %q", st.Strategy, plan.StrategyPaged)
	}
	if st.RowsOut != benchTake {
		b.Fatalf("%d rows out, want %d", st.RowsOut, benchTake)
	}
}

// BenchmarkOktaCrowdStrikeTake100 measures the paged federated join on the okta-crowdstrike scenario at its
// defaults (70 billion Okta rows behind Sentinel's caps, seed 1): take100 is the source document's query
// (join, sort by published desc, take 100), default is the scenario's own query with its filters and
// projection. Besides wall time it reports the run's virtual figures: virtual ms to the first row and in all,
// requests, bytes shipped, peak memory and rows out. Each iteration generates fresh sources, off the timer.
//
//	go test -run XXX -bench OktaCrowdStrikeTake100 -benchtime 1x ./sims/scenario/
func BenchmarkOktaCrowdStrikeTake100(b *testing.B) {
	sc, err := Get("okta-crowdstrike")
	if err != nil {
		b.Fatal(err)
	}
	knobs, err := sc.Resolve(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, query string }{
		{"take100", oktaCrowdStrikeTake100("")},
		{"default", sc.Query},
	} {
		b.Run(c.name, func(b *testing.B) {
			var f benchFigures
			for i := 0; i < b.N; i++ {
				st, err := benchRun(context.Background(), b, sc, knobs, c.query)
				checkPagedRun(b, st, err)
				f.add(st)
			}
			f.report(b)
		})
	}
}

// BenchmarkPagedVsBaselines10M runs the source document's query over 10 million Okta rows (okta-crowdstrike
// with okta_rows=1e7, still behind Sentinel's 500,000-row cap) with the join forced to the paged join and to
// two of the baselines it replaces: fetchall (fetch the whole side in one request) and timewindow (fixed
// time windows with no cap on a window's rows). The paged join must succeed. A baseline that fails reports
// failed=1 (cap=1 when the failure is a connector's response cap, timed-out=1 when it ran past
// benchStrategyTimeout) with the figures it reached before failing, and logs the error.
//
//	go test -run XXX -bench PagedVsBaselines10M -benchtime 1x ./sims/scenario/
func BenchmarkPagedVsBaselines10M(b *testing.B) {
	sc, err := Get("okta-crowdstrike")
	if err != nil {
		b.Fatal(err)
	}
	knobs, err := sc.Resolve(map[string]float64{"okta_rows": 1e7})
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range []plan.Strategy{plan.StrategyPaged, plan.StrategyFetchAll, plan.StrategyTimeWindow} {
		text := oktaCrowdStrikeTake100(`hint.strategy="` + string(s) + `"`)
		b.Run(string(s), func(b *testing.B) {
			var f benchFigures
			var failed, capHit, timedOut float64
			for i := 0; i < b.N; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), benchStrategyTimeout)
				st, err := benchRun(ctx, b, sc, knobs, text)
				cancel()
				if s == plan.StrategyPaged {
					checkPagedRun(b, st, err)
				} else if st.Strategy != string(s) {
					b.Fatalf("strategy %q, want the forced %q", st.Strategy, s)
				}
				f.add(st)
				if err == nil {
					if st.RowsOut != benchTake {
						b.Logf("%s: succeeded with %d rows out, not %d", s, st.RowsOut, benchTake)
					}
					continue
				}
				failed++
				var tooLarge *connector.ResultTooLargeError
				switch {
				case errors.As(err, &tooLarge):
					capHit++
				case errors.Is(err, context.DeadlineExceeded):
					timedOut++
				}
				if i == 0 {
					b.Logf("%s: failed after %d rows, %d requests, %.0f virtual ms: %v",
						s, st.RowsOut, st.Requests, st.VirtualTotal, err)
				}
			}
			f.report(b)
			n := float64(b.N)
			b.ReportMetric(failed/n, "failed")
			b.ReportMetric(capHit/n, "cap")
			b.ReportMetric(timedOut/n, "timed-out")
		})
	}
}
