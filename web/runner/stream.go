package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/format"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/plan"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/sims/scenario"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

const (
	// FlushEvery is the longest the engine holds rows and events before posting them. The page renders at
	// most 10 times a second, so posting faster only makes it merge more; 50 ms keeps the stream looking live.
	FlushEvery = 50 * time.Millisecond
	// maxRowsPerMessage bounds one message's size, and the time the page's WebAssembly spends unpacking it
	// (a few milliseconds), when the engine produces rows faster than FlushEvery drains them. It is one scan
	// batch (source.BatchRows), so that a join's output, which comes a probe batch at a time, goes out about
	// a message per batch of input, each carrying the scan's progress; a larger batch (a sort's) is split.
	maxRowsPerMessage = source.BatchRows
	// maxEventsPerMessage bounds a message's trace events likewise. Past MaxStreamRows a fast join posts
	// only events, two per engine batch, and 50 ms of them made messages of 2,500 events (290 KB of JSON)
	// that the page decoded in one go for 40 ms and more, freezing it. The page reads a message whole before
	// it decodes its events a few dozen at a time (ui.Decode), about 10 ms for 250 events on a loaded
	// machine; 128 keep that read short.
	maxEventsPerMessage = 128
	// MaxStreamRows is how many rows a run sends the page. The table is virtualised, so the DOM does not
	// care, but each row costs the page memory; beyond this the page is told the count, not the rows.
	MaxStreamRows = 200_000
	// maxEventsPerRun bounds the trace events a run sends: a strategy may emit one per page or partition,
	// and views aggregate them anyway. Events past it are counted in Message.Dropped.
	maxEventsPerRun = 50_000
)

// The runner adds two kinds of events to the engine's own trace. They describe what the playground sees from
// outside the engine — rows read from each source (trace.ScanRows) and rows delivered (trace.RowsEmitted, Op
// protocol.OpOutput) — so every strategy's view, the hash join's included, has them even when the strategy
// emits nothing.

// Catalogue lists the scenarios registered in sims/scenario, then the playground's own, and the join
// strategies registered with the planner.
func Catalogue() *protocol.Catalogue {
	c := &protocol.Catalogue{}
	for _, name := range scenario.Names() {
		s, err := scenario.Get(name)
		if err != nil {
			continue
		}
		c.Scenarios = append(c.Scenarios, describe(s))
	}
	for _, s := range builtins {
		c.Scenarios = append(c.Scenarios, describe(s))
	}
	for _, name := range plan.StrategyNames() {
		c.Strategies = append(c.Strategies, protocol.Strategy{Name: name, Baseline: plan.IsBaseline(name)})
	}
	return c
}

func describe(s *scenario.Scenario) protocol.Scenario {
	d := protocol.Scenario{Name: s.Name, Title: s.Title, Description: s.Description, Query: s.Query,
		MemoryBudget: s.MemoryBudget}
	for _, k := range s.Knobs {
		d.Knobs = append(d.Knobs, protocol.Knob{Name: k.Name, Help: k.Help, Default: k.Default, Min: k.Min, Max: k.Max})
	}
	return d
}

// findScenario looks in sims/scenario first, then among the playground's own.
func findScenario(name string) (*scenario.Scenario, error) {
	if s, err := scenario.Get(name); err == nil {
		return s, nil
	}
	for _, s := range builtins {
		if s.Name == name {
			return s, nil
		}
	}
	names := scenario.Names()
	for _, s := range builtins {
		names = append(names, s.Name)
	}
	return nil, fmt.Errorf("unknown scenario %q (scenarios: %s)", name, strings.Join(names, ", "))
}

// Stream runs one query and posts what happens to post: a started message, batches of rows and trace events
// at most every FlushEvery, then done or error. post is called from the calling goroutine only. After each
// batch it calls yield, when not nil: in the browser that lets the event loop deliver a cancel.
func Stream(ctx context.Context, id int, run *protocol.Run, post func(protocol.Message), yield func()) {
	streamWith(ctx, realClock{}, nil, id, run, post, yield)
}

