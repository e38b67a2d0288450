//go:build mage

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

const benchNativeDir = "build/benchnative"

// benchNativeThreads are DuckDB's thread counts: one, the target's baseline, and two, this machine's cores.
const benchNativeThreads = "1,2"

// BenchNative runs every benchmark workload (issue 12's five and the wide suite, wasm/bench) natively on one
// core against DuckDB (@duckdb/node-api, pinned in package.json) with one thread and with two, one process a
// workload and engine, alternating, so both see the same machine. joinlab is the bench command with
// GOMAXPROCS=1, its data generated outside the timer; DuckDB makes the same tables from the workload's SQL,
// untimed, then runs its twin query (wasm/bench/duckdb.mjs). Each side reports the fastest of the timed runs
// after a warm-up (wall and CPU ms), its resident size holding the tables and its peak during the warm-up run.
// The digests must agree. It writes build/bench/native.json and native.md. BENCH_RUNS (default 3) sets the
// timed runs, BENCH_ONLY (e.g. "a,b,sparse") the workloads.
func BenchNative(ctx context.Context) error {
	runs, err := envInt("BENCH_RUNS", 3)
	if err != nil {
		return err
	}
	only := os.Getenv("BENCH_ONLY")
	if _, err := os.Stat("node_modules/@duckdb/node-api"); err != nil {
		if err := run(ctx, nil, "npm", "ci"); err != nil {
			return fmt.Errorf("benchnative: npm ci: %w", err)
		}
	}
	tmp := filepath.Join(benchNativeDir, "duckdb.tmp") // where DuckDB would spill; kept under build/
	for _, dir := range []string{benchDir, tmp} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	cmd := filepath.Join(benchNativeDir, "bench-native")
	if err := run(ctx, nil, "go", "build", "-o", cmd, "./wasm/bench"); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, cmd, "-sql", "-only", only).Output()
	if err != nil {
		return fmt.Errorf("benchnative: the workloads' SQL: %w", err)
	}
	var twins [][]byte
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		twins = append(twins, slices.Clone(sc.Bytes()))
	}
	if len(twins) == 0 {
		return fmt.Errorf("benchnative: no workload matches BENCH_ONLY=%q", only)
	}

	startLoad := loadAverage()
	var rows []nativeRow
	for _, twin := range twins {
		var w struct {
			Workload string `json:"workload"`
		}
		if err := json.Unmarshal(twin, &w); err != nil {
			return fmt.Errorf("benchnative: %w", err)
		}
		r := nativeRow{Workload: w.Workload}
		if err := r.joinlab(ctx, cmd, runs); err != nil {
			r.Errors = append(r.Errors, "joinlab: "+err.Error())
		}
		if err := r.duckdb(ctx, twin, runs, tmp); err != nil {
			r.Errors = append(r.Errors, "DuckDB: "+err.Error())
		}
		r.check()
		fmt.Printf("benchnative %s: joinlab %.0f ms (CPU %.0f), DuckDB 1t %.0f ms (CPU %.0f), %s\n", r.Workload,
			r.Joinlab.MinMs, r.Joinlab.MinCPUMs, r.duckDB(1).MinMs, r.duckDB(1).MinCPUMs, r.agreement())
		rows = append(rows, r)
	}
	return writeNativeResults(rows, runs, startLoad)
}

// nativeRow is one workload's figures from both engines.
type nativeRow struct {
	Workload string       `json:"workload"`
	Joinlab  nativeSide   `json:"joinlab"`
	DuckDB   []nativeSide `json:"duckdb"` // one a thread count
	Errors   []string     `json:"errors,omitempty"`
}

