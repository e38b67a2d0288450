// Package partition splits rows into partitions by a seeded hash of their key columns, so that every row with
// a given key lands in the same partition number — on both sides of a join, or across the batches of an
// aggregation — and a new seed splits one partition's rows again independently of how they were first split.
//
// The key columns are given already converted to the type they compare in (a join casts a long key to real
// when the other side is real), so equal keys hash equal. The hash is deterministic: a seed gives the same
// partitions on every machine and run, which keeps traces and tests reproducible.
package partition

import (
	"math"

	"github.com/joinlab/joinlab/engine/column"
)

// NullKey is the partition Assign gives a row with a null key when nulls are kept apart.
const NullKey = -1

// Partitioner assigns rows to Fanout partitions with the hash seeded by Seed.
type Partitioner struct {
	Seed   uint64
	Fanout int
	// NullsApart gives rows with any null key NullKey instead of a partition: a join never matches them and
	// handles them without spilling. Without it nulls hash like a value, as grouping wants.
	NullsApart bool
}

// Assign returns the partition of each of the n rows whose keys are keys, reusing dst.
func (p Partitioner) Assign(keys []*column.Vector, n int, dst []int32) []int32 {
	dst = dst[:0]
	fan := uint64(max(p.Fanout, 1))
	if len(keys) == 1 && isInt(keys[0].Type) {
		k := keys[0]
		for _, x := range k.Ints[:n] {
			dst = append(dst, int32(reduce(mixInt(uint64(x), p.Seed), fan)))
		}
	} else {
		var buf []byte
		for i := 0; i < n; i++ {
			var h uint64
			h, buf = Hash(keys, i, p.Seed, buf)
			dst = append(dst, int32(reduce(h, fan)))
		}
	}
	if p.NullsApart {
		for _, k := range keys {
			if !k.HasNulls() {
				continue
			}
			for i := 0; i < n; i++ {
				if k.IsNull(i) {
					dst[i] = NullKey
				}
			}
		}
	}
	return dst
}

// Group lists the rows of each partition in row order, reusing dst; NullKey rows are left out.
func Group(assign []int32, fanout int, dst [][]int32) [][]int32 {
	if cap(dst) < fanout {
		dst = make([][]int32, fanout)
	}
	dst = dst[:fanout]
	for i := range dst {
		dst[i] = dst[i][:0]
	}
	for i, p := range assign {
		if p >= 0 {
			dst[p] = append(dst[p], int32(i))
		}
	}
	return dst
}

// Hash returns the seeded hash of row i's keys. A single integer key hashes its value; anything else hashes
// the keys' unambiguous encoding (column.AppendKey), built in buf.
func Hash(keys []*column.Vector, i int, seed uint64, buf []byte) (uint64, []byte) {
	if len(keys) == 1 {
		k := keys[0]
		switch {
		case k.IsNull(i):
			return mixInt(0, seed^nullSalt), buf
		case isInt(k.Type):
			return mixInt(uint64(k.Ints[i]), seed), buf
		case k.Type == column.Real:
			f := k.Reals[i]
			if f == 0 {
				f = 0 // -0 equals 0, so it must hash like it
			}
			return mixInt(math.Float64bits(f), seed^realSalt), buf
		case k.Type == column.String || k.Type == column.Dynamic:
			return hashString(k.Strs[i], seed), buf
		}
	}
	buf = buf[:0]
	for _, k := range keys {
		buf = column.AppendKey(buf, k, i)
	}
	return hashString(string(buf), seed), buf
}

// Salts keep a null, a real and an integer with the same bits from colliding systematically.
const (
	nullSalt = 0x5bd1e9955bd1e995
	realSalt = 0x27d4eb2f165667c5
)

func isInt(t column.Type) bool {
	return t == column.Long || t == column.DateTime || t == column.Timespan
}

// reduce maps a hash onto [0, n) by the multiply-high method, which uses the hash's top bits (the best mixed)
// and needs no division.
func reduce(h, n uint64) uint64 {
	return (h >> 32) * n >> 32
}

// mixInt is the murmur3 finalizer over the value and the seed: every input bit affects every output bit, so
// keys that are multiples of each other or of the partition count still spread evenly.
func mixInt(x, seed uint64) uint64 {
	x ^= seed * 0x9E3779B97F4A7C15
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}

// hashString hashes s eight bytes at a time, then finalizes with mixInt.
func hashString(s string, seed uint64) uint64 {
	h := uint64(len(s)) * 0x87c37b91114253d5
	for len(s) >= 8 {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = (h ^ w*0x4cf5ad432745937f) * 0x9E3779B97F4A7C15
		h ^= h >> 29
		s = s[8:]
	}
	var w uint64
	for i := 0; i < len(s); i++ {
		w |= uint64(s[i]) << (8 * i)
	}
	h = (h ^ w*0x4cf5ad432745937f) * 0x9E3779B97F4A7C15
	return mixInt(h, seed)
}

// LevelSeed derives the seed of a re-partitioning level from a base seed, so each level splits its rows
// independently of the levels above it (rows that shared a partition there are spread afresh).
func LevelSeed(base uint64, level int) uint64 {
	return mixInt(uint64(level)+1, base)
}
