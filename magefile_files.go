//go:build mage

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/joinlab/joinlab/internal/filebench"
)

const fileBenchDir = "build/filebench"

// FileBench runs the file benchmark of issue 21: it generates a users file and an events file five times as
// long (JSON lines and CSV, one nested object a record; internal/filebench), then runs each query with the
// joinlab command, with the command under --mem 64MiB, and with DuckDB (@duckdb/node-api, pinned in
// package.json), and reports wall time, CPU time and peak RSS of each process and whether the answers agree,
// in build/filebench/results.md. FILEBENCH_USERS (default 1000000) sets the users file's rows, FILEBENCH_RUNS
// (default 3) the timed runs, of which the fastest is reported. The files are kept for the next run.
func FileBench(ctx context.Context) error {
	users, err := envInt("FILEBENCH_USERS", 1_000_000)
	if err != nil {
		return err
	}
	runs, err := envInt("FILEBENCH_RUNS", 3)
	if err != nil {
		return err
	}
	if _, err := os.Stat("node_modules/@duckdb/node-api"); err != nil {
		if err := run(ctx, nil, "npm", "ci"); err != nil {
			return fmt.Errorf("filebench: npm ci: %w", err)
		}
	}
	files, err := fileBenchData(users)
	if err != nil {
		return err
	}
	cli := filepath.Join(fileBenchDir, "joinlab")
	if err := run(ctx, nil, "go", "build", "-o", cli, "./cmd/joinlab"); err != nil {
		return err
	}

	var table strings.Builder
	fmt.Fprintf(&table, "%d users ⋈ %d events, fastest of %d runs; wall s / CPU s / peak RSS MB\n\n", users, users*filebench.EventsPerUser, runs)
	table.WriteString("| query | format | sizes MB | joinlab | joinlab --mem 64MiB | DuckDB | answers |\n|---|---|---|---|---|---|---|\n")
	var differ []string
	for _, q := range filebench.Queries {
		u, e := files.UsersJSONL, files.EventsJSONL
		if q.Format == "csv" {
			u, e = files.UsersCSV, files.EventsCSV
		}
		args := []string{"query", "--source", "Users=" + u, "--source", "Events=" + e, q.KQL}
		jl, err := measure(ctx, runs, cli, args...)
		if err != nil {
			return fmt.Errorf("filebench %s/%s: joinlab: %w", q.Name, q.Format, err)
		}
		bounded, err := measure(ctx, 1, cli, append([]string{"query", "--mem", "64MiB"}, args[1:]...)...)
		if err != nil {
			return fmt.Errorf("filebench %s/%s: joinlab --mem 64MiB: %w", q.Name, q.Format, err)
		}
		dd, err := measure(ctx, runs, "node", "internal/filebench/duckdb.mjs", fmt.Sprintf(q.SQL, u, e))
		if err != nil {
			return fmt.Errorf("filebench %s/%s: DuckDB: %w", q.Name, q.Format, err)
		}
		agree := "equal"
		a, errA := answer(jl.out)
		c, errC := answer(bounded.out)
		b, errB := answer(dd.out)
		if err := errors.Join(errA, errC, errB); err != nil {
			return fmt.Errorf("filebench %s/%s: reading the answers: %w", q.Name, q.Format, err)
		}
		if a != b || a != c {
			agree = fmt.Sprintf("DIFFER: joinlab %s, under --mem %s, DuckDB %s", a, c, b)
			differ = append(differ, q.Name+"/"+q.Format)
		}
		fmt.Fprintf(&table, "| %s | %s | %.0f + %.0f | %s | %s | %s | %s |\n", q.Name, q.Format, sizeMB(u), sizeMB(e), jl, bounded, dd, agree)
		fmt.Printf("filebench %s/%s: joinlab %s, --mem 64MiB %s, DuckDB %s, %s\n", q.Name, q.Format, jl, bounded, dd, agree)
	}
	out := filepath.Join(fileBenchDir, "results.md")
	if err := os.WriteFile(out, []byte(table.String()), 0o644); err != nil {
		return err
	}
	fmt.Print("\n", table.String(), "\nwritten to ", out, "\n")
	if len(differ) > 0 {
		return fmt.Errorf("filebench: the answers differ on %s", strings.Join(differ, ", "))
	}
	return nil
}

// fileBenchData returns the files of users users (and filebench.EventsPerUser times as many events), writing
// them first when an earlier run has not; they live in build/filebench/data-<users>.
func fileBenchData(users int) (filebench.Files, error) {
	dir := filepath.Join(fileBenchDir, fmt.Sprintf("data-%d", users))
	files := filebench.Paths(dir)
	if _, err := os.Stat(files.EventsCSV); err == nil {
		return files, nil
	}
	fmt.Printf("filebench: writing %d users and %d events to %s\n", users, users*filebench.EventsPerUser, dir)
	files, err := filebench.Write(dir, users, 1)
	if err != nil {
		return files, fmt.Errorf("filebench: %w", err)
	}
	return files, nil
}

