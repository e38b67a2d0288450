// Command bench runs the join workloads of the browser benchmark (issue 12) on the joinlab engine.
//
// Compiled to js/wasm it is the benchmark page's engine (main_wasm.go exposes it to JavaScript); built natively
// it runs the same workloads on one core and prints their figures (main_native.go). The data of every
// workload is a pure function of the row number (see mix), so DuckDB-WASM generates the identical rows with
// the SQL this file also holds: both engines join the same data and must report the same digest.
package main

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/source"
)

// mix is the generator: murmur3's 32-bit finaliser over (row + stream·golden) mod 2³². It has no state, so
// row i of a column is the same whichever engine computes it, in whatever order; mixSQL is its SQL twin
// (UBIGINT arithmetic: a 32-bit value times a 32-bit constant never overflows 64 bits).
func mix(stream, row uint64) uint64 {
	h := uint32(row + stream*2654435761)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return uint64(h)
}

// mixSQL defines jl_mix(stream, row) in DuckDB, the same function as mix.
var mixSQL = []string{
	`CREATE OR REPLACE MACRO jl_m(h, c) AS (h * c) % 4294967296::UBIGINT`,
	`CREATE OR REPLACE MACRO jl_x(h, s) AS xor(h, h >> s)`,
	`CREATE OR REPLACE MACRO jl_mix(s, i) AS jl_x(jl_m(jl_x(jl_m(jl_x(((i + s * 2654435761) % 4294967296)::UBIGINT, 16), 2246822507::UBIGINT), 13), 3266489909::UBIGINT), 16)`,
}

// Sizes of the workloads as the issue states them; scale divides them (the smoke test runs at 1/1000).
const (
	buildRows    = 1_000_000
	probeRows    = 5_000_000
	buildKeys    = 1_000_000 // build keys uniform over [0, 1M)
	probeKeys    = 2_000_000 // probe keys uniform over [0, 2M): about half the probe rows match
	hotBuildRows = 1_000     // workload c: build rows on the hot key
	hotPercent   = 30        // workload c: share of probe rows on the hot key
	intervals    = 200_000   // workload d: rows of each side
	devices      = 10_000
	timeSpan     = 100_000_000 // workload d: starts uniform over [0, timeSpan)
	metricLen    = 60_000      // a metric window's length
	stateMaxLen  = 1_200_000   // a state interval lasts 1..stateMaxLen
	topN         = 100
)

// Workload is one join of the benchmark: its joinlab query, its DuckDB query and the tables both read.
type Workload struct {
	Name  string
	Title string
	// Data names the generated tables the workload reads (shared: e reads a's).
	Data string
	KQL  string
	// SQL returns the digest as three VARCHAR columns (exact beyond 2⁵³), like Digest's fields.
	SQL string
}

// Workloads are the five joins of issue 12, in its order, then the wide suite (wide.go).
var Workloads = append(issue12Workloads, wideWorkloads...)

