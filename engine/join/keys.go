package join

import (
	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
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
// encoding of every key (see column.AppendKey), built in buf.
func stringKey(keys []*column.Vector, i int, buf []byte) (string, []byte) {
	if len(keys) == 1 && keys[0].Type == column.String {
		return keys[0].Strs[i], buf
	}
	buf = buf[:0]
	for _, k := range keys {
		buf = column.AppendKey(buf, k, i)
	}
	return string(buf), buf
}