// Stream is runner.Stream over runs whose inputs may name the tables t holds.
func (t *Tables) Stream(ctx context.Context, id int, run *protocol.Run, post func(protocol.Message), yield func()) {
	streamWith(ctx, realClock{}, t, id, run, post, yield)
}

func streamWith(ctx context.Context, clock wallClock, tables *Tables, id int, run *protocol.Run, post func(protocol.Message), yield func()) {
	now := clock.Now()
	s := &stream{ctx: ctx, clock: clock, tables: tables, id: id, post: post, yield: yield, start: now, lastFlush: now}
	defer func() {
		if p := recover(); p != nil {
			s.fail(fmt.Errorf("internal error: %v", p))
		}
	}()
	if err := s.run(ctx, run); err != nil {
		s.fail(err)
	}
}

type stream struct {
	ctx    context.Context
	clock  wallClock
	tables *Tables // the user's loaded tables, which Inputs may name; nil when there are none
	// everyEvent lifts maxEventsPerRun, for a trace written to a file rather than sent to the page.
	everyEvent bool
	id         int
	post       func(protocol.Message)
	yield      func()
	start      time.Time

	postMu sync.Mutex // serialises flushes: a strategy may read its inputs from several goroutines
	// started is set, with postMu held, once the started message is posted; until then flush posts nothing
	// (protocol.Order: no batch before started), so what planning traces waits for the first batch after it.
	started   bool
	mu        sync.Mutex // guards what trace events (possibly from other goroutines) touch
	rows      [][]string
	events    []trace.Event
	sent      int64 // events sent this run
	dropped   int64
	lastFlush time.Time

	// planning is set while the query is planned: a strategy may read its inputs then, to measure them
	// (heavy keys, sizes), and those reads are reported apart from the run's.
	planning atomic.Bool
	// inserted are the hints forceStrategy added, to map an error's position back to the user's text.
	inserted []insertion
	rowsOut  int64
	streamed int64
	stats    *protocol.Stats
	strategy string

	// held is the wall time the page's gate kept the run (clock.go).
	held time.Duration
}

// Emit is the run's trace.Sink.
func (s *stream) Emit(e trace.Event) {
	s.mu.Lock()
	if c, ok := e.Payload.(trace.StrategyChose); ok {
		s.strategy = c.Strategy
	}
	if !s.everyEvent && s.sent+int64(len(s.events)) >= maxEventsPerRun {
		s.dropped++
	} else {
		s.events = append(s.events, e)
	}
	s.mu.Unlock()
}

// since is the engine's working time (clock.go), which the runner's own events carry.
func (s *stream) since() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.played()
}

