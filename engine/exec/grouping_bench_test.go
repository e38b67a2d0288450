package exec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
)

// benchRows is 1M rows of a long with 300,000 values (a tenth null), a long of 1,000 values, a string of
// 1,000 values and a row number: the input of the sort, distinct and dcount benchmarks.
func benchRows() *column.Table {
	const n = 1 << 20
	rng := rand.New(rand.NewSource(3))
	schema := column.Schema{{Name: "k", Type: column.Long}, {Name: "g", Type: column.Long},
		{Name: "s", Type: column.String}, {Name: "row", Type: column.Long}}
	cols := make([]*column.Vector, len(schema))
	for i, f := range schema {
		cols[i] = column.NewVector(f.Type, n)
	}
	for i := range n {
		if rng.Intn(10) == 0 {
			cols[0].AppendNull()
		} else {
			cols[0].AppendInt(int64(rng.Intn(300_000)) * 7919)
		}
		g := rng.Intn(1000)
		cols[1].AppendInt(int64(g))
		cols[2].AppendString(fmt.Sprintf("user-%06d", g))
		cols[3].AppendInt(int64(i))
	}
	t := column.NewTable(schema)
	t.Append(column.NewBatch(cols, n))
	return t
}

// drainBench drains op, failing b on an error.
func drainBench(b *testing.B, op Operator) {
	if err := Drain(context.Background(), op, func(*column.Batch) error { return nil }); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSort sorts the 1M rows by two longs (one descending, nulls first), by a string then a long, and
// keeps the top 100,000 by two longs: go test -bench 'Sort$' -run '^$' ./engine/exec.
func BenchmarkSort(b *testing.B) {
	t := benchRows()
	for _, c := range []struct {
		name  string
		keys  []SortKey
		limit int64
	}{
		{"two-longs", []SortKey{{Expr: typedCol(1, column.Long), Asc: true}, {Expr: typedCol(0, column.Long), NullsFirst: true}}, -1},
		{"string-long", []SortKey{{Expr: typedCol(2, column.String), Asc: true}, {Expr: typedCol(3, column.Long)}}, -1},
		{"top-100k", []SortKey{{Expr: typedCol(1, column.Long), Asc: true}, {Expr: typedCol(3, column.Long)}}, 100_000},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				drainBench(b, NewSort(&batches{t: t, size: 1024}, c.keys, c.limit, memory.NewBudget(0)))
			}
		})
	}
}

// BenchmarkDistinct keeps the first row of each distinct long (300,000 and null), of each pair of longs, and of
// each string: go test -bench Distinct -run '^$' ./engine/exec.
func BenchmarkDistinct(b *testing.B) {
	t := benchRows()
	for _, c := range []struct {
		name string
		cols []int
	}{{"long", []int{0}}, {"two-longs", []int{0, 1}}, {"string", []int{2}}} {
		in := project(t, c.cols)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				drainBench(b, NewDistinct(&batches{t: in, size: 1024}, memory.NewBudget(0)))
			}
		})
	}
}

// BenchmarkDcount counts the distinct longs (300,000) of the 1M rows with no keys and by the 1,000 groups of
// another long, and the distinct strings by group: go test -bench Dcount -run '^$' ./engine/exec.
func BenchmarkDcount(b *testing.B) {
	t := benchRows()
	for _, c := range []struct {
		name string
		keys []int
		arg  int
	}{{"long", nil, 0}, {"long-by-1k", []int{1}, 0}, {"string-by-1k", []int{1}, 2}} {
		var schema column.Schema
		var keys []expr.Expr
		for _, k := range c.keys {
			schema, keys = append(schema, t.Schema[k]), append(keys, ref(k, t.Schema[k].Type))
		}
		schema = append(schema, column.Field{Name: "d", Type: column.Long})
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				drainBench(b, NewSummarize(&batches{t: t, size: 1024}, schema, keys,
					[]Agg{{Func: "dcount", Arg: ref(c.arg, t.Schema[c.arg].Type), Type: column.Long}}, memory.NewBudget(0)))
			}
		})
	}
}
