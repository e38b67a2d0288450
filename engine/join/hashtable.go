package join

import (
	"encoding/binary"
	"slices"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/keymap"
)

// The hash join indexes its build side with a key map (engine/keymap): keymap.Ints for one int64 key,
// keymap.Strs for every other key — one string column as it is, or several keys or another type encoded
// (appendJoinKey). The map holds each key's chain head, the first build row with that key; next[row] links each
// row to the following row with the same key (-1 ends a chain). Rows are inserted from last to first, pushing
// each onto the front of its chain, so a chain lists its rows in build order and the join's output keeps that
// order within a key.
//
// A lookup returns the head row with chainMore set when the chain has more than one row (the map's More), so a
// probe of a unique key — the common case — never reads next[], a second random memory access per match.

// chainMore marks a looked-up head whose chain continues in next[]. Build rows stay below it (maxBuildRows).
const chainMore = keymap.More

// maxBuildRows bounds the rows a hash table indexes, so a row number never reaches the chainMore bit.
const maxBuildRows = keymap.MaxValue

// singleStringKey reports whether keys are one string column, whose values are the keys as they are.
func singleStringKey(keys []*column.Vector) bool {
	return len(keys) == 1 && keys[0].Type == column.String
}

// intEncoding reports whether every key is stored as int64 (long, datetime, timespan), and then the bytes of a
// row's encoding: 8 a key, each appendJoinKey's little-endian int64.
func intEncoding(keys []*column.Vector) (int, bool) {
	for _, k := range keys {
		switch k.Type {
		case column.Long, column.DateTime, column.Timespan:
		default:
			return 0, false
		}
	}
	return 8 * len(keys), true
}

// encodedInts is encodedKeys for keys intEncoding allows, w bytes a row: the same bytes, written a column at a
// time into their places with no call per value (a multi-column int key encodes every row of every batch),
// and "" for a row with a null key.
func encodedInts(keys []*column.Vector, lo, hi, w int, buf []byte, out []string) ([]string, []byte) {
	n := hi - lo
	if n <= 0 {
		return out, buf
	}
	buf = slices.Grow(buf, n*w)[:n*w]
	for j, k := range keys {
		at := buf[8*j:]
		for i, x := range k.Ints[lo:hi] {
			binary.LittleEndian.PutUint64(at[i*w:], uint64(x))
		}
	}
	all := string(buf)
	for i := range n {
		out = append(out, all[i*w:(i+1)*w])
	}
	for _, k := range keys {
		if k.HasNulls() {
			for i := range n {
				if k.IsNull(lo + i) {
					out[i] = ""
				}
			}
		}
	}
	return out, buf
}

// encodedKeys returns the keys of rows [lo, hi) as strings, each row's encoding of every key (see stringKey),
// made in buf and copied out in one allocation. A row with a null key gets "" (the caller skips it). One
// string column needs none of this: its values are the keys.
func encodedKeys(keys []*column.Vector, lo, hi int, buf []byte, out []string) ([]string, []byte) {
	out = out[:0]
	buf = buf[:0]
	if w, ok := intEncoding(keys); ok {
		return encodedInts(keys, lo, hi, w, buf, out)
	}
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