// MemFiles writes the two JSON-lines files of the --mem table in docs/files.md (internal/filebench.WriteKeyPair)
// into build/memfiles: a.jsonl and b.jsonl, MEMFILES_ROWS lines each (default 2000000), from seed 1, for
// measuring the command's peak RSS under a memory budget by hand.
func MemFiles() error {
	rows, err := envInt("MEMFILES_ROWS", 2_000_000)
	if err != nil {
		return err
	}
	a, b, err := filebench.WriteKeyPair(filepath.Join("build", "memfiles"), rows, 1)
	if err != nil {
		return fmt.Errorf("memfiles: %w", err)
	}
	fmt.Printf("memfiles: %d lines each in %s and %s\n", rows, a, b)
	return nil
}

// benchFilesUsers is the browser's default users file: 200K users ⋈ 1M events (29 + 123 MB as JSON lines,
// 12 + 50 MB as CSV), which every engine of the page parses several times within a few minutes; the native
// benchmark's 1M ⋈ 5M runs with FILEBENCH_USERS=1000000.
const benchFilesUsers = 200_000

// BenchFiles runs the own-data benchmark in the browser (issue 21): the file benchmark's users and events
// files, served beside the benchmark page (assets/bench/files.html), fetched by the page once; then for each
// query of internal/filebench.Queries, joinlab in wasm parses the bytes (source.Read) and runs the KQL, load
// and join timed apart, and DuckDB-WASM (single-threaded, and threaded when the page is cross-origin isolated)
// runs the SQL over the same bytes registered as files; JSON lines, which its read_json_auto cannot read
// offline (the json extension is fetched at run time), go through its built-in JSON reader instead, turned
// into row arrays inside the timed load. The answers must agree, with each other and with the
// joinlab command's on the same files. It writes
// build/bench/files.json and files.md. FILEBENCH_USERS (default 200000) sets the users file's rows,
// BENCH_RUNS (default 3) the timed runs after a warm-up, BENCH_ONLY (e.g. "flat/jsonl") the queries, and
// BENCH_THREADS=0 leaves out the threaded DuckDB.
func BenchFiles(ctx context.Context) error {
	users, err := envInt("FILEBENCH_USERS", benchFilesUsers)
	if err != nil {
		return err
	}
	runs, err := envInt("BENCH_RUNS", 3)
	if err != nil {
		return err
	}
	files, err := fileBenchData(users)
	if err != nil {
		return err
	}
	if err := buildBenchSite(ctx); err != nil {
		return err
	}
	// The command's answers on the same files, a check of the page's engines beside their agreeing with each
	// other.
	cli := filepath.Join(fileBenchDir, "joinlab")
	if err := run(ctx, nil, "go", "build", "-o", cli, "./cmd/joinlab"); err != nil {
		return err
	}
	native := map[string]string{}
	for _, q := range filebench.Queries {
		u, e := files.UsersJSONL, files.EventsJSONL
		if q.Format == "csv" {
			u, e = files.UsersCSV, files.EventsCSV
		}
		f, err := measure(ctx, 1, cli, "query", "--source", "Users="+u, "--source", "Events="+e, q.KQL)
		if err != nil {
			return fmt.Errorf("benchfiles %s/%s: joinlab command: %w", q.Name, q.Format, err)
		}
		if native[q.Name+"/"+q.Format], err = answer(f.out); err != nil {
			return fmt.Errorf("benchfiles %s/%s: joinlab command: %w", q.Name, q.Format, err)
		}
	}
	params := url.Values{"runs": {strconv.Itoa(runs)}, "only": {os.Getenv("BENCH_ONLY")}, "threads": {os.Getenv("BENCH_THREADS")}}
	out, err := runBenchPage(ctx, "files.html", params, filepath.Dir(files.UsersJSONL))
	if err != nil {
		return err
	}
	var page filesPage
	if err := json.Unmarshal(out, &page); err != nil {
		return fmt.Errorf("benchfiles: results: %w", err)
	}
	if page.Error != "" {
		return fmt.Errorf("benchfiles: the page failed: %s", page.Error)
	}
	return writeFilesResults(users, &page, native)
}

// filesPage is what files.js publishes as window.benchResult.
type filesPage struct {
	UserAgent           string           `json:"userAgent"`
	CrossOriginIsolated bool             `json:"crossOriginIsolated"`
	Runs                int              `json:"runs"`
	Files               map[string]int64 `json:"files"`
	Error               string           `json:"error"`
	Results             []filesFigure    `json:"results"`
}

