package join

import (
	"unsafe"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/keymap"
)

// The partitioned build: the hash join's table of build keys filled partition by partition of its slots.
//
// A key's first slot is the top bits of its hash (engine/keymap), so the keys whose hash has top bits p live in
// one contiguous run of slots — the same partitions the probe looks its windows up by (hash_radix.go). Inserting
// the build rows in their order touches a random slot of the whole table per row: a cache miss, and usually a
// TLB miss, for every row once the table outgrows the cache. Inserting them grouped by partition touches one
// run of radixPartitionBytes at a time, which stays in the L2 cache:
//
//	part     per build row its partition (its key's hash), a count per partition; null keys take none
//	order    the rows, in insertion order, sorted stably by partition (a counting sort) with their int keys
//	insert   push each row onto its key's chain in that order
//
// The chains are the same as the unpartitioned build's: equal keys share a partition, and the sort is stable,
// so within a key the rows are pushed in the same order (backwards, or forwards for a unique build). Memory:
// radixBuildRowBytes a build row while the table is built, counted against the budget; when the budget refuses
// it the rows are inserted in their order instead, so a query the budget runs unpartitioned runs here. Cost: one
// more hash per row and about 14 bytes a row written and read sequentially; the inserts then hit the cache.

// radixBuildRowBytes is what the partitioned build holds per build row: partition, row and (int keys) key.
const radixBuildRowBytes = 2 + 4 + 8

// tableRadixBits is how many partition bits make a table of tableBytes (whose slot numbers have tableBits bits)
// into partitions of at most radixPartitionBytes, capped at maxRadixBits and at the table's own bits; 0 when
// the table is below radixProbeTableBytes, small enough that a random slot mostly hits the cache already.
func tableRadixBits(tableBytes int64, tableBits uint) uint {
	if tableBytes < radixProbeTableBytes {
		return 0
	}
	bits := uint(0)
	for bits < maxRadixBits && bits < tableBits && tableBytes>>bits > radixPartitionBytes {
		bits++
	}
	return bits
}

// partitionBits is how many partition bits the build and the probe of a table of tableBytes, whose slot
// numbers are a hash shifted right by shift, use: tableRadixBits, or the test knobs' (noRadix: none; radixBits:
// that many at any size, at most the table's).
func (h *Hash) partitionBits(tableBytes int64, shift uint) uint {
	tableBits := 64 - shift
	switch {
	case h.noRadix:
		return 0
	case h.radixBits > 0:
		return min(h.radixBits, tableBits)
	}
	return tableRadixBits(tableBytes, tableBits)
}

// buildOrder lists the build rows with non-null keys in insertion order (forwards for a unique build, else
// backwards; each row once), grouped by their partition under bits partition bits (the top bits of the key's
// slot hash, for the one key the table is built on: ints, an int64; else a string) and stable within a
// partition; beside them their keys: with ints the int64s, else the strings, copied into one block in the same
// order (placeKey), so that the inserts read them one after another instead of wherever the column holds
// each. It sets next[i] = -1, when next is made, for a row with a null key (no chain holds it). It reports
// false, having changed nothing, when the budget refuses the memory it needs. Its loops are typed and call
// nothing per row (under js/wasm a call per row costs more than the row's work).
func (h *Hash) buildOrder(keys []*column.Vector, forward bool, bits uint, ints bool) (rows []int32, ikeys []int64, skeys []string, ok bool) {
	n := h.table.N
	need := int64(n) * radixBuildRowBytes
	if h.budget.Grow("the partitioned build", need) != nil {
		return nil, nil, nil, false
	}
	h.buildHeld = need
	parts := make([]uint16, n)
	counts := make([]int, 1<<bits)
	var sizes []int // per partition, the bytes of its string keys, then where its next key's copy goes
	shift := 64 - bits
	k := keys[0]
	if ints {
		for i, x := range k.Ints[:n] {
			p := keymap.IntHash(x) >> shift
			parts[i] = uint16(p)
			counts[p]++
		}
	} else {
		sizes = make([]int, 1<<bits)
		for i, x := range k.Strs[:n] {
			p := keymap.StrHome(x) >> shift
			parts[i] = uint16(p)
			counts[p]++
			sizes[p] += len(x)
		}
	}
	keyed := n
	if k.HasNulls() { // a null row's stored value took a partition above: give it back
		for i := range n {
			if k.IsNull(i) {
				counts[parts[i]]--
				if sizes != nil {
					sizes[parts[i]] -= len(k.Strs[i])
				}
				parts[i] = noPartition
				if h.next != nil {
					h.next[i] = -1
				}
				keyed--
			}
		}
	}
	startsFromCounts(counts)
	rows = make([]int32, keyed)
	var arena []byte
	if ints {
		ikeys = make([]int64, keyed)
	} else {
		total := startsFromCounts(sizes)
		if h.budget.Grow("the partitioned build", int64(total)) != nil {
			h.releaseBuildOrder()
			return nil, nil, nil, false
		}
		h.buildHeld += int64(total)
		arena, skeys = make([]byte, total), make([]string, keyed)
	}
	first, end, step := insertOrder(n, forward)
	for i := first; i != end; i += step {
		p := parts[i]
		if p == noPartition {
			continue
		}
		at := counts[p]
		counts[p]++
		rows[at] = int32(i)
		if ints {
			ikeys[at] = k.Ints[i]
		} else {
			skeys[at] = placeKey(arena, &sizes[p], k.Strs[i])
		}
	}
	return rows, ikeys, skeys, true
}

// placeKey copies s into arena at *at, moves *at past it, and returns the copy (or "" for an empty s, which
// has no bytes to point at).
func placeKey(arena []byte, at *int, s string) string {
	if len(s) == 0 {
		return ""
	}
	o := *at
	copy(arena[o:], s)
	*at = o + len(s)
	return unsafe.String(&arena[o], len(s))
}

// insertOrder is the order the build rows 0..n-1 are pushed onto their chains, as a loop's first row, end and
// step: forwards for a unique build, which keeps a key's first row, else backwards, so that pushing each row
// onto the front of its chain leaves the chain in row order (hashtable.go).
func insertOrder(n int, forward bool) (first, end, step int) {
	if forward {
		return 0, n, 1
	}
	return n - 1, -1, -1
}

// startsFromCounts turns a counting sort's count per partition into each partition's first place, and
// returns the total.
func startsFromCounts(counts []int) int {
	at := 0
	for p, c := range counts {
		counts[p] = at
		at += c
	}
	return at
}

// releaseBuildOrder gives back the memory buildOrder counted.
func (h *Hash) releaseBuildOrder() {
	h.budget.Shrink(h.buildHeld)
	h.buildHeld = 0
}
