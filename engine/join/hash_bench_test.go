package join

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// The benchmark inputs: a 1M-row build side with unique keys 0..1M-1 and a 5M-row probe side with keys uniform
// over 0..2M-1, so about half the probe rows match one build row. Keys come from an integer hash of the row
// number (no RNG state), so any engine can regenerate the same data.
const (
	benchBuildRows = 1_000_000
	benchProbeRows = 5_000_000
)

func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}

var benchTables = sync.OnceValues(func() ([2]*column.Table, [2]*column.Table) {
	gen := func(rows int, key func(i int) int64, str bool) *column.Table {
		kt := column.Long
		if str {
			kt = column.String
		}
		t := column.NewTable(column.Schema{{Name: "k", Type: kt}, {Name: "v", Type: column.Long}})
		for i := 0; i < rows; i++ {
			k := key(i)
			if str {
				t.Cols[0].AppendString(fmt.Sprintf("u%015d", k)) // 16 bytes
			} else {
				t.Cols[0].AppendInt(k)
			}
			t.Cols[1].AppendInt(int64(i))
		}
		t.N = rows
		return t
	}
	build := func(i int) int64 { return int64((uint64(i) * 0x9E3779B97F4A7C15) % benchBuildRows) }
	probe := func(i int) int64 { return int64(mix(uint64(i)) % (2 * benchBuildRows)) }
	return [2]*column.Table{gen(benchBuildRows, build, false), gen(benchProbeRows, probe, false)},
		[2]*column.Table{gen(benchBuildRows, build, true), gen(benchProbeRows, probe, true)}
})

func benchmarkHash(b *testing.B, tabs [2]*column.Table) { benchmarkHashWith(b, tabs, func(*Hash) {}) }

