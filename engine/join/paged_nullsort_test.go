package join

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// nullableSorts are sorts whose later columns hold nulls (genEvents nulls every column one time in eight):
// nulls in one later column, in several, in every column; mixed directions; each column's nulls first and
// last; the join key last. The few distinct values make tie groups larger than a page.
var nullableSorts = []struct {
	keys      []SortColumn
	neverNull []string
}{
	{[]SortColumn{{Column: "ts", Desc: true}, {Column: "sev", NullsFirst: true}}, []string{"ts"}}, // KQL's `ts desc, sev asc`
	{[]SortColumn{{Column: "ts", Desc: true}, {Column: "sev", NullsFirst: true}}, nil},
	{[]SortColumn{{Column: "sev", Desc: true}, {Column: "app"}, {Column: "ts", Desc: true, NullsFirst: true}}, nil},
	{[]SortColumn{{Column: "app", NullsFirst: true}, {Column: "sev", Desc: true, NullsFirst: true}}, nil},
	{[]SortColumn{{Column: "sev"}, {Column: "app", Desc: true}, {Column: "user"}}, nil}, // nulls last everywhere, key last
	{[]SortColumn{{Column: "app", Desc: true}, {Column: "ts"}, {Column: "sev", Desc: true}}, []string{"app"}},
}

// TestPagedNullableSortOracle checks the paged join against the nested-loop oracle when sort columns after
// the first hold nulls: every kind the paged join serves, with either side paged (the probe side's outer and
// anti kinds only under sorts that put every null last, as CheckPagedSort requires), over fixed pages of 1, 2
// and 7 rows and adaptive ones, with and without take. The answer is the oracle's rows in the oracle's order.
func TestPagedNullableSortOracle(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
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
					spec, err := nullSortSpec(kind, pagedLeft)
					if err != nil {
						t.Fatal(err)
					}
					if CheckPagedSort(kind, pagedLeft, sc.keys) != nil {
						continue
					}
					for _, page := range []int{1, 2, 7, 0} {
						for _, limit := range []int64{-1, 1, 5, 40} {
							name := fmt.Sprintf("seed=%d/rows=%d/sort=%d/%s/left=%t/page=%d/take=%d", seed, n, si, kind, pagedLeft, page, limit)
							t.Run(name, func(t *testing.T) {
								nullSortCase(t, spec, ev, dets, sc.keys, sc.neverNull, pagedLeft, page, limit)
							})
						}
					}
				}
			}
		}
	}
}

// nullSortSpec is Events ⋈ Dets on user == user_name, with the events on the paged side.
func nullSortSpec(kind Kind, pagedLeft bool) (*Spec, error) {
	if pagedLeft {
		return NewSpec(kind, evSchema, detSchema, []int{3}, []int{0})
	}
	return NewSpec(kind, detSchema, evSchema, []int{0}, []int{3})
}

// nullSortOracle is the nested loop's answer in the paged join's order: the sort, then the join key (nulls
// last), the events' id, the detection (the probe side's rows that match nothing come last, every event
// column null, in the detections' order).
func nullSortOracle(t *testing.T, spec *Spec, ev, dets *column.Table, keys []SortColumn, pagedLeft bool) []string {
	t.Helper()
	evOp, detOp := &tableOp{t: ev, size: 7}, &tableOp{t: sortTable(dets, detKey), size: 7}
	nl := NewNestedLoop(spec, evOp, detOp, memory.NewBudget(0))
	if !pagedLeft {
		nl = NewNestedLoop(spec, detOp, evOp, memory.NewBudget(0))
	}
	all, err := exec.Materialize(t.Context(), nl)
	if err != nil {
		t.Fatal(err)
	}
	var order []SortColumn
	for _, k := range append(append([]SortColumn(nil), keys...), SortColumn{Column: "user"}, SortColumn{Column: "id"}, SortColumn{Column: "det"}) {
		if all.Schema.Index(k.Column) >= 0 && !slices.ContainsFunc(order, func(o SortColumn) bool { return o.Column == k.Column }) {
			order = append(order, k)
		}
	}
	return render(sortNulls(all, order))
}

