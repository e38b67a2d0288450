package join

import (
	"context"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/memory"
)

// BenchmarkHashWhere is BenchmarkHashInt64's join (output k, v, k1, v1: about 2.5M pairs) with a where over
// both sides above it, of which only v is read further up; "above" filters the join's output (the join gathers
// v and v1 for every pair, the filter copies v for the rows it keeps), "pairs" evaluates the where on the
// join's row pairs (SetWhere: v and v1 gathered for the first conjunct, v kept for the output):
// go test -run '^$' -bench HashWhere -benchtime 3x -cpu 1 ./engine/join
func BenchmarkHashWhere(b *testing.B) {
	ints, _ := benchTables()
	build, probe := ints[0], ints[1]
	spec, err := NewSpec(Inner, probe.Schema, build.Schema, []int{0}, []int{0})
	if err != nil {
		b.Fatal(err)
	}
	q, err := kql.Parse("@T | where (v + v1) % 1000 > 600 and v % 3 != 0")
	if err != nil {
		b.Fatal(err)
	}
	pred, err := expr.Compile(q.Ops[0].(*kql.Where).Pred, spec.Schema)
	if err != nil {
		b.Fatal(err)
	}
	above := []bool{false, true, false, false} // v
	for _, mode := range []string{"above", "pairs"} {
		b.Run(mode, func(b *testing.B) {
			s := *spec
			var out int
			for range b.N {
				var op exec.Operator
				if mode == "above" {
					s.Live = []bool{false, true, false, true} // v, and v1 for the where
					f := exec.NewFilter(NewHash(&s, &tableOp{t: probe, size: 4096}, &tableOp{t: build, size: 4096}, false, memory.NewBudget(0)), pred)
					f.Keep(above)
					op = f
				} else {
					s.Live = above
					h := NewHash(&s, &tableOp{t: probe, size: 4096}, &tableOp{t: build, size: 4096}, false, memory.NewBudget(0))
					h.SetWhere(pred)
					op = h
				}
				out = 0
				if err := exec.Drain(context.Background(), op, func(batch *column.Batch) error { out += batch.N; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(out), "out_rows")
		})
	}
}
