// Package runner runs playground queries. Stream is what the engine's Web Worker (wasm/engine) calls: it
// turns a protocol.Run — a sims scenario with its seed and knobs, the playground's own generated scenario, or
// the user's own tables, which Tables holds parsed (tables.go) — into engine sources, runs the query and
// posts the output and the trace in batches (web/runner/protocol); Tables.Download writes a run's whole
// output as a file. Run is the same in one blocking call returning JSON rows, for callers that want a whole
// answer. Nothing here uses syscall/js, so all of it is tested natively and under js/wasm.
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/joinlab/joinlab/engine/format"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/source"
)

// MaxRows is how many output rows a result carries. The page renders every row it gets, and a few thousand
// table rows already take the browser noticeable time to lay out; Total still counts them all.
const MaxRows = 5000

// Input is one named source as the page sends it.
type Input struct {
	// Format is "jsonl" (one JSON object per line) or "csv" (with a header row).
	Format string `json:"format"`
	Data   string `json:"data"`
}

// Result is the outcome of one query. Exactly one of Error and Columns is set.
type Result struct {
	Columns []string `json:"columns,omitempty"`
	// Rows are the first MaxRows output rows, each a JSON object keyed by column name.
	Rows      []json.RawMessage `json:"rows,omitempty"`
	Total     int64             `json:"total"`
	Truncated bool              `json:"truncated,omitempty"`
	// Error is the engine's message; a query error carries its position ("1:18: expected …").
	Error string `json:"error,omitempty"`
}

// Run parses inputs, runs text against them and returns the result; a failure is reported in Result.Error.
// A panic in the engine is reported there too: in the browser it would otherwise end the Go program, and the
// page with it.
func Run(ctx context.Context, text string, inputs map[string]Input) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = Result{Error: fmt.Sprintf("internal error: %v", p)}
		}
	}()
	res, err := run(ctx, text, inputs)
	if err != nil {
		return Result{Error: err.Error()}
	}
	return res
}

// RunJSON is Run for callers that speak JSON: sourcesJSON is an object of Inputs keyed by source name
// ({"Users": {"format": "jsonl", "data": "…"}}), and the result is a Result as JSON.
func RunJSON(ctx context.Context, text, sourcesJSON string) string {
	var inputs map[string]Input
	var res Result
	if err := json.Unmarshal([]byte(sourcesJSON), &inputs); err != nil {
		res = Result{Error: fmt.Sprintf("sources: %v", err)}
	} else {
		res = Run(ctx, text, inputs)
	}
	out, err := json.Marshal(res)
	if err != nil {
		// Rows are validated as they are collected, so this means a bug here, not bad input.
		out, _ = json.Marshal(Result{Error: fmt.Sprintf("runner: encode result: %v", err)})
	}
	return string(out)
}

func run(ctx context.Context, text string, inputs map[string]Input) (Result, error) {
	sources := make(map[string]source.Source, len(inputs))
	// Sorted, so that with several bad sources the same one is reported each time.
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		src, err := parseInput(name, inputs[name])
		if err != nil {
			return Result{}, err
		}
		sources[name] = src
	}
	p, err := query.Prepare(ctx, text, sources, query.Options{})
	if err != nil {
		return Result{}, err
	}
	rows := &rowCollector{max: MaxRows}
	w, err := format.New(rows, "jsonl", p.Columns())
	if err != nil {
		return Result{}, err
	}
	if _, err := p.Run(ctx, w.Write); err != nil {
		return Result{}, err
	}
	if err := w.Close(); err != nil {
		return Result{}, err
	}
	if err := rows.flush(); err != nil {
		return Result{}, err
	}
	cols := []string{}
	for _, f := range p.Columns().Visible() {
		cols = append(cols, f.Name)
	}
	return Result{Columns: cols, Rows: rows.rows, Total: rows.total, Truncated: rows.total > int64(len(rows.rows))}, nil
}

// parseInput reads one pasted or loaded table.
func parseInput(name string, in Input) (source.Source, error) {
	var (
		src source.Source
		err error
	)
	switch in.Format {
	case "jsonl", "":
		src, err = source.FromJSONL(name, []byte(in.Data))
	case "csv":
		src, err = source.FromCSV(name, []byte(in.Data))
	default:
		err = fmt.Errorf("unknown format %q (want jsonl or csv)", in.Format)
	}
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", name, err)
	}
	return src, nil
}

// rowCollector is the io.Writer under the JSON-lines formatter: it splits what it is given into lines, keeps
// the first max of them as rows and counts the rest.
type rowCollector struct {
	max     int
	rows    []json.RawMessage
	total   int64
	pending []byte // the start of a line not yet ended by '\n'
}

func (c *rowCollector) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.pending = append(c.pending, p...)
			break
		}
		line := p[:i]
		if len(c.pending) > 0 {
			line = append(c.pending, line...)
			c.pending = c.pending[:0]
		}
		if err := c.add(line); err != nil {
			return 0, err
		}
		p = p[i+1:]
	}
	return n, nil
}

// flush adds a last line that had no '\n' after it.
func (c *rowCollector) flush() error {
	line := c.pending
	c.pending = nil
	return c.add(line)
}

func (c *rowCollector) add(line []byte) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	c.total++
	if len(c.rows) >= c.max {
		return nil
	}
	if !json.Valid(line) {
		return fmt.Errorf("runner: row %d is not JSON: %.80q", c.total, line)
	}
	c.rows = append(c.rows, json.RawMessage(bytes.Clone(line)))
	return nil
}
