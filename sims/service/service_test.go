package service_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/connector/connectortest"
	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/sims/clock"
	"github.com/joinlab/joinlab/sims/dataset"
	"github.com/joinlab/joinlab/sims/profile"
	"github.com/joinlab/joinlab/sims/service"
)

func tables(t *testing.T, seed uint64) []service.Table {
	p := dataset.DefaultOkta
	p.Rows, p.Users, p.Seed = 3000, 300, seed
	okta, err := dataset.NewOktaLogs(p)
	if err != nil {
		t.Fatal(err)
	}
	return []service.Table{okta,
		dataset.CrowdStrikeDetections(500, 300, 1.3, p.End, p.Span, seed),
		dataset.SigninLogs(500, 300, 1.3, p.End, p.Span, seed)}
}

// TestConformance runs the suite on every profile over every dataset, fault-free and with faults injected.
func TestConformance(t *testing.T) {
	for _, name := range profile.Names() {
		for _, faulty := range []bool{false, true} {
			prof, _ := profile.Get(name)
			if faulty {
				prof.Faults.Transient, prof.Faults.Truncate = 0.2, 0.2
			}
			for _, tab := range tables(t, 7) {
				t.Run(fmt.Sprintf("%s/faults=%t/%s", name, faulty, tab.Info().Name), func(t *testing.T) {
					svc, err := service.New(prof, clock.New(), 7, tab)
					if err != nil {
						t.Fatal(err)
					}
					connectortest.Run(t, svc, tab.Info())
				})
			}
		}
	}
}

func key(info connector.TableInfo) []string {
	var out []string
	for _, k := range info.Key {
		out = append(out, k.Column)
	}
	return out
}

