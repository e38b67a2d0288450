package join

import (
	"context"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/spill"
)

// BenchmarkGrace10Mx10M joins 10M ⋈ 10M rows of (int64 key, int64 payload) under a 64 MiB budget, spilling to
// files in the system's temporary folder. Build keys are a permutation of 0..10M-1, probe keys uniform over
// 0..20M-1 (about half match), both from integer hashes of the row number, as in the hash join's benchmark.
// It reports rows/s over both inputs and the page I/O against 3(N+M).
func BenchmarkGrace10Mx10M(b *testing.B) {
	const rows = 10_000_000
	gen := func(key func(i int) int64) *column.Table {
		t := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "v", Type: column.Long}})
		t.Cols[0].Ints = make([]int64, rows)
		t.Cols[1].Ints = make([]int64, rows)
		for i := range rows {
			t.Cols[0].Ints[i], t.Cols[1].Ints[i] = key(i), int64(i)
		}
		t.Cols[0].SetLen(rows)
		t.Cols[1].SetLen(rows)
		t.N = rows
		return t
	}
	build := gen(func(i int) int64 { return int64((uint64(i) * 0x9E3779B97F4A7C15) % rows) })
	probe := gen(func(i int) int64 { return int64(mix(uint64(i)) % (2 * rows)) })
	spec, err := NewSpec(Inner, probe.Schema, build.Schema, []int{0}, []int{0})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var out int
	var details map[string]any
	for range b.N {
		env := exec.NewEnv(memory.NewBudget(64<<20), nil)
		g := NewGrace(spec, &tableOp{t: probe, size: 4096}, &tableOp{t: build, size: 4096}, env,
			GraceConfig{EstimatedBuildBytes: rows * 16, EstimatedBuildRows: rows,
				NewStore: func(context.Context) (spill.Store, error) { return spill.NewFileStore("") }})
		out = 0
		err := exec.Drain(context.Background(), g, func(batch *column.Batch) error { out += batch.N; return nil })
		if err != nil {
			b.Fatal(err)
		}
		details = env.Details.Map()
	}
	b.ReportMetric(float64(2*rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(out), "out_rows")
	io := float64(detail(details, "io_pages_read") + detail(details, "io_pages_written"))
	b.ReportMetric(io, "io_pages")
	b.ReportMetric(io/float64(detail(details, "io_pages_bound")), "io/3(N+M)")
	b.ReportMetric(float64(detail(details, "partitions")), "partitions")
}
