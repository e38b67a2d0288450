package scenario

import (
	"context"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/plan"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/trace"
)

// TestOktaCrowdStrikeTake100Targets holds the paged join to its targets on source document 000's query over
// the 70-billion-row okta-crowdstrike scenario (Sentinel's caps and latency, seed 1). The figures are virtual
// (the simulated sources' clock and byte counts), so they are the same on every machine:
//   - requests within 1.5× the fewest that could return these rows — one request to each source, so 3;
//   - the first row within 2 s of virtual time;
//   - memory held at most two responses' worth (the largest response the run received, twice).
func TestOktaCrowdStrikeTake100Targets(t *testing.T) {
	p, rec := prepareOn(t, "okta-crowdstrike", nil, oktaCrowdStrikeTake100(""))
	rows := 0
	st, err := p.Run(context.Background(), func(b *column.Batch) error { rows += b.N; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if st.Strategy != string(plan.StrategyPaged) || rows != benchTake || st.RowsOut != benchTake {
		t.Fatalf("strategy %q, %d rows (stats %d); want %q and %d rows", st.Strategy, rows, st.RowsOut, plan.StrategyPaged, benchTake)
	}
	const fewest = 2
	if st.Requests > fewest*3/2 {
		t.Errorf("%d requests (%v), want at most 1.5× the fewest (%d)", st.Requests, st.RequestsBySource, fewest)
	}
	if st.VirtualFirstRow > 2000 {
		t.Errorf("first row at %.0f virtual ms, want within 2,000", st.VirtualFirstRow)
	}
	var largest int64
	for _, e := range rec.Events() {
		if p, ok := e.Payload.(connevent.PageReturned); ok && p.Bytes > largest {
			largest = p.Bytes
		}
	}
	if largest == 0 || st.MemoryPeak > 2*largest {
		t.Errorf("peak memory %d bytes against a largest response of %d bytes, want at most two responses", st.MemoryPeak, largest)
	}
	t.Logf("%d requests %v, %d bytes shipped, first row at %.0f virtual ms, done at %.0f, peak memory %d bytes (largest response %d)",
		st.Requests, st.RequestsBySource, st.BytesShipped, st.VirtualFirstRow, st.VirtualTotal, st.MemoryPeak, largest)
}

// prepareOn prepares text ("" for the scenario's own query) over scenario name's sources at benchSeed, with the
// knobs in set (nil: the defaults) and the scenario's memory budget, tracing into the recorder it returns.
func prepareOn(t testing.TB, name string, set map[string]float64, text string) (*query.Prepared, *trace.Recorder) {
	t.Helper()
	sc, err := Get(name)
	if err != nil {
		t.Fatal(err)
	}
	knobs, err := sc.Resolve(set)
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := sc.Sources(benchSeed, knobs)
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
	return p, rec
}
