// Package query is the engine's front door: it parses a KQL query, plans it against named sources and runs it.
package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// Prepared is a parsed, planned query, ready to run any number of times (one run at a time).
type Prepared struct {
	query   *kql.Query
	sources map[string]source.Source
	plan    *plan.Plan
	opts    Options
}

// Prepare parses text and plans it against sources (keyed by the name used after '@'). Errors about the query
// carry their position (kql.ErrorList or *kql.Error). Planning may read the sources (a strategy's statistics,
// such as the salted join's skew sample); ctx stops those reads, and their errors are Prepare's.
//
// A file typed from a sample (source.Sampled) may have columns or types its sample did not show, so a query
// that fails to plan against one is planned again once every sampled source is typed from every value; the
// error, if it stays, is the one the whole files give.
func Prepare(ctx context.Context, text string, sources map[string]source.Source, opts Options) (*Prepared, error) {
	q, err := kql.Parse(text)
	if err != nil {
		return nil, err
	}
	p := &Prepared{query: q, sources: sources, opts: opts}
	if err := p.build(ctx); err != nil {
		typed, terr := typeAll(ctx, sources, "")
		if terr != nil {
			return nil, terr
		}
		if !typed {
			return nil, err
		}
		if err := p.build(ctx); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *Prepared) build(ctx context.Context) error {
	pl, err := plan.Build(ctx, p.query, p.sources, plan.Options{MemoryBudget: p.opts.MemoryBudget})
	if err == nil {
		p.plan = pl
	}
	return err
}

// typeAll types from every value the sampled sources (all of them, or the one named name) and reports whether
// there was one to type.
func typeAll(ctx context.Context, sources map[string]source.Source, name string) (bool, error) {
	typed := false
	for _, src := range sources {
		s, ok := src.(source.Sampled)
		if !ok || !s.Sampled() || (name != "" && s.Name() != name) {
			continue
		}
		if err := s.TypeAll(ctx); err != nil {
			return typed, err
		}
		typed = true
	}
	return typed, nil
}

// Columns is the output schema.
func (p *Prepared) Columns() column.Schema { return p.plan.Schema() }

// Strategies names the join strategies the plan runs, one per join, outermost first (none for a query
// without joins): the strategy_chose event lists the same when the run starts.
func (p *Prepared) Strategies() []string {
	if s := p.plan.Strategies(); s != "" {
		return strings.Split(s, ",")
	}
	return nil
}

// Explain describes the logical and physical plans.
func (p *Prepared) Explain() string { return p.plan.Explain() }

// Stats are the figures of one run, with the same names for every strategy (strategy-specific figures are
// under Details). Request, byte and virtual-time figures come from simulated or remote sources and are zero for
// local files.
type Stats struct {
	Strategy         string           `json:"strategy"`
	RowsOut          int64            `json:"rows_out"`
	Batches          int64            `json:"batches"`
	Requests         int64            `json:"requests"`
	RequestsBySource map[string]int64 `json:"requests_by_source"`
	BytesShipped     int64            `json:"bytes_shipped"`
	RowsScanned      int64            `json:"rows_scanned"`
	Retries          int64            `json:"retries"`
	// VirtualFirstRow and VirtualTotal are in virtual milliseconds: the simulated sources' clock when the first
	// row was emitted and when the run ended.
	VirtualFirstRow float64       `json:"virtual_ms_first_row"`
	VirtualTotal    float64       `json:"virtual_ms_total"`
	MemoryPeak      int64         `json:"peak_memory_bytes"`
	Budget          int64         `json:"memory_budget_bytes"`
	Elapsed         time.Duration `json:"elapsed_ns"`
	// Details are the strategies' own figures (partitions, heavy keys, pages…), keyed as each documents.
	Details map[string]any `json:"details"`
}

// Detail keys that Stats lifts to its top level (they are the connectors' figures: see engine/connector).
const (
	detailRequests     = "requests"
	detailRequestsOf   = "requests@"
	detailBytesShipped = "bytes_shipped"
	detailRowsScanned  = "rows_scanned"
	detailRetries      = "retries"
)

// Run executes the query, passing each output batch to emit in order. Stats are returned even on error. When
// Run returns, however the run ended (its end, an error, a cancelled ctx), everything it spilled is removed.
//
// A scan that finds a value its file's sampled types cannot hold (*source.RetypeError) ends the run; when no
// row had been emitted yet, the file is typed from every value, the query planned again and run from the start,
// so the answer is the one typing the whole file first gives (its trace then holds both runs' events). Rows
// already emitted cannot be taken back: the run then fails with the error.
func (p *Prepared) Run(ctx context.Context, emit func(*column.Batch) error) (*Stats, error) {
	for {
		st, err := p.run(ctx, emit)
		var re *source.RetypeError
		if !errors.As(err, &re) {
			return st, err
		}
		if st.Batches > 0 {
			return st, fmt.Errorf("query: %w; %d rows were already returned typed from the sample, so the run stops (typing the file from every value gives the whole answer)", err, st.RowsOut)
		}
		typed, terr := typeAll(ctx, p.sources, re.Source)
		if terr != nil {
			return st, terr
		}
		if !typed {
			return st, err
		}
		if err := p.build(ctx); err != nil {
			return st, err
		}
	}
}

func (p *Prepared) run(ctx context.Context, emit func(*column.Batch) error) (_ *Stats, err error) {
	start := time.Now()
	// The run owns its spill space: operators that stop early (take, an error elsewhere in the plan) never see
	// their end, so their stores are removed here, before Run returns, not by whichever operator made them.
	space := spill.NewSpace(p.opts.SpillDir)
	defer func() {
		if cerr := space.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("query: %w", cerr)
		}
	}()
	budget := memory.NewBudget(p.opts.MemoryBudget)
	// The budget travels in ctx too, so a file's scan counts the chunks it reads ahead against it.
	ctx, cancel := context.WithCancel(memory.NewContext(spill.WithSpace(ctx, space), budget))
	defer cancel()
	env := exec.NewEnv(budget, p.opts.Trace)
	st := &Stats{Budget: budget.Limit()}
	if sink := p.opts.Trace; sink != nil {
		// The two events every run emits (trace.KindStrategyChose, and the budget's memory.HighWater), at the
		// virtual time they happen.
		now := func() time.Duration { return time.Duration(env.Details.Int(trace.VirtualNanos)) }
		if s := p.plan.Strategies(); s != "" {
			first, _, _ := strings.Cut(s, ",")
			sink.Emit(trace.Event{At: now(), Op: "plan",
				Payload: trace.StrategyChose{Strategy: first, Strategies: s, Reason: p.plan.Reason()}})
		}
		budget.Trace(sink, now)
		defer budget.ReportPeak()
	}
	op, err := p.plan.Open(ctx, env)
	if err == nil {
		err = exec.Drain(ctx, op, func(b *column.Batch) error {
			if st.RowsOut == 0 {
				st.VirtualFirstRow = float64(env.Details.Int(trace.VirtualNanos)) / 1e6
			}
			st.RowsOut += int64(b.N)
			st.Batches++
			return emit(b)
		})
	}
	st.MemoryPeak = budget.Peak()
	st.Strategy = p.plan.Strategies()
	st.VirtualTotal = float64(env.Details.Int(trace.VirtualNanos)) / 1e6
	st.Details = env.Details.Map()
	st.RequestsBySource = map[string]int64{}
	for k, v := range st.Details {
		n, _ := v.(int64)
		switch {
		case k == detailRequests:
			st.Requests = n
		case strings.HasPrefix(k, detailRequestsOf):
			st.RequestsBySource[strings.TrimPrefix(k, detailRequestsOf)] = n
		case k == detailBytesShipped:
			st.BytesShipped = n
		case k == detailRowsScanned:
			st.RowsScanned = n
		case k == detailRetries:
			st.Retries = n
		}
	}
	st.Elapsed = time.Since(start)
	return st, err
}
