package keymap

// Hashes maps keys its owner hashes and compares to int32 values: a summarize's keys of several typed columns,
// which no single int64 or string holds. A slot holds only the key's 64-bit hash and its value; the owner keeps
// the keys (by value) and confirms each candidate the map offers:
//
//	s, v := m.First(h)
//	for v >= 0 && !sameKey(v) {
//		s, v = m.Next(h, s)
//	}
//	// v < 0: the key is absent, and s is the empty slot where it goes (Put)
//
// It is open addressing with linear probing from the home slot h >> Shift(), so the owner's hash must carry
// its entropy in its top bits; it grows a key at a time (Full, Grown) and keeps the full hash, so doubling
// never reads a key back. Memory: 12 bytes a slot (hash and value in two arrays, so a probe that stops at the
// first slot reads one hash and one value), 1⅓ to 2⅔ slots a key.
type Hashes struct {
	hashes []uint64
	vals   []int32 // value+1; 0 marks an empty slot
	mask   int
	shift  uint
	n      int
}

// hashesSlotBytes is the memory of a slot.
const hashesSlotBytes = 12

func newHashes(slots int) *Hashes {
	return &Hashes{hashes: make([]uint64, slots), vals: make([]int32, slots), mask: slots - 1, shift: shiftFor(slots)}
}

// Bytes is the memory the map holds.
func (m *Hashes) Bytes() int64 { return int64(len(m.vals)) * hashesSlotBytes }

// Len is the number of keys in the map.
func (m *Hashes) Len() int { return m.n }

// First returns the first slot from h's home that holds hash h and its value, or, when none does before an
// empty slot, that empty slot and -1. A map with no slots (the zero Hashes) returns 0 and -1, and must grow
// before a Put.
func (m *Hashes) First(h uint64) (int, int32) {
	if len(m.vals) == 0 {
		return 0, -1
	}
	return m.from(h, int(h>>m.shift))
}

// Next is First from the slot after s, which First or Next returned with a value.
func (m *Hashes) Next(h uint64, s int) (int, int32) { return m.from(h, (s+1)&m.mask) }

func (m *Hashes) from(h uint64, s int) (int, int32) {
	for ; ; s = (s + 1) & m.mask {
		switch v := m.vals[s]; {
		case v == 0:
			return s, -1
		case m.hashes[s] == h:
			return s, v - 1
		}
	}
}

// Put stores hash h with value v in the empty slot s that First or Next returned.
func (m *Hashes) Put(s int, h uint64, v int32) {
	m.hashes[s], m.vals[s] = h, v+1
	m.n++
}

// Full reports whether the map must grow before it takes one more key: past three quarters full, or without
// slots.
func (m *Hashes) Full() bool { return full(m.n, len(m.vals)) }

// Grown returns a map of twice the slots (minGrownSlots from empty) holding the same hashes and values.
func (m *Hashes) Grown() *Hashes {
	next := newHashes(grownSlots(len(m.vals)))
	for i, v := range m.vals {
		if v == 0 {
			continue
		}
		h := m.hashes[i]
		s := int(h >> next.shift)
		for next.vals[s] != 0 {
			s = (s + 1) & next.mask
		}
		next.hashes[s], next.vals[s] = h, v
	}
	next.n = m.n
	return next
}
