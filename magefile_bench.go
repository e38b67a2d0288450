//go:build mage

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"
)

const (
	benchDir  = "build/bench"
	benchSite = "build/bench/site"
	// benchTimeout bounds the whole browser run: three engines, five workloads, warm-ups included; the skewed
	// join alone can take a minute per engine.
	benchTimeout = 40 * time.Minute
	duckdbDist   = "node_modules/@duckdb/duckdb-wasm/dist"
	arrowBundle  = "node_modules/apache-arrow/Arrow.es2015.min.js"
)

// benchDuckDBFiles are the DuckDB-WASM files the page loads: the module, the single-threaded (eh) and the
// threaded (coi) bundles. The mvp bundle is left out: it fails on large joins.
var benchDuckDBFiles = []string{
	"duckdb-browser.mjs",
	"duckdb-browser-eh.worker.js", "duckdb-eh.wasm",
	"duckdb-browser-coi.worker.js", "duckdb-browser-coi.pthread.worker.js", "duckdb-coi.wasm",
}

// Bench runs the browser benchmark of issue 12: it builds wasm/bench, serves assets/bench with DuckDB-WASM on
// 127.0.0.1 (cross-origin isolated, so DuckDB's threaded bundle runs), runs the page in headless Chromium, runs
// the same workloads natively, and writes build/bench/results.json and results.md. BENCH_RUNS (default 3)
// sets the timed runs after the warm-up; BENCH_ONLY (e.g. "a,d") picks workloads; BENCH_CPUPROFILE=FILE writes a CPU
// profile of the page's main thread (joinlab, not DuckDB's workers) over the whole run, which wasm/bench/selftime.mjs
// reads.
func Bench(ctx context.Context) error {
	runs, only := os.Getenv("BENCH_RUNS"), os.Getenv("BENCH_ONLY")
	if runs == "" {
		runs = "3"
	}
	if err := buildBenchSite(ctx); err != nil {
		return err
	}
	native := filepath.Join(benchDir, "bench-native")
	if err := run(ctx, nil, "go", "build", "-o", native, "./wasm/bench"); err != nil {
		return err
	}

	fmt.Println("bench: native runs (one core)")
	var nativeOut bytes.Buffer
	cmd := exec.CommandContext(ctx, native, "-runs", runs, "-only", only)
	cmd.Stdout, cmd.Stderr = &nativeOut, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("bench: native: %w", err)
	}
	nat := map[string]nativeFigures{}
	sc := bufio.NewScanner(&nativeOut)
	for sc.Scan() {
		var r nativeFigures
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("bench: native output %q: %w", sc.Text(), err)
		}
		fmt.Printf("  %s: median %.0f ms, min %.0f ms %v\n", r.Workload, r.MedianMs, r.MinMs, r.Digest)
		nat[r.Workload] = r
	}

	page, err := benchBrowser(ctx, runs, only)
	if err != nil {
		return err
	}
	return writeBenchResults(page, nat)
}

// buildBenchSite fills benchSite for both pages: bench.wasm, the pages and DuckDB-WASM (installing the npm
// packages when they are missing).
func buildBenchSite(ctx context.Context) error {
	if _, err := os.Stat(duckdbDist); err != nil {
		if err := run(ctx, nil, "npm", "ci"); err != nil {
			return fmt.Errorf("bench: npm ci: %w", err)
		}
	}
	if err := os.MkdirAll(benchSite, 0o755); err != nil {
		return err
	}
	if err := run(ctx, []string{"GOOS=js", "GOARCH=wasm"}, "go", "build", "-o", filepath.Join(benchSite, "bench.wasm"), "./wasm/bench"); err != nil {
		return err
	}
	return copyBenchSite()
}

type nativeFigures struct {
	Workload string            `json:"workload"`
	Digest   map[string]string `json:"digest"`
	Rows     int               `json:"rows"`
	MedianMs float64           `json:"median_ms"`
	MinMs    float64           `json:"min_ms"`
}

type pageResult struct {
	UserAgent           string       `json:"userAgent"`
	CrossOriginIsolated bool         `json:"crossOriginIsolated"`
	Error               string       `json:"error"`
	Results             []pageFigure `json:"results"`
}

