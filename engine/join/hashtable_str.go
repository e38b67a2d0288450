package join

import (
	"github.com/joinlab/joinlab/engine/column"
)

// keyTable is the hash join's table for every key that is not one int64: a single string column, or the
// encoding of several keys or of another type (appendJoinKey). It is open addressing with linear probing,
// like intTable, kept at most half full, with the chains of hashtable.go.
//
// A slot holds the key's hash tag, its length and its first 16 bytes, so deciding a slot costs one cache miss
// and no pointer chase: two keys of at most 16 bytes are equal exactly when tag, length and both words are, and
// a longer key is compared in full (against the build row's own key) only once all of those matched — in
// practice only for the key that is really there. A key is never copied into the table: the build side's key
// column holds it (an encoded key is re-encoded from the build row for that final compare). There are no
// pointers in the slots, so the garbage collector never scans them, and no allocation per row.
//
// Memory: keyTableBytes(n), 32 bytes a slot and two to four slots a build row. Cost of a probe: the hash
// (a few multiplies per 8 bytes of key) and, for a table larger than the cache, about one miss.
type keyTable struct {
	slots []keySlot
	mask  uint64
	shift uint
	// rowKeys are the build side's key columns: a key of build row r is rowKeys[0].Strs[r] when single, else
	// the encoding of row r of every column, rebuilt in scratch for a compare.
	rowKeys []*column.Vector
	single  bool
	scratch []byte
}

type keySlot struct {
	w0, w1 uint64 // the key's first 16 bytes, little-endian, zero-padded
	tag    uint32 // the hash's low 32 bits (the slot number comes from its high bits)
	n      uint32 // the key's length in bytes
	head   int32  // row+1 of the chain's head; 0 marks an empty slot
	more   int32  // chainMore when the chain has more than one row, else 0
}

// inlineKeyBytes is how much of a key a slot holds: keys up to this long never leave the slot to compare.
const inlineKeyBytes = 16

// keyTableBytes is the memory newKeyTable(n, …) takes.
func keyTableBytes(n int) int64 { return int64(tableSlots(n)) * 32 }

// newKeyTable makes a table for n build rows whose keys are rowKeys (see keyTable).
func newKeyTable(n int, rowKeys []*column.Vector) *keyTable {
	slots := tableSlots(n)
	bits := uint(0)
	for 1<<bits < slots {
		bits++
	}
	return &keyTable{slots: make([]keySlot, slots), mask: uint64(slots - 1), shift: 64 - bits,
		rowKeys: rowKeys, single: singleStringKey(rowKeys)}
}

// singleStringKey reports whether keys are one string column, whose values are the keys as they are.
func singleStringKey(keys []*column.Vector) bool {
	return len(keys) == 1 && keys[0].Type == column.String
}

// hashedKey is a key with what a slot compares: its words, tag and length, and the slot to start at.
type hashedKey struct {
	s      string
	w0, w1 uint64
	tag    uint32
	slot   uint64
}

// hash prepares k for a lookup or an insert.
func (t *keyTable) hash(k string) hashedKey {
	h, w0, w1 := strHash(k)
	return hashedKey{s: k, w0: w0, w1: w1, tag: uint32(h), slot: (h * 0x9E3779B97F4A7C15) >> t.shift}
}

// strHash returns the hash of k, every bit of which depends on every byte of k, and k's first 16 bytes as two
// words (see keyWords). It reads k once, 8 bytes at a time: hashWords mixes the length and the first two words,
// hashTail the rest, and a last xorshift spreads the high bits into the low ones.
func strHash(k string) (h, w0, w1 uint64) {
	w0, w1 = keyWords(k)
	h = hashWords(len(k), w0, w1)
	if len(k) > inlineKeyBytes {
		h = hashTail(h, k[inlineKeyBytes:])
	}
	return h ^ h>>31, w0, w1
}

