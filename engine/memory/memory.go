// Package memory accounts for the bytes of rows a query holds, against a budget fixed when the query starts.
//
// Every operator that holds rows (a hash join's build side, a sort, a group table) grows the budget before it
// keeps them and shrinks it when it lets them go. Growing past the limit is an *ExceededError the operator
// either handles (a later strategy spills) or returns, so a query fails with a clear message instead of
// exhausting the process.
package memory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/joinlab/joinlab/engine/trace"
)

// DefaultBudget is the budget of a query that names none: generous for files on a laptop, small enough that a
// runaway join fails cleanly instead of swapping.
const DefaultBudget = 4 << 30

// Budget is a byte limit shared by the operators of one query. It is safe for concurrent use.
type Budget struct {
	mu         sync.Mutex
	limit      int64
	used, peak int64
	// sink, when set, hears a HighWater event each time the peak has grown by a step since the last one
	// (reported), stamped with now().
	sink     trace.Sink
	now      func() time.Duration
	reported int64
}

// HighWater is the budget's trace event: a new high-water mark of the bytes the query holds (Op "memory").
type HighWater struct {
	Bytes  int64 `json:"bytes"`  // the peak so far
	Budget int64 `json:"budget"` // the budget's limit
}

// KindHighWater is HighWater's kind.
const KindHighWater trace.Kind = "memory_high"

func (HighWater) Kind() trace.Kind { return KindHighWater }

// OpMemory is the Op of HighWater events.
const OpMemory = "memory"

// peakStep is how far the peak must grow before the budget emits another HighWater: an eighth of what it last
// emitted, at least 64 KiB, so a run's climb is a few dozen events whatever its size.
func peakStep(reported int64) int64 { return max(reported/8, 64<<10) }

// Trace makes the budget emit HighWater events to sink as its peak grows (in steps of an eighth, at least
// 64 KiB) and, through ReportPeak, its final value; now stamps each with the run's (virtual) time. Emit runs
// with the budget locked: the sink must not use the budget.
func (b *Budget) Trace(sink trace.Sink, now func() time.Duration) {
	b.mu.Lock()
	b.sink, b.now = sink, now
	b.mu.Unlock()
}

// ReportPeak emits the peak as a HighWater event if it has grown since the last one.
func (b *Budget) ReportPeak() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.peak > b.reported {
		b.emitPeak()
	}
}

// emitPeak emits the peak (b.mu held).
func (b *Budget) emitPeak() {
	if b.sink == nil {
		return
	}
	b.reported = b.peak
	b.sink.Emit(trace.Event{At: b.now(), Op: OpMemory, Payload: HighWater{Bytes: b.peak, Budget: b.limit}})
}

// NewBudget returns a budget of limit bytes (DefaultBudget when limit <= 0).
func NewBudget(limit int64) *Budget {
	if limit <= 0 {
		limit = DefaultBudget
	}
	return &Budget{limit: limit}
}

// ExceededError says which holder asked for more than the budget had left.
type ExceededError struct {
	Holder             string
	Asked, Used, Limit int64
}

func (e *ExceededError) Error() string {
	return fmt.Sprintf("%s needs %s more but %s of the %s memory budget is in use", e.Holder,
		Bytes(e.Asked), Bytes(e.Used), Bytes(e.Limit))
}

// Grow reserves n bytes for holder, or returns *ExceededError and reserves nothing.
func (b *Budget) Grow(holder string, n int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return &ExceededError{Holder: holder, Asked: n, Used: b.used, Limit: b.limit}
	}
	b.used += n
	b.peak = max(b.peak, b.used)
	if b.peak >= b.reported+peakStep(b.reported) {
		b.emitPeak()
	}
	return nil
}

// Shrink releases n bytes.
func (b *Budget) Shrink(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// Available is what the budget has left.
func (b *Budget) Available() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return max(b.limit-b.used, 0)
}

// Limit is the budget's size.
func (b *Budget) Limit() int64 { return b.limit }

// Peak is the most bytes held at once so far.
func (b *Budget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// Bytes formats a byte count for people: 512 B, 1.5 KiB, 64 MiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

type contextKey struct{}

// NewContext returns ctx carrying b, for the parts of a query that its operators do not construct (a source's
// scan, which reads ahead of them).
func NewContext(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, contextKey{}, b)
}

// FromContext returns the budget NewContext put in ctx, or nil.
func FromContext(ctx context.Context) *Budget {
	b, _ := ctx.Value(contextKey{}).(*Budget)
	return b
}
