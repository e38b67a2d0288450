//go:build !(js && wasm)

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"
)

// Natively the command runs each workload (warm-up, then -runs timed runs) on one core and prints one JSON
// object per workload: its digest and the median and minimum time. `go run mage.go bench` reads them.
func main() {
	runs := flag.Int("runs", 3, "timed runs per workload, after one warm-up")
	only := flag.String("only", "", "comma-separated workloads to run (default all)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of every run to this file")
	flag.Parse()
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
	if err := runAll(*runs, *only); err != nil {
		fmt.Fprintln(os.Stderr, err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// NativeResult is one workload's native figures.
type NativeResult struct {
	Workload string  `json:"workload"`
	Digest   Digest  `json:"digest"`
	Rows     int     `json:"rows"`
	MedianMs float64 `json:"median_ms"`
	MinMs    float64 `json:"min_ms"`
}

func runAll(runs int, only string) error {
	var data *Data
	dataName := ""
	enc := json.NewEncoder(os.Stdout)
	for _, w := range Workloads {
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
		dg, _, err := Run(context.Background(), w, data) // warm-up
		if err != nil {
			return err
		}
		var times []time.Duration
		for range runs {
			got, t, err := Run(context.Background(), w, data)
			if err != nil {
				return err
			}
			if got != dg {
				return fmt.Errorf("bench %s: digest changed between runs: %+v then %+v", w.Name, dg, got)
			}
			times = append(times, t)
		}
		slices.Sort(times)
		ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
		if err := enc.Encode(NativeResult{w.Name, dg, data.Rows, ms(times[len(times)/2]), ms(times[0])}); err != nil {
			return err
		}
	}
	return nil
}
