package walkthrough

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/format"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/spill"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/sims/clock"
	"github.com/joinlab/joinlab/sims/dataset"
	"github.com/joinlab/joinlab/sims/profile"
	"github.com/joinlab/joinlab/sims/scenario"
	"github.com/joinlab/joinlab/sims/service"
)

// Run is one engine run that steps pause in: a query over inline sources, a scenario's sources, or both (an
// inline source replaces the scenario's table of the same name).
type Run struct {
	// Query is the KQL text; empty means the scenario's own query.
	Query string `json:"query,omitempty"`
	// Sources are small tables written into the walkthrough, by the name used after '@'.
	Sources map[string]*InlineSource `json:"sources,omitempty"`
	// Scenario, Seed and Knobs generate tables from the scenario catalogue (sims/scenario).
	Scenario string             `json:"scenario,omitempty"`
	Seed     uint64             `json:"seed,omitempty"`
	Knobs    map[string]float64 `json:"knobs,omitempty"`
	// MemoryBudget is the run's budget in bytes (0: the scenario's, else the engine's default).
	MemoryBudget int64 `json:"memory_budget,omitempty"`
}

// InlineSource is a table written out in the walkthrough: CSV with a header line, or JSON lines.
type InlineSource struct {
	Format string   `json:"format"`
	Lines  []string `json:"lines"`
	// Connector, when set, puts the table behind a simulated connector with a profile's caps (sims/service),
	// so a story can show requests, caps and dynamic filters on rows it prints in full.
	Connector *ConnectorSpec `json:"connector,omitempty"`
}

// ConnectorSpec is the simulated service an inline table sits behind: a profile (sims/profile) with any of
// its caps overridden, and the table's tie-free order (columns, "desc" after a name for descending).
type ConnectorSpec struct {
	Profile       string   `json:"profile"`
	Key           []string `json:"key"`
	MaxRows       int      `json:"max_rows,omitempty"`
	MaxBytes      int64    `json:"max_bytes,omitempty"`
	MaxInValues   int      `json:"max_in_values,omitempty"`
	MaxQueryBytes int      `json:"max_query_bytes,omitempty"`
}

func (r *Run) checkStructure() error {
	if r.Scenario == "" && len(r.Sources) == 0 {
		return fmt.Errorf("a run needs \"sources\" or a \"scenario\"")
	}
	if r.Scenario == "" && r.Query == "" {
		return fmt.Errorf("a run over inline sources needs a \"query\"")
	}
	if r.Scenario == "" && (r.Seed != 0 || len(r.Knobs) > 0) {
		return fmt.Errorf("\"seed\" and \"knobs\" belong to a \"scenario\"")
	}
	for name, s := range r.Sources {
		if s.Format != "csv" && s.Format != "jsonl" {
			return fmt.Errorf("source %s: \"format\" must be csv or jsonl, not %q", name, s.Format)
		}
		if len(s.Lines) == 0 {
			return fmt.Errorf("source %s: no \"lines\"", name)
		}
		if c := s.Connector; c != nil && (c.Profile == "" || len(c.Key) == 0) {
			return fmt.Errorf("source %s: a connector needs a \"profile\" and a tie-free \"key\"", name)
		}
	}
	return nil
}

// runTimeout bounds one run, so an engine change that makes a story loop forever fails with the run named
// instead of hanging the test binary. The largest run here takes well under a second.
const runTimeout = 2 * time.Minute

// outcome is what one run produced: everything a fact may speak of.
type outcome struct {
	query   string
	events  []trace.Event
	columns []string
	rows    []map[string]any // each row as its JSON line decodes (numbers as json.Number)
	details map[string]any   // normalised through JSON like the rows
	explain string
	err     error // the run's error (a fact may expect one)
	sources map[string]*InlineSource
}

