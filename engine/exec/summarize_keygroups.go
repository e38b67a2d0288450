package exec

import (
	"hash/maphash"
	"math"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/keymap"
)

// A summarize's key of several columns, or of one column that is not an int64, is found in a keymap.Hashes
// by the hash of its values, made here: a key's values are kept once, in the group table's key columns, and a
// candidate group the map offers is confirmed by comparing the row with the group's row, column by column and
// typed, so no key is encoded, copied or allocated per row. A batch's hashes are made first, one loop per key
// column.
//
// Equality is AppendKey's: nulls equal each other, -0 equals 0, reals otherwise by their bits. Cost per row:
// the hash of its values (a multiply per int, maphash over a string's bytes), about one slot visited (one
// cache miss when the slots outgrow the cache) and one compare of the values.

// keySeed seeds the string hashes. Groups are numbered by first appearance, never by hash, so a seed that
// differs between processes changes no result.
var keySeed = maphash.MakeSeed()

// Constants of the hash mix: nullHash stands for a null value, and keyMix is the odd multiplier (2⁶⁴/φ) each
// column's value is folded in with.
const (
	nullHash = 0x9AE16A3B2F90404F
	keyMix   = 0x9E3779B97F4A7C15
)

// keyHashMask is a test knob: tests clear its bits so that distinct keys share hashes and every lookup goes
// through the typed compare.
var keyHashMask = ^uint64(0)

// hashKeys sets hs[r] to the hash of row r's key values, for the n rows of kv.
func hashKeys(kv []*column.Vector, n int, hs []uint64) []uint64 {
	hs = append(hs[:0], make([]uint64, n)...)
	for _, v := range kv {
		switch v.Type {
		case column.Long, column.DateTime, column.Timespan:
			for r, x := range v.Ints[:n] {
				hs[r] = (hs[r] ^ uint64(x)) * keyMix
			}
		case column.Real:
			for r, f := range v.Reals[:n] {
				hs[r] = (hs[r] ^ realBits(f)) * keyMix
			}
		case column.Bool:
			for r, b := range v.Bools[:n] {
				x := uint64(0)
				if b {
					x = 1
				}
				hs[r] = (hs[r] ^ x) * keyMix
			}
		default:
			for r, s := range v.Strs[:n] {
				hs[r] = (hs[r] ^ maphash.String(keySeed, s)) * keyMix
			}
		}
		if v.HasNulls() {
			for r := range n {
				if v.Nulls.Get(r) {
					hs[r] = (hs[r] ^ nullHash) * keyMix
				}
			}
		}
	}
	for r, h := range hs {
		hs[r] = (h ^ h>>29) & keyHashMask // the top bits pick the slot: bring the low bits' entropy up
	}
	return hs
}

// realBits is a real's identity as a key: its bits, with -0 as 0.
func realBits(f float64) uint64 {
	if f == 0 {
		return 0
	}
	return math.Float64bits(f)
}

// sameKey reports whether row r of kv holds the values of row g of keys.
func sameKey(kv []*column.Vector, r int, keys []*column.Vector, g int) bool {
	for i, v := range kv {
		k := keys[i]
		vn, kn := v.IsNull(r), k.IsNull(g)
		if vn || kn {
			if vn != kn {
				return false
			}
			continue
		}
		switch v.Type {
		case column.Long, column.DateTime, column.Timespan:
			if v.Ints[r] != k.Ints[g] {
				return false
			}
		case column.Real:
			if realBits(v.Reals[r]) != realBits(k.Reals[g]) {
				return false
			}
		case column.Bool:
			if v.Bools[r] != k.Bools[g] {
				return false
			}
		default:
			if v.Strs[r] != k.Strs[g] {
				return false
			}
		}
	}
	return true
}

// findKey returns the slot of row r of kv, hashed h, in m and its group, or the empty slot where it would go
// and -1; keys are the groups' key values.
func findKey(m *keymap.Hashes, h uint64, kv []*column.Vector, r int, keys []*column.Vector) (int, int32) {
	s, id := m.First(h)
	for id >= 0 && !sameKey(kv, r, keys, int(id)) {
		s, id = m.Next(h, s)
	}
	return s, id
}

// keyBytes is what row r's key holds in the group table's key columns: a string's bytes, 8 for any other value.
func keyBytes(kv []*column.Vector, r int) int64 {
	n := int64(0)
	for _, v := range kv {
		switch v.Type {
		case column.Long, column.DateTime, column.Timespan, column.Real, column.Bool:
			n += 8
		default:
			n += int64(len(v.Strs[r]))
		}
	}
	return n
}
