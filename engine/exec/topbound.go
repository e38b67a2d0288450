package exec

import (
	"math"

	"github.com/joinlab/joinlab/engine/column"
)

// TopBound is the dynamic filter a top N publishes for an operator below it (top-N dynamic filtering): once the
// top (Sort with a limit and one key) holds a full Limit rows, the key value of its last kept row, the cut. A
// row arriving later whose key does not sort strictly before the cut can never enter the top — on a tie the
// earlier row wins, and every kept row arrived earlier — so the operator below may skip it before doing any
// work for it, and the top's result is unchanged.
//
// The zero value has no cut and keeps everything. The cut only tightens: each compaction keeps rows that sort
// no later than the previous ones, so a reader that uses an older cut skips fewer rows, never a wrong one.
// The Sort writes the bound (Sort.ShareBound) and the reader reads it from the same goroutine, as all
// operators of one execution run (see Operator), so there is no locking. A reader checks Active once a batch,
// then either IntRange (integer keys, unboxed) or Keeps per row.
type TopBound struct {
	active     bool
	asc        bool
	nullsFirst bool
	cut        *column.Vector // one row: the key of the top's last kept row
	// The cut for integer keys: a non-null row enters iff lo <= x <= hi (an empty range when lo > hi), a null
	// row iff nulls.
	ints   bool
	lo, hi int64
	nulls  bool
}

// Active reports whether the top has a cut yet; until then every row may enter.
func (b *TopBound) Active() bool { return b.active }

// IntRange reports, for a key column of type t stored as integers (long, datetime, timespan) and of the cut's
// type, the rows that may still enter the top: non-null values in [lo, hi] (empty when lo > hi), and null rows
// when nulls. ok is false when the bound is not active or the types differ; use Keeps then.
func (b *TopBound) IntRange(t column.Type) (lo, hi int64, nulls, ok bool) {
	if !b.active || !b.ints || t != b.cut.Type {
		return 0, 0, false, false
	}
	return b.lo, b.hi, b.nulls, true
}

// Keeps reports whether row r of v (a key column) may still enter the top: true while there is no cut, else
// whether the row sorts strictly before the cut, exactly as Sort's order compares them.
func (b *TopBound) Keeps(v *column.Vector, r int) bool {
	if !b.active {
		return true
	}
	c := compareAcross(v, r, b.cut, 0, b.nullsFirst)
	switch {
	case c == 0:
		return false
	case b.asc || v.IsNull(r) || b.cut.IsNull(0): // descending reverses the values, not where nulls go
		return c < 0
	default:
		return c > 0
	}
}

// publish sets the cut to row 0 of cut under key k's order.
func (b *TopBound) publish(cut *column.Vector, k SortKey) {
	b.active, b.asc, b.nullsFirst, b.cut = true, k.Asc, k.NullsFirst, cut
	switch cut.Type {
	case column.Long, column.DateTime, column.Timespan:
	default:
		b.ints = false
		return
	}
	b.ints = true
	switch c := cut.Ints[0]; {
	case cut.IsNull(0) && k.NullsFirst: // nothing sorts strictly before a null placed first
		b.lo, b.hi, b.nulls = 1, 0, false
	case cut.IsNull(0): // nulls last: every non-null value sorts before the cut, no null does
		b.lo, b.hi, b.nulls = math.MinInt64, math.MaxInt64, false
	case k.Asc && c == math.MinInt64, !k.Asc && c == math.MaxInt64:
		b.lo, b.hi, b.nulls = 1, 0, k.NullsFirst
	case k.Asc:
		b.lo, b.hi, b.nulls = math.MinInt64, c-1, k.NullsFirst
	default:
		b.lo, b.hi, b.nulls = c+1, math.MaxInt64, k.NullsFirst
	}
}