func (s *stream) run(ctx context.Context, run *protocol.Run) error {
	if run == nil {
		return errors.New("run request without a run")
	}
	// Parse first, so a syntax error is located in the text the user wrote, not in the rewritten one.
	parsed, err := kql.Parse(run.Query)
	if err != nil {
		return err
	}
	text, inserted, err := forceStrategy(run.Query, parsed, run.Strategy)
	if err != nil {
		return err
	}
	s.inserted = inserted
	sources, budget, counted, err := s.sources(run)
	if err != nil {
		return err
	}
	inputs := map[string]int64{}
	for name, src := range sources {
		inputs[name] = int64(src.Rows())
		if counted {
			sources[name] = &countingSource{Source: src, sink: s}
		}
	}
	if run.MemoryBudget > 0 {
		budget = run.MemoryBudget
	}
	s.planning.Store(true)
	p, err := query.Prepare(ctx, text, sources, query.Options{MemoryBudget: budget, Trace: s})
	s.planning.Store(false)
	if err != nil {
		return err
	}
	var visible []int
	var names []string
	for i, f := range p.Columns() {
		if !f.Hidden {
			visible = append(visible, i)
			names = append(names, f.Name)
		}
	}
	strategies := p.Strategies()
	view, drawn := drawnJoin(strategies)
	s.begin(protocol.Message{Type: protocol.MessageStarted, ID: s.id, Columns: names, Explain: p.Explain(), Inputs: inputs,
		Arbitrary: arbitraryTake(parsed), Strategies: strategies, Strategy: drawn, View: view})
	st, err := p.Run(ctx, func(b *column.Batch) error {
		// An engine batch may hold more rows than a message (a sort's does): it goes out in parts of at most
		// maxRowsPerMessage rows, each with its rows_emitted event, and a message holds no more than that,
		// so that a paused run's Step (one message) brings the events the page shows moving on.
		for lo := 0; ; lo += maxRowsPerMessage {
			part := b
			if b.N > maxRowsPerMessage {
				part = b.Slice(lo, min(lo+maxRowsPerMessage, b.N))
			}
			if rows, _ := s.pending(); rows+part.N > maxRowsPerMessage {
				s.flush()
			}
			s.addRows(part, visible)
			if err := s.maybeFlush(ctx); err != nil || lo+maxRowsPerMessage >= b.N {
				return err
			}
		}
	})
	if st != nil {
		s.stats = &protocol.Stats{RowsOut: st.RowsOut, Batches: st.Batches, MemoryPeak: st.MemoryPeak,
			Budget: st.Budget, Details: st.Details, Requests: st.Requests, RequestsBySource: st.RequestsBySource,
			BytesShipped: st.BytesShipped, RowsScanned: st.RowsScanned, Retries: st.Retries,
			VirtualFirstRow: st.VirtualFirstRow, VirtualTotal: st.VirtualTotal}
	}
	if err != nil {
		return typedAfterRows(ctx, sources, err)
	}
	s.flush()
	s.stats.WallMillis = float64(s.since().Microseconds()) / 1000
	s.stats.Strategy = s.strategy
	s.post(protocol.Message{Type: protocol.MessageDone, ID: s.id, Stats: s.stats})
	return nil
}

