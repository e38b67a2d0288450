package dynfilter

import (
	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
)

// rangeKeysFactor bounds the keys a Collector keeps, as a multiple of the IN set's threshold: a range cut
// needs the keys sorted, and sixteen thousand keys (the default) are a few hundred kilobytes. Past it only
// the least and greatest key are kept, as Trino does past its distinct-values limit.
const rangeKeysFactor = 16

// Collector gathers a join side's distinct non-null keys as its rows go by, holding at most a bounded number
// (Limit); past that it keeps only the least and the greatest key. Cost: one hash lookup a row; memory: the
// keys kept.
type Collector struct {
	limit  int
	seen   map[string]struct{}
	keys   []column.Value
	over   bool
	lo, hi column.Value
	any    bool
	buf    []byte
}

// NewCollector keeps at most limit distinct keys (0: rangeKeysFactor × MaxDistinctValues).
func NewCollector(limit int) *Collector {
	if limit <= 0 {
		limit = rangeKeysFactor * MaxDistinctValues
	}
	return &Collector{limit: limit, seen: map[string]struct{}{}}
}

// Add takes the keys of the first n rows of v. A repeated key costs one map look-up: the bounds move only for
// a key not seen before, or for every key once the collector is over its limit and keeps no set.
func (c *Collector) Add(v *column.Vector, n int) {
	for i := 0; i < n; i++ {
		if v.IsNull(i) {
			continue
		}
		if !c.over {
			c.buf = column.AppendKey(c.buf[:0], v, i)
			if _, dup := c.seen[string(c.buf)]; dup {
				continue
			}
			if len(c.keys) == c.limit {
				c.over, c.seen, c.keys = true, nil, nil
			} else {
				c.seen[string(c.buf)] = struct{}{}
				c.keys = append(c.keys, v.Value(i))
			}
		}
		c.widen(v.Value(i))
	}
}

// widen moves the bounds to take x in.
func (c *Collector) widen(x column.Value) {
	if !c.any {
		c.lo, c.hi, c.any = x, x, true
		return
	}
	if cmp, ok := expr.Compare(x, c.lo); ok && cmp < 0 {
		c.lo = x
	}
	if cmp, ok := expr.Compare(x, c.hi); ok && cmp > 0 {
		c.hi = x
	}
}

// Keys are the distinct keys in first-seen order, or nil once more than the limit went by (Over).
func (c *Collector) Keys() []column.Value { return c.keys }

// Over reports whether more distinct keys went by than the collector keeps.
func (c *Collector) Over() bool { return c.over }

// Bounds are the least and greatest key seen; false when no key was.
func (c *Collector) Bounds() (lo, hi column.Value, ok bool) { return c.lo, c.hi, c.any }
