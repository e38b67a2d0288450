package join

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
)

// pairAggs returns count() and a sum of every long or real output column of spec, as HashAggregate takes them
// and as exec.Summarize takes them, with the result schema.
func pairAggs(spec *Spec) ([]PairAgg, []exec.Agg, column.Schema) {
	pa := []PairAgg{{}}
	ea := []exec.Agg{{Func: "count", Type: column.Long}}
	schema := column.Schema{{Name: "n", Type: column.Long}}
	for o, f := range spec.Schema {
		if f.Type != column.Long && f.Type != column.Real {
			continue
		}
		pa = append(pa, PairAgg{Sum: true, Col: o})
		ea = append(ea, exec.Agg{Func: "sum", Arg: &expr.ColumnRef{Index: o, T: f.Type}, Type: f.Type})
		schema = append(schema, column.Field{Name: "sum_" + f.Name, Type: f.Type})
	}
	return pa, ea, schema
}

// aggPaths are the ways a HashAggregate can run, each forced so it runs on every kind and aggregate it can
// serve: the rows path with output batches cut at 4096 rows and at 3, and the radix path with the partitions it
// chooses, with 8 partitions, and with 8 partitions when the probe side stops being held after one batch and
// after none (the fallback to looking rows up in every partition's table).
var aggPaths = []struct {
	name                     string
	rows                     bool
	maxOut                   int
	radixBits, bufferBatches int
}{
	{name: "rows", rows: true, maxOut: outRows},
	{name: "rows-out3", rows: true, maxOut: 3},
	{name: "radix", radixBits: -1, bufferBatches: -1},
	{name: "radix-8parts", radixBits: 3, bufferBatches: -1},
	{name: "radix-8parts-hold1", radixBits: 3, bufferBatches: 1},
	{name: "radix-8parts-hold0", radixBits: 3, bufferBatches: 0},
	{name: "radix-1part", radixBits: 0, bufferBatches: -1},
}

// forcePath makes a run path p, reporting false when a cannot take it (the radix path on real sums or a semi
// or anti kind).
func forcePath(a *HashAggregate, p int) bool {
	path := aggPaths[p]
	a.h.maxOut = path.maxOut
	if path.rows {
		a.radix = nil
		return true
	}
	if a.radix == nil {
		return false
	}
	a.radix.forceBits, a.radix.bufferBatches = path.radixBits, path.bufferBatches
	return true
}

// TestHashAggregateMatchesSummarize checks the aggregate mode of the hash join against summarize over the
// nested-loop oracle's output, for every kind and input shape, both build sides, every batch size and every
// path (aggPaths).
func TestHashAggregateMatchesSummarize(t *testing.T) {
	for ci, c := range cases() {
		seed := uint64(2000 + ci)
		r := rand.New(rand.NewPCG(seed, seed))
		lt, rt := genTable(r, c.left, "L"), genTable(r, c.right, "R")
		for _, kind := range Kinds {
			name := fmt.Sprintf("%s-%s/%s/seed=%d", c.left.name, c.right.name, kind, seed)
			t.Run(name, func(t *testing.T) {
				spec, err := NewSpec(kind, lt.Schema, rt.Schema, keysOf(lt.Schema), keysOf(rt.Schema))
				if err != nil {
					t.Fatal(err)
				}
				pa, ea, schema := pairAggs(spec)
				oracle := exec.NewSummarize(NewNestedLoop(spec, &tableOp{t: lt, size: 1000}, &tableOp{t: rt, size: 1000}, memory.NewBudget(0)),
					schema, nil, ea, memory.NewBudget(0))
				want, _ := rowsOf(t, oracle)
				for _, size := range batchSizes {
					for _, buildLeft := range []bool{false, true} {
						for p := range aggPaths {
							a, err := NewHashAggregate(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, buildLeft, memory.NewBudget(0), pa, schema)
							if err != nil {
								t.Fatal(err)
							}
							if !forcePath(a, p) {
								continue
							}
							got, _ := rowsOf(t, a)
							if !slices.Equal(got, want) {
								t.Fatalf("batch=%d buildLeft=%v path=%s: hash aggregate gave %v, summarize over the oracle %v",
									size, buildLeft, aggPaths[p].name, got, want)
							}
						}
					}
				}
			})
		}
	}
}

// TestHashAggregateChainSums checks the radix path where it counts pairs it never enumerates: one key with
// many rows on both sides, values with nulls on both sides, and sums that overflow int64 (they must wrap exactly
// as adding each pair would), on every radix variant of aggPaths.
func TestHashAggregateChainSums(t *testing.T) {
	mk := func(rows int, val func(i int) (int64, bool)) *column.Table {
		tab := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "v", Type: column.Long}})
		for i := 0; i < rows; i++ {
			tab.Cols[0].AppendInt(int64(i % 3))
			if x, ok := val(i); ok {
				tab.Cols[1].AppendInt(x)
			} else {
				tab.Cols[1].AppendNull()
			}
		}
		tab.N = rows
		return tab
	}
	big := func(i int) (int64, bool) { return 1<<62 + int64(i), i%5 != 0 }
	lt, rt := mk(300, big), mk(200, big)
	for _, kind := range []Kind{Inner, LeftOuter, RightOuter, FullOuter, InnerUnique} {
		spec, err := NewSpec(kind, lt.Schema, rt.Schema, []int{0}, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		pa, ea, schema := pairAggs(spec)
		want, _ := rowsOf(t, exec.NewSummarize(NewNestedLoop(spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, memory.NewBudget(0)),
			schema, nil, ea, memory.NewBudget(0)))
		for _, buildLeft := range []bool{false, true} {
			for p, path := range aggPaths {
				if path.rows {
					continue
				}
				a, err := NewHashAggregate(spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, buildLeft, memory.NewBudget(0), pa, schema)
				if err != nil {
					t.Fatal(err)
				}
				if !forcePath(a, p) {
					t.Fatalf("%s: expected the radix path", kind)
				}
				if got, _ := rowsOf(t, a); !slices.Equal(got, want) {
					t.Fatalf("%s buildLeft=%v path=%s: hash aggregate gave %v, summarize over the oracle %v", kind, buildLeft, path.name, got, want)
				}
			}
		}
	}
}
