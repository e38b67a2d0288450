// Package skew measures how unevenly rows fall on the values of a key, so that a planner can name the heavy
// keys of an input from the data instead of guessing them.
//
// A Counter counts each key's rows exactly while the input has at most ExactKeys distinct keys; past that it
// turns into a space-saving sketch of SketchCounters counters (Metwally, Agrawal and El Abbadi, 2005), whose
// memory no longer grows with the input. The sketch keeps the invariant that every tracked key's count is an
// upper bound of its true count, over-estimated by at most its recorded error, and that a key it does not track
// has at most ErrorBound rows; ErrorBound never exceeds Total/SketchCounters. So every key with more than
// Total/SketchCounters rows is tracked, which is all a heavy-key threshold coarser than that needs.
//
// A counter of one int64 key (NewIntCounter) counts exactly in an open-addressing table of int64 keys, with no
// encoding and no allocation per row, and encodes a key only when it reports one (Above, Each) or hands the
// counting over to the sketch; what it reports is what a byte counter fed the same keys' encodings reports.
//
// Cost: one map operation per row (exact; for an int counter, a multiply and a probe of a flat table), plus
// O(log SketchCounters) once the sketch has taken over. Memory: at most ExactKeys keys, then SketchCounters.
package skew

import (
	"container/heap"
	"math"
	"math/bits"
	"sort"
)

// ExactKeys is the number of distinct keys counted exactly. An exact map of 65,536 keys costs a few MiB, which
// any input worth shuffling can afford, and gives exact heavy-key counts (and the exact pairing work) for the
// inputs people actually step through; beyond it, memory would grow with the number of distinct keys, which is
// what the sketch bounds.
const ExactKeys = 1 << 16

// SketchCounters is the space-saving sketch's size. With k counters every key above Total/k rows is tracked
// and over-estimated by at most Total/k. The finest heavy-key threshold the salted join asks for is a share of
// 1/640 of a side (HeavyShare of one of at most 64 workers' share), so 8,192 counters (a few hundred KiB) keep
// the estimation error below an eighth of that threshold.
const SketchCounters = 8192

// HeavyShare defines a heavy key: one whose rows on one input exceed HeavyShare of one worker's fair share of
// that input (rows/W). A key never splits in a plain shuffle, so what matters is not one key under the
// threshold but the several that land on the busiest worker: play counts and the like are Zipf-shaped, so
// the keys just under any threshold are many. At a tenth of a worker's share, the busiest worker of the
// skewed-listens scenario stays within 1.5 times the median once the keys above it are salted (measured: a
// half share left it at 2.4 times, a quarter at 1.9), and salting the extra keys costs only W copies of their
// few rows on the expanded side.
const HeavyShare = 0.1

// minHeavyRows is the fewest rows a heavy key can have: one row cannot be spread over anything.
const minHeavyRows = 2

// Threshold is the row count above which a key of an input of rows rows is heavy for a shuffle over workers
// workers (see HeavyShare).
func Threshold(rows int64, workers int) int64 {
	if workers < 1 {
		workers = 1
	}
	t := int64(math.Ceil(HeavyShare * float64(rows) / float64(workers)))
	return max(t, minHeavyRows)
}

// Item is one key's measured count. Count is exact when Err is 0; otherwise the true count lies in
// [Count-Err, Count].
type Item struct {
	Key        string
	Count, Err int64
}

// Counter counts the rows of each key of one input. The zero value is not ready: use NewCounter or
// NewIntCounter.
type Counter struct {
	total int64
	exact map[string]int64 // a byte counter's exact counts; nil for an int counter and once the sketch took over
	// ints is an int counter's exact counts, nil once the sketch has taken over; intKeys names its keys.
	ints    *intCounts
	intKeys IntKeys
	buf     []byte // an int counter's encoding of the key being counted by the sketch
	sketch  *spaceSaving
	// entered counts the rows of untracked keys since the sketch took over (see Estimate).
	entered int64
}

// NewCounter returns an empty counter of byte keys (AddBytes, Add), counting exactly.
func NewCounter() *Counter { return &Counter{exact: map[string]int64{}} }

// IntKeys is how an int counter names its int64 keys in what it reports: Encode appends k's encoding to dst,
// and Decode reverses it, reporting false for a key that encodes no int64. Every report (Item.Key, Each,
// Count's and Estimate's argument) uses the encoding, so a caller cannot tell an int counter from a byte
// counter fed Encode's bytes.
type IntKeys struct {
	Encode func(dst []byte, k int64) []byte
	Decode func(key string) (int64, bool)
}

// NewIntCounter returns an empty counter of int64 keys (AddInt), counting exactly, that names its keys with
// keys.
func NewIntCounter(keys IntKeys) *Counter {
	return &Counter{ints: newIntCounts(), intKeys: keys}
}