// sources makes the run's tables: the scenario's, generated from seed and knobs, or the user's own. counted
// says whether the runner may wrap them to report scans: plain tables, yes; a sims scenario's sources may be
// connectors whose extra methods the planner looks for, and they trace their own requests.
func (s *stream) sources(run *protocol.Run) (srcs map[string]source.Source, budget int64, counted bool, err error) {
	if run.Scenario != "" {
		sc, err := findScenario(run.Scenario)
		if err != nil {
			return nil, 0, false, err
		}
		knobs, err := sc.Resolve(run.Knobs)
		if err != nil {
			return nil, 0, false, err
		}
		srcs, err := sc.Sources(run.Seed, knobs)
		if err != nil {
			return nil, 0, false, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		return srcs, sc.MemoryBudget, isBuiltin(sc), nil
	}
	srcs = make(map[string]source.Source, len(run.Sources))
	counted = true
	conns := &connectors{}
	// Sorted, so that with several bad sources the same one is reported each time.
	for _, name := range slices.Sorted(maps.Keys(run.Sources)) {
		in := run.Sources[name]
		var src source.Source
		var err error
		switch {
		case in.Table > 0:
			src, err = s.tables.source(s.ctx, in.Table, name)
		case in.Connector != nil:
			// A connector traces its own requests, and the planner looks for its methods: no wrapping.
			src, err = conns.open(name, in)
			counted = false
		default:
			src, err = parseInput(name, Input{Format: in.Format, Data: in.Data})
		}
		if err != nil {
			return nil, 0, false, err
		}
		srcs[name] = src
	}
	return srcs, 0, counted, nil
}

func (s *stream) addRows(b *column.Batch, visible []int) {
	s.rowsOut += int64(b.N)
	keep := min(int64(b.N), max(0, MaxStreamRows-s.streamed))
	rows := make([][]string, keep)
	for r := range rows {
		row := make([]string, len(visible))
		for i, c := range visible {
			if v := b.Cols[c]; v != nil {
				row[i] = format.Text(v, r)
			}
		}
		rows[r] = row
	}
	s.streamed += keep
	s.mu.Lock()
	s.rows = append(s.rows, rows...)
	s.mu.Unlock()
	s.Emit(trace.Event{At: s.since(), Op: protocol.OpOutput, Payload: trace.RowsEmitted{Rows: int64(b.N), Total: s.rowsOut}})
}

// maybeFlush posts a batch when FlushEvery has passed or enough rows or events wait; it also checks for
// cancellation there, after yielding, since the engine's own loops may not look at ctx often.
func (s *stream) maybeFlush(ctx context.Context) error {
	rows, events := s.pending()
	if rows < maxRowsPerMessage && events < maxEventsPerMessage && s.clock.Since(s.flushedAt()) < FlushEvery {
		return nil
	}
	s.flush()
	return ctx.Err()
}

// begin posts the started message; from then on flush posts batches.
func (s *stream) begin(m protocol.Message) {
	s.postMu.Lock()
	defer s.postMu.Unlock()
	s.post(m)
	s.started = true
}

// flush posts the rows and events gathered since the last flush, events in messages of at most
// maxEventsPerMessage (the reads while planning may have gathered more), then yields. Before the started
// message it posts nothing and keeps what it has, only yielding, so that a cancel still gets in.
func (s *stream) flush() {
	s.postMu.Lock()
	defer s.postMu.Unlock()
	s.mu.Lock()
	s.lastFlush = s.clock.Now()
	if !s.started {
		s.mu.Unlock()
		s.yieldToPage()
		return
	}
	rows, events, dropped := s.rows, s.events, s.dropped
	s.rows, s.events, s.dropped = nil, nil, 0
	s.sent += int64(len(events))
	s.mu.Unlock()
	if len(rows) > 0 || len(events) > 0 || dropped > 0 {
		// A run of zero-column rows would pack to "" like no rows at all; such queries are not expressible.
		m := protocol.Message{Type: protocol.MessageBatch, ID: s.id, Rows: protocol.PackRows(rows), Dropped: dropped}
		for len(events) > maxEventsPerMessage {
			m.Events, events = events[:maxEventsPerMessage], events[maxEventsPerMessage:]
			s.post(m)
			m = protocol.Message{Type: protocol.MessageBatch, ID: s.id}
		}
		m.Events = events
		s.post(m)
	}
	s.yieldToPage()
}

// yieldToPage calls yield, counting the time it held the run as the page's. s.postMu must be held.
func (s *stream) yieldToPage() {
	if s.yield == nil {
		return
	}
	t0 := s.clock.Since(s.start)
	s.yield()
	held := s.clock.Since(s.start) - t0
	s.mu.Lock()
	s.held += held
	s.mu.Unlock()
}

// pending is how many rows and trace events wait for the next flush.
func (s *stream) pending() (rows, events int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rows), len(s.events)
}

func (s *stream) flushedAt() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastFlush
}

// fail posts what was gathered, then the error, with the position of a query error.
func (s *stream) fail(err error) {
	s.flush()
	e := &protocol.Error{Message: err.Error(), Canceled: errors.Is(err, context.Canceled)}
	var list kql.ErrorList
	var one *kql.Error
	switch {
	case errors.As(err, &list) && len(list) > 0:
		e.Line, e.Col = list[0].Pos.Line, list[0].Pos.Col
	case errors.As(err, &one):
		e.Line, e.Col = one.Pos.Line, one.Pos.Col
	}
	if col := userColumn(e.Line, e.Col, s.inserted); col != e.Col {
		old := fmt.Sprintf("%d:%d", e.Line, e.Col)
		e.Col = col
		e.Message = strings.Replace(e.Message, old, fmt.Sprintf("%d:%d", e.Line, col), 1)
	}
	s.post(protocol.Message{Type: protocol.MessageError, ID: s.id, Error: e, Stats: s.stats})
}

// insertion is text forceStrategy added: at byte column Col of line Line of the user's text, Len bytes.
type insertion struct{ Line, Col, Len int }

// userColumn maps a column of the rewritten query back to the user's text: every hint inserted earlier on
// the same line moved it right. A column inside an inserted hint maps to the join keyword it follows.
func userColumn(line, col int, inserted []insertion) int {
	shift := 0
	for _, in := range inserted { // sorted by line, then column
		if in.Line != line {
			continue
		}
		start := in.Col + shift // where the insertion begins in the rewritten line
		switch {
		case col >= start+in.Len:
			shift += in.Len
		case col >= start:
			return in.Col - len(joinKeyword)
		}
	}
	return col - shift
}

