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

// TestDenseAggregate checks the dense table (dense_aggregate.go) against summarize over the nested-loop oracle
// on the shapes its loops tell apart: count() with one sum of each side's v (the common-case loop) and with
// every long column summed (the general loop); values with and without nulls, all null on one side (the sum
// must be null), and overflowing; probe keys below, inside and above the build keys' range, nulls among the
// keys; every kind it serves, both build sides, several batch sizes; the partitioned passes (dense_parts.go)
// off, on with 8 partitions, and on when the probe side stops being held after two batches. Each run must say it
// took the dense path, and its partitioned passes, exactly when the kind, the keys and the aggregates allow it.
func TestDenseAggregate(t *testing.T) {
	type vals func(r *rand.Rand, i int) (int64, bool)
	some := func(r *rand.Rand, i int) (int64, bool) { return r.Int64N(1000) - 200, r.IntN(6) != 0 }
	all := func(r *rand.Rand, i int) (int64, bool) { return 1<<62 + int64(i)*7, true }
	none := func(r *rand.Rand, i int) (int64, bool) { return 0, false }
	mk := func(r *rand.Rand, rows int, lo, hi int64, keyNulls bool, v vals) *column.Table {
		tab := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "v", Type: column.Long}})
		for i := 0; i < rows; i++ {
			if keyNulls && r.IntN(9) == 0 {
				tab.Cols[0].AppendNull()
			} else {
				tab.Cols[0].AppendInt(lo + r.Int64N(hi-lo))
			}
			if x, ok := v(r, i); ok {
				tab.Cols[1].AppendInt(x)
			} else {
				tab.Cols[1].AppendNull()
			}
		}
		tab.N = rows
		return tab
	}
	shapes := []struct {
		name             string
		lrows, rrows     int
		llo, lhi         int64 // left keys
		rlo, rhi         int64 // right keys
		keyNulls         bool
		lvals, rvals     vals
		denseIfLeftBuild bool // the left keys' range is dense for its rows
		denseIfRightBuld bool
	}{
		{"wider-right", 200, 900, 0, 50, -30, 120, false, all, all, true, true},
		{"nulls", 300, 400, 1000, 1400, 900, 1500, true, some, some, true, true},
		{"all-null-left", 100, 300, 0, 20, 0, 40, false, none, all, true, true},
		{"all-null-right", 300, 100, 0, 40, 0, 20, true, all, none, true, true},
		{"sparse-left", 50, 400, 0, 1 << 40, 0, 30, false, all, all, false, true},
		{"key-nulls", 300, 500, 0, 200, -50, 260, true, all, all, true, true},
	}
	partRuns := 0
	defer func() {
		if partRuns == 0 {
			t.Error("no run took the partitioned passes")
		}
	}()
	for si, sh := range shapes {
		r := rand.New(rand.NewPCG(uint64(si), 77))
		lt := mk(r, sh.lrows, sh.llo, sh.lhi, sh.keyNulls, sh.lvals)
		rt := mk(r, sh.rrows, sh.rlo, sh.rhi, sh.keyNulls, sh.rvals)
		for _, kind := range []Kind{Inner, InnerUnique, LeftOuter, RightOuter, FullOuter} {
			spec, err := NewSpec(kind, lt.Schema, rt.Schema, []int{0}, []int{0})
			if err != nil {
				t.Fatal(err)
			}
			allPa, allEa, allSchema := pairAggs(spec)
			onePa, oneEa, oneSchema := []PairAgg{{}}, []exec.Agg{{Func: "count", Type: column.Long}}, column.Schema{{Name: "n", Type: column.Long}}
			for o, f := range spec.Schema {
				if f.Name == "v" || f.Name == "v1" {
					onePa = append(onePa, PairAgg{Sum: true, Col: o})
					oneEa = append(oneEa, exec.Agg{Func: "sum", Arg: &expr.ColumnRef{Index: o, T: f.Type}, Type: f.Type})
					oneSchema = append(oneSchema, column.Field{Name: "sum_" + f.Name, Type: f.Type})
				}
			}
			for _, aggs := range []struct {
				name   string
				pa     []PairAgg
				ea     []exec.Agg
				schema column.Schema
			}{{"one-sum-each", onePa, oneEa, oneSchema}, {"every-sum", allPa, allEa, allSchema}} {
				want, _ := rowsOf(t, exec.NewSummarize(NewNestedLoop(spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, memory.NewBudget(0)),
					aggs.schema, nil, aggs.ea, memory.NewBudget(0)))
				for _, size := range []int{1, 7, 1000} {
					for _, buildLeft := range []bool{false, true} {
						for _, parts := range []struct{ bits, hold int }{{0, -1}, {3, -1}, {3, 2}} {
							name := fmt.Sprintf("%s %s %s batch=%d buildLeft=%v partbits=%d hold=%d", sh.name, kind, aggs.name, size, buildLeft, parts.bits, parts.hold)
							a, err := NewHashAggregate(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, buildLeft, memory.NewBudget(0), aggs.pa, aggs.schema)
							if err != nil {
								t.Fatal(err)
							}
							a.radix.denseBits, a.radix.bufferBatches = parts.bits, parts.hold
							if got, _ := rowsOf(t, a); !slices.Equal(got, want) {
								t.Errorf("%s: dense aggregate gave %v, summarize over the oracle %v", name, got, want)
							}
							buildUnmatched := kind == FullOuter || (kind == LeftOuter) == buildLeft && kind != Inner && kind != InnerUnique
							dedupe := kind == InnerUnique && !buildLeft
							wantDense := !buildUnmatched && !dedupe && (buildLeft && sh.denseIfLeftBuild || !buildLeft && sh.denseIfRightBuld)
							if a.radix.usedDense != wantDense {
								t.Errorf("%s: dense path taken %v, want %v", name, a.radix.usedDense, wantDense)
							}
							// The partitioned passes (dense_parts.go) take one sum from each side and no null
							// build value, on pairs only.
							bt := rt
							if buildLeft {
								bt = lt
							}
							wantParts := wantDense && parts.bits > 0 && kind == Inner && aggs.name == "one-sum-each" && !bt.Cols[1].HasNulls()
							if a.radix.usedDenseParts != wantParts {
								t.Errorf("%s: partitioned passes taken %v, want %v", name, a.radix.usedDenseParts, wantParts)
							}
							if wantParts {
								partRuns++
							}
						}
					}
				}
			}
		}
	}
}
