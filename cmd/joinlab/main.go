// Command joinlab runs KQL queries, joins included, over JSON-lines and CSV files with joinlab's engine.
//
//	joinlab query   --source NAME=FILE … [--format jsonl|csv|table] [-o FILE] [--explain] [--stats FILE] [--mem BYTES] [-f FILE] [QUERY]
//	joinlab explain --source NAME=FILE … [-f FILE] [QUERY]
//	joinlab scenarios
//
// --scenario NAME takes the sources (and, when no query is given, the query) from a ready-made scenario,
// generated from --seed with --knob settings.
//
// The query comes from the arguments, from -f FILE, or from standard input. Problems with the input (the query,
// a file, a flag) are reported on standard error with exit status 2.
//
// SIGINT and SIGTERM cancel the query; the command waits until everything it spilled is removed and the
// partial -o file is deleted, then exits 130 or 143. A second signal exits at once, without waiting.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/format"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/spill"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/sims/scenario"
)

const usage = `joinlab runs KQL queries over JSON-lines and CSV files.

usage:
  joinlab query   --source NAME=FILE ... [flags] [QUERY]
  joinlab explain --source NAME=FILE ... [flags] [QUERY]
  joinlab query   --scenario NAME [--seed N] [--knob NAME=VALUE ...] [flags] [QUERY]
  joinlab scenarios
  joinlab sims        (scenarios with their knobs, and connector profiles with their caps)

Sources are referred to as @NAME in the query. FILE ends in .jsonl, .ndjson, .json (JSON lines) or .csv.
The query is QUERY, or the contents of -f FILE, or standard input.

flags:
`

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	caught := make(chan os.Signal, 1)
	go func() {
		sig := <-sigs
		caught <- sig // before cancel, so that main sees it once run returns
		cancel()
		sig = <-sigs
		fmt.Fprintf(os.Stderr, "joinlab: %v again: exiting without waiting for clean-up\n", sig)
		os.Exit(signalStatus(sig))
	}()
	limitProcess = func(budget int64) {
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(budget + processOverhead)
		}
	}
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	select {
	case sig := <-caught:
		// run has returned, so the query's spill is removed and a partial -o file deleted.
		fmt.Fprintf(os.Stderr, "joinlab: %v: query stopped, temporary files removed\n", sig)
		code = signalStatus(sig)
	default:
	}
	os.Exit(code)
}

// signalStatus is the shell's exit status for a process ended by sig: 128 plus its number (130 for SIGINT,
// 143 for SIGTERM).
func signalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// sourceFlags collects repeated --source NAME=FILE flags.
type sourceFlags []string

func (s *sourceFlags) String() string     { return strings.Join(*s, ",") }
func (s *sourceFlags) Set(v string) error { *s = append(*s, v); return nil }

// run is the whole command, returning its exit status: 0 on success, 2 on bad input or a failed query.
// processOverhead is what the process holds beyond the query's memory budget: the Go runtime and its
// collector's headroom, the parse workers' batches on their way to the scan, the read buffers kept for reuse
// and the output's buffers. The collector is asked to keep the whole process under the budget plus this
// (debug.SetMemoryLimit), so that --mem bounds the process, not only what the operators count; docs/files.md
// has the figures that chose it.
const processOverhead = 32 << 20

