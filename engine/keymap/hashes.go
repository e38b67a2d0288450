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
//
// A map made by StringHashes keeps, besides, each slot's key when the key is one string (FindString,
// PutString): the owner's compare then reads the key's header from the slot, where the other way reads it from
// the owner's key column at the value the slot gave. That takes one dependent cache miss out of every lookup of
// a table larger than the cache — value, then header, then bytes becomes header, then bytes — for 16 more
// bytes a slot (28).
type Hashes struct {
	hashes []uint64
	vals   []int32  // value+1; 0 marks an empty slot
	strs   []string // each slot's key, in a map that keeps them (nil otherwise)
	keep   bool     // the map keeps string keys, even while it has no slots
	mask   int
	shift  uint
	n      int
}

// hashesSlotBytes and stringSlotBytes are the memory of a slot, without and with its string key's header.
const (
	hashesSlotBytes = 12
	stringSlotBytes = hashesSlotBytes + 16
)

func newHashes(slots int, keep bool) *Hashes {
	m := &Hashes{hashes: make([]uint64, slots), vals: make([]int32, slots), keep: keep, mask: slots - 1, shift: shiftFor(slots)}
	if keep {
		m.strs = make([]string, slots)
	}
	return m
}

// StringHashes is an empty map that keeps its keys, which are single strings (FindString, PutString).
func StringHashes() *Hashes { return &Hashes{keep: true} }

// Bytes is the memory the map holds.
func (m *Hashes) Bytes() int64 {
	if m.keep {
		return int64(len(m.vals)) * stringSlotBytes
	}
	return int64(len(m.vals)) * hashesSlotBytes
}

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

// FindString returns, in a map that keeps its keys, the slot from h's home that holds hash h and key k and its
// value, or the empty slot where k goes and -1. The map's fields are read into locals once, and the loop calls
// nothing but the string compare.
func (m *Hashes) FindString(h uint64, k string) (int, int32) {
	hashes, vals, strs, mask := m.hashes, m.vals, m.strs, m.mask
	if len(vals) == 0 {
		return 0, -1
	}
	for s := int(h >> (m.shift & 63)); ; s = (s + 1) & mask {
		switch v := vals[s]; {
		case v == 0:
			return s, -1
		case hashes[s] == h && strs[s] == k:
			return s, v - 1
		}
	}
}

// PutString stores key k, hashed h, with value v in the empty slot s that FindString returned.
func (m *Hashes) PutString(s int, h uint64, k string, v int32) {
	m.strs[s] = k
	m.Put(s, h, v)
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
	next := newHashes(grownSlots(len(m.vals)), m.keep)
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
		if m.keep {
			next.strs[s] = m.strs[i]
		}
	}
	next.n = m.n
	return next
}