// filesFigure is one engine's series on one query: ms of the load and the join (joinlab only; DuckDB's are one
// query) and of both, per timed run, with their medians.
type filesFigure struct {
	Query        string            `json:"query"`
	Engine       string            `json:"engine"`
	Rows         int               `json:"rows"`
	TimesMs      []float64         `json:"times_ms"`
	LoadMs       []float64         `json:"load_ms,omitempty"`
	JoinMs       []float64         `json:"join_ms,omitempty"`
	MedianMs     float64           `json:"median_ms"`
	MinMs        float64           `json:"min_ms"`
	LoadMedianMs float64           `json:"load_median_ms,omitempty"`
	JoinMedianMs float64           `json:"join_median_ms,omitempty"`
	Digest       map[string]string `json:"digest"`
	Error        string            `json:"error,omitempty"`
	Skipped      string            `json:"skipped,omitempty"` // why the engine could not run the query here
	// SplitMedianMs is DuckDB's load then join (LoadMedianMs, JoinMedianMs), beside its one query (MedianMs).
	SplitMedianMs float64 `json:"split_median_ms,omitempty"`
	// Reader is "insertJSONFromPath" when DuckDB read JSON lines with its built-in reader: then MedianMs is load
	// + join (there is no one query), the load includes WrapMs, turning a copy of the lines into a row array,
	// and RegisterMs, making that copy and handing it to DuckDB's worker, is left out of every figure, as the
	// CSV files' copy and registration are.
	Reader           string    `json:"reader,omitempty"`
	WrapMs           []float64 `json:"wrap_ms,omitempty"`
	RegisterMs       []float64 `json:"register_ms,omitempty"`
	WrapMedianMs     float64   `json:"wrap_median_ms,omitempty"`
	RegisterMedianMs float64   `json:"register_median_ms,omitempty"`
}

