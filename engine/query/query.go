// Package query is the engine's front door: it parses a KQL query, plans it against named sources and runs it.
package query

import (
	"context"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/plan"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/spill"
	"github.com/joinlab/joinlab/engine/trace"
)

// Options tune one query.
type Options struct {
	// MemoryBudget caps the bytes of rows the query may hold at once; 0 means memory.DefaultBudget.
	MemoryBudget int64
	// Trace receives the run's events; nil discards them.
	Trace trace.Sink
	// SpillDir is where operators that spill (the Grace join) make their temporary folder: "" for the
	// system's temporary folder, spill.Memory for pages kept in memory (the browser's only choice).
	SpillDir string
}

// Prepared is a parsed, planned query, ready to run any number of times.
type Prepared struct {
	plan *plan.Plan
	opts Options
}

// Prepare parses text and plans it against sources (keyed by the name used after '@'). Errors about the query
// carry their position (kql.ErrorList or *kql.Error).
func Prepare(text string, sources map[string]source.Source, opts Options) (*Prepared, error) {
	q, err := kql.Parse(text)
	if err != nil {
		return nil, err
	}
	p, err := plan.Build(q, sources, plan.Options{MemoryBudget: opts.MemoryBudget})
	if err != nil {
		return nil, err
	}
	return &Prepared{plan: p, opts: opts}, nil
}

// Columns is the output schema.
func (p *Prepared) Columns() column.Schema { return p.plan.Schema() }

// Explain describes the logical and physical plans.
func (p *Prepared) Explain() string { return p.plan.Explain() }

// Stats are the figures of one run.
type Stats struct {
	RowsOut    int64         `json:"rows_out"`
	Batches    int64         `json:"batches"`
	MemoryPeak int64         `json:"memory_peak_bytes"`
	Budget     int64         `json:"memory_budget_bytes"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	// Details are the strategies' own figures (partitions, heavy keys, pages…), keyed as each documents.
	Details map[string]any `json:"details"`
}

// Run executes the query, passing each output batch to emit in order. Stats are returned even on error.
func (p *Prepared) Run(ctx context.Context, emit func(*column.Batch) error) (*Stats, error) {
	start := time.Now()
	// The run's context ends with the run, so whatever an operator spilled is removed even when the run stops
	// early (take, an emit error) without the operator seeing its end.
	ctx, cancel := context.WithCancel(spill.WithDir(ctx, p.opts.SpillDir))
	defer cancel()
	budget := memory.NewBudget(p.opts.MemoryBudget)
	env := exec.NewEnv(budget, p.opts.Trace)
	st := &Stats{Budget: budget.Limit()}
	op, err := p.plan.Open(ctx, env)
	if err == nil {
		err = exec.Drain(ctx, op, func(b *column.Batch) error {
			st.RowsOut += int64(b.N)
			st.Batches++
			return emit(b)
		})
	}
	st.MemoryPeak = budget.Peak()
	st.Details = env.Details.Map()
	st.Elapsed = time.Since(start)
	return st, err
}