// issue12Workloads are the five joins of the browser benchmark's first page.
var issue12Workloads = []Workload{
	{Name: "a", Title: "1M ⋈ 5M, int64 keys, count and sums", Data: "int",
		KQL: `@B | join kind=inner hint.strategy=hash (@P) on k | summarize n=count(), s1=sum(v), s2=sum(w)`,
		SQL: `SELECT count(*)::VARCHAR, sum(b.v)::VARCHAR, sum(p.w)::VARCHAR FROM b JOIN p ON b.k = p.k`},
	{Name: "b", Title: "1M ⋈ 5M, 16-byte string keys, count and sums", Data: "str",
		KQL: `@B | join kind=inner hint.strategy=hash (@P) on k | summarize n=count(), s1=sum(v), s2=sum(w)`,
		SQL: `SELECT count(*)::VARCHAR, sum(b.v)::VARCHAR, sum(p.w)::VARCHAR FROM bs b JOIN ps p ON b.k = p.k`},
	{Name: "c", Title: "skewed probe: 30% on a key with 1,000 build rows (1.5G pairs)", Data: "skew",
		KQL: `@B | join kind=inner hint.strategy=hash (@P) on k | summarize n=count(), s1=sum(v), s2=sum(w)`,
		SQL: `SELECT count(*)::VARCHAR, sum(b.v)::VARCHAR, sum(p.w)::VARCHAR FROM bk b JOIN pk p ON b.k = p.k`},
	{Name: "d", Title: "interval overlap, 200K ⋈ 200K over 10K devices", Data: "interval",
		KQL: `@M | join kind=inner (@S) on device, $left.start < $right.end and $right.start < $left.end` +
			` | summarize n=count(), s1=sum(start), s2=sum(start1)`,
		SQL: `SELECT count(*)::VARCHAR, sum(m.start)::VARCHAR, sum(s.start)::VARCHAR FROM m JOIN s ` +
			`ON m.device = s.device AND m.start < s."end" AND s.start < m."end"`},
	{Name: "e", Title: "(a) then sort by ts desc | take 100", Data: "int",
		KQL: `@B | join kind=inner hint.strategy=hash (@P) on k | sort by ts desc | take 100 | summarize n=count(), s1=sum(ts), s2=sum(k)`,
		SQL: `SELECT count(*)::VARCHAR, sum(ts)::VARCHAR, sum(k)::VARCHAR FROM ` +
			`(SELECT p.ts, p.k FROM b JOIN p ON b.k = p.k ORDER BY p.ts DESC LIMIT 100)`},
}

// Find returns the workload named name.
func Find(name string) (Workload, error) {
	for _, w := range Workloads {
		if w.Name == name {
			return w, nil
		}
	}
	return Workload{}, fmt.Errorf("bench: no workload %q", name)
}

// Digest is what a run must agree on before it is timed: the output's row count and two sums.
type Digest struct {
	Count string `json:"count"`
	Sum1  string `json:"sum1"`
	Sum2  string `json:"sum2"`
}

// Data is one generated dataset: its sources, the input rows a workload over it reads, and the SQL that
// makes the same tables in DuckDB.
type Data struct {
	Sources map[string]source.Source
	Rows    int
	SQL     []string
}

