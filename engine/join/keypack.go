package join

import (
	"fmt"
	"math/bits"

	"github.com/joinlab/joinlab/engine/column"
)

// keyPack packs a key of several columns, each stored as int64 (long, datetime, timespan), into one int64, so
// that the hash join indexes and probes it with the int64 key maps (keymap.Ints, or keymap.Dense when the
// packed keys are dense) and their partitioned probe and key filter, instead of encoding every row's key as a
// string (appendJoinKey) and hashing and comparing its bytes.
//
// The build side's range [lo, hi] of each column is read once. When the product of the ranges' sizes fits in
// 63 bits, a key (k0, …, kn) maps one to one onto the mixed-radix number whose digit j is kj-loj in base
// hij-loj+1: equal keys pack equal, different keys different. A probe key with a column outside the build
// side's range matches no build row, so its packed key is null, which the join treats exactly as it treats a
// null key: no match (every kind outputs an unmatched probe row and a null-keyed one alike, and neither is
// looked up or deduplicated). A build row with a null column is null packed, as before.
//
// Cost: one pass over the build keys for the ranges, and per batch one pass a column writing an int64 a row;
// against encoding, hashing and comparing 8 bytes a column per row, and a string per row for the collector.
type keyPack struct {
	lo, span []uint64 // per column: its least build value, and its greatest less that
}

// packKeys returns the packing of keys, the build side's n rows' key columns as keyColumns gives them, or nil
// when there is a single column, a column not stored as int64 or without a non-null build value, or
// ranges too wide to pack.
func packKeys(keys []*column.Vector, n int) *keyPack {
	if len(keys) < 2 {
		return nil
	}
	if _, ok := intEncoding(keys); !ok {
		return nil
	}
	p := &keyPack{}
	size := uint64(1) // the product of the sizes so far, which must stay below 2^63
	for _, k := range keys {
		lo, hi, seen := keyRange(k, n, 0, 0, false)
		if !seen {
			return nil
		}
		span := uint64(hi) - uint64(lo)
		if span == ^uint64(0) {
			return nil
		}
		hiProd, prod := bits.Mul64(size, span+1)
		if hiProd != 0 || prod >= 1<<63 {
			return nil
		}
		size = prod
		p.lo, p.span = append(p.lo, uint64(lo)), append(p.span, span)
	}
	return p
}

// column returns the packed key of each of the n rows of keys (as keyColumns gives them): null where a column
// is null or outside the build side's range. Its loops have no branch on the data.
func (p *keyPack) column(keys []*column.Vector, n int) *column.Vector {
	packed := make([]int64, n)
	var out []bool // rows with a column out of range; nil while there are none
	for j, k := range keys {
		lo, span := p.lo[j], p.span[j]
		base := span + 1
		outside := uint8(0)
		for i, x := range k.Ints[:n] {
			u := uint64(x) - lo
			packed[i] = int64(uint64(packed[i])*base + u)
			outside |= b2u(u > span)
		}
		if outside == 0 {
			continue
		}
		if out == nil {
			out = make([]bool, n)
		}
		for i, x := range k.Ints[:n] {
			out[i] = out[i] || uint64(x)-lo > span
		}
	}
	v := &column.Vector{Type: column.Long, Ints: packed}
	v.SetLen(n)
	null := func(i int) {
		if v.Nulls == nil {
			v.Nulls = make(column.Bitmap, (n+63)/64)
		}
		v.Nulls[i>>6] |= 1 << (i & 63)
	}
	for _, k := range keys {
		if k.HasNulls() {
			for i := range n {
				if k.IsNull(i) {
					null(i)
				}
			}
		}
	}
	for i, o := range out {
		if o {
			null(i)
		}
	}
	return v
}

// String describes the packing for explain.
func (p *keyPack) String() string {
	s := fmt.Sprintf("%d int keys packed into one int64, their build ranges", len(p.lo))
	for j, span := range p.span {
		if j > 0 {
			s += " ×"
		}
		s += fmt.Sprintf(" %d", span+1)
	}
	return s + " values"
}
