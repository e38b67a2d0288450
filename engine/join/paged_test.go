package join

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// testClock is a virtual clock for the tests' connectors.
type testClock struct{ now time.Duration }

func (c *testClock) Now() time.Duration { return c.now }
func (c *testClock) Sleep(ctx context.Context, d time.Duration) error {
	c.now += d
	return ctx.Err()
}

// memConn is a small connector over one in-memory table: it enforces caps (rows, IN values, query bytes of
// the predicate's text), fails a seeded fraction of requests with 503s or 429s, and answers with the
// reference predicate semantics, ordered with nulls last.
type memConn struct {
	info   connector.TableInfo
	t      *column.Table
	caps   connector.Caps
	clock  *testClock
	rng    *rand.Rand
	faults float64
	sent   int
	// latency is the time a request takes (nil: 100 ms each).
	latency func(connector.Request) time.Duration
}

func (m *memConn) Caps() connector.Caps { return m.caps }
func (m *memConn) Render(req connector.Request) (string, error) {
	w := "true"
	if req.Where != nil {
		w = req.Where.String()
	}
	return fmt.Sprintf("%s | where %s | take %d", req.Table, w, req.Limit), nil
}

func (m *memConn) Query(ctx context.Context, req connector.Request) (connector.Page, error) {
	m.sent++
	if m.latency != nil {
		m.clock.now += m.latency(req)
	} else {
		m.clock.now += 100 * time.Millisecond
	}
	if req.Limit < 0 || (m.caps.MaxRows > 0 && req.Limit > m.caps.MaxRows) {
		return connector.Page{}, &connector.InvalidRequestError{Reason: "limit over the cap"}
	}
	if n := connector.InValues(req.Where); m.caps.MaxInValues > 0 && n > m.caps.MaxInValues {
		return connector.Page{}, &connector.FilterTooLargeError{Values: n, MaxValues: m.caps.MaxInValues}
	}
	if text, _ := m.Render(req); m.caps.MaxQueryBytes > 0 && len(text) > m.caps.MaxQueryBytes {
		return connector.Page{}, &connector.FilterTooLargeError{Bytes: len(text), MaxBytes: m.caps.MaxQueryBytes}
	}
	if m.rng != nil {
		switch x := m.rng.Float64(); {
		case x < m.faults/2:
			return connector.Page{}, &connector.TransientError{Status: 503, Reason: "injected"}
		case x < m.faults:
			return connector.Page{}, &connector.ThrottledError{RetryAfter: time.Second}
		}
	}
	names := make([]string, len(m.info.Schema))
	for i, f := range m.info.Schema {
		names[i] = f.Name
	}
	keep, err := connector.Eval(req.Where, names, m.t.Batch())
	if err != nil {
		return connector.Page{}, err
	}
	var idx []int32
	for i, k := range keep {
		if k {
			idx = append(idx, int32(i))
		}
	}
	tab := &column.Table{Schema: m.t.Schema, Cols: m.t.Cols, N: m.t.N}
	sorted := sortTable(&column.Table{Schema: tab.Schema, Cols: gatherAll(tab, idx), N: len(idx)}, req.OrderBy)
	n := sorted.N
	if req.Limit > 0 {
		n = min(n, req.Limit)
	} else if m.caps.MaxRows > 0 && n > m.caps.MaxRows {
		return connector.Page{}, &connector.ResultTooLargeError{Rows: int64(n), MaxRows: int64(m.caps.MaxRows)}
	}
	cols := make([]*column.Vector, len(req.Columns))
	for i, c := range req.Columns {
		cols[i] = sorted.Cols[sorted.Schema.Index(c)].Slice(0, n)
	}
	b := column.NewBatch(cols, n)
	return connector.Page{Batch: b, Bytes: connector.RowBytes(req.Columns, b)}, nil
}

func gatherAll(t *column.Table, idx []int32) []*column.Vector {
	out := make([]*column.Vector, len(t.Cols))
	for i, c := range t.Cols {
		out[i] = c.Gather(idx)
	}
	return out
}

var (
	logSchema = column.Schema{{Name: "ts", Type: column.DateTime}, {Name: "user", Type: column.String}, {Name: "id", Type: column.String}}
	detSchema = column.Schema{{Name: "user_name", Type: column.String}, {Name: "det", Type: column.String}}
	logKey    = []connector.OrderKey{{Column: "ts", Desc: true}, {Column: "user"}, {Column: "id"}}
	detKey    = []connector.OrderKey{{Column: "det"}}
)