// Generate builds dataset name at 1/scale of the issue's sizes.
func Generate(name string, scale int) (*Data, error) {
	nb, np := buildRows/scale, probeRows/scale
	kb, kp, hot := buildKeys/scale, probeKeys/scale, hotBuildRows/scale
	if hot < 1 {
		hot = 1
	}
	ints := func(names ...string) *column.Table {
		s := make(column.Schema, len(names))
		for i, n := range names {
			s[i] = column.Field{Name: n, Type: column.Long}
		}
		return column.NewTable(s)
	}
	fill := func(t *column.Table, n int, f func(i uint64, row []int64)) {
		cols := make([][]int64, len(t.Schema))
		for c := range cols {
			cols[c] = make([]int64, n)
		}
		row := make([]int64, len(cols))
		for i := 0; i < n; i++ {
			f(uint64(i), row)
			for c := range cols {
				cols[c][i] = row[c]
			}
		}
		for c := range cols {
			t.Cols[c].Ints = cols[c]
			t.Cols[c].SetLen(n)
		}
		t.N = n
	}
	build := func(i uint64, r []int64) {
		r[0], r[1] = int64(mix(1, i)%uint64(kb)), int64(mix(2, i)%1000)
	}
	probe := func(i uint64, r []int64) {
		r[0], r[1], r[2] = int64(mix(3, i)%uint64(kp)), int64(mix(4, i)%1000), int64(mix(5, i)<<23+i)
	}
	sizes := fmt.Sprintf("range(%d) t(i)", nb)
	psizes := fmt.Sprintf("range(%d) t(i)", np)
	bSQL := fmt.Sprintf(`(jl_mix(1, i) %% %d)::BIGINT AS k, (jl_mix(2, i) %% 1000)::BIGINT AS v`, kb)
	pSQL := fmt.Sprintf(`(jl_mix(3, i) %% %d)::BIGINT AS k, (jl_mix(4, i) %% 1000)::BIGINT AS w, `+
		`(jl_mix(5, i) * 8388608 + i)::BIGINT AS ts`, kp)
	d := &Data{Sources: map[string]source.Source{}}
	switch name {
	case "int":
		b, p := ints("k", "v"), ints("k", "w", "ts")
		fill(b, nb, build)
		fill(p, np, probe)
		d.Sources["B"], d.Sources["P"] = source.FromTable("B", b), source.FromTable("P", p)
		d.Rows = nb + np
		d.SQL = []string{
			`CREATE OR REPLACE TABLE b AS SELECT ` + bSQL + ` FROM ` + sizes,
			`CREATE OR REPLACE TABLE p AS SELECT ` + pSQL + ` FROM ` + psizes,
		}
	case "str", "s31", "s58":
		sk := stringKeys[name]
		b, p := ints("k", "v"), ints("k", "w", "ts")
		fill(b, nb, build)
		fill(p, np, probe)
		b.Schema[0].Type, p.Schema[0].Type = column.String, column.String
		for _, t := range []*column.Table{b, p} {
			k := t.Cols[0]
			strs := make([]string, t.N)
			buf := make([]byte, 0, 16)
			for i, x := range k.Ints {
				strs[i] = sk.prefix + string(strKey(buf, x)[len("key-"):]) + sk.suffix
			}
			t.Cols[0] = &column.Vector{Type: column.String, Strs: strs}
			t.Cols[0].SetLen(t.N)
		}
		d.Sources["B"], d.Sources["P"] = source.FromTable("B", b), source.FromTable("P", p)
		d.Rows = nb + np
		key := fmt.Sprintf(`'%s' || lpad(k::VARCHAR, 12, '0') || '%s' AS k`, sk.prefix, sk.suffix)
		d.SQL = []string{
			`CREATE OR REPLACE TABLE ` + sk.build + ` AS SELECT ` + key + `, v FROM (SELECT ` + bSQL + ` FROM ` + sizes + `)`,
			`CREATE OR REPLACE TABLE ` + sk.probe + ` AS SELECT ` + key + `, w, ts FROM (SELECT ` + pSQL + ` FROM ` + psizes + `)`,
		}
	case "skew":
		b, p := ints("k", "v"), ints("k", "w")
		fill(b, nb, func(i uint64, r []int64) {
			build(i, r)
			r[0] = 1 + int64(mix(1, i)%uint64(kb-1))
			if i < uint64(hot) {
				r[0] = 0
			}
		})
		fill(p, np, func(i uint64, r []int64) {
			r[0], r[1] = 1+int64(mix(3, i)%uint64(kp-1)), int64(mix(4, i)%1000)
			if mix(6, i)%100 < hotPercent {
				r[0] = 0
			}
		})
		d.Sources["B"], d.Sources["P"] = source.FromTable("B", b), source.FromTable("P", p)
		d.Rows = nb + np
		d.SQL = []string{
			fmt.Sprintf(`CREATE OR REPLACE TABLE bk AS SELECT (CASE WHEN i < %d THEN 0 ELSE 1 + jl_mix(1, i) %% %d END)::BIGINT AS k, `+
				`(jl_mix(2, i) %% 1000)::BIGINT AS v FROM %s`, hot, kb-1, sizes),
			fmt.Sprintf(`CREATE OR REPLACE TABLE pk AS SELECT (CASE WHEN jl_mix(6, i) %% 100 < %d THEN 0 ELSE 1 + jl_mix(3, i) %% %d END)::BIGINT AS k, `+
				`(jl_mix(4, i) %% 1000)::BIGINT AS w FROM %s`, hotPercent, kp-1, psizes),
		}
	case "interval":
		n, nd := intervals/scale, uint64(devices/scale)
		m, s := ints("device", "start", "end"), ints("device", "start", "end")
		fill(m, n, func(i uint64, r []int64) {
			r[0], r[1] = int64(mix(7, i)%nd), int64(mix(8, i)%timeSpan)
			r[2] = r[1] + metricLen
		})
		fill(s, n, func(i uint64, r []int64) {
			r[0], r[1] = int64(mix(9, i)%nd), int64(mix(10, i)%timeSpan)
			r[2] = r[1] + 1 + int64(mix(11, i)%stateMaxLen)
		})
		d.Sources["M"], d.Sources["S"] = source.FromTable("M", m), source.FromTable("S", s)
		d.Rows = 2 * n
		d.SQL = []string{
			fmt.Sprintf(`CREATE OR REPLACE TABLE m AS SELECT (jl_mix(7, i) %% %d)::BIGINT AS device, start, start + %d AS "end" `+
				`FROM (SELECT i, (jl_mix(8, i) %% %d)::BIGINT AS start FROM range(%d) t(i))`, nd, metricLen, timeSpan, n),
			fmt.Sprintf(`CREATE OR REPLACE TABLE s AS SELECT (jl_mix(9, i) %% %d)::BIGINT AS device, start, start + 1 + (jl_mix(11, i) %% %d)::BIGINT AS "end" `+
				`FROM (SELECT i, (jl_mix(10, i) %% %d)::BIGINT AS start FROM range(%d) t(i))`, nd, stateMaxLen, timeSpan, n),
		}
	default:
		if err := generateWide(name, scale, d); err != nil {
			return nil, err
		}
	}
	d.SQL = append(append([]string{}, mixSQL...), d.SQL...)
	return d, nil
}

