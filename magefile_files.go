//go:build mage

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	dir := filepath.Join(fileBenchDir, fmt.Sprintf("data-%d", users))
	files := filebench.Paths(dir)
	if _, err := os.Stat(files.EventsCSV); err != nil {
		fmt.Printf("filebench: writing %d users and %d events to %s\n", users, users*filebench.EventsPerUser, dir)
		if files, err = filebench.Write(dir, users, 1); err != nil {
			return fmt.Errorf("filebench: %w", err)
		}
	}
	cli := filepath.Join(fileBenchDir, "joinlab")
	if err := run(ctx, nil, "go", "build", "-o", cli, "./cmd/joinlab"); err != nil {
		return err
	}

	var table strings.Builder
	fmt.Fprintf(&table, "%d users ⋈ %d events, fastest of %d runs; wall s / CPU s / peak RSS MB\n\n", users, users*filebench.EventsPerUser, runs)
	table.WriteString("| query | format | sizes MB | joinlab | joinlab --mem 64MiB | DuckDB | answers |\n|---|---|---|---|---|---|---|\n")
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
		b, errB := answer(dd.out)
		switch {
		case errA != nil || errB != nil:
			return fmt.Errorf("filebench %s/%s: reading the answers: %v, %v", q.Name, q.Format, errA, errB)
		case a != b || a != mustAnswer(bounded.out):
			agree = fmt.Sprintf("DIFFER: joinlab %s, DuckDB %s", a, b)
		}
		fmt.Fprintf(&table, "| %s | %s | %.0f + %.0f | %s | %s | %s | %s |\n", q.Name, q.Format, sizeMB(u), sizeMB(e), jl, bounded, dd, agree)
		fmt.Printf("filebench %s/%s: joinlab %s, --mem 64MiB %s, DuckDB %s, %s\n", q.Name, q.Format, jl, bounded, dd, agree)
		if agree != "equal" {
			defer fmt.Printf("filebench: %s/%s answers differ\n", q.Name, q.Format)
		}
	}
	out := filepath.Join(fileBenchDir, "results.md")
	if err := os.WriteFile(out, []byte(table.String()), 0o644); err != nil {
		return err
	}
	fmt.Print("\n", table.String(), "\nwritten to ", out, "\n")
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

func mustAnswer(out []byte) string {
	a, _ := answer(out)
	return a
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
