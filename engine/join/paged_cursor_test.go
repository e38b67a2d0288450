package join

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
)

// Events for the tuple-cursor tests: three sort candidates with few distinct values and nulls (ties across
// page edges, tie groups larger than a page, nulls in every sort column), the join key, and a tie-free id.
var (
	evSchema = column.Schema{{Name: "ts", Type: column.DateTime}, {Name: "sev", Type: column.Long},
		{Name: "app", Type: column.String}, {Name: "user", Type: column.String}, {Name: "id", Type: column.String}}
	evKey = []connector.OrderKey{{Column: "id"}}
)

// genEvents makes n events: ts over n/10+1 minutes, sev over 3 values, app over 2, each null one time in
// eight unless named in neverNull; users skewed to u00, a null key one time in ten.
func genEvents(r *rand.Rand, n int, neverNull ...string) *column.Table {
	t := column.NewTable(evSchema)
	null := func(c string) bool { return r.IntN(8) == 0 && !slices.Contains(neverNull, c) }
	for i := 0; i < n; i++ {
		if null("ts") {
			t.Cols[0].AppendNull()
		} else {
			t.Cols[0].AppendInt(minute(r.IntN(n/10 + 1)))
		}
		if null("sev") {
			t.Cols[1].AppendNull()
		} else {
			t.Cols[1].AppendInt(int64(r.IntN(3)))
		}
		if null("app") {
			t.Cols[2].AppendNull()
		} else {
			t.Cols[2].AppendString([]string{"vpn", "web"}[r.IntN(2)])
		}
		switch u := r.IntN(10); {
		case u == 0:
			t.Cols[3].AppendNull()
		case u < 4:
			t.Cols[3].AppendString("u00")
		default:
			t.Cols[3].AppendString(fmt.Sprintf("u%02d", r.IntN(6)))
		}
		t.Cols[4].AppendString(fmt.Sprintf("e%03d", i))
		t.N++
	}
	return t
}