// stringKeys are the string datasets: issue 12's int keys written between a prefix and a suffix (12 digits
// between them), and the DuckDB tables that hold them.
var stringKeys = map[string]struct{ prefix, suffix, build, probe string }{
	"str": {"key-", "", "bs", "ps"},                                             // 16 bytes
	"s31": {"tenant-0042/user-", "/p", "b31", "p31"},                            // 31 bytes
	"s58": {"organisation-0042/region-eu-west/user-", "/profile", "b58", "p58"}, // 58 bytes
}

// strKey writes x as a 16-byte key, "key-" and 12 digits, like the SQL's 'key-' || lpad(k, 12, '0').
func strKey(buf []byte, x int64) []byte {
	buf = append(buf[:0], "key-000000000000"...)
	for i := len(buf) - 1; x > 0; i-- {
		buf[i] = byte('0' + x%10)
		x /= 10
	}
	return buf
}

// Settle collects the garbage of the runs before, untimed, so the run after it starts from a collected heap:
// its tables then reuse the memory earlier runs freed instead of growing the heap into fresh pages, each of
// which costs a fault on first touch (a Wasm memory never shrinks; on the machines measured, a run that
// grew into fresh memory took up to twice as long as one that reused it). The playground's engine collects
// after every run for the same reason (wasm/engine). The page, the command and BenchmarkWorkloads call it
// before each run they time.
func Settle() { runtime.GC() }

// Run runs workload w once over d and returns its digest and the time the query took, planning included.
func Run(ctx context.Context, w Workload, d *Data) (Digest, time.Duration, error) {
	return runKQL(ctx, w.Name, w.KQL, d.Sources)
}

// runKQL runs a digest query (one row of three integer columns) over sources once and returns the digest and
// the time the query took, planning included; name prefixes its errors.
func runKQL(ctx context.Context, name, kql string, sources map[string]source.Source) (Digest, time.Duration, error) {
	start := time.Now()
	p, err := query.Prepare(ctx, kql, sources, query.Options{MemoryBudget: memoryBudget})
	if err != nil {
		return Digest{}, 0, fmt.Errorf("bench %s: %w", name, err)
	}
	var dg Digest
	_, err = p.Run(ctx, func(b *column.Batch) error {
		if b.N != 1 || len(b.Cols) != 3 {
			return fmt.Errorf("bench %s: want one row of three digest columns, got %d×%d", name, b.N, len(b.Cols))
		}
		cell := func(c int) string {
			if b.Cols[c].IsNull(0) {
				return "null"
			}
			if v := b.Cols[c]; v.Type == column.Real {
				return strconv.FormatFloat(v.Reals[0], 'g', -1, 64)
			}
			return strconv.FormatInt(b.Cols[c].Ints[0], 10)
		}
		dg = Digest{cell(0), cell(1), cell(2)}
		return nil
	})
	elapsed := time.Since(start)
	if err != nil {
		return Digest{}, 0, fmt.Errorf("bench %s: %w", name, err)
	}
	return dg, elapsed, nil
}

// memoryBudget lets the largest workload hold its build side and hash table (the browser has 4 GiB).
const memoryBudget = 3 << 30