// noon is 12:00; minute(k) is k minutes before it.
var noon = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC).UnixNano()

func minute(k int) int64 { return noon - int64(k)*int64(time.Minute) }

type logRow struct {
	ts   int64 // -1: null
	user string
}

func logTable(rows []logRow) *column.Table {
	t := column.NewTable(logSchema)
	for i, r := range rows {
		if r.ts < 0 {
			t.Cols[0].AppendNull()
		} else {
			t.Cols[0].AppendInt(r.ts)
		}
		if r.user == "" {
			t.Cols[1].AppendNull()
		} else {
			t.Cols[1].AppendString(r.user)
		}
		t.Cols[2].AppendString(fmt.Sprintf("e%03d", i))
		t.N++
	}
	return t
}

func detTable(users ...string) *column.Table {
	t := column.NewTable(detSchema)
	for i, u := range users {
		if u == "" {
			t.Cols[0].AppendNull() // a detection with no user: a null key on the probe side
		} else {
			t.Cols[0].AppendString(u)
		}
		t.Cols[1].AppendString(fmt.Sprintf("d%03d-%s", i, u))
		t.N++
	}
	return t
}

type pagedCase struct {
	logs, dets *column.Table
	logCaps    connector.Caps
	detCaps    connector.Caps
	faults     float64
	seed       uint64
}

// remotes makes the two sides over memConns sharing one clock.
func (c pagedCase) remotes() (*Remote, *Remote, *memConn, *memConn) {
	clk := &testClock{}
	var lr, rr *rand.Rand
	if c.faults > 0 {
		lr, rr = rand.New(rand.NewPCG(c.seed, 1)), rand.New(rand.NewPCG(c.seed, 2))
	}
	lc := &memConn{info: connector.TableInfo{Name: "Logs", Schema: logSchema, Key: logKey, Rows: int64(c.logs.N)}, t: c.logs, caps: c.logCaps, clock: clk, rng: lr, faults: c.faults}
	rc := &memConn{info: connector.TableInfo{Name: "Dets", Schema: detSchema, Key: detKey, Rows: int64(c.dets.N)}, t: c.dets, caps: c.detCaps, clock: clk, rng: rr, faults: c.faults}
	retry := connector.RetryPolicy{Attempts: 50, Budget: 100000, Base: time.Millisecond, Max: time.Second}
	l := &Remote{Name: "Logs", Conn: lc, Info: lc.info, Columns: []string{"ts", "user", "id"}, Key: 1, Clock: clk, Retry: retry, Seed: c.seed}
	r := &Remote{Name: "Dets", Conn: rc, Info: rc.info, Columns: []string{"user_name", "det"}, Key: 0, Clock: clk, Retry: retry, Seed: c.seed}
	return l, r, lc, rc
}

// oracle is the nested-loop join over the full tables, in the paged join's documented order: ts desc with
// nulls last, then the key, then the left table's key (id), each left row's matches in det order.
func oracle(t *testing.T, spec *Spec, c pagedCase) []string {
	t.Helper()
	nl := NewNestedLoop(spec, &tableOp{t: c.logs, size: 7}, &tableOp{t: sortTable(c.dets, detKey), size: 7}, memory.NewBudget(0))
	tab, err := exec.Materialize(context.Background(), nl)
	if err != nil {
		t.Fatal(err)
	}
	return render(sortTable(tab, pagedOrder(tab)))
}

// pagedOrder is the paged join's documented order over the columns of tab that are output: ts desc with nulls
// last, then the key, then the logs' table key (id), then det (a semi or anti join outputs one side only).
func pagedOrder(tab *column.Table) []connector.OrderKey {
	var order []connector.OrderKey
	for _, k := range []connector.OrderKey{{Column: "ts", Desc: true}, {Column: "user"}, {Column: "id"}, {Column: "det"}} {
		if tab.Schema.Index(k.Column) >= 0 {
			order = append(order, k)
		}
	}
	return order
}

func render(t *column.Table) []string {
	out := make([]string, t.N)
	for r := 0; r < t.N; r++ {
		var b strings.Builder
		for c, v := range t.Cols {
			if c > 0 {
				b.WriteString("|")
			}
			switch {
			case v == nil:
				b.WriteString("-")
			case v.IsNull(r):
				b.WriteString("∅")
			case v.Type == column.DateTime:
				fmt.Fprintf(&b, "%dm", (noon-v.Ints[r])/int64(time.Minute))
			default:
				b.WriteString(expr.ToString(v.Value(r)))
			}
		}
		out[r] = b.String()
	}
	return out
}