// writeFilesResults writes the page's figures as build/bench/files.json and a table, files.md: for each query,
// a row an engine with its load, join and load + join, DuckDB's one-query time, and joinlab's load + join over
// that; and whether the answers agree: the page's engines with each other (the page fails a DuckDB series
// that differs) and with the command's, native (by query key, "n s1 s2").
func writeFilesResults(users int, page *filesPage, native map[string]string) error {
	b, err := json.MarshalIndent(page, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(benchDir, "files.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	byQuery := map[string][]filesFigure{}
	var order, failed []string
	skipped, reader := "", false
	for _, f := range page.Results {
		if strings.HasSuffix(f.Engine, " tables") {
			continue // DuckDB's load-then-join series; its medians are in its one-query figure too
		}
		if byQuery[f.Query] == nil {
			order = append(order, f.Query)
		}
		byQuery[f.Query] = append(byQuery[f.Query], f)
		switch {
		case f.Error != "":
			failed = append(failed, fmt.Sprintf("%s on %s: %s", f.Query, f.Engine, f.Error))
		case f.Skipped != "":
			skipped = f.Skipped
		}
	}
	var md strings.Builder
	fmt.Fprintf(&md, "Measured %s in %s (cross-origin isolated: %v): %d users ⋈ %d events, files fetched once, "+
		"then a warm-up and %d timed runs; ms are medians. joinlab's load parses both files' bytes into sources "+
		"and its join runs the KQL. DuckDB runs the query's SQL over the registered bytes as one query, and split: "+
		"load = both files into tables (every column), join = the SQL over them. The ratio is joinlab's load + join "+
		"over the engine's one query, or over its load + join where it has no one query (above 1: joinlab is slower).\n\n",
		time.Now().UTC().Format("2006-01-02"), page.UserAgent, page.CrossOriginIsolated, users, users*filebench.EventsPerUser, page.Runs)
	md.WriteString("| query | sizes MB | engine | load | join | load + join | one query | joinlab / engine | answers |\n")
	md.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	ms := func(x float64) string {
		if x <= 0 {
			return "–"
		}
		return fmt.Sprintf("%.0f", x)
	}
	for _, q := range order {
		_, format, _ := strings.Cut(q, "/")
		sizes := fmt.Sprintf("%.1f + %.1f", float64(page.Files["users."+format])/1e6, float64(page.Files["events."+format])/1e6)
		var jl *filesFigure
		for i, f := range byQuery[q] {
			if f.Engine == "joinlab" && f.Error == "" {
				jl = &byQuery[q][i]
			}
		}
		answers := "–"
		if jl != nil {
			got := jl.Digest["count"] + " " + jl.Digest["sum1"] + " " + jl.Digest["sum2"]
			answers = "n s1 s2 = " + got + ", = the command's"
			if got != native[q] {
				answers = "DIFFER: the command's " + native[q]
				failed = append(failed, fmt.Sprintf("%s: wasm answers %s, the command %s", q, got, native[q]))
			}
		}
		for _, f := range byQuery[q] {
			cells := []string{"–", "–", "–", "–", "–"}
			switch {
			case f.Error != "":
				cells[0] = "error"
			case f.Skipped != "":
				cells[0] = "n/a¹"
			case f.Engine == "joinlab":
				cells = []string{ms(f.LoadMedianMs), ms(f.JoinMedianMs), ms(f.MedianMs), "–", "–"}
			case f.Reader != "":
				reader = true
				cells = []string{ms(f.LoadMedianMs) + " (wrap " + ms(f.WrapMedianMs) + ", register² " + ms(f.RegisterMedianMs) + ")",
					ms(f.JoinMedianMs), ms(f.MedianMs), "–", "–"}
				if jl != nil && f.MedianMs > 0 {
					cells[4] = fmt.Sprintf("%.2f", jl.MedianMs/f.MedianMs)
				}
			default:
				cells = []string{ms(f.LoadMedianMs), ms(f.JoinMedianMs), ms(f.SplitMedianMs), ms(f.MedianMs), "–"}
				if jl != nil && f.MedianMs > 0 {
					cells[4] = fmt.Sprintf("%.2f", jl.MedianMs/f.MedianMs)
				}
			}
			a := answers
			if f.Engine != "joinlab" {
				a = "agrees with joinlab"
				if f.Error != "" || f.Skipped != "" {
					a = "–"
				}
			}
			engine := f.Engine
			if f.Reader != "" {
				engine += " " + f.Reader + "²"
			}
			fmt.Fprintf(&md, "| %s | %s | %s | %s | %s |\n", strings.Replace(q, "/", " ", 1), sizes, engine,
				strings.Join(cells, " | "), a)
		}
	}
	if skipped != "" {
		fmt.Fprintf(&md, "\n¹ DuckDB-WASM did not run it: %s.\n", skipped)
	}
	if reader {
		md.WriteString("\n² No json extension here (DuckDB-WASM fetches it at run time), so DuckDB read JSON lines " +
			"with its built-in reader, insertJSONFromPath, which takes one JSON array of rows: its load is the page " +
			"turning a copy of each file's lines into that array (wrap: brackets around, newlines to commas, in JS) " +
			"and the reader making a table of it; making the copy and handing it to DuckDB's worker (register) is " +
			"left out, as the CSV files' copy and registration are.\n")
	}
	for _, f := range failed {
		fmt.Fprintf(&md, "\nerror: %s\n", f)
	}
	out := filepath.Join(benchDir, "files.md")
	if err := os.WriteFile(out, []byte(md.String()), 0o644); err != nil {
		return err
	}
	fmt.Print("\n", md.String(), "\nwritten to ", out, " and files.json\n")
	if len(failed) > 0 {
		return fmt.Errorf("benchfiles: %d checks failed", len(failed))
	}
	return nil
}

// figures are one process's measurements.
type figures struct {
	wall, cpu time.Duration
	rssKB     int64
	out       []byte
}

func (f figures) String() string {
	return fmt.Sprintf("%.2f / %.2f / %.0f", f.wall.Seconds(), f.cpu.Seconds(), float64(f.rssKB)/1024)
}

// measure runs a command runs times and returns the fastest run's figures; peak RSS and CPU time come from the
// kernel's accounting of the finished process.
func measure(ctx context.Context, runs int, name string, args ...string) (figures, error) {
	var best figures
	for i := 0; i < runs; i++ {
		cmd := exec.CommandContext(ctx, name, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return best, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
		}
		f := figures{wall: time.Since(start), out: stdout.Bytes()}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			f.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			f.rssKB = ru.Maxrss
		}
		if i == 0 || f.wall < best.wall {
			best = f
		}
	}
	return best, nil
}

// answer reads a query's one-row answer (n, s1, s2) from JSON, numbers or strings of digits alike.
func answer(out []byte) (string, error) {
	line, _, _ := bytes.Cut(bytes.TrimSpace(out), []byte("\n"))
	var row map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&row); err != nil {
		return "", fmt.Errorf("%q: %w", line, err)
	}
	var parts []string
	for _, k := range []string{"n", "s1", "s2"} {
		parts = append(parts, fmt.Sprint(row[k]))
	}
	return strings.Join(parts, " "), nil
}

func sizeMB(path string) float64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return float64(st.Size()) / 1e6
}

func envInt(name string, def int) (int, error) {
	s := os.Getenv(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive integer", name, s)
	}
	return n, nil
}
