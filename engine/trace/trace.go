// Package trace carries what the engine does, as it does it, to whoever watches: the playground animates these
// events, the command line can write them as JSON lines, and tests assert on them.
//
// An event is typed: its Payload is one Go struct per kind (joinevent.PageFetched is a page the paged join
// fetched, with its page number, rows and re-fetch window), declared beside the strategy that emits it, in a small
// package of its own that imports nothing but this one (engine/join/joinevent, engine/connector/connevent…), so
// the page can decode and fold events without carrying the engine. engine/trace/registry lists every kind in one
// place and holds the compact codec that carries events from the engine's worker to the page. Events carry the
// virtual time at which they happen when the engine runs against simulated sources (zero natively), so a run
// is the same on every machine.
package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Kind names an event type, as it is written in JSON lines and matched by walkthrough scripts. Each payload
// type returns its own constant kind.
type Kind string

// Payload is one kind of event's figures. Its exported fields, with their json tags, are the event's
// attributes: the JSON-lines trace writes them as "attrs", and Attrs gives them as a generic map.
type Payload interface {
	Kind() Kind
}

// Event is one thing that happened: when (At, virtual time), in which operator (Op, e.g. "join#1" or
// "scan@Okta"), and what (Payload, never nil).
type Event struct {
	At      time.Duration
	Op      string
	Payload Payload
}

// Kind is the kind of the event's payload.
func (e Event) Kind() Kind {
	if e.Payload == nil {
		return ""
	}
	return e.Payload.Kind()
}

// jsonEvent is an event's JSON-lines shape (docs: the command line's --trace): kind, at_ns, op and the
// payload's fields as attrs.
type jsonEvent struct {
	Kind  Kind            `json:"kind"`
	At    time.Duration   `json:"at_ns"`
	Op    string          `json:"op,omitempty"`
	Attrs json.RawMessage `json:"attrs,omitempty"`
}

// MarshalJSON writes the event in its JSON-lines shape. Decoding it needs the registry of kinds
// (engine/trace/registry.UnmarshalEvent).
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Payload == nil {
		return nil, fmt.Errorf("trace: event at %v in %q has no payload", e.At, e.Op)
	}
	attrs, err := json.Marshal(e.Payload)
	if err != nil {
		return nil, fmt.Errorf("trace: %s: %w", e.Payload.Kind(), err)
	}
	if bytes.Equal(attrs, []byte("{}")) {
		attrs = nil
	}
	return json.Marshal(jsonEvent{Kind: e.Payload.Kind(), At: e.At, Op: e.Op, Attrs: attrs})
}

// Attrs is a payload's fields as a generic map, as its JSON holds them (numbers as float64, names as the json
// tags say): for matching an event against a walkthrough's pattern and for listing its figures, never for
// folding (a fold switches on the payload's type).
func Attrs(p Payload) map[string]any {
	raw, err := json.Marshal(p)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// The events every run may emit, whatever its strategy. The memory budget's high-water event is
// memory.HighWater (engine/memory), which the budget emits itself.

// RowsEmitted is a batch of rows leaving an operator: the join (Op its name) or, from the playground's
// runner, the rows delivered to the page (Op "output").
type RowsEmitted struct {
	Rows  int64 `json:"rows"`  // the batch's rows
	Total int64 `json:"total"` // rows so far
	// Page is the paged join's page the rows came from (0 for other operators).
	Page int `json:"page,omitempty"`
}

// StrategyChose is the join strategy the planner picked, and why.
type StrategyChose struct {
	Strategy string `json:"strategy"` // the first join's strategy
	// Strategies lists every join's strategy, comma-separated, in plan order.
	Strategies string `json:"strategies"`
	Reason     string `json:"reason"`
}

// ScanRows is a batch read from a source, as the playground's runner sees it from outside the engine, so
// every strategy's view (the hash join's included) has its inputs' progress even when the strategy emits
// nothing. Op is "scan:NAME".
type ScanRows struct {
	Source string `json:"source"`
	Rows   int64  `json:"rows"`
	Total  int64  `json:"total"` // rows so far from Source in this scan
	Scan   int    `json:"scan"`  // the how-many-th scan of Source this run, from 1
	// Phase is "plan" for a read while planning (a strategy measuring its input), else "run".
	Phase string `json:"phase"`
}

// Kinds of the events declared here.
const (
	KindRowsEmitted   Kind = "rows_emitted"
	KindStrategyChose Kind = "strategy_chose"
	KindScanRows      Kind = "scan_rows"
)

func (RowsEmitted) Kind() Kind   { return KindRowsEmitted }
func (StrategyChose) Kind() Kind { return KindStrategyChose }
func (ScanRows) Kind() Kind      { return KindScanRows }

// Sink receives events. Emit must be cheap and safe for concurrent use. A payload is a value the emitter no
// longer changes, so a sink may keep it.
type Sink interface {
	Emit(Event)
}

// Discard drops every event.
var Discard Sink = discard{}

type discard struct{}

func (discard) Emit(Event) {}

// Recorder keeps every event, for tests and for the command line's --trace.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *Recorder) Emit(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// Events returns the events so far, in order.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Details are a run's strategy-specific figures (partitions, heavy keys, pages…), reported in stats. Operators
// add to them as they run; keys are documented by the strategy that sets them.
type Details struct {
	mu sync.Mutex
	m  map[string]any
}

// Set records a figure.
func (d *Details) Set(key string, v any) {
	d.mu.Lock()
	if d.m == nil {
		d.m = map[string]any{}
	}
	d.m[key] = v
	d.mu.Unlock()
}

// Add adds n to an integer figure.
func (d *Details) Add(key string, n int64) {
	d.mu.Lock()
	if d.m == nil {
		d.m = map[string]any{}
	}
	old, _ := d.m[key].(int64)
	d.m[key] = old + n
	d.mu.Unlock()
}

// Max raises an integer figure to n if n is larger.
func (d *Details) Max(key string, n int64) {
	d.mu.Lock()
	if d.m == nil {
		d.m = map[string]any{}
	}
	if old, ok := d.m[key].(int64); !ok || n > old {
		d.m[key] = n
	}
	d.mu.Unlock()
}

// Int returns an integer figure, 0 when unset.
func (d *Details) Int(key string) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	n, _ := d.m[key].(int64)
	return n
}

// VirtualNanos is the detail holding the latest virtual time (nanoseconds) any simulated source reached: its
// value when the first row is emitted is the run's virtual time to first row. Sources on a virtual clock raise
// it (with Max) after every request and wait.
const VirtualNanos = "virtual_ns"

// Map returns a copy of the figures.
func (d *Details) Map() map[string]any {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]any, len(d.m))
	for k, v := range d.m {
		out[k] = v
	}
	return out
}
