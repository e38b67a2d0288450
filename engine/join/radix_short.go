package join

import (
	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/keymap"
)

// The radix join's loops for its most common string shape: one string key column without nulls, every key 8 to
// 16 bytes long (so a row holds it whole), summed values without nulls, and nothing that marks keys or keeps a
// key's first row alone (inner joins and the kinds that keep unmatched probe rows).
//
// Under js/wasm a loop's cost is mostly its bookkeeping. Go's wasm port has 16 registers, so a loop with more
// live values than that stores and reloads them on every row, and every taken branch goes through the
// function's dispatch table. The general loops (radix_aggregate.go) carry cases this shape never meets (null
// keys and values, long keys, marks, several key columns); the loops here carry none of them, and the two that
// run once per row of the commonest query — count() with one sum from each side — have a copy with the row's
// width fixed, so no inner loop over the summed values is left. On the browser benchmark's workload b (1M ⋈ 5M
// on 16-byte keys), paired runs in node: the lean loops 0.80 of the general ones' time, with the fixed-width
// copies 0.62–0.71 (docs/bench.md).
//
// Rows keep the general layout (radixPart), so a batch or a partition that leaves the shape takes the general
// loops over the same partitions.

// scatterShort is scatter for the shape above, over a batch of n rows whose keys are strs or, for two int64
// key columns, pair (a 16-byte key whose words are the two values; see intPair) with null keys where nulls
// (a word for every 64 rows; nil: none) says; it reports false, having changed nothing, when the batch does
// not have the shape (a key of another length). A null key's row is not kept, as a key the filter rejects.
func (r *radixAggregate) scatterShort(strs []string, pair [2][]int64, nulls column.Bitmap, n int, vals [][]int64, build, unmatched bool, parts []radixPart) bool {
	stride := 3 + len(vals)
	if need := n * stride; cap(r.stage) < need {
		r.stage = make([]uint64, need)
	}
	st := r.stage[:n*stride]
	kept, ok := len(pair[0]), true
	if pair[0] != nil {
		kept = r.hashPairs(pair, nulls, st, stride, build)
	} else {
		kept, ok = r.hashShort(strs, st, stride, build)
	}
	if !ok {
		return false
	}
	r.shortBatches++
	st, sel := st[:kept*stride], r.sel[:kept]
	if unmatched {
		acc := r.psum
		if build {
			acc = r.bsum
		}
		r.foldUnkept(vals, sel, n, acc)
	}
	for j, v := range vals {
		for k, i := range sel {
			st[k*stride+3+j] = uint64(v[i])
		}
	}
	shift := r.partShift(len(parts))
	if stride == 4 {
		for o := 0; o+4 <= len(st); o += 4 {
			src := st[o : o+4 : o+4]
			pt := &parts[src[0]>>shift]
			pt.rows++
			dst := pt.claim(4)
			dst[0], dst[1], dst[2], dst[3] = src[0], src[1], src[2], src[3]
		}
		return true
	}
	for o := 0; o+stride <= len(st); o += stride {
		src := st[o : o+stride : o+stride]
		pt := &parts[src[0]>>shift]
		pt.rows++
		dst := pt.claim(stride)
		for j, w := range src {
			dst[j] = w
		}
	}
	return true
}

// hashShort is scatterShort's first pass: rows [0, kept) of st, stride words apart, start with the kept rows'
// tagged key hashes and two key words, and r.sel holds their row numbers. It sets the filter bits of build keys,
// and keeps only the probe rows whose filter bit is set. It reports false at the first key shorter than 8 bytes
// or longer than keymap.InlineBytes.
//
// For 8 to 16 bytes keyWords is the two loads below with no branch: the second word is the 8 bytes ending the
// key, shifted down past those the first word holds (by 64 bits, to zero, for an 8-byte key).
func (r *radixAggregate) hashShort(strs []string, st []uint64, stride int, build bool) (int, bool) {
	sel := r.sel[:len(strs)]
	filter, fshift := r.filter, r.filterShift
	kept := 0
	if filter != nil && !build {
		for i, s := range strs {
			n := len(s)
			if n < 8 || n > keymap.InlineBytes {
				return 0, false
			}
			w0, w1 := keymap.Word(s), keymap.Word(s[n-8:])>>(8*(keymap.InlineBytes-n))
			h := keymap.HashWords(n, w0, w1)
			h = keyTag(h^h>>31, n)
			f := h >> fshift
			stageShort(st, sel, stride, kept, i, h, w0, w1)
			kept += int(filter[f/64] >> (f % 64) & 1)
		}
		return kept, true
	}
	for i, s := range strs {
		n := len(s)
		if n < 8 || n > keymap.InlineBytes {
			return 0, false
		}
		w0, w1 := keymap.Word(s), keymap.Word(s[n-8:])>>(8*(keymap.InlineBytes-n))
		h := keymap.HashWords(n, w0, w1)
		h = keyTag(h^h>>31, n)
		stageShort(st, sel, stride, i, i, h, w0, w1)
		if filter != nil {
			f := h >> fshift
			filter[f/64] |= 1 << (f % 64)
		}
	}
	return len(strs), true
}