func nullSortCase(t *testing.T, spec *Spec, ev, dets *column.Table, keys []SortColumn, neverNull []string, pagedLeft bool, page int, limit int64) {
	t.Helper()
	want := nullSortOracle(t, spec, ev, dets, keys, pagedLeft)
	if limit >= 0 && int64(len(want)) > limit {
		want = want[:limit]
	}
	evR, detR := cursorRemotes(ev, dets, neverNull)
	l, r := evR, detR
	if !pagedLeft {
		l, r = detR, evR
	}
	cfg := PagedConfig{PagedLeft: pagedLeft, Limit: limit, FirstPage: max(page, 1), FixedPage: page > 0, Sort: keys}
	op, err := NewPaged(spec, l, r, cfg, exec.NewEnv(memory.NewBudget(0), nil))
	got, err := runPaged(t, op, err)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %d rows, want %d\ngot:\n%s\nwant:\n%s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPagedNullableSortStopsEarly: under take, a sort with a nullable later column still streams — the join
// reads a few pages of a 3,000-row side, not the side — and the rows are the oracle's first ones. The phases of
// the first block (sev null, sev not null, inside ts's tie groups) each cost a thin request before the first
// row, and no request breaks a cap (memConn refuses those).
func TestPagedNullableSortStopsEarly(t *testing.T) {
	ev := genEvents(rand.New(rand.NewPCG(5, 5)), 3000)
	dets := detTable("u00", "u01", "u02", "u03", "u04", "u05")
	keys := []SortColumn{{Column: "ts", Desc: true}, {Column: "sev", NullsFirst: true}}
	spec, _ := nullSortSpec(Inner, true)
	want := nullSortOracle(t, spec, ev, dets, keys, true)[:10]
	l, r := cursorRemotes(ev, dets, nil)
	sink := &trace.Recorder{}
	op, err := NewPaged(spec, l, r, PagedConfig{PagedLeft: true, Limit: 10, Sort: keys}, exec.NewEnv(memory.NewBudget(0), sink))
	got, err := runPaged(t, op, err)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var thinRows, pages int
	phases := map[string]bool{}
	for _, e := range sink.Events() {
		switch p := e.Payload.(type) {
		case joinevent.PageFetched:
			thinRows += p.Rows
			pages++
		case joinevent.PageRequested:
			phases[p.Phase] = true
		}
	}
	t.Logf("take 10 of 3,000 rows by ts desc, sev asc: %d thin rows in %d pages, %d requests to the paged side, %d to the probe side",
		thinRows, pages, l.Conn.(*memConn).sent, r.Conn.(*memConn).sent)
	if thinRows == 0 || thinRows > 300 {
		t.Errorf("%d thin rows in %d pages for take 10 of 3,000 rows: the join did not stop early", thinRows, pages)
	}
	if !phases["rows"] || !phases["null_sort"] {
		t.Errorf("thin requests of phases %v, want both sev's non-null and null phases", phases)
	}
	if lc := l.Conn.(*memConn); lc.sent > 12 {
		t.Errorf("%d requests to the paged side for take 10", lc.sent)
	}
}

// TestPagedRefusesManyNullableSortColumns: past MaxNullableSortColumns sort columns that may hold nulls the
// paged join refuses the sort and names them; the same columns declared never null are paged.
func TestPagedRefusesManyNullableSortColumns(t *testing.T) {
	schema := column.Schema{{Name: "a", Type: column.Long}, {Name: "b", Type: column.Long}, {Name: "c", Type: column.Long},
		{Name: "d", Type: column.Long}, {Name: "e", Type: column.Long}, {Name: "user", Type: column.String}}
	keys := []SortColumn{{Column: "a"}, {Column: "b"}, {Column: "c"}, {Column: "d"}, {Column: "e"}}
	spec, err := NewSpec(Inner, schema, detSchema, []int{5}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	for _, neverNull := range [][]string{nil, {"e"}} {
		_, r := cursorRemotes(column.NewTable(evSchema), detTable("u00"), nil)
		info := connector.TableInfo{Name: "Wide", Schema: schema, Key: []connector.OrderKey{{Column: "a"}}, NeverNull: neverNull}
		l := &Remote{Name: "Wide", Conn: &memConn{info: info, t: column.NewTable(schema), clock: r.Clock.(*testClock)}, Info: info,
			Columns: orderColumns(schemaKeys(schema)), Key: 5, Clock: r.Clock}
		_, err := NewPaged(spec, l, r, PagedConfig{PagedLeft: true, Limit: -1, Sort: keys}, exec.NewEnv(memory.NewBudget(0), nil))
		switch {
		case neverNull == nil && (err == nil || !strings.Contains(err.Error(), "[a b c d e] may hold nulls")):
			t.Errorf("five nullable sort columns: %v, want the refusal naming them", err)
		case neverNull != nil && err != nil:
			t.Errorf("four nullable sort columns and one never null: %v", err)
		}
	}
}

// TestPagedNullableSortConcurrent: the phases of a block are first read together, up to the paged side's
// Caps.Concurrent, on the virtual clock: the rows are the sequential run's (and the oracle's), a second run
// gives the same trace byte for byte, no source has more requests in flight than it allows, and the first row
// comes sooner than one request at a time.
func TestPagedNullableSortConcurrent(t *testing.T) {
	ev := genEvents(rand.New(rand.NewPCG(9, 9)), 400)
	dets := detTable("u00", "u01", "u02", "u03", "u04", "u05")
	keys := []SortColumn{{Column: "ts", Desc: true}, {Column: "sev", NullsFirst: true}, {Column: "app", Desc: true}}
	spec, _ := nullSortSpec(Inner, true)
	want := nullSortOracle(t, spec, ev, dets, keys, true)[:30]
	run := func(sequential bool) ([]string, string, time.Duration, map[string]int) {
		l, r := cursorRemotes(ev, dets, []string{"ts"})
		lc, rc := l.Conn.(*memConn), r.Conn.(*memConn)
		lc.caps.Concurrent, rc.caps.Concurrent = 4, 2
		lc.latency, rc.latency = textLatency, textLatency
		rec := &trace.Recorder{}
		cfg := PagedConfig{PagedLeft: true, Limit: 30, Sort: keys, Sequential: sequential}
		op, err := NewPaged(spec, l, r, cfg, exec.NewEnv(memory.NewBudget(0), rec))
		got, err := runPaged(t, op, err)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		first := time.Duration(-1)
		for _, e := range rec.Events() {
			j, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(j)
			b.WriteByte('\n')
			if e.Kind() == trace.KindRowsEmitted && first < 0 {
				first = e.At
			}
		}
		return got, b.String(), first, connector.MaxInFlight(rec.Events())
	}
	got, tr, first, inFlight := run(false)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	seq, _, seqFirst, _ := run(true)
	if strings.Join(seq, "\n") != strings.Join(got, "\n") {
		t.Fatal("concurrent and sequential rows differ")
	}
	if _, tr2, _, _ := run(false); tr2 != tr {
		t.Fatalf("a second run differs: traces of %d and %d bytes", len(tr), len(tr2))
	}
	if inFlight["Events"] > 4 || inFlight["Dets"] > 2 || inFlight["Events"] < 2 {
		t.Errorf("in flight at once: %v, want Events 2 to 4 (its phases' first pages overlap), Dets at most 2", inFlight)
	}
	t.Logf("first row at %s of virtual time, %s one request at a time", first, seqFirst)
	if first >= seqFirst {
		t.Errorf("first row at %s, one request at a time %s: the phases' first pages did not overlap", first, seqFirst)
	}
}
