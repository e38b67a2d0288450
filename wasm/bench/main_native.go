//go:build !(js && wasm)

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/joinlab/joinlab/engine/query"
)

// Natively the command runs each workload (warm-up, then -runs timed runs) on one core and prints one JSON
// object per workload: its digest, the median and minimum time and the least CPU time; with -rss, also the
// process's resident memory holding the data and its peak during the warm-up run. `go run mage.go bench` and
// `benchnative` read them. With -sql it runs nothing and prints each workload's DuckDB twin instead: the SQL
// that makes its tables and its query (benchnative hands them to DuckDB). With -kql it runs that query instead
// of the workloads, over the dataset -data: any query shape, measured as the workloads are, e.g.
//
//	go run ./wasm/bench -kql '@P | sort by w asc, ts desc | summarize n=count(), s1=sum(w), s2=sum(pg)'
//
// The query must end in one row of three long or real columns, as a workload's digest does. Given its DuckDB
// twin with -twin, -sql prints that query's twin on the dataset's tables, for DuckDB to time beside it:
//
//	go run ./wasm/bench -sql -kql '@P | where w < 500 | summarize …' -twin 'SELECT … FROM wp WHERE w < 500' |
//		node wasm/bench/duckdb.mjs 3 1 /tmp/duckdb
func main() {
	runs := flag.Int("runs", 3, "timed runs per workload, after one warm-up")
	only := flag.String("only", "", "comma-separated workloads to run (default all)")
	kql := flag.String("kql", "", "run this query (one row of three numbers) instead of the workloads")
	dataName := flag.String("data", "wide", "with -kql: the dataset it reads (wide, s31, s58, or a workload's)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of every run to this file")
	rss := flag.Bool("rss", false, "measure resident memory: after the data is made, and the peak of the warm-up run (Linux)")
	sql := flag.Bool("sql", false, "print each workload's DuckDB setup and query as JSON, and run nothing")
	twin := flag.String("twin", "", "with -kql: the query's DuckDB twin, which -sql prints with -data's setup")
	explain := flag.Bool("explain", false, "print each workload's plan to standard error before running it")
	flag.Parse()
	if *runs < 1 {
		fmt.Fprintln(os.Stderr, "bench: -runs must be at least 1")
		os.Exit(2)
	}
	workloads := Workloads
	if *kql != "" {
		workloads, *only = []Workload{{Name: "kql", KQL: *kql, SQL: *twin, Data: *dataName}}, ""
	}
	if *sql {
		if err := printSQL(workloads, *only); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	runtime.GOMAXPROCS(1) // figures are per core
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := runAll(workloads, *runs, *only, *rss, *explain); err != nil {
		fmt.Fprintln(os.Stderr, err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// NativeResult is one workload's native figures. CPU time is the process's (user and system, the garbage
// collector's included); the memory figures are resident set sizes in MiB, zero unless -rss asked for them.
type NativeResult struct {
	Workload string  `json:"workload"`
	Digest   Digest  `json:"digest"`
	Rows     int     `json:"rows"`
	MedianMs float64 `json:"median_ms"`
	MinMs    float64 `json:"min_ms"`
	MinCPUMs float64 `json:"min_cpu_ms"`
	// DataMiB is resident once the tables are made and the generator's garbage returned to the system;
	// PeakMiB is the highest resident size during the warm-up run, the first query over those tables.
	DataMiB float64 `json:"data_mib,omitempty"`
	PeakMiB float64 `json:"peak_mib,omitempty"`
}

// DuckDBTwin is what DuckDB runs for a workload: Setup makes the tables (jl_mix first), SQL is the query.
type DuckDBTwin struct {
	Workload string   `json:"workload"`
	Setup    []string `json:"setup"`
	SQL      string   `json:"sql"`
}

// printSQL writes one DuckDBTwin a line for the workloads of only (all when empty). Generate writes a dataset's
// SQL as it makes its rows, so each dataset is made once, at full size, and dropped.
func printSQL(workloads []Workload, only string) error {
	enc := json.NewEncoder(os.Stdout)
	setups := map[string][]string{}
	for _, w := range workloads {
		if w.SQL == "" {
			return fmt.Errorf("bench %s: no DuckDB twin (with -kql, give it with -twin)", w.Name)
		}
		if only != "" && !slices.Contains(strings.Split(only, ","), w.Name) {
			continue
		}
		if setups[w.Data] == nil {
			d, err := Generate(w.Data, 1)
			if err != nil {
				return err
			}
			setups[w.Data] = d.SQL
		}
		if err := enc.Encode(DuckDBTwin{w.Name, setups[w.Data], w.SQL}); err != nil {
			return err
		}
	}
	return nil
}

// runAll runs the workloads of only (all when empty) and prints each one's NativeResult; with explain, each
// one's plan first, to standard error.
func runAll(workloads []Workload, runs int, only string, rss, explain bool) error {
	var data *Data
	dataName := ""
	enc := json.NewEncoder(os.Stdout)
	for _, w := range workloads {
		if only != "" && !slices.Contains(strings.Split(only, ","), w.Name) {
			continue
		}
		if dataName != w.Data {
			data = nil
			d, err := Generate(w.Data, 1)
			if err != nil {
				return err
			}
			data, dataName = d, w.Data
			runtime.GC() // as the page does: the generator's garbage is collected before anything is timed
		}
		if explain {
			p, err := query.Prepare(context.Background(), w.KQL, data.Sources, query.Options{MemoryBudget: memoryBudget})
			if err != nil {
				return fmt.Errorf("bench %s: %w", w.Name, err)
			}
			fmt.Fprintf(os.Stderr, "%s:\n%s\n", w.Name, p.Explain())
		}
		var dataMiB, peakMiB float64
		if rss {
			// The garbage's pages go back to the system, then the kernel's high-water mark restarts from what is
			// left (the tables, the runtime): the peak read after the run is this query's.
			debug.FreeOSMemory()
			dataMiB = residentMiB("VmRSS")
			resetPeakRSS()
		}
		dg, _, err := Run(context.Background(), w, data) // warm-up
		if err != nil {
			return err
		}
		if rss {
			peakMiB = residentMiB("VmHWM")
		}
		var times []time.Duration
		var leastCPU time.Duration
		for i := range runs {
			Settle()
			cpu := processCPU()
			got, t, err := Run(context.Background(), w, data)
			if err != nil {
				return err
			}
			if cpu = processCPU() - cpu; i == 0 || cpu < leastCPU {
				leastCPU = cpu
			}
			if got != dg {
				return fmt.Errorf("bench %s: digest changed between runs: %+v then %+v", w.Name, dg, got)
			}
			times = append(times, t)
		}
		slices.Sort(times)
		ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
		r := NativeResult{w.Name, dg, data.Rows, ms(times[len(times)/2]), ms(times[0]), ms(leastCPU), dataMiB, peakMiB}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// resetPeakRSS restarts the kernel's record of the process's peak resident size (VmHWM) from its current size
// (Linux: writing 5 to /proc/self/clear_refs); elsewhere it does nothing and VmHWM reads 0.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// residentMiB reads field (VmRSS, VmHWM) of /proc/self/status in MiB; 0 where there is none.
func residentMiB(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 64)
		if err != nil {
			return 0
		}
		return kb / 1024
	}
	return 0
}