// limitProcess, when set (by main, never by tests, which share one process), bounds the process's memory to
// a query's budget plus processOverhead.
var limitProcess func(budget int64)

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "joinlab: "+format+"\n", a...)
		return 2
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		newFlags("query", nil).PrintDefaults()
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd := args[0]
	if cmd == "sims" {
		listSims(stdout)
		return 0
	}
	if cmd == "scenarios" {
		for _, name := range scenario.Names() {
			sc, _ := scenario.Get(name)
			fmt.Fprintf(stdout, "%-28s %s\n", sc.Name, sc.Title)
		}
		return 0
	}
	if cmd != "query" && cmd != "explain" {
		return fail("unknown command %q (want query, explain, scenarios or sims; see joinlab --help)", cmd)
	}
	var o options
	fs := newFlags(cmd, &o)
	fs.SetOutput(stderr)
	positional, err := parseInterspersed(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	sources := map[string]source.Source{}
	var defaultQuery string
	var budget int64
	if o.scenario != "" {
		sc, err := scenario.Get(o.scenario)
		if err != nil {
			return fail("--scenario: %v", err)
		}
		knobs, err := parseKnobs(o.knobs)
		if err != nil {
			return fail("--knob: %v", err)
		}
		if knobs, err = sc.Resolve(knobs); err != nil {
			return fail("--knob: %v", err)
		}
		if sources, err = sc.Sources(o.seed, knobs); err != nil {
			return fail("scenario %s: %v", sc.Name, err)
		}
		defaultQuery, budget = sc.Query, sc.MemoryBudget
	}
	if len(positional) == 0 && o.file == "" && defaultQuery != "" {
		positional = []string{defaultQuery}
	}
	text, err := queryText(positional, o.file, stdin)
	if err != nil {
		return fail("%v", err)
	}
	mem, err := parseBytes(o.mem)
	if err != nil {
		return fail("--mem %q: %v", o.mem, err)
	}
	if mem == 0 {
		mem = budget
	}
	sample, err := parseSample(o.sample)
	if err != nil {
		return fail("--sample %q: %v", o.sample, err)
	}
	maxStream, err := parseBytes(o.maxStream)
	if err != nil {
		return fail("--max-stream %q: %v", o.maxStream, err)
	}
	// Reading counts against the query's budget while it lasts: the chunks in flight, never more than --mem.
	readBudget := memory.NewBudget(mem)
	if limitProcess != nil {
		limitProcess(readBudget.Limit())
	}
	// A stream given as a source (a pipe, /dev/stdin) is copied to a temporary file beside the spills.
	spoolDir := o.spillDir
	if spoolDir == spill.Memory {
		spoolDir = ""
	}
	for _, s := range o.sources {
		name, path, ok := strings.Cut(s, "=")
		if !ok || name == "" || path == "" {
			return fail("--source %q: want NAME=FILE", s)
		}
		name = strings.TrimPrefix(name, "@")
		if _, dup := sources[name]; dup {
			return fail("--source %s: defined twice", name)
		}
		src, err := source.OpenWith(name, path, source.Options{Budget: readBudget, SampleBytes: sample, SpoolDir: spoolDir, MaxStreamBytes: maxStream})
		var long *source.StreamTooLongError
		if errors.As(err, &long) {
			return fail("%v (--max-stream raises it)", err)
		}
		if err != nil {
			return fail("%v", err)
		}
		sources[name] = src
	}
	if len(o.profiles) > 0 {
		if err := behindProfiles(ctx, sources, o.profiles, o.seed); err != nil {
			return fail("%v", err)
		}
	}
	var rec *trace.Recorder
	opts := query.Options{MemoryBudget: mem, SpillDir: o.spillDir}
	if o.trace != "" {
		rec = &trace.Recorder{}
		opts.Trace = rec
	}
	p, err := query.Prepare(ctx, text, sources, opts)
	if err != nil {
		fmt.Fprint(stderr, describeQueryError(text, err))
		return 2
	}
	if cmd == "explain" {
		fmt.Fprint(stdout, p.Explain())
		return 0
	}
	if o.explain {
		fmt.Fprint(stderr, p.Explain())
	}
	dst := stdout
	var file *atomicFile
	if o.output != "" {
		if file, err = createAtomic(o.output); err != nil {
			return fail("-o: %v", err)
		}
		defer file.Abort()
		dst = file
	}
	out := bufio.NewWriterSize(dst, 64<<10)
	if _, err := format.New(io.Discard, o.format, p.Columns()); err != nil {
		return fail("%v", err)
	}
	// The writer is made at the first batch: a run that typed a sampled file again planned the query again,
	// and its columns are the ones to write.
	var w format.Writer
	write := func(b *column.Batch) error {
		if w == nil {
			if w, err = format.New(out, o.format, p.Columns()); err != nil {
				return err
			}
		}
		if b == nil {
			return w.Close()
		}
		return w.Write(b)
	}
	stats, runErr := p.Run(ctx, write)
	if runErr == nil {
		runErr = write(nil)
	}
	if err := out.Flush(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr == nil && file != nil {
		runErr = file.Commit()
	}
	if o.stats != "" {
		if err := writeStats(o.stats, stats); err != nil {
			return fail("--stats: %v", err)
		}
	}
	if rec != nil {
		if err := writeTrace(o.trace, rec.Events()); err != nil {
			return fail("--trace: %v", err)
		}
	}
	if runErr != nil {
		if ctx.Err() != nil && errors.Is(runErr, ctx.Err()) {
			return fail("query cancelled after %d rows", stats.RowsOut)
		}
		var re *source.RetypeError
		if errors.As(runErr, &re) {
			return fail("query failed after %d rows: %v (--sample all types every file from every value before the run)", stats.RowsOut, runErr)
		}
		return fail("query failed after %d rows: %v", stats.RowsOut, runErr)
	}
	return 0
}

type options struct {
	sources   sourceFlags
	scenario  string
	seed      uint64
	knobs     sourceFlags
	profiles  sourceFlags
	trace     string
	format    string
	explain   bool
	stats     string
	mem       string
	file      string
	spillDir  string
	output    string
	sample    string
	maxStream string
}

func newFlags(cmd string, o *options) *flag.FlagSet {
	if o == nil {
		o = &options{}
	}
	fs := flag.NewFlagSet("joinlab "+cmd, flag.ContinueOnError)
	fs.Var(&o.sources, "source", "a source `NAME=FILE` (repeatable)")
	fs.StringVar(&o.format, "format", "jsonl", "output `format`: jsonl, csv or table")
	fs.BoolVar(&o.explain, "explain", false, "print the plan to standard error before the results")
	fs.StringVar(&o.stats, "stats", "", "write the run's figures as JSON to `FILE`")
	fs.StringVar(&o.mem, "mem", "", "memory budget in `BYTES` (suffixes K, M, G, KiB, MiB, GiB; default 4GiB)")
	fs.StringVar(&o.sample, "sample", "", "type each --source file from its first `BYTES` (default 8MiB), or from every value with \"all\"")
	fs.StringVar(&o.maxStream, "max-stream", "", "stop a --source that is a stream (a pipe, a FIFO) past `BYTES` (default 16GiB)")
	fs.StringVar(&o.file, "f", "", "read the query from `FILE`")
	fs.StringVar(&o.scenario, "scenario", "", "use the sources (and default query) of scenario `NAME` (see joinlab scenarios)")
	fs.Uint64Var(&o.seed, "seed", 1, "the scenario's random `seed`")
	fs.Var(&o.knobs, "knob", "a scenario setting `NAME=VALUE` (repeatable)")
	fs.StringVar(&o.scenario, "sim", "", "the same as --scenario")
	fs.Var(&o.knobs, "set", "the same as --knob")
	fs.Var(&o.profiles, "profile", "serve --source NAME through a simulated connector: `NAME=PROFILE` or *=PROFILE (see joinlab sims)")
	fs.StringVar(&o.trace, "trace", "", "write the run's trace events as JSON lines to `FILE`")
	fs.StringVar(&o.spillDir, "spill-dir", "", "make the run's temporary spill folder under `DIR` (default: the system's temporary folder; :memory: keeps pages in memory)")
	fs.StringVar(&o.output, "o", "", "write the results to `FILE`, which appears only once the whole result is written")
	fs.StringVar(&o.output, "output", "", "the same as -o")
	return fs
}

// parseInterspersed parses flags that may come before or after the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

func queryText(positional []string, file string, stdin io.Reader) (string, error) {
	switch {
	case file != "" && len(positional) > 0:
		return "", errors.New("give the query either as an argument or with -f, not both")
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("-f: %w", err)
		}
		return string(b), nil
	case len(positional) > 0:
		return strings.Join(positional, " "), nil
	}
	b, err := io.ReadAll(stdin)
	if err != nil {
		return "", fmt.Errorf("reading the query from standard input: %w", err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", errors.New("no query: give it as an argument, with -f FILE, or on standard input")
	}
	return string(b), nil
}

// describeQueryError writes each positioned error with the query line it points into and a caret under the
// column.
func describeQueryError(text string, err error) string {
	var list kql.ErrorList
	var one *kql.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = kql.ErrorList{one}
	default:
		return "joinlab: " + err.Error() + "\n"
	}
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for _, e := range list {
		fmt.Fprintf(&b, "joinlab: query:%s\n", e.Error())
		if e.Pos.Line >= 1 && e.Pos.Line <= len(lines) {
			line, caret := clipAround(strings.TrimRight(lines[e.Pos.Line-1], "\r"), e.Pos.Col-1)
			fmt.Fprintf(&b, "    %s\n    %s^\n", line, strings.Repeat(" ", caret))
		}
	}
	return b.String()
}

