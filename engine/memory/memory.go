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
)

// DefaultBudget is the budget of a query that names none: generous for files on a laptop, small enough that a
// runaway join fails cleanly instead of swapping.
const DefaultBudget = 4 << 30

// Budget is a byte limit shared by the operators of one query. It is safe for concurrent use.
type Budget struct {
	mu         sync.Mutex
	limit      int64
	used, peak int64
	// onPeak, when set, hears the peak each time it has grown by a step since it last heard it (reported).
	onPeak   func(peak int64)
	reported int64
}

// peakStep is how far the peak must grow before onPeak hears it again: an eighth of what it last heard, at
// least 64 KiB, so a run's climb is a few dozen events whatever its size.
func peakStep(reported int64) int64 { return max(reported/8, 64<<10) }

// OnPeak makes fn hear the peak as it grows (in steps of an eighth, at least 64 KiB) and, through ReportPeak,
// its final value. fn runs with the budget locked: it must be quick and must not use the budget.
func (b *Budget) OnPeak(fn func(peak int64)) {
	b.mu.Lock()
	b.onPeak = fn
	b.mu.Unlock()
}

// ReportPeak tells OnPeak's listener the peak if it has grown since it last heard it.
func (b *Budget) ReportPeak() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.onPeak != nil && b.peak > b.reported {
		b.reported = b.peak
		b.onPeak(b.peak)
	}
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
	if b.onPeak != nil && b.peak >= b.reported+peakStep(b.reported) {
		b.reported = b.peak
		b.onPeak(b.peak)
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