func runPaged(t *testing.T, op exec.Operator, err error) ([]string, error) {
	t.Helper()
	if err != nil {
		return nil, err
	}
	tab, err := exec.Materialize(context.Background(), op)
	if err != nil {
		return nil, err
	}
	return render(tab), nil
}

// genLogs makes n log rows over few timestamps (dense ties: whole pages share one), skewed users, some null
// keys and null timestamps.
func genLogs(r *rand.Rand, n, users int) []logRow {
	rows := make([]logRow, n)
	for i := range rows {
		ts := minute(r.IntN(max(1, n/8)))
		if r.IntN(4) == 0 {
			ts = minute(3) // a dense tie group
		}
		if r.IntN(15) == 0 {
			ts = -1
		}
		u := fmt.Sprintf("u%02d", r.IntN(users))
		if r.IntN(3) == 0 {
			u = "u00"
		}
		if r.IntN(12) == 0 {
			u = ""
		}
		rows[i] = logRow{ts, u}
	}
	return rows
}

func TestPagedOracle(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		n := []int{0, 1, 30, 120, 200, 300}[seed-1]
		logs := logTable(genLogs(r, n, 9))
		var dets []string
		for i := 0; i < 25; i++ {
			dets = append(dets, fmt.Sprintf("u%02d", r.IntN(12)))
		}
		for _, kind := range []Kind{Inner, LeftSemi} {
			for _, page := range []int{1, 2, 7, 0} {
				for _, faults := range []float64{0, 0.1} {
					for _, limit := range []int64{-1, 1, 6, 40} {
						pagedOracleCase(t, seed, logs, dets, kind, page, faults, limit)
					}
				}
			}
		}
	}
}