var strategyName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

const joinKeyword = "join"

// forceStrategy adds hint.strategy=name after the keyword of every join in parsed that names no strategy
// itself, and says where, sorted by position. Positions are byte columns on their line.
func forceStrategy(text string, parsed *kql.Query, name string) (string, []insertion, error) {
	if name == "" {
		return text, nil, nil
	}
	if !strategyName.MatchString(name) {
		return "", nil, fmt.Errorf("bad strategy name %q", name)
	}
	var joins []kql.Pos
	var walk func(q *kql.Query)
	walk = func(q *kql.Query) {
		for _, op := range q.Ops {
			j, ok := op.(*kql.Join)
			if !ok {
				continue
			}
			named := false
			for _, p := range j.Params {
				named = named || strings.EqualFold(p.Name, "hint.strategy")
			}
			if !named {
				joins = append(joins, j.Pos)
			}
			walk(j.Right)
		}
	}
	walk(parsed)
	slices.SortFunc(joins, func(a, b kql.Pos) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	hint := " hint.strategy=" + name
	if strings.ContainsRune(name, '-') {
		// A bare value is one identifier, which has no '-' (keyset-lt would lex as keyset minus lt): quote it.
		hint = ` hint.strategy="` + name + `"`
	}
	lines := strings.SplitAfter(text, "\n")
	var inserted []insertion
	// Insert from the last join back, so the positions still to use stay right.
	for i := len(joins) - 1; i >= 0; i-- {
		pos := joins[i]
		line := lines[pos.Line-1]
		at := pos.Col - 1 + len(joinKeyword)
		if at > len(line) || !strings.EqualFold(line[pos.Col-1:at], joinKeyword) {
			return "", nil, fmt.Errorf("strategy: no join keyword at %s", pos)
		}
		lines[pos.Line-1] = line[:at] + hint + line[at:]
		inserted = append(inserted, insertion{Line: pos.Line, Col: at + 1, Len: len(hint)})
	}
	slices.Reverse(inserted)
	return strings.Join(lines, ""), inserted, nil
}

// countingSource reports every batch read from a source as a trace.ScanRows event.
type countingSource struct {
	source.Source
	sink  *stream
	scans int
}

func (c *countingSource) Scan(ctx context.Context, cols []column.Field) source.Iterator {
	c.scans++
	return &countingIter{it: c.Source.Scan(ctx, cols), src: c, scan: c.scans}
}

// Sampled and TypeAll let a run type a counted table from every value when a scan meets a value its sample's
// types cannot hold (engine/query), as it would the table itself; a source that is not typed from a sample
// reports false, and has nothing to type.
func (c *countingSource) Sampled() bool {
	s, ok := c.Source.(source.Sampled)
	return ok && s.Sampled()
}

func (c *countingSource) TypeAll(ctx context.Context) error {
	if s, ok := c.Source.(source.Sampled); ok {
		return s.TypeAll(ctx)
	}
	return nil
}

var _ source.Sampled = (*countingSource)(nil)

type countingIter struct {
	it    source.Iterator
	src   *countingSource
	scan  int
	total int64
}

func (c *countingIter) Next(ctx context.Context) (*column.Batch, error) {
	// A join may read for a long time before its first output row (a hash join's build side, a nested
	// loop's passes); flushing here too keeps the trace live and lets a cancel in.
	if s := c.src.sink; s.clock.Since(s.flushedAt()) >= FlushEvery {
		s.flush()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	b, err := c.it.Next(ctx)
	if b != nil && b.N > 0 {
		c.total += int64(b.N)
		name := c.src.Name()
		phase := "run"
		if c.src.sink.planning.Load() {
			phase = "plan"
		}
		c.src.sink.Emit(trace.Event{At: c.src.sink.since(), Op: "scan:" + name,
			Payload: trace.ScanRows{Source: name, Rows: int64(b.N), Total: c.total, Scan: c.scan, Phase: phase}})
	}
	return b, err
}