// hashWords is strHash's mix of a key's length n and its first two words.
func hashWords(n int, w0, w1 uint64) uint64 {
	h := uint64(n)*0x9E3779B97F4A7C15 ^ w0
	h = (h ^ h>>29) * 0xBF58476D1CE4E5B9
	h ^= w1
	return (h ^ h>>32) * 0x94D049BB133111EB
}

// hashTail is strHash's mix of the bytes of a key past its first 16, tail, into h.
func hashTail(h uint64, tail string) uint64 {
	for i := 0; i < len(tail); i += 8 {
		h ^= tailWord(tail[i:])
		h = (h ^ h>>32) * 0x94D049BB133111EB
	}
	return h
}

// keyWords returns the first 16 bytes of k as two little-endian words, zero-padded. A key of 8 to 15 bytes
// takes its second word from the 8 bytes ending it, shifted down past the bytes the first word holds.
func keyWords(k string) (uint64, uint64) {
	switch n := len(k); {
	case n >= inlineKeyBytes:
		return word(k), word(k[8:])
	case n >= 8:
		return word(k), word(k[n-8:]) >> (8 * (inlineKeyBytes - n))
	}
	return tailWord(k), 0
}

// word reads the first 8 bytes of s (which has at least 8) as a little-endian word; the compiler turns it
// into one load where the machine allows unaligned loads.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// tailWord reads up to the first 8 bytes of s, zero-padded.
func tailWord(s string) uint64 {
	if len(s) >= 8 {
		return word(s)
	}
	var w uint64
	for i := len(s) - 1; i >= 0; i-- {
		w = w<<8 | uint64(s[i])
	}
	return w
}

// matches reports whether slot e holds key k.
func (t *keyTable) matches(e *keySlot, k *hashedKey) bool {
	if e.tag != k.tag || e.n != uint32(len(k.s)) || e.w0 != k.w0 || e.w1 != k.w1 {
		return false
	}
	if len(k.s) <= inlineKeyBytes {
		return true
	}
	r := int(e.head - 1)
	if t.single {
		return sameBytes(t.rowKeys[0].Strs[r], k.s)
	}
	t.scratch = t.scratch[:0]
	for _, v := range t.rowKeys {
		t.scratch = appendJoinKey(t.scratch, v, r)
	}
	return string(t.scratch) == k.s
}

// pushFront makes row the head of k's chain, linking the old head behind it. With unique, a key already
// present keeps its row and pushFront reports false.
func (t *keyTable) pushFront(k string, row int32, next []int32, unique bool) bool {
	hk := t.hash(k)
	for s := hk.slot; ; s = (s + 1) & t.mask {
		e := &t.slots[s]
		switch {
		case e.head == 0:
			*e = keySlot{w0: hk.w0, w1: hk.w1, tag: hk.tag, n: uint32(len(k)), head: row + 1}
			next[row] = -1
			return true
		case t.matches(e, &hk):
			if unique {
				return false
			}
			next[row] = e.head - 1
			e.head, e.more = row+1, chainMore
			return true
		}
	}
}

// find returns the head row of k's chain, with chainMore set when the chain has more rows, or -1.
func (t *keyTable) find(k string) int32 {
	hk := t.hash(k)
	for s := hk.slot; ; s = (s + 1) & t.mask {
		e := &t.slots[s]
		switch {
		case e.head == 0:
			return -1
		case t.matches(e, &hk):
			return (e.head - 1) | e.more
		}
	}
}

// encodedKeys returns the keys of rows [lo, hi) as strings, each row's encoding of every key (see stringKey),
// made in buf and copied out in one allocation. A row with a null key gets "" (the caller skips it). One
// string column needs none of this: its values are the keys.
func encodedKeys(keys []*column.Vector, lo, hi int, buf []byte, out []string) ([]string, []byte) {
	out = out[:0]
	buf = buf[:0]
	ends := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		if !hasNullKey(keys, i) {
			for _, k := range keys {
				buf = appendJoinKey(buf, k, i)
			}
		}
		ends = append(ends, len(buf))
	}
	all := string(buf)
	start := 0
	for _, e := range ends {
		out = append(out, all[start:e])
		start = e
	}
	return out, buf
}