// nativeSide is one engine's series: the fastest timed run's wall ms, the least CPU ms of a timed run, and
// resident MiB holding the tables and at the warm-up run's peak.
type nativeSide struct {
	Threads  int               `json:"threads"`
	Digest   map[string]string `json:"digest"`
	MinMs    float64           `json:"min_ms"`
	MedianMs float64           `json:"median_ms"`
	MinCPUMs float64           `json:"min_cpu_ms"`
	// BaseMiB is DuckDB's process before DuckDB starts (node and V8): part of its other two figures.
	BaseMiB float64 `json:"base_mib,omitempty"`
	// TablesMiB is what DuckDB counts its tables as holding (duckdb_memory()), part of DataMiB.
	TablesMiB float64 `json:"tables_mib,omitempty"`
	DataMiB   float64 `json:"data_mib"`
	PeakMiB   float64 `json:"peak_mib"`
}

func (r *nativeRow) joinlab(ctx context.Context, cmd string, runs int) error {
	var stderr bytes.Buffer
	c := exec.CommandContext(ctx, cmd, "-only", r.Workload, "-runs", strconv.Itoa(runs), "-rss")
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var f struct {
		nativeFigures
		MinCPUMs float64 `json:"min_cpu_ms"`
		DataMiB  float64 `json:"data_mib"`
		PeakMiB  float64 `json:"peak_mib"`
	}
	if err := json.Unmarshal(out, &f); err != nil {
		return fmt.Errorf("%q: %w", out, err)
	}
	r.Joinlab = nativeSide{Threads: 1, Digest: f.Digest, MinMs: f.MinMs, MedianMs: f.MedianMs, MinCPUMs: f.MinCPUMs,
		DataMiB: f.DataMiB, PeakMiB: f.PeakMiB}
	return nil
}

func (r *nativeRow) duckdb(ctx context.Context, twin []byte, runs int, tmp string) error {
	var stderr bytes.Buffer
	c := exec.CommandContext(ctx, "node", "wasm/bench/duckdb.mjs", strconv.Itoa(runs), benchNativeThreads, tmp)
	c.Stdin, c.Stderr = bytes.NewReader(twin), &stderr
	out, err := c.Output()
	if err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var f struct {
		BaseMiB   float64 `json:"base_mib"`
		DataMiB   float64 `json:"data_mib"`
		TablesMiB float64 `json:"tables_mib"`
		Series    []struct {
			Threads int               `json:"threads"`
			Digest  map[string]string `json:"digest"`
			PeakMiB float64           `json:"peak_mib"`
			TimesMs []float64         `json:"times_ms"`
			CPUMs   []float64         `json:"cpu_ms"`
		} `json:"series"`
	}
	if err := json.Unmarshal(out, &f); err != nil {
		return fmt.Errorf("%q: %w", out, err)
	}
	for _, s := range f.Series {
		times := slices.Sorted(slices.Values(s.TimesMs))
		r.DuckDB = append(r.DuckDB, nativeSide{Threads: s.Threads, Digest: s.Digest, MinMs: times[0],
			MedianMs: times[len(times)/2], MinCPUMs: slices.Min(s.CPUMs), BaseMiB: f.BaseMiB, TablesMiB: f.TablesMiB, DataMiB: f.DataMiB, PeakMiB: s.PeakMiB})
	}
	return nil
}

// duckDB returns DuckDB's series on threads threads, or a zero one.
func (r *nativeRow) duckDB(threads int) nativeSide {
	for _, s := range r.DuckDB {
		if s.Threads == threads {
			return s
		}
	}
	return nativeSide{}
}

// check records an error for every DuckDB series whose digest differs from joinlab's.
func (r *nativeRow) check() {
	if r.Joinlab.Digest == nil {
		return
	}
	for _, s := range r.DuckDB {
		if fmt.Sprint(s.Digest) != fmt.Sprint(r.Joinlab.Digest) {
			r.Errors = append(r.Errors, fmt.Sprintf("digests differ: joinlab %v, DuckDB with %d threads %v",
				r.Joinlab.Digest, s.Threads, s.Digest))
		}
	}
}

