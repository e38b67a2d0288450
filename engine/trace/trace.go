// Package trace carries what the engine does, as it does it, to whoever watches: the playground animates these
// events, the command line can write them as JSON lines, and tests assert on them.
//
// An event is small and typed by its Kind; its Attrs hold the figures that kind documents (a partition's
// number and rows, a page's cursor). Events carry the virtual time at which they happen when the engine runs
// against simulated sources (zero natively), so a run is the same on every machine.
package trace

import (
	"sync"
	"time"
)

// Kind names an event type. Each strategy documents the kinds it emits beside its code.
type Kind string

// Kinds every run emits.
const (
	RowsEmitted   Kind = "rows_emitted"   // rows: the batch size; total: rows so far
	MemoryHigh    Kind = "memory_high"    // bytes: a new high-water mark of held memory
	StrategyChose Kind = "strategy_chose" // strategy, reason: the join strategy the planner picked
)

// Event is one thing that happened.
type Event struct {
	Kind  Kind           `json:"kind"`
	At    time.Duration  `json:"at_ns"`
	Op    string         `json:"op,omitempty"` // which operator, e.g. "join#1"
	Attrs map[string]any `json:"attrs,omitempty"`
}

// Sink receives events. Emit must be cheap and safe for concurrent use; it must not retain Attrs' maps after
// returning unless it owns them (the engine never reuses a map it passed).
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
