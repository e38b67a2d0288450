package keymap

import "fmt"

// Dense maps the int64 keys of one dense range [lo, lo+len(vals)) to int32 values by direct index: k's value
// is vals[k-lo]. A lookup is a subtraction, a bounds test and one load — no hash, no probe, no key compare —
// and a key outside the range is absent without touching memory. It is what a join to a table keyed by
// consecutive ids (a dimension table's surrogate key, an enum, a day number) builds.
//
// Memory: 4 bytes a value of the range, which DenseFits bounds by what Ints would take for the same keys (16
// bytes a slot, at least two slots a key), so a dense map never holds more than an open-addressing one. The
// array is filled with -1 when made (one sequential pass); Push and Find then touch one entry each.
type Dense struct {
	lo   int64
	vals []int32 // per value of the range, its key's value with More when set, or -1 when absent
	n    int
}

// denseEntryBytes is the memory of a Dense map's entry.
const denseEntryBytes = 4

// DenseFits reports whether n keys whose values lie in [lo, hi] are held by a Dense map in no more memory than
// by Ints (IntsBytes(n)): a range of at most 8 to 16 values a key, as Ints' slots round up. False when lo > hi.
func DenseFits(n int, lo, hi int64) bool {
	return lo <= hi && uint64(hi)-uint64(lo) < uint64(IntsBytes(n)/denseEntryBytes)
}

// NewDense makes an empty map over the range [lo, hi], which DenseFits must have allowed.
func NewDense(lo, hi int64) *Dense {
	vals := make([]int32, uint64(hi)-uint64(lo)+1)
	for i := range vals {
		vals[i] = -1
	}
	return &Dense{lo: lo, vals: vals}
}

// DenseBytes is the memory NewDense(lo, hi) takes.
func DenseBytes(lo, hi int64) int64 { return int64(uint64(hi)-uint64(lo)+1) * denseEntryBytes }

// Bytes is the memory the map holds.
func (m *Dense) Bytes() int64 { return int64(len(m.vals)) * denseEntryBytes }

// Len is the number of keys in the map.
func (m *Dense) Len() int { return m.n }

// String names the map and its range, for explain.
func (m *Dense) String() string {
	return fmt.Sprintf("int64 dense array over [%d, %d]", m.lo, m.lo+int64(len(m.vals))-1)
}

// Push is Ints.Push: it makes v the value of k (in the map's range) and returns k's value before (without
// More), or -1 when k was absent; a present k gets More set on its new value, or with keep keeps its value
// and Push returns Kept.
func (m *Dense) Push(k int64, v int32, keep bool) int32 {
	e := &m.vals[uint64(k)-uint64(m.lo)]
	switch {
	case *e < 0:
		*e = v
		m.n++
		return -1
	case keep:
		return Kept
	}
	old := *e &^ More
	*e = v | More
	return old
}

// PushTo is Ints.PushTo: it pushes keys[j] with value vals[j] for every j, in order, and sets prev[vals[j]] to
// what Push returned for it.
func (m *Dense) PushTo(keys []int64, vals []int32, keep bool, prev []int32) {
	vals = vals[:len(keys)]
	for j, k := range keys {
		prev[vals[j]] = m.Push(k, vals[j], keep)
	}
}

// Find returns k's value, with More when set, or -1.
func (m *Dense) Find(k int64) int32 { return findDense(m.vals, uint64(m.lo), k) }

// findDense is Find over a map's fields passed as values, so that a loop of lookups keeps them in registers
// (as findInt): the value at k's offset from lo, or -1 outside the range (an offset that wraps is outside too).
func findDense(vals []int32, lo uint64, k int64) int32 {
	if i := uint64(k) - lo; i < uint64(len(vals)) {
		return vals[i]
	}
	return -1
}

// FindEach sets vals[i] to Find(keys[i]) for every i, with the map's fields in locals.
func (m *Dense) FindEach(keys []int64, vals []int32) {
	lo, dense := uint64(m.lo), m.vals
	vals = vals[:len(keys)]
	for i, k := range keys {
		vals[i] = findDense(dense, lo, k)
	}
}

// FindTo sets vals[at[j]] to Find(keys[j]) for every j.
func (m *Dense) FindTo(keys []int64, at, vals []int32) {
	lo, dense := uint64(m.lo), m.vals
	at = at[:len(keys)]
	for j, k := range keys {
		vals[at[j]] = findDense(dense, lo, k)
	}
}

// IntMap is an int64 key map the hash join builds once and probes in batches: Ints, or Dense when the build
// keys span a dense range (NewIntMap).
type IntMap interface {
	Push(k int64, v int32, keep bool) int32
	PushTo(keys []int64, vals []int32, keep bool, prev []int32)
	Find(k int64) int32
	FindEach(keys []int64, vals []int32)
	FindTo(keys []int64, at, vals []int32)
	Bytes() int64
	Len() int
	String() string
}

// NewIntMap makes the map for n keys whose values lie in [lo, hi] (lo > hi: none): a Dense map when
// DenseFits, else Ints. IntMapBytes is the memory it takes.
func NewIntMap(n int, lo, hi int64) IntMap {
	if DenseFits(n, lo, hi) {
		return NewDense(lo, hi)
	}
	return NewInts(n)
}

// IntMapWhy says why NewIntMap(n, lo, hi) chose its map, for explain.
func IntMapWhy(n int, lo, hi int64) string {
	switch {
	case lo > hi:
		return "no build key"
	case DenseFits(n, lo, hi):
		return fmt.Sprintf("%d build rows' keys span %s values: a dense range", n, spanText(lo, hi))
	}
	return fmt.Sprintf("%d build rows' keys span %s values: too sparse for a dense array", n, spanText(lo, hi))
}

// spanText is the count of values in [lo, hi] as text (2^64 does not fit a uint64).
func spanText(lo, hi int64) string {
	if d := uint64(hi) - uint64(lo); d < 1<<63 {
		return fmt.Sprint(d + 1)
	}
	return "more than 2^63"
}

// IntMapBytes is the memory NewIntMap(n, lo, hi) takes.
func IntMapBytes(n int, lo, hi int64) int64 {
	if DenseFits(n, lo, hi) {
		return DenseBytes(lo, hi)
	}
	return IntsBytes(n)
}