// echoContext is how many bytes of the query line an error echoes on each side of its column: enough to
// read the mistake in place, and a megabyte-long line is not printed whole.
const echoContext = 60

// clipAround returns the part of line within echoContext bytes of col (a 0-based byte offset), cut at rune
// boundaries and marked with "…" where cut, and the caret's offset in it (in runes, so that the caret lines up
// under multi-byte text).
func clipAround(line string, col int) (string, int) {
	col = max(0, min(col, len(line)))
	lo, hi := max(0, col-echoContext), min(len(line), col+echoContext)
	for lo > 0 && !utf8.RuneStart(line[lo]) {
		lo--
	}
	for hi < len(line) && !utf8.RuneStart(line[hi]) {
		hi++
	}
	prefix, suffix := "", ""
	if lo > 0 {
		prefix = "…"
	}
	if hi < len(line) {
		suffix = "…"
	}
	return prefix + line[lo:hi] + suffix, utf8.RuneCountInString(prefix + line[lo:col])
}

// parseSample reads --sample: a byte count (0 or "" is the default sample), or "all" for every value.
func parseSample(s string) (int64, error) {
	if strings.EqualFold(s, "all") {
		return source.TypeEveryValue, nil
	}
	return parseBytes(s)
}

// parseBytes reads a byte count such as 1048576, 64M, 64MiB or 2GB; "" is 0 (the default budget).
func parseBytes(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1000}, {"MB", 1e6}, {"GB", 1e9},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, errors.New("want a positive byte count such as 268435456, 256MiB or 1G")
	}
	return n * mult, nil
}

// parseKnobs reads NAME=VALUE settings.
func parseKnobs(list []string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, kv := range list {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want NAME=VALUE", kv)
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %s is not a number", kv, val)
		}
		out[name] = f
	}
	return out, nil
}

func writeTrace(path string, events []trace.Event) error {
	f, err := createAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Commit()
}

func writeStats(path string, st *query.Stats) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	f, err := createAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(append(b, '\n')); err != nil {
		return err
	}
	return f.Commit()
}
