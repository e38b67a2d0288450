package keymap

// Ints maps int64 keys to int32 values by open addressing with linear probing from a key's home slot, the top
// bits of IntHash. A slot holds its key and value side by side, so a lookup costs one cache miss.
//
// Memory: IntsBytes(n) for a map made for n keys, 16 bytes a slot, two to four slots a key; a map grown a key
// at a time holds 16 bytes a slot at 1⅓ to 2⅔ slots a key (plus the old map while it doubles). Cost of a
// lookup: three multiplies and, for a map larger than the cache, about one miss.
type Ints struct {
	slots []intSlot
	mask  uint64
	shift uint
	n     int
}

type intSlot struct {
	key  int64
	val  int32 // value+1; 0 marks an empty slot
	more int32 // More once the key was pushed again (Push), else 0; fills the slot's padding
}

// intSlotBytes is the memory of a slot.
const intSlotBytes = 16

// IntsBytes is the memory NewInts(n) takes.
func IntsBytes(n int) int64 { return int64(Slots(n)) * intSlotBytes }

// NewInts makes a map for n keys, at most half full while it holds no more.
func NewInts(n int) *Ints { return newInts(Slots(n)) }

func newInts(slots int) *Ints {
	return &Ints{slots: make([]intSlot, slots), mask: uint64(slots - 1), shift: shiftFor(slots)}
}

// Bytes is the memory the map holds.
func (m *Ints) Bytes() int64 { return int64(len(m.slots)) * intSlotBytes }

// Len is the number of keys in the map.
func (m *Ints) Len() int { return m.n }

// Shift is the map's shift: a key's home slot is IntHash(k) >> Shift(), so a radix partition of p bits is
// IntHash(k) >> (64-p) and holds the slots whose top p bits are p's.
func (m *Ints) Shift() uint { return m.shift }

// String names the map and its size, for explain.
func (m *Ints) String() string { return describe("int64 open addressing", len(m.slots)) }

// Push makes v the value of k and returns k's value before (without More), or -1 when k was absent. When k
// was present, the new value has More set; with keep, k keeps its value instead and Push returns Kept. The
// hash join pushes a build row onto the front of its key's chain this way, storing the old head as the row's
// next (keep: an innerunique build, which keeps a key's first row).
func (m *Ints) Push(k int64, v int32, keep bool) int32 {
	for s := IntHash(k) >> m.shift; ; s = (s + 1) & m.mask {
		e := &m.slots[s]
		switch {
		case e.val == 0:
			e.key, e.val = k, v+1
			m.n++
			return -1
		case e.key == k:
			if keep {
				return Kept
			}
			old := e.val - 1
			e.val, e.more = v+1, More
			return old
		}
	}
}

// PushTo pushes keys[j] with value vals[j] for every j, in order, and sets prev[vals[j]] to what Push would
// have returned for it: the hash join's build, which stores each row's old chain head as the row's next. It is
// Push's loop with the map's fields in locals and no call per key (under js/wasm both cost more than an insert
// that hits the cache, and the partitioned build's inserts do).
func (m *Ints) PushTo(keys []int64, vals []int32, keep bool, prev []int32) {
	slots, mask, shift, n := m.slots, m.mask, m.shift, m.n
	vals = vals[:len(keys)]
	for j, k := range keys {
		v, old := vals[j], int32(-1)
		for s := IntHash(k) >> shift; ; s = (s + 1) & mask {
			e := &slots[s]
			if e.val == 0 {
				e.key, e.val = k, v+1
				n++
				break
			}
			if e.key == k {
				if keep {
					old = Kept
				} else {
					old = e.val - 1
					e.val, e.more = v+1, More
				}
				break
			}
		}
		prev[v] = old
	}
	m.n = n
}

// Locate returns k's slot and value (with More, if set), or the empty slot where k would go and -1. A map
// with no slots (the zero Ints) has no slot for k: it returns 0 and -1, and must grow before a Put.
func (m *Ints) Locate(k int64) (int, int32) {
	if len(m.slots) == 0 {
		return 0, -1
	}
	for s := IntHash(k) >> m.shift; ; s = (s + 1) & m.mask {
		e := &m.slots[s]
		switch {
		case e.val == 0:
			return int(s), -1
		case e.key == k:
			return int(s), (e.val - 1) | e.more
		}
	}
}

