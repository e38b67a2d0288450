package join

import (
	"context"
	"sync"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// The sweep benchmark: 1M metric windows (device code, start, end: one minute each, a minute apart per
// device) against 1M state intervals (device code, start, end: contiguous states of 1 to 20 minutes) over
// 10,000 devices, both in time order as time series arrive — the source document's shape. Values come from
// an integer hash of the row number (mix, in hash_bench_test.go), so any engine can regenerate them. Input
// bytes are 24 a row (three int64 columns), the figure MB/s is reported against.
const (
	benchSweepRows    = 1_000_000
	benchSweepDevices = 10_000
	minuteNs          = int64(60e9)
)

var sweepTables = sync.OnceValue(func() [2]*column.Table {
	schema := column.Schema{{Name: "device", Type: column.Long}, {Name: "start", Type: column.DateTime}, {Name: "end", Type: column.DateTime}}
	metrics, states := column.NewTable(schema), column.NewTable(schema)
	// Metrics: row i is device i % D at minute i / D.
	for i := range benchSweepRows {
		t := int64(i/benchSweepDevices) * minuteNs
		metrics.Cols[0].AppendInt(int64(i % benchSweepDevices))
		metrics.Cols[1].AppendInt(t)
		metrics.Cols[2].AppendInt(t + minuteNs)
	}
	// States: each device's states are contiguous; rows interleave devices in start order.
	next := make([]int64, benchSweepDevices)
	for i := range benchSweepRows {
		d := i % benchSweepDevices
		l := int64(1+mix(uint64(i))%20) * minuteNs
		states.Cols[0].AppendInt(int64(d))
		states.Cols[1].AppendInt(next[d])
		states.Cols[2].AppendInt(next[d] + l)
		next[d] += l
	}
	metrics.N, states.N = benchSweepRows, benchSweepRows
	return [2]*column.Table{metrics, states}
})

// BenchmarkSweep is the 1M ⋈ 1M interval join on device code with exclusive overlap bounds.
func BenchmarkSweep(b *testing.B) { benchSweep(b, sweepTables()) }

// benchSweep times the inner interval join on column 0 with exclusive overlap bounds (columns 1 and 2 on both
// sides) of tabs, reporting ns per input row and the output rows.
func benchSweep(b *testing.B, tabs [2]*column.Table) {
	spec, err := NewSpec(Inner, tabs[0].Schema, tabs[1].Schema, []int{0}, []int{0})
	if err != nil {
		b.Fatal(err)
	}
	ss, err := NewSweepSpec(spec, Overlap{LeftStart: 1, LeftEnd: 2, RightStart: 1, RightEnd: 2})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(tabs[0].Batch().Bytes() + tabs[1].Batch().Bytes())
	b.ResetTimer()
	var out int
	for range b.N {
		s := NewSweep(ss, &tableOp{t: tabs[0], size: 4096}, &tableOp{t: tabs[1], size: 4096}, memory.NewBudget(0), nil, nil)
		out = 0
		for {
			batch, err := s.Next(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if batch == nil {
				break
			}
			out += batch.N
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tabs[0].N+tabs[1].N), "ns/row")
	b.ReportMetric(float64(out), "out_rows")
}

// The unordered sweep benchmark: 200K metric windows (60,000 long) against 200K state intervals (1 to 1.2M
// long) over 10,000 devices, starts uniform over [0, 10⁸) and rows in no order at all, so the sweep sorts
// every key's rows; about 26K pairs. Values come from mix of the row number.
const (
	benchUnorderedRows = 200_000
	benchUnorderedSpan = 100_000_000
)

var unorderedTables = sync.OnceValue(func() [2]*column.Table {
	schema := column.Schema{{Name: "device", Type: column.Long}, {Name: "start", Type: column.Long}, {Name: "end", Type: column.Long}}
	var tabs [2]*column.Table
	for side := range tabs {
		t := column.NewTable(schema)
		for i := range benchUnorderedRows {
			h := mix(uint64(i)<<1 | uint64(side))
			start := int64(h>>20) % benchUnorderedSpan
			l := int64(60_000)
			if side == 1 {
				l = 1 + int64(mix(h)%1_200_000)
			}
			t.Cols[0].AppendInt(int64(h % benchSweepDevices))
			t.Cols[1].AppendInt(start)
			t.Cols[2].AppendInt(start + l)
		}
		t.N = benchUnorderedRows
		tabs[side] = t
	}
	return tabs
})

// BenchmarkSweepUnordered is the 200K ⋈ 200K interval join on device with exclusive bounds, over rows that
// arrive out of time order.
func BenchmarkSweepUnordered(b *testing.B) { benchSweep(b, unorderedTables()) }
