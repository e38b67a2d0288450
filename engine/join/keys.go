package join

import (
	"encoding/binary"
	"math"
	"unicode/utf8"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/keymap"
)

// keyColumns returns the key columns of b, each in the type the keys are compared in.
func keyColumns(b *column.Batch, keys []int, types []column.Type) []*column.Vector {
	out := make([]*column.Vector, len(keys))
	for i, k := range keys {
		out[i] = castKey(b.Cols[k], types[i], b.N)
	}
	return out
}

// castKey converts a key column to type t: a long to a real, anything to its text (see KeyType).
func castKey(v *column.Vector, t column.Type, n int) *column.Vector {
	if v.Type == t {
		return v
	}
	out := column.NewVector(t, n)
	for i := 0; i < n; i++ {
		x := v.Value(i)
		switch {
		case x.Null:
			out.AppendNull()
		case t == column.Real:
			out.AppendReal(x.Float())
		default:
			out.AppendString(expr.ToString(x))
		}
	}
	return out
}

// hasNullKey reports whether any key of row i is null: such a row never matches.
func hasNullKey(keys []*column.Vector, i int) bool {
	for _, k := range keys {
		if k.IsNull(i) {
			return true
		}
	}
	return false
}

// markNullKeys sets heads[i] to noMatch for every row i with a null key (hasNullKey), after a batch lookup
// that looked those rows' placeholder keys up too.
func markNullKeys(keys []*column.Vector, heads []int32) {
	for _, k := range keys {
		if !k.HasNulls() {
			continue
		}
		for i := range heads {
			if k.IsNull(i) {
				heads[i] = noMatch
			}
		}
	}
}

// intKeyed reports whether a join's keys fit the int64 fast path: one key stored as an int64.
func intKeyed(types []column.Type) bool {
	if len(types) != 1 {
		return false
	}
	switch types[0] {
	case column.Long, column.DateTime, column.Timespan:
		return true
	}
	return false
}

// stringKey returns row i's key as a string: the value itself for one string key, else the concatenated
// encoding of every key (see appendJoinKey), built in buf. Row i's key must not be null.
func stringKey(keys []*column.Vector, i int, buf []byte) (string, []byte) {
	if len(keys) == 1 && keys[0].Type == column.String {
		return keys[0].Strs[i], buf
	}
	buf = buf[:0]
	for _, k := range keys {
		buf = appendJoinKey(buf, k, i)
	}
	return string(buf), buf
}

// appendJoinKey appends the join's encoding of row i of key column v, which must not be null. Both sides of a
// join have the same key types and a row with a null key never reaches an encoding (it matches nothing), so
// unlike column.AppendKey this needs no type tag and no null mark: 8 bytes for a long, datetime, timespan or
// real (-0 as 0), one for a bool, and a string's length then its bytes. Two int64 keys make 16 bytes, which a
// table slot holds whole (keymap.InlineBytes), so such keys are never compared outside their slot.
func appendJoinKey(dst []byte, v *column.Vector, i int) []byte {
	switch v.Type {
	case column.Long, column.DateTime, column.Timespan:
		return binary.LittleEndian.AppendUint64(dst, uint64(v.Ints[i]))
	case column.Real:
		f := v.Reals[i]
		if f == 0 {
			f = 0 // -0 matches 0
		}
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
	case column.Bool:
		if v.Bools[i] {
			return append(dst, 1)
		}
		return append(dst, 0)
	}
	s := v.Strs[i]
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// longKeyBytes is the bytes of the first n rows' keys, as the join encodes them (stringKey), that are longer
// than keymap.InlineBytes, rows with a null key left out: what a keymap.Strs of those rows copies at most.
func longKeyBytes(keys []*column.Vector, n int) int64 {
	var total int64
	for i := range n {
		if hasNullKey(keys, i) {
			continue
		}
		w := 0
		for _, k := range keys {
			switch k.Type {
			case column.Long, column.DateTime, column.Timespan, column.Real:
				w += 8
			case column.Bool:
				w++
			default:
				l := len(k.Strs[i])
				if !singleStringKey(keys) {
					l += uvarintLen(uint64(l))
				}
				w += l
			}
		}
		if w > keymap.InlineBytes {
			total += int64(w)
		}
	}
	return total
}

// uvarintLen is the bytes binary.AppendUvarint writes for x.
func uvarintLen(x uint64) int { return len(binary.AppendUvarint(nil, x)) }

// keyLabelBytes bounds a key as the trace lists it for a small run (joinevent.PartitionKeys, WorkerRows): a
// longer text is cut and ends in "…", so sixty keys stay a few kilobytes whatever the data holds.
const keyLabelBytes = 48

// rowKeyLabel writes row i's key for people (see saltKeyLabel: null as null, text quoted), cut to
// keyLabelBytes; buf is scratch space, returned for reuse.
func rowKeyLabel(types []column.Type, keys []*column.Vector, i int, buf []byte) (string, []byte) {
	buf = appendSaltKey(buf[:0], keys, i)
	s := saltKeyLabel(types, string(buf))
	if len(s) > keyLabelBytes {
		cut := keyLabelBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s, buf
}
