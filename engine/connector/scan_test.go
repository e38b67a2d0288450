package connector_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/sims/clock"
	"github.com/joinlab/joinlab/sims/dataset"
	"github.com/joinlab/joinlab/sims/profile"
	"github.com/joinlab/joinlab/sims/service"
	"github.com/joinlab/joinlab/sims/throttle"
)

// capSweepTable is 60 events (ts, id, user) keyed by (ts desc, id) or, with longKey, (ts desc, seq): ids
// of varying length, so a string cursor's rendered size changes from page to page.
func capSweepTable(longKey bool) (connector.TableInfo, *column.Table) {
	schema := column.Schema{{Name: "ts", Type: column.DateTime}, {Name: "id", Type: column.String},
		{Name: "seq", Type: column.Long}, {Name: "user", Type: column.String}}
	tab := column.NewTable(schema)
	users := []string{"ana", "bob", "carl"}
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for i := 0; i < 60; i++ {
		tab.Cols[0].AppendInt(base.Add(-time.Duration(i/4) * time.Minute).UnixNano())
		tab.Cols[1].AppendString(fmt.Sprintf("e%s%02d", strings.Repeat("x", (i*7)%23), i))
		tab.Cols[2].AppendInt(int64(i * 1_000_003))
		tab.Cols[3].AppendString(users[i%len(users)])
		tab.N++
	}
	key := []connector.OrderKey{{Column: "ts", Desc: true}, {Column: "id"}}
	if longKey {
		key = []connector.OrderKey{{Column: "ts", Desc: true}, {Column: "seq"}}
	}
	return connector.TableInfo{Name: "Events", Schema: schema, Rows: int64(tab.N), Key: key}, tab
}

// oldCursorReserve is the fixed cursor allowance Push used to add to the rendered condition: a cap below it
// could never take a condition then.
const oldCursorReserve = 512

type sweepRun struct {
	pushed    bool
	ids       []string
	maxSent   int // the longest rendered request sent
	fallbacks int64
	err       error
}

// sweepScan pushes `user in ("ana", "carl")` (when push) into a scan of Events behind prof's dialect with
// queryBytes of query text and 7 rows per response, then scans the id column.
func sweepScan(t *testing.T, prof profile.Profile, longKey, push bool, queryBytes int) sweepRun {
	t.Helper()
	info, tab := capSweepTable(longKey)
	prof.Caps.MaxRows, prof.Caps.MaxBytes, prof.Caps.MaxInValues, prof.Caps.MaxQueryBytes = 7, 0, 0, queryBytes
	prof.Caps.Requests = 0
	clk := clock.New()
	svc, err := service.New(prof, clk, 1, dataset.NewMemTable(info, tab))
	if err != nil {
		t.Fatal(err)
	}
	src, err := connector.NewSource("Events", svc, info, connector.Options{Clock: clk, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	q, err := kql.Parse(`@Events | where user in ("ana", "carl")`)
	if err != nil {
		t.Fatal(err)
	}
	var scanned source.Pushdown = src
	run := sweepRun{pushed: true}
	if push {
		var rejected []kql.Expr
		scanned, rejected = src.Push([]kql.Expr{q.Ops[0].(*kql.Where).Pred})
		if run.pushed = len(rejected) == 0; !run.pushed {
			return run
		}
	}
	rec, details := &trace.Recorder{}, &trace.Details{}
	it := scanned.(*connector.Source).ScanTraced(context.Background(), column.Schema{{Name: "id", Type: column.String}}, rec, details)
	for {
		b, err := it.Next(context.Background())
		if err != nil {
			run.err = err
			break
		}
		if b == nil {
			break
		}
		for i := 0; i < b.N; i++ {
			run.ids = append(run.ids, b.Cols[0].Value(i).Str)
		}
	}
	for _, e := range rec.Events() {
		if p, ok := e.Payload.(connevent.RequestSent); ok {
			run.maxSent = max(run.maxSent, p.QueryBytes)
		}
	}
	run.fallbacks = details.Int(connector.DetailPushFallbacks)
	return run
}

// TestScanPushCapSweep sweeps the query-byte cap under every dialect. Wherever Push accepts the condition the
// scan returns exactly the matching rows and sends nothing over the cap; the smallest cap that accepts it is
// the condition plus the widest cursor, far under the old fixed 512-byte reserve. Over a datetime and long
// key that measure bounds every continuation (no fallback ever); over a string key some caps need the
// fallback that applies the condition in the engine for the requests whose cursor is longer. A cap under
// which even the bare keyset seek does not fit fails every scan of the table, pushed or not, and is skipped.
func TestScanPushCapSweep(t *testing.T) {
	_, tab := capSweepTable(false)
	var want []string
	for i := 0; i < tab.N; i++ {
		if u := tab.Cols[3].Value(i).Str; u == "ana" || u == "carl" {
			want = append(want, tab.Cols[1].Value(i).Str)
		}
	}
	for _, name := range []string{"sentinel", "splunk", "crowdstrike", "s3"} {
		prof, err := profile.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		prof.Faults = throttle.Faults{}
		for _, longKey := range []bool{false, true} {
			lowest, fellBack := 0, false
			for queryBytes := 1; queryBytes <= 1200; queryBytes++ {
				run := sweepScan(t, prof, longKey, true, queryBytes)
				if !run.pushed {
					if lowest > 0 {
						t.Fatalf("%s long=%v: cap %d refused the condition that cap %d took", name, longKey, queryBytes, lowest)
					}
					continue
				}
				if lowest == 0 {
					lowest = queryBytes
				}
				if run.err != nil && sweepScan(t, prof, longKey, false, queryBytes).err != nil {
					continue // the bare keyset seek is over the cap: no scan of this table can run at it
				}
				if run.err != nil {
					t.Fatalf("%s long=%v cap %d: %v", name, longKey, queryBytes, run.err)
				}
				if run.maxSent > queryBytes {
					t.Fatalf("%s long=%v cap %d: sent a %d-byte request", name, longKey, queryBytes, run.maxSent)
				}
				if want := sortedCopy(want); strings.Join(sortedCopy(run.ids), ",") != strings.Join(want, ",") {
					t.Fatalf("%s long=%v cap %d: got %d rows %v, want %d", name, longKey, queryBytes, len(run.ids), run.ids, len(want))
				}
				if longKey && run.fallbacks > 0 {
					t.Fatalf("%s cap %d: a bounded key's widest cursor was measured, yet %d requests fell back", name, queryBytes, run.fallbacks)
				}
				fellBack = fellBack || run.fallbacks > 0
			}
			if lowest == 0 {
				t.Fatalf("%s long=%v: no cap up to 1200 bytes takes the condition", name, longKey)
			}
			t.Logf("%s long=%v: the smallest cap that takes the condition: %d bytes", name, longKey, lowest)
			if lowest >= oldCursorReserve {
				t.Errorf("%s long=%v: the condition needs a %d-byte cap, no better than the old fixed reserve", name, longKey, lowest)
			}
			if !longKey && !fellBack {
				t.Errorf("%s: no cap made a string cursor fall back: the sweep does not test the fallback", name)
			}
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