// Put stores k with value v in the empty slot s that Locate returned for it.
func (m *Ints) Put(s int, k int64, v int32) {
	m.slots[s] = intSlot{key: k, val: v + 1}
	m.n++
}

// Full reports whether a map grown a key at a time must grow before it takes one more key: past three
// quarters full, or without slots.
func (m *Ints) Full() bool { return full(m.n, len(m.slots)) }

// Grown returns a map of twice the slots (minGrownSlots from empty) holding the same keys and values.
func (m *Ints) Grown() *Ints {
	next := newInts(grownSlots(len(m.slots)))
	for _, e := range m.slots {
		if e.val == 0 {
			continue
		}
		s := IntHash(e.key) >> next.shift
		for next.slots[s].val != 0 {
			s = (s + 1) & next.mask
		}
		next.slots[s] = e
	}
	next.n = m.n
	return next
}

// Lookup returns k's value without More, or -1.
func (m *Ints) Lookup(k int64) int32 {
	if v := m.Find(k); v >= 0 {
		return v &^ More
	}
	return -1
}

// Find returns k's value, with More when set, or -1.
func (m *Ints) Find(k int64) int32 { return findInt(m.slots, m.mask, m.shift, k) }

// FindEach sets vals[i] to Find(keys[i]) for every i.
func (m *Ints) FindEach(keys []int64, vals []int32) {
	slots, mask, shift := m.slots, m.mask, m.shift
	vals = vals[:len(keys)]
	for i, k := range keys {
		vals[i] = findInt(slots, mask, shift, k)
	}
}

// FindTo sets vals[at[j]] to Find(keys[j]) for every j: the lookups of a radix-partitioned probe, made in
// partition order and written back in probe order.
func (m *Ints) FindTo(keys []int64, at, vals []int32) {
	slots, mask, shift := m.slots, m.mask, m.shift
	at = at[:len(keys)]
	for j, k := range keys {
		vals[at[j]] = findInt(slots, mask, shift, k)
	}
}

// FindStrided sets vals[j] to Find(int64(rows[j*stride])) for every j: the lookups of rows laid out a key (its
// bits) then its other words, as the join aggregate's keyed path scatters them.
func (m *Ints) FindStrided(rows []uint64, stride int, vals []int32) {
	slots, mask, shift := m.slots, m.mask, m.shift
	for j := range vals {
		vals[j] = findInt(slots, mask, shift, int64(rows[j*stride]))
	}
}

// findInt is Find over a map's fields passed as values, so that a loop of lookups keeps them in registers
// instead of reading them through the map on every row (under js/wasm, loads from linear memory).
func findInt(slots []intSlot, mask uint64, shift uint, k int64) int32 {
	for s := IntHash(k) >> shift; ; s = (s + 1) & mask {
		e := &slots[s]
		switch {
		case e.val == 0:
			return -1
		case e.key == k:
			return (e.val - 1) | e.more
		}
	}
}

// NumberTo numbers the distinct keys of an empty map in the order they come: keys[j], seen for the first time,
// is put with value next (counting up from 0) and out[at[j]] is set to it; a repeat gets its key's number, or
// -1 with first (only a key's first row keeps it). It returns how many keys were numbered. The join
// aggregate's keyed path numbers its build keys so in partition order, which makes the numbers of a
// partition's keys one run (group_keyed.go); a loop with the map in locals, no call per key.
func (m *Ints) NumberTo(keys []int64, at, out []int32, first bool) int {
	slots, mask, shift, n := m.slots, m.mask, m.shift, m.n
	at = at[:len(keys)]
	for j, k := range keys {
		num := int32(-1)
		for s := IntHash(k) >> shift; ; s = (s + 1) & mask {
			e := &slots[s]
			if e.val == 0 {
				num = int32(n)
				e.key, e.val = k, num+1
				n++
				break
			}
			if e.key == k {
				if !first {
					num = e.val - 1
				}
				break
			}
		}
		out[at[j]] = num
	}
	m.n = n
	return n
}
