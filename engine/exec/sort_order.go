package exec

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// The order of a sort's rows, made by a radix sort on order codes instead of compares.
//
// Each key's value becomes a uint64 whose unsigned order is the key's order (its order code): a long, datetime
// or timespan with its sign bit flipped; a real as its bits, flipped whole when negative and with the sign bit
// set when not, -0 taken as 0 and every NaN as 0, below -∞ (cmp.Compare's order); a bool as 0 or 1; a string as
// its rank among the batch's distinct strings (a sort of those strings); descending keys with every bit
// flipped. A null row's code is 0, so nulls tie with each other whatever their stored value.
//
// The rows are then sorted key by key from the last key to the first (least significant digit first): a
// stable counting sort per byte of the codes, skipping the bytes every row shares (a key of values below 65,536
// takes two passes, not eight), then, for a key with nulls, a stable pass that puts its nulls first or last.
// Each pass is stable and the rows start in input order, so rows that tie on every key keep their input order,
// as the comparison sort did. Cost: per key, a gather of its codes and one pass over the rows per byte that
// varies, 12 bytes a row read and written sequentially, and no compare but a string key's sort of its distinct
// values; memory: radixRowBytes a row besides the keys (and rankRowBytes for a string key). Dynamic keys, whose
// values may compare across types, take a comparison sort, and so does a sort whose budget refuses that memory.

// sortOrder returns the rows 0…n-1 of key vectors vs (one per sort key, of n rows) in the sort's order,
// stable. The radix sort's memory is grown on the budget while it runs; when the budget refuses it, or a key is
// dynamic, the rows are ordered by compares instead.
func (s *Sort) sortOrder(vs []*column.Vector, n int) []int32 {
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	if n < 2 {
		return idx
	}
	need := int64(n) * radixRowBytes
	for _, v := range vs {
		switch v.Type {
		case column.Dynamic:
			return s.compareOrder(vs, idx)
		case column.String:
			need += int64(n) * rankRowBytes
		}
	}
	if s.budget.Grow("sort", need) != nil {
		return s.compareOrder(vs, idx)
	}
	defer s.budget.Shrink(need)
	r := radixRows{idx: idx, codes: make([]uint64, n), keys: make([]uint64, n), keys2: make([]uint64, n), idx2: make([]int32, n)}
	for i := len(s.keys) - 1; i >= 0; i-- {
		orderCodes(vs[i], s.keys[i].Asc, r.codes[:n])
		r.sortBy()
		if vs[i].HasNulls() {
			r.moveNulls(vs[i], s.keys[i].NullsFirst)
		}
	}
	return r.idx
}

const (
	// radixRowBytes is what the radix sort holds per row: the rows in two orders and the codes in three.
	radixRowBytes = 2*4 + 3*8
	// rankRowBytes is at most what ranking a string key holds per row: its group and, per distinct string, a
	// copy of its header, a slot and a rank.
	rankRowBytes = 4 + 16 + 24 + 8
)