// sortNulls orders t stably by keys, each with its direction and null placement: the oracle's order.
func sortNulls(t *column.Table, keys []SortColumn) *column.Table {
	idx := make([]int32, t.N)
	for i := range idx {
		idx[i] = int32(i)
	}
	sort.SliceStable(idx, func(a, b int) bool {
		for _, k := range keys {
			v := t.Cols[t.Schema.Index(k.Column)]
			x, y := v.Value(int(idx[a])), v.Value(int(idx[b]))
			switch {
			case x.Null && y.Null:
				continue
			case x.Null:
				return k.NullsFirst
			case y.Null:
				return !k.NullsFirst
			}
			c, _ := expr.Compare(x, y)
			if k.Desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	})
	out := &column.Table{Schema: t.Schema, Cols: make([]*column.Vector, len(t.Cols)), N: t.N}
	for i, c := range t.Cols {
		out.Cols[i] = c.Gather(idx)
	}
	return out
}

// cursorRemotes makes the events side (paged) and the detections side over memConns sharing one clock; the
// probe's caps (4 rows per response, 2 keys per IN list) force windows and one-key windows.
func cursorRemotes(ev, dets *column.Table, neverNull []string) (*Remote, *Remote) {
	clk := &testClock{}
	lc := &memConn{info: connector.TableInfo{Name: "Events", Schema: evSchema, Key: evKey, Rows: int64(ev.N), NeverNull: neverNull},
		t: ev, caps: connector.Caps{MaxRows: 50, MaxInValues: 3, MaxQueryBytes: 4096}, clock: clk}
	rc := &memConn{info: connector.TableInfo{Name: "Dets", Schema: detSchema, Key: detKey, Rows: int64(dets.N)},
		t: dets, caps: connector.Caps{MaxRows: 4, MaxInValues: 2}, clock: clk}
	retry := connector.RetryPolicy{Attempts: 5, Budget: 100, Base: time.Millisecond, Max: time.Second}
	l := &Remote{Name: "Events", Conn: lc, Info: lc.info, Columns: orderColumns(schemaKeys(evSchema)), Key: 3, Clock: clk, Retry: retry}
	r := &Remote{Name: "Dets", Conn: rc, Info: rc.info, Columns: []string{"user_name", "det"}, Key: 0, Clock: clk, Retry: retry}
	return l, r
}

func schemaKeys(s column.Schema) []connector.OrderKey {
	out := make([]connector.OrderKey, len(s))
	for i, f := range s {
		out[i] = connector.OrderKey{Column: f.Name}
	}
	return out
}

// TestPagedTupleCursorOracle checks the paged join against the nested-loop oracle for every cursor shape:
// one to three sort columns, mixed directions, the first column's nulls first and last (the later columns
// declared never null: TestPagedNullableSortOracle has them nullable), the join key as the last sort column, over tiny fixed
// pages (1, 2, 7 rows) and the adaptive sizes, with and without take. The few distinct values make tie groups
// larger than a page and ties across every page edge. The outer and anti kinds output the rows with a null key
// too: where the join key's own place in the order puts them (last in their tie group, or first).
func TestPagedTupleCursorOracle(t *testing.T) {
	sorts := []struct {
		keys      []SortColumn
		neverNull []string
	}{
		{[]SortColumn{{Column: "ts", Desc: true}, {Column: "sev", NullsFirst: true}}, []string{"sev"}},
		{[]SortColumn{{Column: "ts", NullsFirst: true}, {Column: "sev", Desc: true}}, []string{"sev"}},
		{[]SortColumn{{Column: "sev", Desc: true, NullsFirst: true}, {Column: "ts", Desc: true}}, []string{"ts"}},
		{[]SortColumn{{Column: "sev"}, {Column: "app", Desc: true}, {Column: "ts", NullsFirst: true}}, []string{"app", "ts"}},
		{[]SortColumn{{Column: "app", Desc: true}, {Column: "user"}}, nil},
		{[]SortColumn{{Column: "sev", NullsFirst: true}}, nil},
		{[]SortColumn{{Column: "ts"}, {Column: "sev"}}, []string{"ts", "sev"}},
		{[]SortColumn{{Column: "app"}, {Column: "user", NullsFirst: true}}, nil}, // null keys first in their tie group
	}
	for seed := uint64(1); seed <= 4; seed++ {
		n := []int{0, 9, 60, 150}[seed-1]
		for si, sc := range sorts {
			r := rand.New(rand.NewPCG(seed, 23))
			t.Logf("seed %d, %d rows, sort %d: %v", seed, n, si, sc.keys)
			ev := genEvents(r, n, sc.neverNull...)
			var users []string
			for i := 0; i < 14; i++ {
				users = append(users, fmt.Sprintf("u%02d", r.IntN(8)))
			}
			dets := detTable(users...)
			for _, kind := range []Kind{Inner, LeftSemi, LeftOuter, LeftAnti} {
				for _, page := range []int{1, 2, 7, 0} {
					for _, limit := range []int64{-1, 1, 5, 40} {
						name := fmt.Sprintf("seed=%d/rows=%d/sort=%d/%s/page=%d/take=%d", seed, n, si, kind, page, limit)
						t.Run(name, func(t *testing.T) { tupleCursorCase(t, ev, dets, sc.keys, kind, page, limit, sc.neverNull) })
					}
				}
			}
		}
	}
}

func tupleCursorCase(t *testing.T, ev, dets *column.Table, keys []SortColumn, kind Kind, page int, limit int64, neverNull []string) {
	t.Helper()
	spec, err := NewSpec(kind, evSchema, detSchema, []int{3}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	nl := NewNestedLoop(spec, &tableOp{t: ev, size: 7}, &tableOp{t: sortTable(dets, detKey), size: 7}, memory.NewBudget(0))
	all, err := exec.Materialize(t.Context(), nl)
	if err != nil {
		t.Fatal(err)
	}
	order := append([]SortColumn(nil), keys...)
	order = append(order, SortColumn{Column: "user"}, SortColumn{Column: "id"})
	if all.Schema.Index("det") >= 0 {
		order = append(order, SortColumn{Column: "det"})
	}
	want := render(sortNulls(all, order))
	if limit >= 0 && int64(len(want)) > limit {
		want = want[:limit]
	}
	l, r := cursorRemotes(ev, dets, neverNull)
	op, err := NewPaged(spec, l, r, PagedConfig{PagedLeft: true, Limit: limit, FirstPage: max(page, 1), FixedPage: page > 0, Sort: keys},
		exec.NewEnv(memory.NewBudget(0), nil))
	got, err := runPaged(t, op, err)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %d rows, want %d\ngot:\n%s\nwant:\n%s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPagedTupleCursorNeverNull: a sort column the source declares never null gets no null phase, and the
// answer is the oracle's.
func TestPagedTupleCursorNeverNull(t *testing.T) {
	ev := genEvents(rand.New(rand.NewPCG(7, 7)), 80, "sev", "ts")
	dets := detTable("u00", "u01", "u02", "u03")
	keys := []SortColumn{{Column: "sev", NullsFirst: true}, {Column: "ts", Desc: true}}
	tupleCursorCase(t, ev, dets, keys, Inner, 2, -1, []string{"sev", "ts"})
	l, r := cursorRemotes(ev, dets, []string{"sev", "ts"})
	spec, _ := NewSpec(Inner, evSchema, detSchema, []int{3}, []int{0})
	op, err := NewPaged(spec, l, r, PagedConfig{PagedLeft: true, Limit: -1, Sort: keys}, exec.NewEnv(memory.NewBudget(0), nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(op.phases); got != 1 {
		t.Errorf("%d phases, want 1 (sev and ts are never null)", got)
	}
}

// TestPagedPhaseBlocks: the null phases of (a nullable, b nullable, c never null) fall into the blocks whose
// rows interleave — those agreeing up to their first non-null column — in the output's order.
func TestPagedPhaseBlocks(t *testing.T) {
	cols := []SortColumn{{Column: "a", Desc: true}, {Column: "b", NullsFirst: true}, {Column: "c"}}
	phases := nullPhases(cols, []bool{true, true, false})
	want := []nullPhase{{false, true, false}, {false, false, false}, {true, true, false}, {true, false, false}}
	if fmt.Sprint(phases) != fmt.Sprint(want) {
		t.Fatalf("phases %v, want %v", phases, want)
	}
	// a non-null: b's nulls and values interleave inside a's tie groups (one block); a null: b null, then b
	// not null (two blocks, b's nulls first).
	if got, want := fmt.Sprint(phaseBlocks(phases)), "[[0 2] [2 3] [3 4]]"; got != want {
		t.Errorf("blocks %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(phaseBlocks(nullPhases(cols[:1], []bool{true}))), "[[0 1] [1 2]]"; got != want {
		t.Errorf("one nullable column: blocks %s, want %s (the phases follow one another)", got, want)
	}
}

// TestPagedTupleCursorRefusesKeyInTheMiddle: the join key may only be the last sort column.
func TestPagedTupleCursorRefusesKeyInTheMiddle(t *testing.T) {
	ev := genEvents(rand.New(rand.NewPCG(1, 1)), 10)
	l, r := cursorRemotes(ev, detTable("u00"), nil)
	spec, _ := NewSpec(Inner, evSchema, detSchema, []int{3}, []int{0})
	_, err := NewPaged(spec, l, r, PagedConfig{PagedLeft: true, Limit: -1, Sort: []SortColumn{{Column: "user"}, {Column: "ts"}}},
		exec.NewEnv(memory.NewBudget(0), nil))
	if err == nil || !strings.Contains(err.Error(), "last sort column") {
		t.Fatalf("%v, want the key-only-last error", err)
	}
}