// hashPairs is hashShort for a key of two int64 columns, whose null keys nulls marks (nil: none): the words
// are the values as they are, so no key is encoded and every row fits. A null key's row is not kept, and its
// key sets no filter bit; a row is kept by a bit, not a branch (see keepKeys).
func (r *radixAggregate) hashPairs(pair [2][]int64, nulls column.Bitmap, st []uint64, stride int, build bool) int {
	k0, k1 := pair[0], pair[1][:len(pair[0])]
	sel := r.sel[:len(k0)]
	filter, fshift := r.filter, r.filterShift
	kept := 0
	switch {
	case filter != nil && !build && nulls != nil:
		for i, x := range k0 {
			w0, w1 := uint64(x), uint64(k1[i])
			h := pairHash(w0, w1)
			f := h >> fshift
			stageShort(st, sel, stride, kept, i, h, w0, w1)
			kept += int(filter[f/64] >> (f % 64) & (^nulls[i>>6] >> (uint(i) & 63)) & 1)
		}
	case filter != nil && !build:
		for i, x := range k0 {
			w0, w1 := uint64(x), uint64(k1[i])
			h := pairHash(w0, w1)
			f := h >> fshift
			stageShort(st, sel, stride, kept, i, h, w0, w1)
			kept += int(filter[f/64] >> (f % 64) & 1)
		}
	case nulls != nil: // a build side (or a probe with no filter) with null keys
		for i, x := range k0 {
			w0, w1 := uint64(x), uint64(k1[i])
			h := pairHash(w0, w1)
			in := ^nulls[i>>6] >> (uint(i) & 63) & 1
			stageShort(st, sel, stride, kept, i, h, w0, w1)
			if filter != nil {
				f := h >> fshift
				filter[f/64] |= in << (f % 64)
			}
			kept += int(in)
		}
	default:
		for i, x := range k0 {
			w0, w1 := uint64(x), uint64(k1[i])
			h := pairHash(w0, w1)
			stageShort(st, sel, stride, i, i, h, w0, w1)
			if filter != nil {
				f := h >> fshift
				filter[f/64] |= 1 << (f % 64)
			}
		}
		kept = len(k0)
	}
	return kept
}

// stageShort writes row i's key, its tagged hash h and words w0 and w1, at place k of the stage st (rows
// stride words apart), and the row's number at sel[k]: the first pass of every lean scatter loop.
func stageShort(st []uint64, sel []int32, stride, k, i int, h, w0, w1 uint64) {
	e := st[k*stride : k*stride+3 : k*stride+3]
	e[0], e[1], e[2] = h, w0, w1
	sel[k] = int32(i)
}

// intPair reports whether keys are two columns stored as int64, whose encoding (encodedInts) is 16 bytes: the
// two values, little-endian. Those bytes' two words are the values themselves, so the radix join reads them
// from the columns and makes no string: pairHash gives the tagged hash hashKeys gives the encoded string.
func intPair(keys []*column.Vector) bool {
	w, ok := intEncoding(keys)
	return ok && w == keymap.InlineBytes
}

// pairHash is the tagged hash of the 16-byte key whose words are w0 and w1 (see hashKeys).
func pairHash(w0, w1 uint64) uint64 {
	h := keymap.HashWords(keymap.InlineBytes, w0, w1)
	return keyTag(h^h>>31, keymap.InlineBytes)
}

// shortSlot is where the key of short row x is in tab, slots of sw words (see radixTable), or the empty slot
// that ends its run: linear probing from slot s.
func shortSlot(tab, x []uint64, s, mask uint64, sw int) int {
	e := int(s) * sw
	for tab[e+3] != 0 && (tab[e] != x[0] || tab[e+1] != x[1] || tab[e+2] != x[2]) {
		s = (s + 1) & mask
		e = int(s) * sw
	}
	return e
}

// shortPartition reports whether the rows of pt fit the fold's lean loops: no long key and no null value.
func shortPartition(pt *radixPart) bool { return pt.long.n == 0 && len(pt.nulls) == 0 }