// execute runs r through engine/query with a trace recorder.
func (r *Run) execute() (*outcome, error) {
	srcs := map[string]source.Source{}
	text, budget := r.Query, r.MemoryBudget
	if r.Scenario != "" {
		sc, err := scenario.Get(r.Scenario)
		if err != nil {
			return nil, err
		}
		knobs, err := sc.Resolve(r.Knobs)
		if err != nil {
			return nil, err
		}
		if srcs, err = sc.Sources(r.Seed, knobs); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", r.Scenario, err)
		}
		if text == "" {
			text = sc.Query
		}
		if budget == 0 {
			budget = sc.MemoryBudget
		}
	}
	var clk *clock.Virtual // one clock for every connector of the run, as in a scenario
	for name, s := range r.Sources {
		src, err := s.open(name, &clk)
		if err != nil {
			return nil, err
		}
		srcs[name] = src
	}
	out := &outcome{query: text, sources: r.Sources}
	rec := &trace.Recorder{}
	p, err := query.Prepare(context.Background(), text, srcs, query.Options{MemoryBudget: budget, Trace: rec, SpillDir: spill.Memory})
	if err != nil {
		out.err = err
		return out, nil
	}
	out.explain = p.Explain()
	for _, f := range p.Columns() {
		if !f.Hidden {
			out.columns = append(out.columns, f.Name)
		}
	}
	var buf bytes.Buffer
	w, err := format.New(&buf, "jsonl", p.Columns())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	st, err := p.Run(ctx, func(b *column.Batch) error { return w.Write(b) })
	if ferr := w.Close(); err == nil {
		err = ferr
	}
	out.err = err
	out.events = rec.Events()
	if out.details, err = normalise(st.Details); err != nil {
		return nil, fmt.Errorf("details: %w", err)
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		row, err := decodeObject(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("result row %d: %w", len(out.rows)+1, err)
		}
		out.rows = append(out.rows, row)
	}
	return out, sc.Err()
}

// open parses the inline table, behind a simulated connector when asked.
func (s *InlineSource) open(name string, clk **clock.Virtual) (source.Source, error) {
	data := []byte(strings.Join(s.Lines, "\n") + "\n")
	var src source.Source
	var err error
	if s.Format == "csv" {
		src, err = source.FromCSV(name, data)
	} else {
		src, err = source.FromJSONL(name, data)
	}
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", name, err)
	}
	c := s.Connector
	if c == nil {
		return src, nil
	}
	prof, err := profile.Get(c.Profile)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", name, err)
	}
	if c.MaxRows > 0 {
		prof.Caps.MaxRows = c.MaxRows
	}
	if c.MaxBytes > 0 {
		prof.Caps.MaxBytes = c.MaxBytes
	}
	if c.MaxInValues > 0 {
		prof.Caps.MaxInValues = c.MaxInValues
	}
	if c.MaxQueryBytes > 0 {
		prof.Caps.MaxQueryBytes = c.MaxQueryBytes
	}
	schema := src.Schema(nil)
	t := column.NewTable(schema)
	it := src.Scan(context.Background(), schema)
	for {
		b, err := it.Next(context.Background())
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", name, err)
		}
		if b == nil {
			break
		}
		t.Append(b)
	}
	info := connector.TableInfo{Name: name, Schema: schema, Rows: int64(t.N)}
	for _, k := range c.Key {
		col, dir, _ := strings.Cut(strings.TrimSpace(k), " ")
		if dir != "" && dir != "desc" && dir != "asc" {
			return nil, fmt.Errorf("source %s: key %q: the direction is asc or desc", name, k)
		}
		info.Key = append(info.Key, connector.OrderKey{Column: col, Desc: dir == "desc"})
	}
	if *clk == nil {
		*clk = clock.New()
	}
	svc, err := service.New(prof, *clk, 1, dataset.NewMemTable(info, t))
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", name, err)
	}
	return svc.Source(name, info, 1)
}

// normalise passes v through JSON, so the engine's int64s and the file's numbers compare alike.
func normalise(v map[string]any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeObject(data)
}

// eventFields is an event's payload as a generic object, through JSON like the rows: its fields by their
// json names, as a script's patterns name them.
func eventFields(e trace.Event) (map[string]any, error) {
	data, err := json.Marshal(e.Payload)
	if err != nil {
		return nil, err
	}
	return decodeObject(data)
}

func decodeObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}
