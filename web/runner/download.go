package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/joinlab/joinlab/engine/format"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// DownloadName is the file name a download of the given format is offered under.
func DownloadName(f string) string {
	switch f {
	case protocol.DownloadCSV:
		return "joinlab-results.csv"
	case protocol.DownloadTrace:
		return "joinlab-trace.jsonl"
	}
	return "joinlab-results.jsonl"
}

// Download runs run again, flat out and whole (no playback speed, no pause, no row cap), and writes its
// output to w: every row as CSV or JSON lines (engine/format, as the command line writes them), or, for
// protocol.DownloadTrace, every trace event of the run as one JSON object per line — the engine's and the
// runner's own (scans, rows delivered), as the page gets them, but none dropped. A run is a function of its
// query, sources and settings, so the file holds the rows the page showed, and all of them.
func (t *Tables) Download(ctx context.Context, run *protocol.Run, f string, w io.Writer) error {
	if run == nil {
		return fmt.Errorf("download: no run")
	}
	switch f {
	case protocol.DownloadCSV, protocol.DownloadJSONL, protocol.DownloadTrace:
	default:
		return fmt.Errorf("download: unknown format %q (want csv, jsonl or trace)", f)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	again := *run
	again.PauseAfter = 0
	if f == protocol.DownloadTrace {
		if err := t.writeTrace(ctx, &again, bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	parsed, err := kql.Parse(run.Query)
	if err != nil {
		return err
	}
	text, _, err := forceStrategy(run.Query, parsed, run.Strategy)
	if err != nil {
		return err
	}
	s := &stream{ctx: ctx, tables: t}
	sources, budget, _, err := s.sources(run)
	if err != nil {
		return err
	}
	if run.MemoryBudget > 0 {
		budget = run.MemoryBudget
	}
	p, err := query.Prepare(ctx, text, sources, query.Options{MemoryBudget: budget})
	if err != nil {
		return err
	}
	fw, err := format.New(bw, f, p.Columns())
	if err != nil {
		return err
	}
	if _, err := p.Run(ctx, fw.Write); err != nil {
		return typedAfterRows(ctx, sources, err)
	}
	if err := fw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// writeTrace runs run as the page's runs stream, with the runner's own events (scans, rows delivered)
// beside the engine's and none dropped, and writes every event as a JSON line.
func (t *Tables) writeTrace(ctx context.Context, run *protocol.Run, w io.Writer) error {
	var werr error
	var failed *protocol.Error
	now := time.Now()
	s := &stream{ctx: ctx, clock: realClock{}, tables: t, start: now, lastFlush: now, everyEvent: true}
	s.post = func(m protocol.Message) {
		if m.Type == protocol.MessageError {
			failed = m.Error
		}
		for _, e := range m.Events {
			b, err := json.Marshal(e)
			if err == nil {
				_, err = w.Write(append(b, '\n'))
			}
			if err != nil && werr == nil {
				werr = fmt.Errorf("trace: %s: %w", e.Kind(), err)
			}
		}
	}
	if err := s.run(ctx, run); err != nil {
		return err
	}
	if failed != nil {
		return errors.New(failed.Message)
	}
	return werr
}
