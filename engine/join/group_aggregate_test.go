package join

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/spill"
	"github.com/joinlab/joinlab/engine/trace"
)

// groupChoices are the group keys a GroupAggregate test groups by, as output column names: one side's payload
// (long with nulls), its unique string id, its key and its payload together, and the same of the other side.
var groupChoices = [][]string{{"v"}, {"id"}, {"k", "v"}, {"v1"}, {"id1"}, {"k1", "v1"}}

// groupAggsOf returns count() and sum, min and max of both sides' v, as GroupAggregate takes them and as
// exec.Summarize takes them, with the result schema (keys first). Unless folded, it adds the aggregates that
// keep share rows per row (string extremes, distinct counts); with folded the groups are folded in place.
func groupAggsOf(spec *Spec, keys []int, folded bool) ([]GroupAgg, []exec.Agg, []expr.Expr, column.Schema) {
	ga := []GroupAgg{{Func: "count"}}
	ea := []exec.Agg{{Func: "count", Type: column.Long}}
	var ke []expr.Expr
	var schema column.Schema
	for _, k := range keys {
		f := spec.Schema[k]
		ke = append(ke, &expr.ColumnRef{Index: k, T: f.Type})
		schema = append(schema, f)
	}
	schema = append(schema, column.Field{Name: "n", Type: column.Long})
	add := func(fn, name string) {
		o := spec.Schema.Index(name)
		typ := column.Long
		if fn != "dcount" {
			typ = spec.Schema[o].Type
		}
		ga = append(ga, GroupAgg{Func: fn, Col: o})
		ea = append(ea, exec.Agg{Func: fn, Arg: &expr.ColumnRef{Index: o, T: spec.Schema[o].Type}, Type: typ})
		schema = append(schema, column.Field{Name: fn + "_" + name, Type: typ})
	}
	for _, name := range []string{"v", "v1"} {
		for _, fn := range []string{"sum", "min", "max"} {
			add(fn, name)
		}
	}
	if folded {
		return ga, ea, ke, schema
	}
	// On the group keys' side, strings' extremes and distinct counts fold too, as share rows per row.
	suffix := ""
	if strings.HasSuffix(spec.Schema[keys[0]].Name, "1") {
		suffix = "1"
	}
	for _, fn := range []string{"min", "max", "dcount"} {
		add(fn, "id"+suffix)
	}
	add("dcount", "v"+suffix)
	return ga, ea, ke, schema
}

// fewAggs keeps of groupAggsOf's folded aggregates count(), sum(v) and max(v1): a scattered probe row then
// carries one value or two (its group and one), which the keyed path's loops write without a loop.
func fewAggs(ga []GroupAgg, ea []exec.Agg, schema column.Schema, keys int) ([]GroupAgg, []exec.Agg, column.Schema) {
	keep := []int{0, 1, 6} // count, then sum, min, max of v, then of v1
	var g []GroupAgg
	var e []exec.Agg
	s := slices.Clone(schema[:keys])
	for _, i := range keep {
		g, e, s = append(g, ga[i]), append(e, ea[i]), append(s, schema[keys+i])
	}
	return g, e, s
}

