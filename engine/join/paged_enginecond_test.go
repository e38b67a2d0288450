package join

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// engineCond compiles a where's condition over schema, as the planner hands it to the paged join.
func engineCond(t *testing.T, cond string, schema column.Schema) EngineCond {
	t.Helper()
	q, err := kql.Parse("@T | where " + cond)
	if err != nil {
		t.Fatal(err)
	}
	w, ok := q.Ops[0].(*kql.Where)
	if !ok {
		t.Fatalf("%s: not a where", cond)
	}
	pred, err := expr.Compile(w.Pred, schema)
	if err != nil {
		t.Fatal(err)
	}
	return EngineCond{Text: cond, Pred: pred}
}

// whereRows is t under a where of conds: the oracle's input, the query as written.
func whereRows(t *testing.T, tab *column.Table, conds []EngineCond) *column.Table {
	t.Helper()
	var op exec.Operator = &tableOp{t: tab, size: 5}
	for _, c := range conds {
		op = exec.NewFilter(op, c.Pred)
	}
	out, err := exec.Materialize(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The conditions of the oracle tests, none of which a connector computes: on the paged side one over a column
// the thin page does not otherwise carry (id: rows of one key pass and fail, so the re-fetch of a passing key
// brings failing rows), one over the key through a function (a null key gives null: the row fails), and one no
// row passes (every page dropped whole, the cursor still advancing); on the probe side one over det.
var (
	pagedConds = map[string]string{
		"id":   `id endswith "1" or id endswith "4" or id endswith "7" or id endswith "8"`,
		"key":  `toupper(user) !in ("U00", "U03")`,
		"none": `strlen(id) > 10`,
	}
	probeCond = `det contains "0-" or det contains "3-" or det contains "5-" or det contains "6-"`
)

// engineCase is one combination of conditions: on the paged side (a pagedConds name, or ""), on the probe side.
type engineCase struct {
	paged string
	probe bool
}

func (e engineCase) String() string {
	return fmt.Sprintf("paged=%s/probe=%t", e.paged, e.probe)
}

var engineCases = []engineCase{{"id", false}, {"key", false}, {"", true}, {"id", true}, {"none", false}, {"none", true}}

// withConds sets the conditions of ec on the remotes and filters c's tables the same way for the oracle.
func withConds(t *testing.T, ec engineCase, c pagedCase, logs, dets *Remote) pagedCase {
	t.Helper()
	if ec.paged != "" {
		logs.Engine = []EngineCond{engineCond(t, pagedConds[ec.paged], logSchema)}
		c.logs = whereRows(t, c.logs, logs.Engine)
	}
	if ec.probe {
		dets.Engine = []EngineCond{engineCond(t, probeCond, detSchema)}
		c.dets = whereRows(t, c.dets, dets.Engine)
	}
	return c
}

// TestPagedEngineCondOracle pages Logs (the left side) with conditions the connectors do not compute, on the
// paged side, the probe side or both, for every kind served with the left side paged, against the nested loop
// over the inputs under those wheres: the same rows in the same order (the first N under take N), over dense
// ties cut at page edges, tie groups larger than a page, null keys and timestamps, fixed pages of 1 and 7 rows,
// adaptive ones with the first page wide or thin, two sets of small caps, with 10% injected faults on odd seeds.
func TestPagedEngineCondOracle(t *testing.T) {
	for _, oc := range outerCases() {
		for _, kind := range PagedKinds(true) {
			for _, ec := range engineCases {
				for _, caps := range outerCaps {
					for _, page := range []int{1, 7, 0, -1} {
						for _, limit := range []int64{-1, 5} {
							faults := 0.1 * float64(oc.seed%2)
							name := fmt.Sprintf("seed=%d/rows=%d/%s/%s/%s/page=%d/take=%d", oc.seed, oc.logs.N, kind, ec, caps.name, page, limit)
							t.Run(name, func(t *testing.T) {
								c := pagedCase{logs: oc.logs, dets: detTable(oc.dets...), faults: faults, seed: oc.seed, logCaps: caps.logs, detCaps: caps.det}
								spec, err := NewSpec(kind, logSchema, detSchema, []int{1}, []int{0})
								if err != nil {
									t.Fatal(err)
								}
								l, rr, _, _ := c.remotes()
								want := oracle(t, spec, withConds(t, ec, c, l, rr))
								cfg := outerConfig(true, max(page, 0), limit)
								cfg.ThinFirst = page < 0
								op, err := NewPaged(spec, l, rr, cfg, exec.NewEnv(memory.NewBudget(0), nil))
								compareOracle(t, op, err, want, limit)
							})
						}
					}
				}
			}
		}
	}
}

// TestPagedEngineCondRightOracle is the mirror: Dets ⋈ Logs with the right side (Logs) paged, for every kind
// served that way, the conditions on either side.
func TestPagedEngineCondRightOracle(t *testing.T) {
	for _, oc := range outerCases() {
		for _, kind := range PagedKinds(false) {
			for _, ec := range engineCases {
				for _, page := range []int{1, 7, 0} {
					name := fmt.Sprintf("seed=%d/rows=%d/%s/%s/page=%d", oc.seed, oc.logs.N, kind, ec, page)
					t.Run(name, func(t *testing.T) {
						caps := outerCaps[int(oc.seed)%len(outerCaps)]
						c := pagedCase{logs: oc.logs, dets: detTable(oc.dets...), faults: 0.1 * float64(oc.seed%2), seed: oc.seed, logCaps: caps.logs, detCaps: caps.det}
						spec, err := NewSpec(kind, detSchema, logSchema, []int{0}, []int{1})
						if err != nil {
							t.Fatal(err)
						}
						l, rr, _, _ := c.remotes()
						want := rightOracle(t, spec, withConds(t, ec, c, l, rr))
						op, err := NewPaged(spec, rr, l, outerConfig(false, page, -1), exec.NewEnv(memory.NewBudget(0), nil))
						compareOracle(t, op, err, want, -1)
					})
				}
			}
		}
	}
}

// recordingConn is a memConn that keeps every request it is sent, and can swap its table after a number of
// requests (a source that changes between the thin page and the re-fetch).
type recordingConn struct {
	*memConn
	reqs      []connector.Request
	swapAfter int
	swapTo    *column.Table
}

func (c *recordingConn) Query(ctx context.Context, req connector.Request) (connector.Page, error) {
	c.reqs = append(c.reqs, req)
	if c.swapTo != nil && len(c.reqs) > c.swapAfter {
		c.memConn.t = c.swapTo
	}
	return c.memConn.Query(ctx, req)
}

// TestPagedEngineCondThinPage: the thin page carries the column the condition reads (and nothing else beyond
// the cursor), the probe and the re-fetch ask only keys with a passing row, the trace and the details count
// the thin rows the condition dropped, and a page whose rows all fail still advances the cursor.
func TestPagedEngineCondThinPage(t *testing.T) {
	// Pages of 2: (ana e000 passes, bob e001 fails), (carl e002 fails, dan e003 fails), (ana e004 passes, eve
	// e005 fails) — the second page drops every row.
	rows := []logRow{{minute(0), "ana"}, {minute(0), "bob"}, {minute(1), "carl"}, {minute(1), "dan"}, {minute(2), "ana"}, {minute(2), "eve"}}
	c := pagedCase{logs: logTable(rows), dets: detTable("ana", "bob", "carl", "dan", "eve")}
	spec, _ := NewSpec(Inner, logSchema, detSchema, []int{1}, []int{0})
	l, r, lc, rc := c.remotes()
	lrec, rrec := &recordingConn{memConn: lc}, &recordingConn{memConn: rc}
	l.Conn, r.Conn = lrec, rrec
	l.Engine = []EngineCond{engineCond(t, `id endswith "0" or id endswith "4"`, logSchema)}
	rec := &trace.Recorder{}
	env := exec.NewEnv(memory.NewBudget(0), rec)
	op, err := NewPaged(spec, l, r, PagedConfig{PagedLeft: true, Limit: -1, FirstPage: 2, FixedPage: true, Sort: []SortColumn{{Column: "ts", Desc: true}}}, env)
	got, err := runPaged(t, op, err)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0m|ana|e000|ana|d000-ana", "2m|ana|e004|ana|d000-ana"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("got %q, want %q", got, want)
	}
	thin := 0
	for _, req := range lrec.reqs {
		if req.Limit == 3 { // a thin request: the page of 2 and the look past its edge
			thin++
			if strings.Join(req.Columns, ",") != "ts,user,id" {
				t.Errorf("thin page columns %v, want ts,user (the cursor) and id (the condition)", req.Columns)
			}
		}
	}
	if thin != 4 {
		t.Errorf("%d thin requests, want 4: three pages (the all-failing one advances like the others) and the null-ts phase", thin)
	}
	asked := 0
	for _, req := range append(append([]connector.Request(nil), rrec.reqs...), lrec.reqs...) {
		for _, v := range inValues(req.Where) {
			asked++
			if v != "ana" {
				t.Errorf("a request asks key %s, whose rows all fail the condition: %s", v, req.Where)
			}
		}
	}
	if asked == 0 {
		t.Errorf("no request asked ana, the one key with passing rows")
	}
	dropped := 0
	for _, e := range rec.Events() {
		if f, ok := e.Payload.(joinevent.PageFetched); ok {
			if f.EngineDropped == nil {
				t.Fatalf("page_fetched without engine_dropped: %+v", f)
			}
			dropped += *f.EngineDropped
		}
	}
	if dropped != 4 || env.Details.Map()[DetailEngineDropped] != int64(4) {
		t.Errorf("engine_dropped %d in the trace, %v in the details, want 4 and 4", dropped, env.Details.Map()[DetailEngineDropped])
	}
}

// inValues are the values of the IN lists in p.
func inValues(p connector.Predicate) []string {
	var out []string
	switch p := p.(type) {
	case connector.And:
		for _, x := range p {
			out = append(out, inValues(x)...)
		}
	case connector.In:
		for _, v := range p.Values {
			out = append(out, v.Str)
		}
	}
	return out
}

// TestPagedEngineCondSourceChanges: rows that passed on the thin page but fail by the time of the re-fetch (the
// source changed in between) are checked again and left out; no output row fails the condition.
func TestPagedEngineCondSourceChanges(t *testing.T) {
	var rows []logRow
	for i := 0; i < 40; i++ {
		rows = append(rows, logRow{minute(i / 4), fmt.Sprintf("u%d", i%3)})
	}
	before := logTable(rows)
	after := logTable(rows)
	for i := 0; i < after.N; i += 2 { // every other id now ends in "x": those rows fail
		after.Cols[2].Strs[i] += "x"
	}
	c := pagedCase{logs: before, dets: detTable("u0", "u1", "u2")}
	spec, _ := NewSpec(LeftOuter, logSchema, detSchema, []int{1}, []int{0})
	l, r, lc, _ := c.remotes()
	l.Conn = &recordingConn{memConn: lc, swapAfter: 1, swapTo: after} // the first thin page sees the old rows
	l.Engine = []EngineCond{engineCond(t, `not(id endswith "x")`, logSchema)}
	op, err := NewPaged(spec, l, r, PagedConfig{PagedLeft: true, Limit: -1, FirstPage: 8, FixedPage: true, Sort: []SortColumn{{Column: "ts", Desc: true}}},
		exec.NewEnv(memory.NewBudget(0), nil))
	got, err := runPaged(t, op, err)
	if err != nil {
		t.Fatal(err)
	}
	want := oracle(t, spec, pagedCase{logs: whereRows(t, after, l.Engine), dets: c.dets})
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %d rows, want the %d of the changed source that pass\ngot:\n%s\nwant:\n%s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPagedEngineCondRefused: a condition that reads outside its side, or is not a truth value, is refused with
// the condition named; a baseline refuses any engine condition, since it would ignore it.
func TestPagedEngineCondRefused(t *testing.T) {
	c := pagedCase{logs: logTable(anaBob), dets: detTable("ana")}
	spec, _ := NewSpec(Inner, logSchema, detSchema, []int{1}, []int{0})
	l, r, _, _ := c.remotes()
	l.Engine = []EngineCond{engineCond(t, `strlen(id)`, logSchema)}
	if _, err := NewPaged(spec, l, r, PagedConfig{PagedLeft: true, Limit: -1}, exec.NewEnv(memory.NewBudget(0), nil)); err == nil ||
		!strings.Contains(err.Error(), `"strlen(id)" over @Logs is a long, not a condition`) {
		t.Errorf("a long as a condition: %v", err)
	}
	l.Engine = []EngineCond{engineCond(t, `id endswith "1"`, logSchema)}
	if _, err := NewFetchAll(spec, l, r, PagedConfig{PagedLeft: true, Limit: -1}, exec.NewEnv(memory.NewBudget(0), nil)); err == nil ||
		!strings.Contains(err.Error(), "a baseline applies no condition in the engine") {
		t.Errorf("fetchall with an engine condition: %v", err)
	}
}

// byteCapped is a memConn that refuses an answer over caps.MaxBytes (measured by connector.RowBytes, as the
// simulated services do), and records the bytes of every answer it sends.
type byteCapped struct {
	*memConn
	sentBytes []int64
	thinCols  [][]string
	refused   int
}

func (c *byteCapped) Query(ctx context.Context, req connector.Request) (connector.Page, error) {
	page, err := c.memConn.Query(ctx, req)
	if err != nil {
		return page, err
	}
	if max := c.caps.MaxBytes; max > 0 && page.Bytes > max {
		c.refused++
		return connector.Page{}, &connector.ResultTooLargeError{Rows: int64(page.Rows()), Bytes: page.Bytes, MaxBytes: max}
	}
	c.sentBytes = append(c.sentBytes, page.Bytes)
	if req.Limit > 0 && len(req.Columns) == 3 {
		c.thinCols = append(c.thinCols, req.Columns)
	}
	return page, nil
}

// TestPagedEngineCondThinPageUnderByteCap: the columns a condition reads make thin rows wider; under a response
// byte cap the wider pages are refused and halved, then sized from the bytes they carried, so every answer
// sent fits the cap and the rows are the oracle's.
func TestPagedEngineCondThinPageUnderByteCap(t *testing.T) {
	logs := column.NewTable(column.Schema{{Name: "ts", Type: column.DateTime}, {Name: "user", Type: column.String},
		{Name: "id", Type: column.String}, {Name: "note", Type: column.String}})
	var users []string
	for i := 0; i < 300; i++ {
		logs.Cols[0].AppendInt(minute(i / 5))
		logs.Cols[1].AppendString(fmt.Sprintf("u%d", i%7))
		logs.Cols[2].AppendString(fmt.Sprintf("e%03d", i))
		logs.Cols[3].AppendString(strings.Repeat("n", 40+i%9)) // a wide column only the condition reads
		logs.N++
	}
	for i := 0; i < 7; i++ {
		users = append(users, fmt.Sprintf("u%d", i))
	}
	schema := logs.Schema
	clk := &testClock{}
	lc := &byteCapped{memConn: &memConn{info: connector.TableInfo{Name: "Logs", Schema: schema, Key: logKey, Rows: int64(logs.N)}, t: logs,
		caps: connector.Caps{MaxRows: 1000, MaxBytes: 2000}, clock: clk}}
	dets := detTable(users...)
	rc := &memConn{info: connector.TableInfo{Name: "Dets", Schema: detSchema, Key: detKey, Rows: int64(dets.N)}, t: dets, clock: clk}
	retry := connector.RetryPolicy{Attempts: 5, Budget: 1000}
	l := &Remote{Name: "Logs", Conn: lc, Info: lc.info, Columns: []string{"ts", "user", "id", "note"}, Live: []bool{true, true, true, false},
		Key: 1, Clock: clk, Retry: retry}
	r := &Remote{Name: "Dets", Conn: rc, Info: rc.info, Columns: []string{"user_name", "det"}, Key: 0, Clock: clk, Retry: retry}
	l.Engine = []EngineCond{engineCond(t, `strlen(note) > 44`, schema)}
	spec, err := NewSpec(Inner, schema, detSchema, []int{1}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	op, err := NewPaged(spec, l, r, PagedConfig{PagedLeft: true, Limit: -1, ThinFirst: true, Sort: []SortColumn{{Column: "ts", Desc: true}}},
		exec.NewEnv(memory.NewBudget(0), nil))
	if err != nil {
		t.Fatal(err)
	}
	got, err := exec.Materialize(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for i := 0; i < logs.N; i++ {
		if len(logs.Cols[3].Strs[i]) > 44 {
			want++
		}
	}
	if got.N != want {
		t.Errorf("%d rows, want %d (each passing log row has one detection)", got.N, want)
	}
	for _, b := range lc.sentBytes {
		if b > 2000 {
			t.Errorf("an answer of %d bytes was sent, over the 2000-byte cap", b)
		}
	}
	if lc.refused == 0 {
		t.Errorf("no answer was refused: the cap does not bind the wider thin page")
	}
	if len(lc.thinCols) == 0 || strings.Join(lc.thinCols[0], ",") != "ts,user,note" {
		t.Errorf("thin page columns %v, want ts,user (the cursor) and note (the condition)", lc.thinCols)
	}
}

// nullSortConds are the conditions of TestPagedEngineCondNullableSortOracle over Events and Dets: one over id,
// which no sort or key reads (twins — rows of one phase with the same sort values and key — pass and fail
// apart), one over a sort column that may hold nulls (a null app fails), and the probe side's alone.
var nullSortConds = []struct {
	name, paged string
	probe       bool
}{
	{"id", `id endswith "1" or id endswith "4" or id endswith "7" or id endswith "8"`, false},
	{"app+probe", `toupper(app) != "WEB"`, true},
	{"probe", "", true},
}

// TestPagedEngineCondNullableSortOracle: engine conditions under sorts whose later columns hold nulls. The thin
// requests of every null phase carry the columns a condition reads (a page without them is an error), failing
// rows still advance each phase's cursor, twins cut by a page edge or by the end of a phase's response pass and
// fail apart, and the re-fetch of every phase present in a window is checked again. Every kind served with
// either side paged, fixed pages of 1, 2 and 7 rows and adaptive ones (the first page wide and thin), with and
// without take, against the nested loop over the inputs under the same wheres: the same rows in the same order.
func TestPagedEngineCondNullableSortOracle(t *testing.T) {
	for seed := uint64(2); seed <= 4; seed++ {
		n := []int{0, 9, 60, 150}[seed-1]
		for si, sc := range nullableSorts {
			r := rand.New(rand.NewPCG(seed, 31))
			ev := genEvents(r, n, sc.neverNull...)
			var users []string
			for i := 0; i < 14; i++ {
				users = append(users, fmt.Sprintf("u%02d", r.IntN(8)))
			}
			users = append(users, "") // a detection with no user
			dets := detTable(users...)
			for _, pagedLeft := range []bool{true, false} {
				for _, kind := range PagedKinds(pagedLeft) {
					if CheckPagedSort(kind, pagedLeft, sc.keys) != nil {
						continue
					}
					spec, err := nullSortSpec(kind, pagedLeft)
					if err != nil {
						t.Fatal(err)
					}
					for _, cond := range nullSortConds {
						for _, page := range []int{1, 2, 7, 0, -1} {
							for _, limit := range []int64{-1, 5} {
								name := fmt.Sprintf("seed=%d/rows=%d/sort=%d/%s/left=%t/cond=%s/page=%d/take=%d", seed, n, si, kind, pagedLeft, cond.name, page, limit)
								t.Run(name, func(t *testing.T) {
									evR, detR := cursorRemotes(ev, dets, sc.neverNull)
									evIn, detIn := ev, dets
									if cond.paged != "" {
										evR.Engine = []EngineCond{engineCond(t, cond.paged, evSchema)}
										evIn = whereRows(t, ev, evR.Engine)
									}
									if cond.probe {
										detR.Engine = []EngineCond{engineCond(t, probeCond, detSchema)}
										detIn = whereRows(t, dets, detR.Engine)
									}
									want := nullSortOracle(t, spec, evIn, detIn, sc.keys, pagedLeft)
									if limit >= 0 && int64(len(want)) > limit {
										want = want[:limit]
									}
									l, rr := evR, detR
									if !pagedLeft {
										l, rr = detR, evR
									}
									cfg := PagedConfig{PagedLeft: pagedLeft, Limit: limit, FirstPage: max(page, 1), FixedPage: page > 0, ThinFirst: page < 0, Sort: sc.keys}
									op, err := NewPaged(spec, l, rr, cfg, exec.NewEnv(memory.NewBudget(0), nil))
									got, err := runPaged(t, op, err)
									if err != nil {
										t.Fatal(err)
									}
									if strings.Join(got, "\n") != strings.Join(want, "\n") {
										t.Fatalf("got %d rows, want %d\ngot:\n%s\nwant:\n%s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
									}
								})
							}
						}
					}
				}
			}
		}
	}
}