// TestCapsExactlyOnePast checks each cap gives its typed error one past the limit and none at it.
func TestCapsExactlyOnePast(t *testing.T) {
	tab := tables(t, 3)[1] // CrowdStrikeDetections, 500 rows
	info := tab.Info()
	ctx := context.Background()
	mk := func(c connector.Caps) *service.Service {
		prof, _ := profile.Get("teaching")
		prof.Caps = c
		svc, err := service.New(prof, clock.New(), 1, tab)
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	all := connector.Request{Table: info.Name, Columns: key(info)}
	// Rows: a limit-0 request whose answer is exactly MaxRows fits; one fewer MaxRows is too large.
	var big *connector.ResultTooLargeError
	if _, err := mk(connector.Caps{MaxRows: 500}).Query(ctx, all); err != nil {
		t.Errorf("500 rows under a 500-row cap: %v", err)
	}
	if _, err := mk(connector.Caps{MaxRows: 499}).Query(ctx, all); !errors.As(err, &big) || big.Rows != 500 {
		t.Errorf("500 rows under a 499-row cap: %v, want result too large with 500 rows", err)
	}
	// Bytes: measure the answer, then cap at it and one below it.
	p, err := mk(connector.Caps{}).Query(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mk(connector.Caps{MaxBytes: p.Bytes}).Query(ctx, all); err != nil {
		t.Errorf("%d bytes under a cap of as many: %v", p.Bytes, err)
	}
	if _, err := mk(connector.Caps{MaxBytes: p.Bytes - 1}).Query(ctx, all); !errors.As(err, &big) || big.Bytes != p.Bytes {
		t.Errorf("%d bytes under a cap of one less: %v", p.Bytes, err)
	}
	// A truncating source cuts instead, and says so.
	tp, err := mk(connector.Caps{MaxBytes: p.Bytes - 1, TruncatesResults: true}).Query(ctx, all)
	if err != nil || !tp.Truncated || tp.Rows() != 499 {
		t.Errorf("truncating source: %d rows truncated=%t err %v, want 499 rows truncated", tp.Rows(), tp.Truncated, err)
	}
	// IN values.
	in := func(n int) connector.Request {
		vals := make([]column.Value, n)
		for i := range vals {
			vals[i] = column.Value{Type: column.String, Str: fmt.Sprint(i)}
		}
		return connector.Request{Table: info.Name, Columns: key(info), Where: connector.In{Column: "user_name", Values: vals}}
	}
	var ftl *connector.FilterTooLargeError
	if _, err := mk(connector.Caps{MaxInValues: 20}).Query(ctx, in(20)); err != nil {
		t.Errorf("20 values under a 20-value cap: %v", err)
	}
	if _, err := mk(connector.Caps{MaxInValues: 20}).Query(ctx, in(21)); !errors.As(err, &ftl) || ftl.Values != 21 {
		t.Errorf("21 values under a 20-value cap: %v", err)
	}
	// Query bytes, measured on the rendered text.
	text, _ := mk(connector.Caps{}).Render(in(30))
	if _, err := mk(connector.Caps{MaxQueryBytes: len(text)}).Query(ctx, in(30)); err != nil {
		t.Errorf("query of %d bytes under a cap of as many: %v", len(text), err)
	}
	if _, err := mk(connector.Caps{MaxQueryBytes: len(text) - 1}).Query(ctx, in(30)); !errors.As(err, &ftl) || ftl.Bytes != len(text) {
		t.Errorf("query of %d bytes under a cap of one less: %v", len(text), err)
	}
	// Throttling: the burst passes, the next request is throttled with a retry-after.
	svc := mk(connector.Caps{Requests: 2, Window: time.Second, Burst: 2})
	for i := 0; i < 2; i++ {
		if _, err := svc.Query(ctx, connector.Request{Table: info.Name, Columns: key(info), Limit: 1}); err != nil {
			t.Fatalf("request %d within the burst: %v", i, err)
		}
	}
	var th *connector.ThrottledError
	if _, err := svc.Query(ctx, connector.Request{Table: info.Name, Columns: key(info), Limit: 1}); !errors.As(err, &th) || th.RetryAfter <= 0 {
		t.Errorf("request past the burst: %v, want throttled with a retry-after", err)
	}
}

// scanAll runs where-filtered scans of every table through the engine's connector scan and returns the rows as
// text and the trace.
func scanAll(t *testing.T, prof profile.Profile, seed uint64, retry connector.RetryPolicy) (map[string][]string, []trace.Event, error) {
	t.Helper()
	clk := clock.New()
	rec := &trace.Recorder{}
	out := map[string][]string{}
	for _, tab := range tables(t, 11) {
		svc, err := service.New(prof, clk, seed, tab)
		if err != nil {
			t.Fatal(err)
		}
		info := tab.Info()
		src, err := connector.NewSource(info.Name, svc, info, connector.Options{Clock: clk, Seed: seed, Retry: retry})
		if err != nil {
			t.Fatal(err)
		}
		// Push one condition on the first key so the filter path is exercised too.
		q, _ := kql.Parse(fmt.Sprintf("@x | where isnotnull(%s)", info.Key[0].Column))
		pushed, rejected := src.Push([]kql.Expr{q.Ops[0].(*kql.Where).Pred})
		if len(rejected) != 0 {
			t.Fatalf("isnotnull was not pushed")
		}
		schema := pushed.Schema(key(info))
		op := exec.NewScan(context.Background(), &traced{pushed, rec}, schema, all(len(schema)))
		tbl, err := exec.Materialize(context.Background(), op)
		if err != nil {
			return nil, rec.Events(), err
		}
		for i := 0; i < tbl.N; i++ {
			var row []any
			for _, c := range tbl.Cols {
				row = append(row, c.Value(i))
			}
			out[info.Name] = append(out[info.Name], fmt.Sprint(row))
		}
	}
	return out, rec.Events(), nil
}

type traced struct {
	source.Pushdown
	rec *trace.Recorder
}

func (t *traced) Scan(ctx context.Context, cols []column.Field) source.Iterator {
	return t.ScanTraced(ctx, cols, t.rec, nil)
}

func all(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

// TestScanUnderFaults: throttling, 503s, timeouts and truncated pages change the trace, never the rows.
func TestScanUnderFaults(t *testing.T) {
	base, _ := profile.Get("teaching")
	want, _, err := scanAll(t, base, 1, connector.RetryPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 2, 3} {
		prof := base
		prof.Caps.Requests, prof.Caps.Burst = 5, 2
		prof.Faults.Transient, prof.Faults.Timeout, prof.Faults.Truncate = 0.15, 0.05, 0.2
		prof.Faults.TimeoutAfter = 5 * time.Second
		got, events, err := scanAll(t, prof, seed, connector.RetryPolicy{Attempts: 20, Budget: 100000, Base: 10 * time.Millisecond, Max: time.Second})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		counts := map[trace.Kind]int{}
		for _, e := range events {
			counts[e.Kind()]++
		}
		t.Logf("seed %d: %v", seed, counts)
		if counts[connevent.KindRequestThrottled] == 0 || counts[connevent.KindRequestRetried] == 0 {
			t.Errorf("seed %d: no throttles or retries happened, so the test proves nothing: %v", seed, counts)
		}
		for name, rows := range want {
			if !reflect.DeepEqual(got[name], rows) {
				t.Errorf("seed %d: %s: %d rows under faults, %d without; they differ", seed, name, len(got[name]), len(rows))
			}
		}
	}
}

// TestRetryBudgetSpent: a source that always fails stops the scan with a clear error.
func TestRetryBudgetSpent(t *testing.T) {
	prof, _ := profile.Get("teaching")
	prof.Faults.Transient = 1
	_, _, err := scanAll(t, prof, 1, connector.RetryPolicy{Attempts: 4, Budget: 10, Base: time.Millisecond, Max: time.Second})
	var tr *connector.TransientError
	if err == nil || !errors.As(err, &tr) {
		t.Fatalf("got %v, want a spent retry budget wrapping the transient failure", err)
	}
	t.Log(err)
}

// TestDeterministicTrace: one seed, byte-identical traces and virtual times.
func TestDeterministicTrace(t *testing.T) {
	prof, _ := profile.Get("teaching")
	prof.Faults.Transient, prof.Faults.Truncate = 0.1, 0.1
	_, a, err := scanAll(t, prof, 5, connector.RetryPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	_, b, _ := scanAll(t, prof, 5, connector.RetryPolicy{})
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("two runs with one seed gave different traces")
	}
	if len(a) == 0 || a[len(a)-1].At == 0 {
		t.Fatal("trace is empty or virtual time never moved")
	}
}

// retriesAfterFaults counts the retries a trace shows after faults: every retry that no throttle asked for.
func retriesAfterFaults(events []trace.Event) int {
	n := 0
	for _, e := range events {
		switch e.Kind() {
		case connevent.KindRequestRetried:
			n++
		case connevent.KindRequestThrottled:
			n--
		}
	}
	return n
}

// TestThrottleWaitsSpendNoBudget: under a rate limit of one request a second and no faults, a scan with a
// retry budget of one retry is throttled far more often than that, waits each throttle out, and returns the
// rows of an unthrottled scan. The same seed gives the same trace.
func TestThrottleWaitsSpendNoBudget(t *testing.T) {
	base, _ := profile.Get("teaching")
	base.Caps.Requests, base.Caps.Burst = 0, 0
	want, _, err := scanAll(t, base, 1, connector.RetryPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	prof := base
	prof.Caps.Requests, prof.Caps.Window, prof.Caps.Burst = 1, time.Second, 1
	tight := connector.RetryPolicy{Attempts: 1, Budget: 1}
	got, events, err := scanAll(t, prof, 1, tight)
	if err != nil {
		t.Fatalf("a throttle-only scan failed: %v", err)
	}
	throttled := 0
	for _, e := range events {
		if e.Kind() == connevent.KindRequestThrottled {
			throttled++
		}
	}
	if throttled <= tight.Budget {
		t.Fatalf("%d throttles: the rate limit did not bite, so the test proves nothing", throttled)
	}
	if n := retriesAfterFaults(events); n != 0 {
		t.Errorf("%d retries after faults in a run with no faults", n)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("throttled rows differ from unthrottled ones")
	}
	_, again, err := scanAll(t, prof, 1, tight)
	if err != nil || fmt.Sprint(again) != fmt.Sprint(events) {
		t.Errorf("a second run with the same seed gave another trace (err %v)", err)
	}
}

// TestRetryBudgetStopsAFailingSource: throttles aside, faults still spend the budget. A source that always
// fails stops after Attempts sends of its first request; one that fails every other request stops once the
// operator has retried Budget times — under a rate limit that throttles it too, which spends nothing.
func TestRetryBudgetStopsAFailingSource(t *testing.T) {
	prof, _ := profile.Get("teaching")
	prof.Caps.Requests, prof.Caps.Window, prof.Caps.Burst = 1, time.Second, 1
	for _, c := range []struct {
		transient float64
		pol       connector.RetryPolicy
		sends     int // sends before the stop, when known: Attempts for a source that always fails
	}{
		{1, connector.RetryPolicy{Attempts: 4, Budget: 100, Base: time.Millisecond, Max: time.Second}, 4},
		{0.5, connector.RetryPolicy{Attempts: 100, Budget: 3, Base: time.Millisecond, Max: time.Second}, 0},
	} {
		prof.Faults.Transient = c.transient
		_, events, err := scanAll(t, prof, 1, c.pol)
		var tr *connector.TransientError
		var dl *connector.DeadlineError
		if err == nil || !errors.As(err, &tr) || errors.As(err, &dl) || !strings.Contains(err.Error(), "retry budget spent") {
			t.Fatalf("transient rate %g: got %v, want a spent retry budget wrapping the transient failure", c.transient, err)
		}
		sends, throttled := 0, 0
		for _, e := range events {
			switch e.Kind() {
			case connevent.KindRequestSent:
				sends++
			case connevent.KindRequestThrottled:
				throttled++
			}
		}
		faultRetries := retriesAfterFaults(events)
		if c.sends > 0 && sends-throttled != c.sends {
			t.Errorf("transient rate %g: %d sends answered by the source, want %d: %v", c.transient, sends-throttled, c.sends, err)
		}
		if c.sends == 0 && faultRetries != c.pol.Budget {
			t.Errorf("transient rate %g: %d retries after faults, want the budget's %d: %v", c.transient, faultRetries, c.pol.Budget, err)
		}
		if throttled == 0 {
			t.Errorf("transient rate %g: no throttles, so the test does not show they spend nothing", c.transient)
		}
	}
}

// TestDeadlineStopsTheQuery: a query that cannot finish by its deadline in virtual time stops with an error
// naming the deadline and the time reached, whether the clock passed it on an answer or a throttle's wait
// would have; it never sleeps past it.
func TestDeadlineStopsTheQuery(t *testing.T) {
	prof, _ := profile.Get("teaching")
	for _, c := range []struct {
		name     string
		requests int           // per 10 s
		deadline time.Duration // of the query
		cause    bool          // a throttle's wait hits the deadline (else the clock does, on an answer)
	}{
		{"on an answer", 0, 200 * time.Millisecond, false},
		{"before a wait", 1, 2 * time.Second, true},
	} {
		prof.Caps.Requests, prof.Caps.Window, prof.Caps.Burst = c.requests, 10*time.Second, 1
		_, events, err := scanAll(t, prof, 1, connector.RetryPolicy{Deadline: c.deadline})
		var dl *connector.DeadlineError
		if !errors.As(err, &dl) {
			t.Fatalf("%s: got %v, want a deadline error", c.name, err)
		}
		if dl.Deadline != c.deadline || dl.Reached <= c.deadline || !strings.Contains(err.Error(), c.deadline.String()+" deadline") ||
			!strings.Contains(err.Error(), dl.Reached.String()) {
			t.Errorf("%s: %v (deadline %s, reached %s): want the deadline %s and the time reached", c.name, err, dl.Deadline, dl.Reached, c.deadline)
		}
		var th *connector.ThrottledError
		if hasCause := errors.As(dl.Cause, &th); hasCause != c.cause {
			t.Errorf("%s: cause %v, want a throttle: %v", c.name, dl.Cause, c.cause)
		}
		if last := events[len(events)-1]; c.cause && last.At > c.deadline {
			t.Errorf("%s: the trace ends at %s, past the deadline: the wait was taken", c.name, last.At)
		}
		t.Log(err)
	}
}