// benchmarkHashWith is benchmarkHash with set applied to each join before it runs.
func benchmarkHashWith(b *testing.B, tabs [2]*column.Table, set func(*Hash)) {
	build, probe := tabs[0], tabs[1]
	spec, err := NewSpec(Inner, probe.Schema, build.Schema, []int{0}, []int{0})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var out int
	for range b.N {
		h := NewHash(spec, &tableOp{t: probe, size: 4096}, &tableOp{t: build, size: 4096}, false, memory.NewBudget(0))
		set(h)
		out = 0
		for {
			batch, err := h.Next(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if batch == nil {
				break
			}
			out += batch.N
		}
	}
	rows := float64(build.N + probe.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
	b.ReportMetric(float64(out), "out_rows")
}

// BenchmarkHashInt64 is the 1M ⋈ 5M hash join on int64 keys.
func BenchmarkHashInt64(b *testing.B) {
	ints, _ := benchTables()
	benchmarkHash(b, ints)
}

// BenchmarkHashString is the same join on 16-byte string keys.
func BenchmarkHashString(b *testing.B) {
	_, strs := benchTables()
	benchmarkHash(b, strs)
}

// benchmarkHashAggregate is the same join folded into count() and a sum of each side's payload, as the
// planner runs `join … | summarize n=count(), s1=sum(v), s2=sum(v1)`.
func benchmarkHashAggregate(b *testing.B, tabs [2]*column.Table) {
	build, probe := tabs[0], tabs[1]
	spec, err := NewSpec(Inner, probe.Schema, build.Schema, []int{0}, []int{0})
	if err != nil {
		b.Fatal(err)
	}
	aggs := []PairAgg{{}, {Sum: true, Col: spec.LeftOut[1]}, {Sum: true, Col: spec.RightOut[1]}}
	schema := column.Schema{{Name: "n", Type: column.Long}, {Name: "s1", Type: column.Long}, {Name: "s2", Type: column.Long}}
	b.ResetTimer()
	var n int64
	for range b.N {
		a, err := NewHashAggregate(spec, &tableOp{t: probe, size: 4096}, &tableOp{t: build, size: 4096}, false, memory.NewBudget(0), aggs, schema)
		if err != nil {
			b.Fatal(err)
		}
		out, err := a.Next(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		n = out.Cols[0].Ints[0]
	}
	rows := float64(build.N + probe.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
	b.ReportMetric(float64(n), "out_rows")
}

// BenchmarkHashAggregateInt64 is the 1M ⋈ 5M int64 join folded into count and sums.
func BenchmarkHashAggregateInt64(b *testing.B) {
	ints, _ := benchTables()
	benchmarkHashAggregate(b, ints)
}

// BenchmarkHashAggregateString is the same on 16-byte string keys.
func BenchmarkHashAggregateString(b *testing.B) {
	_, strs := benchTables()
	benchmarkHashAggregate(b, strs)
}

// BenchmarkHashProbe is BenchmarkHashInt64 and BenchmarkHashString with the probe streamed and partitioned
// (hash_radix.go) side by side, so that one run of the binary pairs them: with -count N the two alternate.
func BenchmarkHashProbe(b *testing.B) {
	ints, strs := benchTables()
	for _, c := range []struct {
		name string
		tabs [2]*column.Table
	}{{"int64", ints}, {"string", strs}} {
		for _, noRadix := range []bool{true, false} {
			name := c.name + "/partitioned"
			if noRadix {
				name = c.name + "/streamed"
			}
			b.Run(name, func(b *testing.B) { benchmarkHashWith(b, c.tabs, func(h *Hash) { h.noRadix = noRadix }) })
		}
	}
}

// BenchmarkHashBuild is the indexing of the 1M-row build side alone, int64 and 16-byte string keys, inserted in
// row order and partition by partition (hash_radixbuild.go), alternated so a shared machine's load falls on
// both alike.
func BenchmarkHashBuild(b *testing.B) {
	ints, strs := benchTables()
	for _, c := range []struct {
		name string
		tabs [2]*column.Table
	}{{"int64", ints}, {"string", strs}} {
		for _, rowOrder := range []bool{true, false} {
			name := c.name + "/partitioned"
			if rowOrder {
				name = c.name + "/row_order"
			}
			b.Run(name, func(b *testing.B) {
				build := c.tabs[0]
				empty := column.NewTable(build.Schema)
				spec, err := NewSpec(Inner, empty.Schema, build.Schema, []int{0}, []int{0})
				if err != nil {
					b.Fatal(err)
				}
				for range b.N {
					b.StopTimer()
					h := NewHash(spec, &tableOp{t: empty, size: 4096}, &tableOp{t: build, size: 4096}, false, memory.NewBudget(0))
					h.noRadix = rowOrder
					if err := h.readBuild(context.Background()); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if err := h.index(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(build.N), "ns/row")
			})
		}
	}
}

// BenchmarkJoinRows is the hash join's pair loop alone over one 4,096-row probe batch in cache: half the rows
// miss, nearly all the others match one build row, 3% a chain of two. Under js/wasm (node) it shows what a
// loop's turns cost there (see column.gatherInts).
func BenchmarkJoinRows(b *testing.B) {
	const n = 4096
	r := rand.New(rand.NewPCG(3, 4))
	heads := make([]int32, n)
	next := make([]int32, 1<<16)
	for i := range next {
		next[i] = -1
	}
	for i := range heads {
		switch x := r.IntN(100); {
		case x < 50:
			heads[i] = noMatch
		case x < 97:
			heads[i] = int32(r.IntN(1 << 15))
		default:
			heads[i] = int32(r.IntN(1<<15)) | chainMore
			next[heads[i]&^chainMore] = int32(r.IntN(1 << 15))
		}
	}
	pidx, bidx := make([]int32, 0, 8193), make([]int32, 0, 8193)
	for _, keep := range []bool{false, true} {
		name := "inner"
		if keep {
			name = "leftouter"
		}
		b.Run(name, func(b *testing.B) {
			h := &Hash{heads: heads, next: next, maxOut: 8192, pb: &column.Batch{N: n}}
			h.ps.unmatched = keep
			for b.Loop() {
				h.prow = 0
				pidx, bidx, _ = h.joinRows(pidx[:0], bidx[:0])
			}
		})
	}
}
