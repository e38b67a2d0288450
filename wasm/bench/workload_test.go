package main

import (
	"cmp"
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/source"
)

// testScale shrinks every workload a thousandfold: 1K ⋈ 5K rows, 200 ⋈ 200 intervals.
const testScale = 1000

// TestWorkloadsDigest runs every workload on the engine and checks its digest against one computed here by
// brute force over the same generated columns, so a wrong query, a wrong generator or a wrong join fails.
func TestWorkloadsDigest(t *testing.T) {
	for _, w := range Workloads {
		t.Run(w.Name, func(t *testing.T) {
			d, err := Generate(w.Data, testScale)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := Run(context.Background(), w, d)
			if err != nil {
				t.Fatal(err)
			}
			if want := bruteDigest(t, w.Name, d); got != want {
				t.Errorf("digest %+v, want %+v", got, want)
			}
		})
	}
}

func cols(t *testing.T, s source.Source) *column.Table {
	t.Helper()
	tab := s.(*source.Table)
	it := tab.Scan(context.Background(), tab.Schema(nil))
	out := column.NewTable(tab.Schema(nil))
	for {
		b, err := it.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return out
		}
		out.Append(b)
	}
}

func bruteDigest(t *testing.T, name string, d *Data) Digest {
	if w, _ := Find(name); w.Data == "wide" {
		return bruteWide(t, name, d)
	}
	var n, s1, s2 int64
	switch name {
	case "d":
		m, s := cols(t, d.Sources["M"]), cols(t, d.Sources["S"])
		for i := 0; i < m.N; i++ {
			for j := 0; j < s.N; j++ {
				if m.Cols[0].Ints[i] == s.Cols[0].Ints[j] && m.Cols[1].Ints[i] < s.Cols[2].Ints[j] && s.Cols[1].Ints[j] < m.Cols[2].Ints[i] {
					n, s1, s2 = n+1, s1+m.Cols[1].Ints[i], s2+s.Cols[1].Ints[j]
				}
			}
		}
	default:
		b, p := cols(t, d.Sources["B"]), cols(t, d.Sources["P"])
		key := func(v *column.Vector, i int) string {
			if v.Type == column.String {
				return v.Strs[i]
			}
			return strconv.FormatInt(v.Ints[i], 10)
		}
		type pair struct{ ts, k int64 }
		var pairs []pair
		for i := 0; i < b.N; i++ {
			for j := 0; j < p.N; j++ {
				if key(b.Cols[0], i) == key(p.Cols[0], j) {
					n, s1, s2 = n+1, s1+b.Cols[1].Ints[i], s2+p.Cols[1].Ints[j]
					if name == "e" {
						pairs = append(pairs, pair{p.Cols[2].Ints[j], p.Cols[0].Ints[j]})
					}
				}
			}
		}
		if name == "e" { // the top 100 by ts (unique), summed
			n, s1, s2 = 0, 0, 0
			for range min(topN, len(pairs)) {
				best := 0
				for i := range pairs {
					if pairs[i].ts > pairs[best].ts {
						best = i
					}
				}
				n, s1, s2 = n+1, s1+pairs[best].ts, s2+pairs[best].k
				pairs[best] = pairs[len(pairs)-1]
				pairs = pairs[:len(pairs)-1]
			}
		}
	}
	f := strconv.FormatInt
	return Digest{f(n, 10), f(s1, 10), f(s2, 10)}
}

func TestStrKey(t *testing.T) {
	for _, c := range []struct {
		x    int64
		want string
	}{{0, "key-000000000000"}, {7, "key-000000000007"}, {1999999, "key-000001999999"}} {
		if got := string(strKey(nil, c.x)); got != c.want {
			t.Errorf("strKey(%d) = %q, want %q", c.x, got, c.want)
		}
	}
}

// BenchmarkWorkloads runs every workload (issue 12's and the wide suite) at full size, for profiling (natively with -cpuprofile, under
// js/wasm with node --cpu-prof); the data is generated once per dataset, outside the timer. cpu-ms/op is the
// process's CPU time per run (the collection before each run, Settle, included), which a shared machine's load
// moves far less than the wall time. With BENCH_KQL
// set it runs that query instead (over BENCH_DATA, wide by default), as the command's -kql does: the way to
// time and profile a query shape of no workload under js/wasm. BENCH_SETTLE=0 leaves the collection out, to
// measure what it saves.
func BenchmarkWorkloads(b *testing.B) {
	workloads := Workloads
	settle := os.Getenv("BENCH_SETTLE") != "0"
	if q := os.Getenv("BENCH_KQL"); q != "" {
		data := cmp.Or(os.Getenv("BENCH_DATA"), "wide")
		workloads = []Workload{{Name: "kql", KQL: q, Data: data}}
	}
	for _, w := range workloads {
		b.Run(w.Name, func(b *testing.B) {
			d, err := Generate(w.Data, 1)
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC() // as the page and the command do: the generator's garbage is not the join's
			b.ResetTimer()
			cpu := processCPU()
			for range b.N {
				if settle {
					b.StopTimer()
					Settle()
					b.StartTimer()
				}
				if _, _, err := Run(context.Background(), w, d); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkPrepare plans every workload without running it (query.Prepare: binding, the skew sample, the
// rewrites), the data generated once per dataset outside the timer; cpu-ms/op is the process's CPU per plan.
// The chains (threeway, fourway) show that the skew sample reads no join's output (engine/plan/salted.go).
func BenchmarkPrepare(b *testing.B) {
	for _, w := range Workloads {
		b.Run(w.Name, func(b *testing.B) {
			d, err := Generate(w.Data, 1)
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			b.ResetTimer()
			cpu := processCPU()
			for range b.N {
				if _, err := query.Prepare(context.Background(), w.KQL, d.Sources, query.Options{MemoryBudget: memoryBudget}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
