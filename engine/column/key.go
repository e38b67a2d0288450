package column

import (
	"encoding/binary"
	"math"
)

// AppendKey appends an encoding of row i of v to dst such that two rows' encodings are equal exactly when
// their values are (with nulls equal to each other, as grouping wants; joins skip null keys before encoding).
// Fixed-width values are written as 8 bytes and strings length-prefixed, so a concatenation of several
// columns' encodings is itself unambiguous: the key of a multi-column group or join.
func AppendKey(dst []byte, v *Vector, i int) []byte {
	if v.IsNull(i) {
		return append(dst, 0)
	}
	switch v.Type.storage() {
	case ints:
		return AppendIntKey(dst, v.Ints[i])
	case reals:
		f := v.Reals[i]
		if f == 0 {
			f = 0 // -0 groups with 0
		}
		dst = append(dst, 2)
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
	case bools:
		if v.Bools[i] {
			return append(dst, 3, 1)
		}
		return append(dst, 3, 0)
	default:
		s := v.Strs[i]
		dst = append(dst, 4)
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		return append(dst, s...)
	}
}

// AppendIntKey appends AppendKey's encoding of a non-null value x of an int64-stored type (long, datetime,
// timespan).
func AppendIntKey(dst []byte, x int64) []byte {
	dst = append(dst, 1)
	return binary.LittleEndian.AppendUint64(dst, uint64(x))
}

// ParseIntKey reverses AppendIntKey, reporting false for a key that is not one int64's encoding.
func ParseIntKey(key string) (int64, bool) {
	if len(key) != 9 || key[0] != 1 {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64([]byte(key[1:]))), true
}
