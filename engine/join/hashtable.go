package join

// The hash tables map a key to the first build row holding it; next[row] links each row to the following row
// with the same key (-1 ends a chain). Rows are inserted from last to first, pushing each onto the front of its
// chain, so a chain lists its rows in build order and the join's output keeps that order within a key.
//
// A lookup returns the head row with chainMore set when the chain has more than one row, so a probe of a unique
// key — the common case — never reads next[], a second random memory access per match.

// chainMore marks a looked-up head whose chain continues in next[]. Build rows stay below it (maxBuildRows).
const chainMore = 1 << 30

// maxBuildRows bounds the rows a hash table indexes, so a row number never reaches the chainMore bit.
const maxBuildRows = chainMore - 1

// intTable is an open-addressing table of int64 keys with linear probing, kept at most half full so a probe
// touches about 1.5 slots. A slot holds its key and chain head side by side, so a lookup costs one cache miss;
// there are no pointers, so the garbage collector never scans it.
type intTable struct {
	slots []intSlot
	mask  uint64
	shift uint
}

type intSlot struct {
	key  int64
	head int32 // row+1 of the chain's head; 0 marks an empty slot
	more int32 // chainMore when the chain has more than one row, else 0 (fills the slot's padding)
}

// intTableBytes is the memory newIntTable(n) takes.
func intTableBytes(n int) int64 { return int64(tableSlots(n)) * 16 }

func tableSlots(n int) int {
	slots := 16
	for slots < 2*n {
		slots <<= 1
	}
	return slots
}

func newIntTable(n int) *intTable {
	slots := tableSlots(n)
	bits := uint(0)
	for 1<<bits < slots {
		bits++
	}
	return &intTable{slots: make([]intSlot, slots), mask: uint64(slots - 1), shift: 64 - bits}
}

// slot is the first slot to try for k: the top bits of intHash.
func (t *intTable) slot(k int64) uint64 { return intHash(k) >> t.shift }

// intHash mixes every bit of k into the top bits of the result, where tables take slots (and radix joins
// partitions) from. Two multiply-xorshift rounds before the last multiply: a single Fibonacci multiply clusters
// keys that are themselves multiples of a constant (measured: 20x slower probes on such keys), and linear
// probing punishes clusters.
func intHash(k int64) uint64 {
	x := uint64(k) * 0x9E3779B97F4A7C15
	x ^= x >> 32
	x *= 0xD6E8FEB86659FD93
	x ^= x >> 32
	return x * 0x9E3779B97F4A7C15
}

// pushFront makes row the head of k's chain, linking the old head behind it. With unique, a key already present
// keeps its row and pushFront reports false.
func (t *intTable) pushFront(k int64, row int32, next []int32, unique bool) bool {
	for s := t.slot(k); ; s = (s + 1) & t.mask {
		e := &t.slots[s]
		switch {
		case e.head == 0:
			e.key, e.head = k, row+1
			next[row] = -1
			return true
		case e.key == k:
			if unique {
				return false
			}
			next[row] = e.head - 1
			e.head, e.more = row+1, chainMore
			return true
		}
	}
}

// lookup returns the head row of k's chain, or -1.
func (t *intTable) lookup(k int64) int32 {
	if h := t.find(k); h >= 0 {
		return h &^ chainMore
	}
	return -1
}

// find returns the head row of k's chain, with chainMore set when the chain has more rows, or -1.
func (t *intTable) find(k int64) int32 { return findIn(t.slots, t.mask, t.shift, k) }

// findEach sets heads[i] to find(keys[i]) for every i.
func (t *intTable) findEach(keys []int64, heads []int32) {
	slots, mask, shift := t.slots, t.mask, t.shift
	heads = heads[:len(keys)]
	for i, k := range keys {
		heads[i] = findIn(slots, mask, shift, k)
	}
}

// findTo sets heads[at[j]] to find(keys[j]) for every j.
func (t *intTable) findTo(keys []int64, at, heads []int32) {
	slots, mask, shift := t.slots, t.mask, t.shift
	at = at[:len(keys)]
	for j, k := range keys {
		heads[at[j]] = findIn(slots, mask, shift, k)
	}
}

// findIn is find over a table's fields passed as values, so that a loop of lookups keeps them in registers
// instead of reading them through the table on every row (under js/wasm, loads from linear memory).
func findIn(slots []intSlot, mask uint64, shift uint, k int64) int32 {
	for s := intHash(k) >> shift; ; s = (s + 1) & mask {
		e := &slots[s]
		switch {
		case e.head == 0:
			return -1
		case e.key == k:
			return (e.head - 1) | e.more
		}
	}
}