// TestGroupAggregateMatchesSummarize checks the grouped join aggregate against summarize over the hash join's
// output (the same rows in the same order: the groups must come out in order of first appearance) and, as a
// multiset, against summarize over the nested-loop oracle: for every kind that forms pairs, every input shape
// (nulls, ties, skew, empty sides, string, multi-column, real and datetime keys), group keys on either side,
// both build sides, every batch size, and the partitioned probe both off and forced on; with the groups folded
// in place (group_fold.go) and with share rows per row (string and distinct-count aggregates, or forced).
func TestGroupAggregateMatchesSummarize(t *testing.T) {
	eachKindCase(t, cases(), 5000, func(t *testing.T, c pair, kind Kind, spec *Spec, lt, rt *column.Table) {
		if l, r := kind.sides(); l.semi || l.anti || r.semi || r.anti {
			return
		}
		for _, mode := range []string{"folded", "folded few", "shares", "forced shares"} {
			for _, names := range groupChoices {
				var keys []int
				for _, n := range names {
					keys = append(keys, spec.Schema.Index(n))
				}
				ga, ea, ke, schema := groupAggsOf(spec, keys, mode != "shares")
				if mode == "folded few" {
					ga, ea, schema = fewAggs(ga, ea, schema, len(keys))
				}
				oracle := exec.NewSummarize(NewNestedLoop(spec, &tableOp{t: lt, size: 1000}, &tableOp{t: rt, size: 1000}, memory.NewBudget(0)),
					schema, ke, ea, memory.NewBudget(0))
				multiset, _ := rowsOf(t, oracle)
				for _, size := range batchSizes {
					for _, buildLeft := range []bool{false, true} {
						want := orderedRows(t, exec.NewSummarize(NewHash(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, buildLeft, memory.NewBudget(0)),
							schema, ke, ea, memory.NewBudget(0)))
						for _, radix := range []uint{0, 2} {
							a, err := NewGroupAggregate(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, buildLeft, memory.NewBudget(0), keys, ga)
							if err != nil {
								t.Fatal(err)
							}
							a.h.radixBits, a.h.radixWindow, a.h.radixMinWindow = radix, 64, 1
							a.shareRowsOnly = mode == "forced shares"
							op := a.Combine(schema, memory.NewBudget(0))
							got := orderedRows(t, op)
							if !slices.Equal(got, want) {
								t.Fatalf("%s by %v batch=%d buildLeft=%v radix=%d:\ngot  %v\nwant %v", mode, names, size, buildLeft, radix, head(got), head(want))
							}
							if folded := mode == "folded" || mode == "folded few"; a.foldedGroups != folded || a.grouped() != folded {
								t.Fatalf("%s by %v: groups folded in place %v, passed through as the result %v", mode, names, a.foldedGroups, a.grouped())
							}
							// The keyed path (group_keyed.go) takes every folded grouping over one int key, or int keys
							// packed into one (TestPackKeys checks when), once the table is partitioned, but innerunique
							// probing with the left.
							intKey := intKeyed(spec.KeyTypes) || a.h.pack != nil
							keyed := mode != "shares" && mode != "forced shares" && radix > 0 && intKey && (kind != InnerUnique || buildLeft)
							if a.usedKeyed != keyed {
								t.Fatalf("%s by %v buildLeft=%v radix=%d: keyed path %v, want %v", mode, names, buildLeft, radix, a.usedKeyed, keyed)
							}
							if size == 7 && radix == 0 {
								a, _ := NewGroupAggregate(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, buildLeft, memory.NewBudget(0), keys, ga)
								a.shareRowsOnly = mode == "forced shares"
								op := a.Combine(schema, memory.NewBudget(0))
								if got, _ := rowsOf(t, op); !slices.Equal(got, multiset) {
									t.Fatalf("%s by %v buildLeft=%v: %v, summarize over the oracle %v", mode, names, buildLeft, head(got), head(multiset))
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestGroupAggregateWraps checks sums that overflow int64 and keys with many rows on both sides: a group-side
// value times its key's fold-side rows must wrap exactly as adding each pair's value would.
func TestGroupAggregateWraps(t *testing.T) {
	mk := func(rows int) *column.Table {
		tab := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "id", Type: column.String}, {Name: "v", Type: column.Long}})
		for i := 0; i < rows; i++ {
			tab.Cols[0].AppendInt(int64(i % 3))
			tab.Cols[1].AppendString(fmt.Sprint("g", i%4))
			if i%5 == 0 {
				tab.Cols[2].AppendNull()
			} else {
				tab.Cols[2].AppendInt(1<<62 + int64(i)*(1<<40))
			}
		}
		tab.N = rows
		return tab
	}
	lt, rt := mk(300), mk(200)
	for _, kind := range []Kind{Inner, InnerUnique, LeftOuter, RightOuter, FullOuter} {
		spec, err := NewSpec(kind, lt.Schema, rt.Schema, []int{0}, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		for _, by := range []string{"id", "id1"} {
			for _, folded := range []bool{false, true} {
				keys := []int{spec.Schema.Index(by)}
				ga, ea, ke, schema := groupAggsOf(spec, keys, folded)
				for _, buildLeft := range []bool{false, true} {
					want := orderedRows(t, exec.NewSummarize(NewHash(spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, buildLeft, memory.NewBudget(0)),
						schema, ke, ea, memory.NewBudget(0)))
					a, err := NewGroupAggregate(spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, buildLeft, memory.NewBudget(0), keys, ga)
					if err != nil {
						t.Fatal(err)
					}
					op := a.Combine(schema, memory.NewBudget(0))
					if got := orderedRows(t, op); !slices.Equal(got, want) {
						t.Fatalf("%s by %s buildLeft=%v folded=%v:\ngot  %v\nwant %v", kind, by, buildLeft, folded, got, want)
					}
				}
			}
		}
	}
}

// TestGroupAggregateRefuses checks the shapes the fold cannot compute exactly are refused.
func TestGroupAggregateRefuses(t *testing.T) {
	s := column.Schema{{Name: "k", Type: column.Long}, {Name: "v", Type: column.Long}, {Name: "x", Type: column.Real}}
	inner, _ := NewSpec(Inner, s, s, []int{0}, []int{0})
	semi, _ := NewSpec(LeftSemi, s, s, []int{0}, []int{0})
	for name, c := range map[string]struct {
		spec *Spec
		keys []int
		agg  GroupAgg
	}{
		"keys on both sides": {inner, []int{1, 4}, GroupAgg{Func: "count"}},
		"semi":               {semi, []int{1}, GroupAgg{Func: "count"}},
		"real sum":           {inner, []int{1}, GroupAgg{Func: "sum", Col: 2}},
		"avg":                {inner, []int{1}, GroupAgg{Func: "avg", Col: 1}},
		"dcount other side":  {inner, []int{1}, GroupAgg{Func: "dcount", Col: 4}},
		"real min":           {inner, []int{1}, GroupAgg{Func: "min", Col: 2}},
	} {
		if _, err := NewGroupAggregate(c.spec, nil, nil, false, memory.NewBudget(0), c.keys, []GroupAgg{c.agg}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestGroupAggregateSpills checks that groups outgrowing the budget spill in the summarize that combines the
// share rows, and that the answer and its order are the in-memory one's: many groups, on either side.
func TestGroupAggregateSpills(t *testing.T) {
	seed := uint64(77)
	r := rand.New(rand.NewPCG(seed, seed))
	small := genTable(r, shape{name: "small", rows: 300, domain: 200, keyType: column.Long, nullRate: 0.1}, "L")
	large := genTable(r, shape{name: "large", rows: 6000, domain: 200, keyType: column.Long, nullRate: 0.1}, "R")
	space := spill.NewSpace(spill.Memory)
	defer space.Close()
	ctx := spill.WithSpace(context.Background(), space)
	for _, kind := range []Kind{Inner, FullOuter} {
		for _, buildLeft := range []bool{false, true} {
			// The build side is the small one: large ⋈ small builds right, small ⋈ large left.
			lt, rt := large, small
			if buildLeft {
				lt, rt = small, large
			}
			spec, err := NewSpec(kind, lt.Schema, rt.Schema, []int{0}, []int{0})
			if err != nil {
				t.Fatal(err)
			}
			for _, by := range []string{"id", "id1"} {
				for _, folded := range []bool{false, true} {
					keys := []int{spec.Schema.Index(by)}
					ga, _, _, schema := groupAggsOf(spec, keys, folded)
					run := func(budget int64) ([]string, int64) {
						a, err := NewGroupAggregate(spec, &tableOp{t: lt, size: 100}, &tableOp{t: rt, size: 100}, buildLeft, memory.NewBudget(budget), keys, ga)
						if err != nil {
							t.Fatal(err)
						}
						s := a.Combine(schema, a.h.budget)
						d := &trace.Details{}
						s.ReportTo(d)
						tab, err := exec.Materialize(ctx, s)
						if err != nil {
							t.Fatalf("%s by %s buildLeft=%v budget %d (seed %d): %v", kind, by, buildLeft, budget, seed, err)
						}
						var rows []string
						for i := 0; i < tab.N; i++ {
							var row []any
							for _, c := range tab.Cols {
								row = append(row, c.Value(i))
							}
							rows = append(rows, fmt.Sprint(row...))
						}
						return rows, d.Int("summarize_spills")
					}
					want, _ := run(0)
					got, spills := run(256 << 10)
					if !slices.Equal(got, want) {
						t.Fatalf("%s by %s buildLeft=%v folded=%v (seed %d): spilled answer differs: %v, in memory %v", kind, by, buildLeft, folded, seed, head(got), head(want))
					}
					if spills == 0 && len(want) > 1000 {
						t.Errorf("%s by %s buildLeft=%v: %d groups did not spill", kind, by, buildLeft, len(want))
					}
				}
			}
		}
	}
}

// TestGroupAggregateFoldOverBudget checks the way back from groups folded in place to share rows per row: the
// groups refused at the build (build-side groups) or in the middle of the probe side (probe-side groups, whose
// groups so far go out first) must give the unbounded answer, in its order. The refusal comes from budgets
// from tight to ample (one too small for the hash join's own table may fail the query, never change its
// answer) and, to reach every point, from the test knob foldCap, at its first group, its second, and later.
func TestGroupAggregateFoldOverBudget(t *testing.T) {
	seed := uint64(91)
	r := rand.New(rand.NewPCG(seed, seed))
	lt := genTable(r, shape{name: "left", rows: 1500, domain: 300, keyType: column.Long, nullRate: 0.1}, "L")
	rt := genTable(r, shape{name: "right", rows: 2500, domain: 300, keyType: column.Long, nullRate: 0.1}, "R")
	space := spill.NewSpace(spill.Memory)
	defer space.Close()
	ctx := spill.WithSpace(context.Background(), space)
	budgetRefusals, keyedDirect := 0, 0
	for _, kind := range []Kind{Inner, LeftOuter, RightOuter, FullOuter} {
		spec, err := NewSpec(kind, lt.Schema, rt.Schema, []int{0}, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		for _, by := range []string{"id", "id1", "v", "v1"} {
			keys := []int{spec.Schema.Index(by)}
			ga, ea, ke, schema := groupAggsOf(spec, keys, true)
			for _, buildLeft := range []bool{false, true} {
				want := orderedRows(t, exec.NewSummarize(NewHash(spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, buildLeft, memory.NewBudget(0)),
					schema, ke, ea, memory.NewBudget(0)))
				run := func(budget int64, foldCap int, radix uint) (*GroupAggregate, bool) {
					a, err := NewGroupAggregate(spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, buildLeft, memory.NewBudget(budget), keys, ga)
					if err != nil {
						t.Fatal(err)
					}
					a.foldCap, a.h.radixBits = foldCap, radix
					tab, err := exec.Materialize(ctx, a.Combine(schema, a.h.budget))
					if err != nil {
						return a, false // the hash join's table is over the budget
					}
					if got := renderedRows(tab); !slices.Equal(got, want) {
						t.Fatalf("%s by %s buildLeft=%v budget %d cap %d (seed %d):\ngot  %v\nwant %v", kind, by, buildLeft, budget, foldCap, seed, head(got), head(want))
					}
					return a, true
				}
				for _, radix := range []uint{0, 3} {
					for budget := int64(32 << 10); budget <= 2<<20; budget += budget / 8 {
						a, ok := run(budget, 0, radix)
						if ok && a.refused {
							budgetRefusals++
						}
						if a.keyedDirect {
							keyedDirect++
						}
					}
					for _, foldCap := range []int{1, 2, 3, 40, 250} {
						if a, _ := run(0, foldCap, radix); !a.refused && len(want) > foldCap {
							t.Errorf("%s by %s buildLeft=%v: %d groups, none refused past %d", kind, by, buildLeft, len(want), foldCap)
						}
					}
				}
			}
		}
	}
	if budgetRefusals == 0 {
		t.Errorf("no budget refused a folded group")
	}
	if keyedDirect == 0 {
		t.Errorf("no budget refused the keyed path's scattered probe rows")
	}
}
