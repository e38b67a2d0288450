package keymap

import "math/bits"

// Pairs maps keys of two int64s to int32 values by open addressing with linear probing from a key's home slot,
// the top bits of PairHash: a summarize's key of two long, datetime or timespan columns (`by g, pg`, a
// dcount's group and value). A slot holds both ints and the value side by side, so a lookup costs one cache
// miss and confirms the key in the slot itself, where a Hashes slot sends its owner to compare the key it keeps
// elsewhere, a second and third miss once the keys outgrow the cache.
//
// Memory: 24 bytes a slot; a map grown a key at a time holds 1⅓ to 2⅔ slots a key (plus the old map while it
// doubles). Cost of a lookup: five multiplies and, for a map larger than the cache, about one miss.
type Pairs struct {
	slots []pairSlot
	mask  uint64
	shift uint
	n     int
}

type pairSlot struct {
	a, b int64
	val  int32 // value+1; 0 marks an empty slot
	_    int32
}

// pairSlotBytes is the memory of a slot.
const pairSlotBytes = 24

// PairHash is the hash of the key (a, b): b mixed and rotated into a, then IntHash, so the top bits that pick
// the home slot depend on every bit of both.
func PairHash(a, b int64) uint64 {
	return IntHash(a ^ int64(bits.RotateLeft64(uint64(b)*0xC2B2AE3D27D4EB4F, 31)))
}

func newPairs(slots int) *Pairs {
	return &Pairs{slots: make([]pairSlot, slots), mask: uint64(slots - 1), shift: shiftFor(slots)}
}

// Bytes is the memory the map holds.
func (m *Pairs) Bytes() int64 { return int64(len(m.slots)) * pairSlotBytes }

// Len is the number of keys in the map.
func (m *Pairs) Len() int { return m.n }

// Locate returns (a, b)'s slot and value, or the empty slot where the key would go and -1. A map with no slots
// (the zero Pairs) has no slot for it: it returns 0 and -1, and must grow before a Put.
func (m *Pairs) Locate(a, b int64) (int, int32) {
	if len(m.slots) == 0 {
		return 0, -1
	}
	for s := PairHash(a, b) >> m.shift; ; s = (s + 1) & m.mask {
		e := &m.slots[s]
		switch {
		case e.val == 0:
			return int(s), -1
		case e.a == a && e.b == b:
			return int(s), e.val - 1
		}
	}
}

// Put stores (a, b) with value v in the empty slot s that Locate returned for it.
func (m *Pairs) Put(s int, a, b int64, v int32) {
	m.slots[s] = pairSlot{a: a, b: b, val: v + 1}
	m.n++
}

// FindEach sets vals[i] to the value of (as[i], bs[i]), or -1, for every i.
func (m *Pairs) FindEach(as, bs []int64, vals []int32) {
	slots, mask, shift := m.slots, m.mask, m.shift
	vals, bs = vals[:len(as)], bs[:len(as)]
	if len(slots) == 0 {
		for i := range vals {
			vals[i] = -1
		}
		return
	}
	for i, a := range as {
		b, v := bs[i], int32(-1)
		for s := PairHash(a, b) >> shift; ; s = (s + 1) & mask {
			e := &slots[s]
			if e.val == 0 {
				break
			}
			if e.a == a && e.b == b {
				v = e.val - 1
				break
			}
		}
		vals[i] = v
	}
}

// Full reports whether the map must grow before it takes one more key: past three quarters full, or without
// slots.
func (m *Pairs) Full() bool { return full(m.n, len(m.slots)) }

// Grown returns a map of twice the slots (minGrownSlots from empty) holding the same keys and values.
func (m *Pairs) Grown() *Pairs {
	next := newPairs(grownSlots(len(m.slots)))
	for _, e := range m.slots {
		if e.val == 0 {
			continue
		}
		s := PairHash(e.a, e.b) >> next.shift
		for next.slots[s].val != 0 {
			s = (s + 1) & next.mask
		}
		next.slots[s] = e
	}
	next.n = m.n
	return next
}