// pagedOracleCase runs one paged join against the oracle: the first limit rows (all for -1) in order. The
// probe's caps (4 rows per response, 2 keys per IN list) make the first pages overflow one response, so
// windows, one-key windows under take and the cut at the limit all run.
func pagedOracleCase(t *testing.T, seed uint64, logs *column.Table, dets []string, kind Kind, page int, faults float64, limit int64) {
	name := fmt.Sprintf("seed=%d/rows=%d/%s/page=%d/faults=%g/take=%d", seed, logs.N, kind, page, faults, limit)
	t.Run(name, func(t *testing.T) {
		c := pagedCase{logs: logs, dets: detTable(dets...), faults: faults, seed: seed,
			logCaps: connector.Caps{MaxRows: 50, MaxInValues: 3, MaxQueryBytes: 4096},
			detCaps: connector.Caps{MaxRows: 4, MaxInValues: 2}}
		spec, err := NewSpec(kind, logSchema, detSchema, []int{1}, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		want := oracle(t, spec, c)
		if limit >= 0 && int64(len(want)) > limit {
			want = want[:limit]
		}
		l, rr, _, _ := c.remotes()
		env := exec.NewEnv(memory.NewBudget(0), nil)
		cfg := PagedConfig{PagedLeft: true, Limit: limit, FirstPage: max(page, 1), FixedPage: page > 0,
			Sort: []SortColumn{{Column: "ts", Desc: true}}}
		op, err := NewPaged(spec, l, rr, cfg, env)
		got, err := runPaged(t, op, err)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("got %d rows, want %d\ngot:\n%s\nwant:\n%s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// The source document's case: ana at 12:00 and 11:58, bob at 11:59.
var anaBob = []logRow{{minute(0), "ana"}, {minute(1), "bob"}, {minute(2), "ana"}}

func baselineRun(t *testing.T, name string, c pagedCase, cfg PagedConfig) ([]string, error, *trace.Recorder) {
	t.Helper()
	spec, err := NewSpec(Inner, logSchema, detSchema, []int{1}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	l, r, _, _ := c.remotes()
	rec := &trace.Recorder{}
	env := exec.NewEnv(memory.NewBudget(0), rec)
	cfg.PagedLeft, cfg.Sort = true, []SortColumn{{Column: "ts", Desc: true}}
	if cfg.Limit == 0 {
		cfg.Limit = -1
	}
	var op exec.Operator
	switch name {
	case "paged":
		op, err = NewPaged(spec, l, r, cfg, env)
	case "distinctkeys":
		op, err = NewDistinctKeys(spec, l, r, cfg, env)
	case "keyset-lt":
		op, err = NewKeysetCursor(spec, l, r, cfg, env, false)
	case "keyset-le":
		op, err = NewKeysetCursor(spec, l, r, cfg, env, true)
	case "fetchall":
		op, err = NewFetchAll(spec, l, r, cfg, env)
	case "timewindow":
		op, err = NewTimeWindow(spec, l, r, cfg, env)
	}
	got, err := runPaged(t, op, err)
	return got, err, rec
}

func TestDistinctKeysBreaksOrder(t *testing.T) {
	c := pagedCase{logs: logTable(anaBob), dets: detTable("ana", "bob")}
	got, err, _ := baselineRun(t, "distinctkeys", c, PagedConfig{FirstPage: 1})
	if err != nil {
		t.Fatal(err)
	}
	wrong := []string{"0m|ana|e000|ana|d000-ana", "2m|ana|e002|ana|d000-ana", "1m|bob|e001|bob|d001-bob"}
	if strings.Join(got, ";") != strings.Join(wrong, ";") {
		t.Fatalf("distinct-key pages gave %q, want the broken order %q", got, wrong)
	}
	got, err, _ = baselineRun(t, "paged", c, PagedConfig{FirstPage: 1, FixedPage: true})
	if err != nil {
		t.Fatal(err)
	}
	right := []string{"0m|ana|e000|ana|d000-ana", "1m|bob|e001|bob|d001-bob", "2m|ana|e002|ana|d000-ana"}
	if strings.Join(got, ";") != strings.Join(right, ";") {
		t.Fatalf("paged gave %q, want %q", got, right)
	}
}

// tied is three rows at 12:00 (ana, bob, carl), then dan at 11:59.
var tied = []logRow{{minute(0), "ana"}, {minute(0), "bob"}, {minute(0), "carl"}, {minute(1), "dan"}}

func TestKeysetLessThanLosesTiedRows(t *testing.T) {
	c := pagedCase{logs: logTable(tied), dets: detTable("ana", "bob", "carl", "dan")}
	got, err, _ := baselineRun(t, "keyset-lt", c, PagedConfig{FirstPage: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0m|ana|e000|ana|d000-ana", "0m|bob|e001|bob|d001-bob", "1m|dan|e003|dan|d003-dan"} // carl is lost
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("keyset < gave %q, want %q (carl at 12:00 lost)", got, want)
	}
	got, err, rec := baselineRun(t, "paged", c, PagedConfig{FirstPage: 2, FixedPage: true})
	if err != nil || len(got) != 4 || !strings.Contains(strings.Join(got, ";"), "carl") {
		t.Fatalf("paged: %v, %q", err, got)
	}
	cut := 0
	for _, e := range rec.Events() {
		if e.Kind() == joinevent.KindTieGroupCut {
			cut++
		}
	}
	if cut != 1 {
		t.Errorf("paged traced %d tie groups cut, want 1 (the 12:00 group at the first page edge)", cut)
	}
}

func TestKeysetAtMostRepeatsAndStalls(t *testing.T) {
	c := pagedCase{logs: logTable(tied), dets: detTable("ana", "bob", "carl", "dan")}
	got, err, _ := baselineRun(t, "keyset-le", c, PagedConfig{FirstPage: 4})
	if err != nil {
		t.Fatal(err)
	}
	// Page 1 is all four rows; page 2 (<= 11:59) reads dan again.
	want := []string{"0m|ana|e000|ana|d000-ana", "0m|bob|e001|bob|d001-bob", "0m|carl|e002|carl|d002-carl",
		"1m|dan|e003|dan|d003-dan", "1m|dan|e003|dan|d003-dan"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("keyset <= gave %q, want %q (dan twice)", got, want)
	}
	// A page that is one tie group: the cursor never moves.
	_, err, _ = baselineRun(t, "keyset-le", c, PagedConfig{FirstPage: 2})
	if err == nil || !strings.Contains(err.Error(), "has not advanced for 3 pages") {
		t.Fatalf("keyset <= over a tie group larger than a page: %v, want the stall error", err)
	}
	got, err, _ = baselineRun(t, "paged", c, PagedConfig{FirstPage: 2, FixedPage: true})
	if err != nil || len(got) != 4 {
		t.Fatalf("paged: %v, %q", err, got)
	}
}

func TestFetchAllHitsTheCap(t *testing.T) {
	var rows []logRow
	for i := 0; i < 10; i++ {
		rows = append(rows, logRow{minute(i), "ana"})
	}
	c := pagedCase{logs: logTable(rows), dets: detTable("ana"), logCaps: connector.Caps{MaxRows: 5}}
	_, err, _ := baselineRun(t, "fetchall", c, PagedConfig{})
	var big *connector.ResultTooLargeError
	if !errors.As(err, &big) || big.Rows != 10 || big.MaxRows != 5 {
		t.Fatalf("fetch-all of 10 rows under a 5-row cap: %v, want a result-too-large of 10 rows", err)
	}
	got, err, _ := baselineRun(t, "paged", c, PagedConfig{})
	if err != nil || len(got) != 10 {
		t.Fatalf("paged: %v, %d rows", err, len(got))
	}
}

func TestTimeWindowBurstExceedsTheCap(t *testing.T) {
	var rows []logRow
	for i := 0; i < 8; i++ {
		rows = append(rows, logRow{minute(5), fmt.Sprintf("u%d", i)}) // eight rows in one nanosecond
	}
	rows = append(rows, logRow{minute(0), "u0"})
	c := pagedCase{logs: logTable(rows), dets: detTable("u0", "u1"), logCaps: connector.Caps{MaxRows: 5}}
	_, err, _ := baselineRun(t, "timewindow", c, PagedConfig{Window: time.Nanosecond})
	var big *connector.ResultTooLargeError
	if !errors.As(err, &big) || big.Rows != 8 || !strings.Contains(err.Error(), "window") {
		t.Fatalf("a 1 ns window over a burst of 8 rows under a 5-row cap: %v, want result too large naming the window", err)
	}
	got, err, _ := baselineRun(t, "paged", c, PagedConfig{})
	if err != nil || len(got) != 3 {
		t.Fatalf("paged: %v, %q", err, got)
	}
}

func TestPagedTakeStopsRequests(t *testing.T) {
	var rows []logRow
	for i := 0; i < 400; i++ {
		rows = append(rows, logRow{minute(i / 3), fmt.Sprintf("u%d", i%5)})
	}
	c := pagedCase{logs: logTable(rows), dets: detTable("u0", "u1", "u2", "u3", "u4"), logCaps: connector.Caps{MaxRows: 1000}}
	spec, _ := NewSpec(Inner, logSchema, detSchema, []int{1}, []int{0})
	l, r, lc, rc := c.remotes()
	op, err := NewPaged(spec, l, r, PagedConfig{PagedLeft: true, Limit: 10, Sort: []SortColumn{{Column: "ts", Desc: true}}},
		exec.NewEnv(memory.NewBudget(0), nil))
	if err != nil {
		t.Fatal(err)
	}
	got, err := runPaged(t, exec.NewTake(op, 10), nil)
	if err != nil || len(got) != 10 {
		t.Fatalf("%v, %d rows", err, len(got))
	}
	// One page, full width as the first is, and one probe: the first page (64 rows) already holds 10 matches,
	// and its rows answer the re-fetch.
	if lc.sent != 1 || rc.sent != 1 {
		t.Errorf("take 10 sent %d requests to the paged side and %d to the probe, want 1 and 1", lc.sent, rc.sent)
	}
}

func TestPagedOrderIsSorted(t *testing.T) {
	rows := genLogs(rand.New(rand.NewPCG(5, 5)), 200, 6)
	var want []int64
	for _, r := range rows {
		if r.ts >= 0 && r.user != "" {
			want = append(want, r.ts)
		}
	}
	sort.Slice(want, func(i, j int) bool { return want[i] > want[j] })
	c := pagedCase{logs: logTable(rows), dets: detTable("u00", "u01", "u02", "u03", "u04", "u05"), logCaps: connector.Caps{MaxRows: 9}}
	got, err, _ := baselineRun(t, "paged", c, PagedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	nonNull := got[:len(want)]
	for i := range want {
		if !strings.HasPrefix(nonNull[i], fmt.Sprintf("%dm|", (noon-want[i])/int64(time.Minute))) {
			t.Fatalf("row %d: %s, want timestamp %dm", i, nonNull[i], (noon-want[i])/int64(time.Minute))
		}
	}
	for _, g := range got[len(want):] {
		if !strings.HasPrefix(g, "∅|") {
			t.Fatalf("after the non-null rows: %s, want null timestamps last", g)
		}
	}
}
