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

// BenchmarkSummarize groups 1M rows by a long key (1,000 and 100,000 groups), by a string key and by a string
// and a long together (10,000 groups), with count, sum, avg, min and max: go test -bench Summarize -run '^$' ./engine/exec.
func BenchmarkSummarize(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewSource(1))
	for _, c := range []struct {
		name   string
		groups int
		str    bool
		two    bool // the string key and the long key x
	}{{"long-1k", 1000, false, false}, {"long-100k", 100_000, false, false}, {"string-1k", 1000, true, false},
		{"string-long-10k", 1000, true, true}} {
		schema := column.Schema{{Name: "k", Type: column.Long}, {Name: "x", Type: column.Long}, {Name: "r", Type: column.Real}}
		if c.str {
			schema[0].Type = column.String
		}
		t := column.NewTable(schema)
		cols := []*column.Vector{column.NewVector(schema[0].Type, n), column.NewVector(column.Long, n), column.NewVector(column.Real, n)}
		for range n {
			g := rng.Intn(c.groups)
			if c.str {
				cols[0].AppendString(fmt.Sprintf("user-%08d", g))
			} else {
				cols[0].AppendInt(int64(g) * 7919)
			}
			if c.two {
				cols[1].AppendInt(int64(rng.Intn(10)))
			} else {
				cols[1].AppendInt(int64(rng.Intn(1000)))
			}
			cols[2].AppendReal(rng.Float64())
		}
		t.Append(column.NewBatch(cols, n))
		keys := []expr.Expr{ref(0, schema[0].Type)}
		if c.two {
			keys = append(keys, ref(1, column.Long))
		}
		aggs := []Agg{{Func: "count", Type: column.Long}, {Func: "sum", Arg: ref(1, column.Long), Type: column.Long},
			{Func: "avg", Arg: ref(2, column.Real), Type: column.Real}, {Func: "min", Arg: ref(1, column.Long), Type: column.Long},
			{Func: "max", Arg: ref(2, column.Real), Type: column.Real}}
		out := column.Schema{schema[0]}
		if c.two {
			out = append(out, schema[1])
		}
		out = append(out, column.Schema{{Name: "n", Type: column.Long}, {Name: "s", Type: column.Long},
			{Name: "a", Type: column.Real}, {Name: "mn", Type: column.Long}, {Name: "mx", Type: column.Real}}...)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(n) * 24)
			for b.Loop() {
				s := NewSummarize(&batches{t: t, size: 1024}, out, keys, aggs, memory.NewBudget(0))
				if err := Drain(context.Background(), s, func(*column.Batch) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSummarizeNoKeys sums 1M rows into the one group of a summarize with no keys (count, a long sum with
// nulls, a real sum): go test -bench SummarizeNoKeys -run '^$' ./engine/exec.
func BenchmarkSummarizeNoKeys(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewSource(2))
	schema := column.Schema{{Name: "x", Type: column.Long}, {Name: "r", Type: column.Real}}
	t := column.NewTable(schema)
	cols := []*column.Vector{column.NewVector(column.Long, n), column.NewVector(column.Real, n)}
	for range n {
		if rng.Intn(10) == 0 {
			cols[0].AppendNull()
		} else {
			cols[0].AppendInt(int64(rng.Intn(1000)))
		}
		cols[1].AppendReal(rng.Float64())
	}
	t.Append(column.NewBatch(cols, n))
	aggs := []Agg{{Func: "count", Type: column.Long}, {Func: "sum", Arg: ref(0, column.Long), Type: column.Long},
		{Func: "sum", Arg: ref(1, column.Real), Type: column.Real}}
	out := column.Schema{{Name: "n", Type: column.Long}, {Name: "s", Type: column.Long}, {Name: "f", Type: column.Real}}
	b.SetBytes(int64(n) * 16)
	for b.Loop() {
		s := NewSummarize(&batches{t: t, size: 1024}, out, nil, aggs, memory.NewBudget(0))
		if err := Drain(context.Background(), s, func(*column.Batch) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