// AddInt counts one row of key k. The counter must come from NewIntCounter.
func (c *Counter) AddInt(k int64) {
	c.total++
	if c.ints != nil {
		if c.ints.add(k) > ExactKeys {
			items := make([]Item, 0, c.ints.distinct)
			c.ints.each(func(k, n int64) {
				items = append(items, Item{Key: string(c.intKeys.Encode(c.buf[:0], k)), Count: n})
			})
			c.ints = nil
			c.toSketch(items)
		}
		return
	}
	c.buf = c.intKeys.Encode(c.buf[:0], k)
	if !c.sketch.add(c.buf) {
		c.entered++
	}
}

// AddBytes counts one row of the key encoded in key (the bytes are not retained). The counter must come from
// NewCounter.
func (c *Counter) AddBytes(key []byte) {
	c.total++
	if c.exact != nil {
		if n, ok := c.exact[string(key)]; ok {
			c.exact[string(key)] = n + 1
			return
		}
		c.exact[string(key)] = 1
		if len(c.exact) > ExactKeys {
			items := make([]Item, 0, len(c.exact))
			for k, n := range c.exact {
				items = append(items, Item{Key: k, Count: n})
			}
			c.exact = nil
			c.toSketch(items)
		}
		return
	}
	if !c.sketch.add(key) {
		c.entered++
	}
}

// Add counts one row of key.
func (c *Counter) Add(key string) { c.AddBytes([]byte(key)) }

// toSketch hands the counting over to a space-saving sketch seeded with the largest of the exact counts items
// (ties by key, so the handover does not depend on how the exact counts were held). A dropped key had no more
// rows than the smallest kept counter, so if it comes back, entering it at that counter plus one still
// over-estimates it: the sketch's invariant holds from the start.
func (c *Counter) toSketch(items []Item) {
	sortItems(items)
	items = items[:SketchCounters]
	s := &spaceSaving{pos: make(map[string]int, SketchCounters)}
	for _, it := range items {
		s.pos[it.Key] = len(s.items)
		s.items = append(s.items, it)
	}
	heap.Init(s)
	c.sketch = s
}

// Total is the number of rows counted.
func (c *Counter) Total() int64 { return c.total }

// Exact reports whether every count is exact (the sketch never took over).
func (c *Counter) Exact() bool { return c.sketch == nil }

// Distinct is the number of distinct keys counted: exact while the counter is; once the sketch has taken over,
// the estimate Estimate makes its mean of lost keys from (the ExactKeys+1 keys the sketch started from, plus
// one for every row of an untracked key since), which is at least ExactKeys+1.
func (c *Counter) Distinct() int64 {
	switch {
	case c.ints != nil:
		return int64(c.ints.distinct)
	case c.exact != nil:
		return int64(len(c.exact))
	}
	return ExactKeys + 1 + c.entered
}

// ErrorBound is the most rows a key not reported by the counter can have, and the most any count is
// over-estimated by: 0 while exact.
func (c *Counter) ErrorBound() int64 {
	if c.sketch == nil || len(c.sketch.items) == 0 {
		return 0
	}
	return c.sketch.items[0].Count
}

// Count returns key's measured count: exact, or an upper bound over-estimated by at most err.
func (c *Counter) Count(key string) (count, err int64) {
	if c.ints != nil {
		return c.intCount(key), 0
	}
	if c.exact != nil {
		return c.exact[key], 0
	}
	if i, ok := c.sketch.pos[key]; ok {
		it := c.sketch.items[i]
		return it.Count, it.Err
	}
	b := c.ErrorBound()
	return b, b
}

// Each calls f with every key the counter holds and its measured count: every distinct key while exact,
// else the sketch's tracked keys (whose counts are upper bounds). The order is unspecified.
func (c *Counter) Each(f func(key string, count int64)) {
	if c.ints != nil {
		c.ints.each(func(k, n int64) { f(string(c.intKeys.Encode(nil, k)), n) })
		return
	}
	if c.exact != nil {
		for k, n := range c.exact {
			f(k, n)
		}
		return
	}
	for _, it := range c.sketch.items {
		f(it.Key, it.Count)
	}
}

// Estimate is a point estimate of key's rows, for predictions rather than guarantees: the count itself while
// exact; for a key the sketch tracks, its lower bound Count-Err (a key tracked since its first row has no
// error, and the heavy keys the sketch is for are tracked early); for a key it does not track, the mean rows
// of the keys it lost: the rows not under a tracked key over the distinct keys beyond the tracked ones. The
// distinct keys are taken as the ExactKeys+1 the sketch started from plus one for every row of an untracked
// key since (exact when lost keys do not come back, the light tail this is for; too many otherwise, so a
// lower mean). Cost: one pass over the sketch's counters for an untracked key.
func (c *Counter) Estimate(key string) float64 {
	if c.ints != nil {
		return float64(c.intCount(key))
	}
	if c.exact != nil {
		return float64(c.exact[key])
	}
	if i, ok := c.sketch.pos[key]; ok {
		it := c.sketch.items[i]
		return float64(it.Count - it.Err)
	}
	var tracked int64
	for _, it := range c.sketch.items {
		tracked += it.Count - it.Err
	}
	lost := max(ExactKeys+1+c.entered-int64(len(c.sketch.items)), 1)
	return float64(max(c.total-tracked, 0)) / float64(lost)
}