// compareOrder sorts idx by the sort's compare, ties in input order: a total order, so the unstable sort is
// stable.
func (s *Sort) compareOrder(vs []*column.Vector, idx []int32) []int32 {
	slices.SortFunc(idx, func(a, b int32) int {
		if c := s.compareAcross(vs, int(a), vs, int(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return idx
}

// orderCodes sets codes[r] to the order code of row r of v, ascending or not (see the file comment).
func orderCodes(v *column.Vector, asc bool, codes []uint64) {
	flip := uint64(0)
	if !asc {
		flip = math.MaxUint64
	}
	switch v.Type {
	case column.Long, column.DateTime, column.Timespan:
		for r, x := range v.Ints[:len(codes)] {
			codes[r] = (uint64(x) ^ 1<<63) ^ flip
		}
	case column.Real:
		for r, f := range v.Reals[:len(codes)] {
			codes[r] = realCode(f) ^ flip
		}
	case column.Bool:
		for r, b := range v.Bools[:len(codes)] {
			codes[r] = uint64(b2i(b)) ^ flip
		}
	default:
		stringRanks(v.Strs[:len(codes)], codes)
		if flip != 0 {
			for r := range codes {
				codes[r] ^= flip
			}
		}
	}
	if v.HasNulls() {
		for r := range codes {
			if v.Nulls.Get(r) {
				codes[r] = 0
			}
		}
	}
}

// realCode is f's order code: NaN lowest (0), -0 as 0, then the IEEE bits made to order as unsigned ints.
func realCode(f float64) uint64 {
	switch {
	case f != f:
		return 0
	case f == 0:
		f = 0
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stringRanks sets codes[r] to the rank of strs[r] among the distinct strings of strs, in strings.Compare's
// order: the distinct strings are numbered by the summarize's group table (a hash per row), and only they are
// sorted (sortStrings), so a key of a few distinct values costs a lookup a row, not a sort of every row.
func stringRanks(strs []string, codes []uint64) {
	v := &column.Vector{Type: column.String, Strs: strs}
	v.SetLen(len(strs))
	groups := newGroupTable("sort", []column.Type{column.String}, 0, memory.NewBudget(0))
	gids, _, _ := groups.assign([]*column.Vector{v}, len(strs), nil) // an unlimited budget refuses nothing
	distinct := groups.keyCols[0].Strs
	order := make([]int32, len(distinct))
	for i := range order {
		order[i] = int32(i)
	}
	order = sortStrings(order, distinct, 0, &radixRows{})
	rank := make([]uint64, len(distinct))
	for j, g := range order {
		rank[g] = uint64(j)
	}
	for r, g := range gids {
		codes[r] = rank[g]
	}
}

// sortStrings returns order (indexes of strs, whose strings agree on their first off bytes, a string that
// ends before taken as padded with zero bytes) sorted by the strings, in strings.Compare's order: a run of more
// than stringRadixRows strings is radix-sorted by its next eight bytes (big-endian, padded likewise), and each
// run that ties on them is sorted the same way from the eight after, or, once every string of it has ended, by
// length (only trailing zero bytes can tell such strings apart, and the shorter sorts first); a shorter run is
// sorted by compares. Cost: a pass per varying byte over each long run, instead of log n compares per string,
// each of which rereads the prefix the strings share.
func sortStrings(order []int32, strs []string, off int, r *radixRows) []int32 {
	if len(order) <= stringRadixRows {
		slices.SortFunc(order, func(a, b int32) int {
			if c := strings.Compare(suffix(strs[a], off), suffix(strs[b], off)); c != 0 {
				return c
			}
			return cmp.Compare(len(strs[a]), len(strs[b]))
		})
		return order
	}
	n := len(order)
	codes := make([]uint64, len(strs)) // indexed by string, as sortBy reads them; only order's are set
	for _, i := range order {
		codes[i] = prefixCode(suffix(strs[i], off))
	}
	r.idx, r.idx2, r.codes = order, make([]int32, n), codes
	r.keys, r.keys2 = make([]uint64, n), make([]uint64, n)
	r.sortBy()
	order = r.idx
	for i := 0; i < n; {
		j, ended := i+1, len(strs[order[i]]) <= off+8
		for j < n && codes[order[j]] == codes[order[i]] {
			ended = ended && len(strs[order[j]]) <= off+8
			j++
		}
		switch {
		case j-i == 1:
		case ended:
			slices.SortFunc(order[i:j], func(a, b int32) int { return cmp.Compare(len(strs[a]), len(strs[b])) })
		default:
			copy(order[i:j], sortStrings(slices.Clone(order[i:j]), strs, off+8, r))
		}
		i = j
	}
	return order
}

// suffix is s from byte off on, empty when s ends before.
func suffix(s string, off int) string { return s[min(off, len(s)):] }

// stringRadixRows is the run of strings from which sortStrings radix-sorts: below it, the passes' counts (16
// KiB to clear per run) cost more than the compares.
const stringRadixRows = 256

// prefixCode is s's first eight bytes as a big-endian uint64, padded with zero bytes.
func prefixCode(s string) uint64 {
	var x uint64
	for i := range 8 {
		x <<= 8
		if i < len(s) {
			x |= uint64(s[i])
		}
	}
	return x
}

// radixRows is the rows being sorted (idx, in their order so far), the order codes of the key being sorted by
// (codes, per row) and the passes' scratch.
type radixRows struct {
	idx, idx2   []int32
	codes       []uint64
	keys, keys2 []uint64
	counts      [8][256]int
}

// sortBy sorts the rows stably by their codes, a byte at a time from the lowest, skipping each byte that
// every row has alike.
func (r *radixRows) sortBy() {
	keys := r.keys
	for j, row := range r.idx {
		keys[j] = r.codes[row]
	}
	c := &r.counts
	*c = [8][256]int{}
	for _, x := range keys {
		c[0][byte(x)]++
		c[1][byte(x>>8)]++
		c[2][byte(x>>16)]++
		c[3][byte(x>>24)]++
		c[4][byte(x>>32)]++
		c[5][byte(x>>40)]++
		c[6][byte(x>>48)]++
		c[7][byte(x>>56)]++
	}
	n := len(keys)
	for b := range 8 {
		shift := uint(8 * b)
		counts := &c[b]
		if counts[byte(keys[0]>>shift)] == n {
			continue
		}
		at := 0
		for d, k := range counts {
			counts[d] = at
			at += k
		}
		idx, dst, dstIdx := r.idx, r.keys2, r.idx2
		for j, x := range keys {
			d := byte(x >> shift)
			p := counts[d]
			counts[d]++
			dst[p], dstIdx[p] = x, idx[j]
		}
		r.keys, r.keys2 = dst, keys
		r.idx, r.idx2 = dstIdx, idx
		keys = dst
	}
}

// moveNulls moves the rows whose value of v is null to the front (first) or the back, stably.
func (r *radixRows) moveNulls(v *column.Vector, first bool) {
	dst := r.idx2[:0]
	for pass := range 2 {
		wantNull := (pass == 0) == first
		for _, row := range r.idx {
			if v.Nulls.Get(int(row)) == wantNull {
				dst = append(dst, row)
			}
		}
	}
	r.idx, r.idx2 = dst, r.idx
}