type pageFigure struct {
	Workload string            `json:"workload"`
	Engine   string            `json:"engine"`
	Rows     int               `json:"rows"`
	TimesMs  []float64         `json:"times_ms"`
	MedianMs float64           `json:"median_ms"`
	MinMs    float64           `json:"min_ms"`
	Digest   map[string]string `json:"digest"`
	Error    string            `json:"error"`
	Note     string            `json:"note"`
}

// copyBenchSite puts the page, wasm_exec.js, Arrow's browser bundle and DuckDB-WASM's files in benchSite.
// DuckDB's module imports "apache-arrow" by its bare name; with no bundler and no inline import map, the copy
// imports ./arrow.mjs instead (assets/bench/arrow.mjs re-exports the bundle's global).
func copyBenchSite() error {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("bench: go env GOROOT: %w", err)
	}
	copies := map[string]string{
		filepath.Join(strings.TrimSpace(string(goroot)), "lib/wasm/wasm_exec.js"): "wasm_exec.js",
		"assets/bench/arrow.mjs": "duckdb/arrow.mjs",
		arrowBundle:              "duckdb/arrow.js",
	}
	// Both pages (index.html, files.html) and their scripts sit at the site's root.
	assets, err := os.ReadDir("assets/bench")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	for _, a := range assets {
		if ext := filepath.Ext(a.Name()); ext == ".html" || ext == ".js" {
			copies[filepath.Join("assets/bench", a.Name())] = a.Name()
		}
	}
	for _, f := range benchDuckDBFiles {
		copies[filepath.Join(duckdbDist, f)] = "duckdb/" + f
	}
	for from, to := range copies {
		b, err := os.ReadFile(from)
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		if to == "duckdb/duckdb-browser.mjs" {
			n := bytes.Count(b, []byte(`from"apache-arrow"`))
			if n == 0 {
				return errors.New(`bench: duckdb-browser.mjs no longer imports "apache-arrow" as expected`)
			}
			b = bytes.ReplaceAll(b, []byte(`from"apache-arrow"`), []byte(`from"./arrow.mjs"`))
		}
		dst := filepath.Join(benchSite, to)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// benchBrowser runs the generated-tables page (index.html) and reads its results.
func benchBrowser(ctx context.Context, runs, only string) (*pageResult, error) {
	out, err := runBenchPage(ctx, "index.html", url.Values{"runs": {runs}, "only": {only}}, "")
	if err != nil {
		return nil, err
	}
	var res pageResult
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("bench: results: %w", err)
	}
	if res.Error != "" {
		return &res, fmt.Errorf("bench: the page failed: %s", res.Error)
	}
	return &res, nil
}

// runBenchPage serves benchSite cross-origin isolated on 127.0.0.1, with the directory data (when not "")
// under /data/, opens page?params in headless Chromium, echoes the page's console, waits for window.benchDone
// and returns window.benchResult as JSON.
func runBenchPage(ctx context.Context, page string, params url.Values, data string) ([]byte, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	site := http.FileServer(http.Dir(benchSite))
	var dataFiles http.Handler
	if data != "" {
		dataFiles = http.StripPrefix("/data/", http.FileServer(http.Dir(data)))
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Cross-origin isolation lets DuckDB's coi bundle use SharedArrayBuffer and threads.
		w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
		w.Header().Set("Cross-Origin-Embedder-Policy", "require-corp")
		w.Header().Set("Cross-Origin-Resource-Policy", "same-origin")
		w.Header().Set("Cache-Control", "no-store")
		if dataFiles != nil && strings.HasPrefix(r.URL.Path, "/data/") {
			dataFiles.ServeHTTP(w, r)
			return
		}
		site.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	defer srv.Close()

	chrome, ok := chromiumPath()
	if !ok {
		return nil, errors.New("bench: Chromium is not installed: apt-get install -y chromium")
	}
	profile, err := os.MkdirTemp("", "joinlab-bench-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.UserDataDir(profile),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	defer cancelTab()
	tctx, cancel := context.WithTimeout(tabCtx, benchTimeout)
	defer cancel()
	if err := chromedp.Do(tctx); err != nil {
		return nil, fmt.Errorf("bench: start Chromium: %w", err)
	}
	cpuProfile := os.Getenv("BENCH_CPUPROFILE")
	if cpuProfile != "" {
		if err := startPageProfile(tctx); err != nil {
			return nil, err
		}
	}
	go func() {
		for m, err := range chromedp.Console(tctx) {
			if err != nil {
				return
			}
			fmt.Printf("  page %s: %s\n", m.Type, m.Text)
		}
	}()
	addr := fmt.Sprintf("http://%s/%s?%s", ln.Addr(), page, params.Encode())
	fmt.Printf("bench: %s in %s\n", addr, chrome)
	if err := chromedp.Do(tctx, chromedp.Navigate(addr)); err != nil {
		return nil, fmt.Errorf("bench: open the page: %w", err)
	}
	for {
		done, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`window.benchDone === true`))
		if err != nil {
			return nil, fmt.Errorf("bench: poll the page: %w", err)
		}
		if done {
			break
		}
		time.Sleep(time.Second)
	}
	s, err := chromedp.Run(tctx, chromedp.Evaluate[string](`JSON.stringify(window.benchResult)`))
	if err != nil {
		return nil, fmt.Errorf("bench: read the results: %w", err)
	}
	if cpuProfile != "" {
		if err := writePageProfile(tctx, cpuProfile); err != nil {
			return nil, err
		}
	}
	return []byte(s), nil
}