// insertShort is insertRows for a partition of short rows (shortPartition) into its own table t, when nothing
// keeps a key's first row alone. An empty slot holds zeros, so a row adds itself to its slot the same way
// whether it finds its key there or takes the slot: key words set, one more build row, its values added.
func (r *radixAggregate) insertShort(pt *radixPart, t radixTable) {
	nb := len(r.bcols)
	stride, sw := 3+nb, 4+nb
	tab := r.table[t.base*sw : (t.base+1<<t.lbits)*sw]
	mask := uint64(1)<<t.lbits - 1
	bits, lshift := r.bits, 64-t.lbits
	for _, c := range pt.words(stride) {
		for o := 0; o+stride <= len(c); o += stride {
			x := c[o : o+stride : o+stride]
			e := shortSlot(tab, x, (x[0]<<bits)>>lshift, mask, sw)
			slot := tab[e : e+sw : e+sw]
			slot[0], slot[1], slot[2] = x[0], x[1], x[2]
			slot[3]++
			for j, v := range x[3:] {
				slot[4+j] += v
			}
		}
	}
}

// probeShort is probeRows for a partition of short rows (shortPartition) against its own table t, built by
// insertShort, when nothing marks a found key. An empty slot's count and sums are zero, so a row adds its
// slot's sums whether it found its key or not, and its output rows are its slot's count (or one, for an
// unmatched row the kind keeps). With no null values every sum counts every output row it is over: a
// build-side sum the matched pairs, a probe-side sum all output rows.
func (r *radixAggregate) probeShort(pt *radixPart, t radixTable) {
	sw := 4 + len(r.bcols)
	tab := r.table[t.base*sw : (t.base+1<<t.lbits)*sw]
	var pairs, matched int64
	if len(r.bcols) == 1 && len(r.pcols) == 1 {
		pairs, matched = r.probeShortOne(pt, tab, t.lbits)
	} else {
		pairs, matched = r.probeShortAny(pt, tab, t.lbits)
	}
	r.pairs += pairs
	for j := range r.bsum {
		r.bsum[j].n += matched
	}
	for j := range r.psum {
		r.psum[j].n += pairs
	}
}

// keptUnmatched is 1 when the kind outputs a probe row that matches nothing, else 0.
func (r *radixAggregate) keptUnmatched() int64 {
	if r.ps.unmatched {
		return 1
	}
	return 0
}

// probeShortOne is probeShort's loop for one sum from each side, with the row (4 words) and slot (5) widths
// fixed. It adds the sums and returns the output rows and the matched pairs.
func (r *radixAggregate) probeShortOne(pt *radixPart, tab []uint64, lbits uint) (pairs, matched int64) {
	mask, bits, lshift := uint64(1)<<lbits-1, r.bits, 64-lbits
	unmatched := r.keptUnmatched()
	var bs, ps int64
	for _, c := range pt.words(4) {
		for o := 0; o+4 <= len(c); o += 4 {
			x := c[o : o+4 : o+4]
			e := shortSlot(tab, x, (x[0]<<bits)>>lshift, mask, 5)
			slot := tab[e : e+5 : e+5]
			m := int64(slot[3])
			matched += m
			bs += int64(slot[4])
			m |= unmatched &^ (-m >> 63) // an unmatched row: m is 0, and becomes 1 when the kind keeps it
			ps += int64(x[3]) * m        // wraps exactly as m additions would
			pairs += m
		}
	}
	r.bsum[0].s += bs
	r.psum[0].s += ps
	return pairs, matched
}

// probeShortAny is probeShort's loop for any number of sums on either side.
func (r *radixAggregate) probeShortAny(pt *radixPart, tab []uint64, lbits uint) (pairs, matched int64) {
	np, nb := len(r.pcols), len(r.bcols)
	stride, sw := 3+np, 4+nb
	mask, bits, lshift := uint64(1)<<lbits-1, r.bits, 64-lbits
	unmatched := r.keptUnmatched()
	bsum, psum := r.bsum, r.psum
	for _, c := range pt.words(stride) {
		for o := 0; o+stride <= len(c); o += stride {
			x := c[o : o+stride : o+stride]
			e := shortSlot(tab, x, (x[0]<<bits)>>lshift, mask, sw)
			slot := tab[e : e+sw : e+sw]
			m := int64(slot[3])
			matched += m
			for j := range bsum {
				bsum[j].s += int64(slot[4+j])
			}
			m |= unmatched &^ (-m >> 63)
			for j, v := range x[3:] {
				psum[j].s += int64(v) * m
			}
			pairs += m
		}
	}
	return pairs, matched
}