// Above returns the keys whose measured count is at least min, largest first (ties by key).
func (c *Counter) Above(min int64) []Item {
	var out []Item
	if c.ints != nil {
		c.ints.each(func(k, n int64) {
			if n >= min {
				out = append(out, Item{Key: string(c.intKeys.Encode(nil, k)), Count: n})
			}
		})
	} else if c.exact != nil {
		for k, n := range c.exact {
			if n >= min {
				out = append(out, Item{Key: k, Count: n})
			}
		}
	} else {
		for _, it := range c.sketch.items {
			if it.Count >= min {
				out = append(out, it)
			}
		}
	}
	sortItems(out)
	return out
}

// intCount is an int counter's exact count of the encoded key: 0 for a key that encodes no int64.
func (c *Counter) intCount(key string) int64 {
	k, ok := c.intKeys.Decode(key)
	if !ok {
		return 0
	}
	return c.ints.count(k)
}

func sortItems(items []Item) {
	sort.Slice(items, func(i, j int) bool {
		if items[i].Count != items[j].Count {
			return items[i].Count > items[j].Count
		}
		return items[i].Key < items[j].Key
	})
}

// spaceSaving is a min-heap of counters by count, with each key's heap position.
type spaceSaving struct {
	items []Item
	pos   map[string]int
}

func (s *spaceSaving) Len() int           { return len(s.items) }
func (s *spaceSaving) Less(i, j int) bool { return s.items[i].Count < s.items[j].Count }
func (s *spaceSaving) Swap(i, j int) {
	s.items[i], s.items[j] = s.items[j], s.items[i]
	s.pos[s.items[i].Key], s.pos[s.items[j].Key] = i, j
}
func (s *spaceSaving) Push(x any) {
	it := x.(Item)
	s.pos[it.Key] = len(s.items)
	s.items = append(s.items, it)
}
func (s *spaceSaving) Pop() any {
	it := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	delete(s.pos, it.Key)
	return it
}

// add counts one row and reports whether its key was tracked: a tracked key's counter grows; an untracked key
// takes over the smallest counter, inheriting its count as its error (it may have had that many rows while
// untracked).
func (s *spaceSaving) add(key []byte) (tracked bool) {
	if i, ok := s.pos[string(key)]; ok {
		s.items[i].Count++
		heap.Fix(s, i)
		return true
	}
	if len(s.items) < SketchCounters {
		heap.Push(s, Item{Key: string(key), Count: 1})
		return false
	}
	min := s.items[0]
	delete(s.pos, min.Key)
	k := string(key)
	s.items[0] = Item{Key: k, Count: min.Count + 1, Err: min.Count}
	s.pos[k] = 0
	heap.Fix(s, 0)
	return false
}

// intCounts counts int64 keys exactly in an open-addressing table with linear probing: a slot holds a key
// and its rows side by side (one cache line for a probe), and 0 rows marks an empty slot. The table doubles
// when half full, so a probe visits about two slots; a key's home slot is the top bits of a Fibonacci hash,
// which spreads sequential keys and keys that differ only in their high bits alike. Memory: 16 bytes a slot,
// at most 4 slots a distinct key.
type intCounts struct {
	slots    []intSlot
	shift    uint // 64 - log2(len(slots))
	distinct int
}

type intSlot struct{ key, rows int64 }

// intCountsSlots is the table's first size: 4 KiB, small next to the batch that fills it.
const intCountsSlots = 256

func newIntCounts() *intCounts {
	return &intCounts{slots: make([]intSlot, intCountsSlots), shift: uint(64 - bits.TrailingZeros(intCountsSlots))}
}

func (t *intCounts) home(k int64) int {
	return int((uint64(k) * 0x9e3779b97f4a7c15) >> t.shift)
}

// add counts one row of k and returns the number of distinct keys.
func (t *intCounts) add(k int64) int {
	slots := t.slots
	mask := len(slots) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		s := &slots[i]
		if s.rows == 0 {
			s.key, s.rows = k, 1
			t.distinct++
			if 2*t.distinct > len(slots) {
				t.grow()
			}
			return t.distinct
		}
		if s.key == k {
			s.rows++
			return t.distinct
		}
	}
}

func (t *intCounts) grow() {
	old := t.slots
	slots := make([]intSlot, 2*len(old))
	t.slots = slots
	t.shift--
	mask := len(slots) - 1
	for _, s := range old {
		if s.rows == 0 {
			continue
		}
		i := t.home(s.key)
		for slots[i].rows != 0 {
			i = (i + 1) & mask
		}
		slots[i] = s
	}
}

func (t *intCounts) count(k int64) int64 {
	slots := t.slots
	mask := len(slots) - 1
	for i := t.home(k); slots[i].rows != 0; i = (i + 1) & mask {
		if slots[i].key == k {
			return slots[i].rows
		}
	}
	return 0
}

func (t *intCounts) each(f func(k, n int64)) {
	for _, s := range t.slots {
		if s.rows != 0 {
			f(s.key, s.rows)
		}
	}
}