// benchRow is one line of results.json: rows per second are input rows (both sides) over the median time.
type benchRow struct {
	Workload           string             `json:"workload"`
	InputRows          int                `json:"input_rows"`
	JoinlabRowsPerS    float64            `json:"joinlab_rows_per_s"`
	DuckDB1tRowsPerS   float64            `json:"duckdb_1t_rows_per_s"`
	DuckDBBestRowsPerS float64            `json:"duckdb_best_rows_per_s"`
	DuckDBBestConfig   string             `json:"duckdb_best_config"`
	NativeRowsPerS     float64            `json:"native_rows_per_s"`
	RatioVsDuckDBBest  float64            `json:"ratio_vs_duckdb_best"`
	RatioVsDuckDB1t    float64            `json:"ratio_vs_duckdb_1t"`
	MedianMs           map[string]float64 `json:"median_ms"`
	MinMs              map[string]float64 `json:"min_ms"`
	Digest             map[string]string  `json:"digest"`
	Errors             map[string]string  `json:"errors,omitempty"`
	Notes              map[string]string  `json:"notes,omitempty"`
}

func writeBenchResults(page *pageResult, nat map[string]nativeFigures) error {
	byWorkload := map[string]*benchRow{}
	var order []string
	rate := func(rows int, ms float64) float64 {
		if ms <= 0 {
			return 0
		}
		return float64(rows) / (ms / 1000)
	}
	for _, f := range page.Results {
		r := byWorkload[f.Workload]
		if r == nil {
			r = &benchRow{Workload: f.Workload, InputRows: f.Rows, MedianMs: map[string]float64{}, MinMs: map[string]float64{},
				Errors: map[string]string{}, Notes: map[string]string{}}
			byWorkload[f.Workload] = r
			order = append(order, f.Workload)
		}
		if f.Error != "" {
			r.Errors[f.Engine] = f.Error
			continue
		}
		if f.Note != "" {
			r.Notes[f.Engine] = f.Note
		}
		r.MedianMs[f.Engine], r.MinMs[f.Engine] = f.MedianMs, f.MinMs
		v := rate(f.Rows, f.MedianMs)
		switch {
		case f.Engine == "joinlab":
			r.JoinlabRowsPerS, r.Digest = v, f.Digest
		case f.Engine == "duckdb-1t":
			r.DuckDB1tRowsPerS = v
		}
		if strings.HasPrefix(f.Engine, "duckdb") && v > r.DuckDBBestRowsPerS {
			r.DuckDBBestRowsPerS, r.DuckDBBestConfig = v, f.Engine
		}
	}
	var rows []benchRow
	sort.Strings(order)
	for _, w := range order {
		r := byWorkload[w]
		if n, ok := nat[w]; ok {
			r.NativeRowsPerS = rate(n.Rows, n.MedianMs)
			r.MedianMs["native"], r.MinMs["native"] = n.MedianMs, n.MinMs
			if r.Digest != nil && fmt.Sprint(r.Digest) != fmt.Sprint(n.Digest) {
				r.Errors["native"] = fmt.Sprintf("native digest %v differs from the browser's %v", n.Digest, r.Digest)
			}
		}
		if r.DuckDBBestRowsPerS > 0 {
			r.RatioVsDuckDBBest = r.JoinlabRowsPerS / r.DuckDBBestRowsPerS
		}
		if r.DuckDB1tRowsPerS > 0 {
			r.RatioVsDuckDB1t = r.JoinlabRowsPerS / r.DuckDB1tRowsPerS
		}
		rows = append(rows, *r)
	}
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(benchDir, "results.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	var md strings.Builder
	fmt.Fprintf(&md, "Measured %s in %s (cross-origin isolated: %v), %d cores, GOARCH %s natively.\n"+
		"Rows/s are input rows (both sides) over the median time; ms are median / min.\n\n",
		time.Now().UTC().Format("2006-01-02"), page.UserAgent, page.CrossOriginIsolated, runtime.NumCPU(), runtime.GOARCH)
	md.WriteString("| workload | joinlab wasm ms | DuckDB 1t ms | DuckDB best ms | joinlab / DuckDB best | joinlab / DuckDB 1t | native ms (1 core) | joinlab Mrows/s | native Mrows/s |\n")
	md.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	cell := func(r benchRow, e string) string {
		if msg, ok := r.Errors[e]; ok {
			return "error: " + strings.ReplaceAll(msg, "|", "/")
		}
		if _, ok := r.MedianMs[e]; !ok {
			return "–"
		}
		return fmt.Sprintf("%.0f / %.0f", r.MedianMs[e], r.MinMs[e])
	}
	for _, r := range rows {
		fmt.Fprintf(&md, "| %s | %s | %s | %s (%s) | %.2f | %.2f | %s | %.1f | %.1f |\n", r.Workload,
			cell(r, "joinlab"), cell(r, "duckdb-1t"), cell(r, r.DuckDBBestConfig), r.DuckDBBestConfig,
			r.RatioVsDuckDBBest, r.RatioVsDuckDB1t, cell(r, "native"), r.JoinlabRowsPerS/1e6, r.NativeRowsPerS/1e6)
	}
	if err := os.WriteFile(filepath.Join(benchDir, "results.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(md.String())
	fmt.Printf("bench: wrote %s and %s\n", filepath.Join(benchDir, "results.json"), filepath.Join(benchDir, "results.md"))
	for _, r := range rows {
		if len(r.Errors) > 0 {
			return fmt.Errorf("bench: workload %s: %v", r.Workload, r.Errors)
		}
	}
	return nil
}

// startPageProfile starts V8's sampling profiler on the page's main thread, where bench.wasm runs (DuckDB-WASM
// runs in its own workers, outside the profile), sampling every 200 µs.
func startPageProfile(ctx context.Context) error {
	if _, err := chromedp.Call(ctx, profiler.Enable, cdp.Empty{}); err != nil {
		return fmt.Errorf("bench: profiler: %w", err)
	}
	if _, err := chromedp.Call(ctx, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
		return fmt.Errorf("bench: profiler: %w", err)
	}
	if _, err := chromedp.Call(ctx, profiler.Start, cdp.Empty{}); err != nil {
		return fmt.Errorf("bench: profiler: %w", err)
	}
	return nil
}

// writePageProfile stops the profiler startPageProfile started and writes its profile to path, in the
// .cpuprofile format Chrome DevTools and node's --cpu-prof use.
func writePageProfile(ctx context.Context, path string) error {
	r, err := chromedp.Call(ctx, profiler.Stop, cdp.Empty{})
	if err != nil {
		return fmt.Errorf("bench: profiler: %w", err)
	}
	b, err := json.Marshal(r.Profile)
	if err != nil {
		return fmt.Errorf("bench: profile: %w", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("bench: profile: %w", err)
	}
	fmt.Printf("bench: CPU profile of the page's main thread in %s\n", path)
	return nil
}