func (r *nativeRow) agreement() string {
	if len(r.Errors) > 0 {
		return "ERROR: " + strings.Join(r.Errors, "; ")
	}
	d := r.Joinlab.Digest
	return fmt.Sprintf("digests agree (%s %s %s)", d["count"], d["sum1"], d["sum2"])
}

// writeNativeResults writes the rows as build/bench/native.json and a table, native.md, and fails when any
// workload failed or disagreed.
func writeNativeResults(rows []nativeRow, runs int, startLoad string) error {
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(benchDir, "native.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	commit, _ := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	var md strings.Builder
	fmt.Fprintf(&md, "Measured %s at %s, %d cores, GOARCH %s, load average (1, 5, 15 min) %s at the start, %s at "+
		"the end. One process a workload and engine; fastest of %d timed runs after a warm-up, ms wall (CPU: the "+
		"least CPU of a timed run, the whole process's). joinlab: the bench command, GOMAXPROCS=1. DuckDB: "+
		"@duckdb/node-api, SET threads. Ratios are DuckDB's over joinlab's: above 1, joinlab is faster. Memory is "+
		"resident MiB of the whole process (/proc/self/status): with the tables made (Go: after the generator's "+
		"garbage is returned; DuckDB: after CREATE TABLE, node and V8 included, %.0f MiB before DuckDB starts, and "+
		"in brackets what DuckDB counts its tables as holding, duckdb_memory()) → the peak during the warm-up run, "+
		"DuckDB's at one thread; the peak ratio is joinlab's over DuckDB's.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), bytes.TrimSpace(commit), runtime.NumCPU(), runtime.GOARCH,
		startLoad, loadAverage(), runs, nodeBase(rows))
	md.WriteString("| workload | joinlab ms (CPU) | DuckDB 1t ms (CPU) | DuckDB 1t / joinlab, wall (CPU) | DuckDB 2t ms | " +
		"joinlab MiB tables → peak | DuckDB MiB tables (its count) → peak | peak joinlab / DuckDB | digests |\n")
	md.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	var failed []string
	ratio := func(a, b float64) string {
		if a <= 0 || b <= 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	for _, r := range rows {
		j, d1, d2 := r.Joinlab, r.duckDB(1), r.duckDB(2)
		digest := "agree"
		if len(r.Errors) > 0 {
			digest = "ERROR: " + strings.ReplaceAll(strings.Join(r.Errors, "; "), "|", "/")
			failed = append(failed, r.Workload)
		}
		fmt.Fprintf(&md, "| %s | %.0f (%.0f) | %.0f (%.0f) | %s (%s) | %.0f | %.0f → %.0f | %.0f (%.0f) → %.0f | %s | %s |\n",
			r.Workload, j.MinMs, j.MinCPUMs, d1.MinMs, d1.MinCPUMs, ratio(d1.MinMs, j.MinMs), ratio(d1.MinCPUMs, j.MinCPUMs),
			d2.MinMs, j.DataMiB, j.PeakMiB, d1.DataMiB, d1.TablesMiB, d1.PeakMiB, ratio(j.PeakMiB, d1.PeakMiB), digest)
	}
	out := filepath.Join(benchDir, "native.md")
	if err := os.WriteFile(out, []byte(md.String()), 0o644); err != nil {
		return err
	}
	fmt.Print("\n", md.String(), "\nwritten to ", out, " and native.json\n")
	if len(failed) > 0 {
		return fmt.Errorf("benchnative: %s failed or disagreed", strings.Join(failed, ", "))
	}
	return nil
}

// nodeBase is the largest resident size of a DuckDB process before DuckDB started: what node itself holds.
func nodeBase(rows []nativeRow) float64 {
	var base float64
	for _, r := range rows {
		for _, s := range r.DuckDB {
			base = max(base, s.BaseMiB)
		}
	}
	return base
}

// loadAverage is the machine's load average over 1, 5 and 15 minutes, as uptime prints it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
