package join

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/keymap"
)

// radixProbe is the hash join's partitioned lookup: it holds a window of probe batches, finds every row's
// chain head partition by partition, and hands the batches back in probe order with their heads found, so
// the join loop (probeBatch) runs unchanged and the output order is exactly the streaming probe's.
//
// The table is open addressing whose first slot for a key is the top bits of its hash (engine/keymap), so the
// slots are already partitioned: the keys whose hash has top bits p live in one contiguous run of slots (bar
// the few that overflow into the next run). Looking a window's rows up grouped by those bits — a counting sort
// of the window's row numbers on the partition, then one lookup loop in that order — touches one run of
// radixPartitionBytes at a time, which stays in the L2 cache, instead of a random slot of the whole table per
// row, each a miss to memory and usually to the TLB.
//
//	fill    read probe batches until the window's size (or the end, or the budget's limit), their keys: the
//	        first window radixMinWindowRows rows, each next one four times the last up to radixWindowRows
//	sort    per row its partition (the key's hash once more), a count per partition, the rows in partition order
//	look    find each row's head in partition order, written to the row's place in probe order
//	hand    give the window's batches to the join loop one at a time, then fill the next window
//
// Memory: the window's batches and radixRowBytes a row, counted against the budget; when a batch does not fit,
// the window ends with it (the batch is held uncounted, as the streaming probe holds its one batch), so a
// tight budget degrades to windows of one batch, which are looked up as the streaming probe does — a query
// that runs streaming runs here. Cost: per probe row, one more hash and about 20 bytes written and read
// sequentially; the lookups themselves then hit the cache. The first output waits for the first window's
// radixMinWindowRows rows, never for the whole probe side, so a limit above the join stops it early as before.
type radixProbe struct {
	bits uint // log2 of the partition count
	// The window: its batches, their key columns and (keymap.Strs) their keys as strings, and the first row of
	// each in the flat per-row arrays below.
	batches []*column.Batch
	keys    [][]*column.Vector
	strs    [][]string
	starts  []int
	skips   [][]bool // per batch, the rows a filter below did not select (nil: none; see readProbe)
	heads   []int32  // per window row, its chain head (see lookupBatch's marks)
	part    []uint16 // per window row, its partition, or noPartition for a null key
	order   []int32  // the window's rows with a non-null key, in partition order, then the sink's (sortWindow)
	keyed   int      // how many of order are not the sink's: the rows to look up
	noSkip  []bool   // all false: sortWindow's selection for a batch with none
	ikeys   []int64  // their int64 keys, in the same order
	skeys   []string // or their string keys, copies in arena
	arena   []byte
	sizes   []int // per partition, the bytes of its string keys (sortWindow)
	counts  []int
	size    int   // the rows the last window was filled to at most
	pos     int   // the next batch to hand to the join loop
	held    int64 // what the window holds of the budget
	// windows and sorted count the windows filled and those looked up in partition order; overBudget records
	// that a window was cut short by the budget. Tests and explain read them.
	windows, sorted int
	overBudget      bool
	// chained records that some build key has more than one row, so that a head may start a chain to touch.
	chained bool
	// filter, for an int64 key, has bit IntHash(k) >> fshift set for every build key (see keyFilter); nil when
	// the budget refused it. filtered counts the probe rows it proved unmatched, for explain and tests.
	filter   []uint64
	fshift   uint
	filtered int64
}

const (
	// radixProbeTableBytes is the table size from which the probe is partitioned: four times the 512 KiB L2
	// of the machines measured, where most of a random lookup's slots already miss the L2 and its TLB reach.
	radixProbeTableBytes = 2 << 20
	// radixWindowRows is how many probe rows a window holds at most: enough that every partition gets
	// thousands of rows (a 1M-row build table has 128 partitions), few enough that the first output comes
	// soon and the window's memory stays a fraction of the build side's.
	radixWindowRows = 1 << 20
	// radixMinWindowRows is the least window the sort pays off for; a smaller one (the probe side's end, or a
	// tight budget) is looked up in probe order.
	radixMinWindowRows = 16 << 10
	// radixRowBytes is what a window holds per row besides its batch: head, partition, order and key.
	radixRowBytes = 4 + 2 + 4 + 16
	// noPartition marks a row with a null key, which no lookup finds; unselectedPartition a row the filter
	// below did not select, which is dropped. Partitions are numbered below both (bits < 16).
	noPartition         = 1<<16 - 1
	unselectedPartition = noPartition - 1
)

// startRadix turns the partitioned lookup on once the table is built, when the table is large enough for
// the lookups to miss the cache and the probe needs no row-by-row order of its lookups: not innerunique
// probing with the left (its dedupe must see a key's first row first) and not under a top's bound (whose
// cut tightens as each batch's rows reach the top, so a batch's rows must be looked up after the last one's
// output).
func (h *Hash) startRadix() {
	if h.noRadix || h.top != nil || (h.unique && !h.buildLeft) {
		return
	}
	var table int64
	var shift uint
	switch m := h.ints.(type) {
	case *keymap.Ints:
		table, shift = m.Bytes(), m.Shift()
	case nil:
		table, shift = h.strs.Bytes(), h.strs.Shift()
	default: // a dense array: a lookup is one load at the key's offset, with nothing to partition by hash
		return
	}
	bits := h.partitionBits(table, shift)
	if bits == 0 {
		return
	}
	// counts has one more place than partitions: sortWindow's sink.
	h.radix = &radixProbe{bits: bits, counts: make([]int, 1<<bits+1), chained: anyChained(h.next)}
	h.keyFilter()
}

// anyChained reports whether some build row has a next row in its key's chain (next, see hashtable.go): when
// none has, every head is one row and touchChains has nothing to touch. One pass with no branch on the data.
func anyChained(next []int32) bool {
	var all int32
	for _, r := range next {
		all |= ^r // negative exactly when r >= 0
	}
	return all < 0
}

// keyFilter sets the partitioned probe's filter of the build keys: filterBitsPerRow bits a build row, one set
// per key, at the top bits of its slot hash (keymap.IntHash; keymap.StrHome for a string or encoded key, which
// the build pays once more here and the probe already computes for its partition). A probe row whose bit is
// clear has a key no build row has, so it is no match without a lookup: sortWindow leaves it out of the
// partitions, and only the rows that may match are sorted and looked up. The
// filter is read at random, but at a byte a build row it stays in the cache where the table does not; for a
// probe side whose keys mostly miss (an anti join, a join of sparse keys) it saves most lookups, and for one
// whose keys all match it costs a bit test a row. Its memory is grown on the budget; refused, there is none.
func (h *Hash) keyFilter() {
	w := h.radix
	fbits := filterLogBits(h.table.N)
	if h.noKeyFilter || h.budget.Grow("the hash join's key filter", 1<<fbits/8) != nil {
		return
	}
	h.held += 1 << fbits / 8
	w.filter, w.fshift = make([]uint64, 1<<fbits/64), 64-fbits
	set := func(hx uint64) {
		f := hx >> w.fshift
		w.filter[f/64] |= 1 << (f % 64)
	}
	n := h.table.N
	keys := h.keyCols(h.table.Batch(), true)
	indexed := func(r int) bool { return h.next[r] != notIndexed && !hasNullKey(keys, r) }
	switch {
	case h.ints != nil: // a bit a row with no branch: an unindexed row's or a null key's is or-ed in as 0
		filter, fshift, next := w.filter, w.fshift, h.next[:n]
		ints := keys[0].Ints[:n]
		if nulls := keyNullWords(keys[0], n); nulls != nil {
			for r, x := range ints {
				f := keymap.IntHash(x) >> fshift
				in := uint64(b2u(next[r] != notIndexed)) &^ (nulls[r>>6] >> (uint(r) & 63))
				filter[f/64] |= (in & 1) << (f % 64)
			}
			break
		}
		for r, x := range ints {
			f := keymap.IntHash(x) >> fshift
			filter[f/64] |= uint64(b2u(next[r] != notIndexed)) << (f % 64)
		}
	case singleStringKey(keys):
		for r, x := range keys[0].Strs[:n] {
			if indexed(r) {
				set(keymap.StrHome(x))
			}
		}
	default: // encoded keys, a chunk at a time
		var buf []byte
		var strs []string
		for lo := 0; lo < n; lo += encodeChunkRows {
			hi := min(n, lo+encodeChunkRows)
			strs, buf = encodedKeys(keys, lo, hi, buf, strs)
			for r := lo; r < hi; r++ {
				if indexed(r) {
					set(keymap.StrHome(strs[r-lo]))
				}
			}
		}
	}
}

// nextRadix is nextProbe for the partitioned lookup: the next batch of the window, with its heads, filling a
// new window when this one is used up.
func (h *Hash) nextRadix(ctx context.Context) (bool, error) {
	w := h.radix
	if w.pos >= len(w.batches) {
		if err := h.fillWindow(ctx); err != nil || len(w.batches) == 0 {
			return false, err
		}
	}
	i := w.pos
	w.pos++
	h.pb, h.pkeys = w.batches[i], w.keys[i]
	h.heads = w.heads[w.starts[i] : w.starts[i]+w.batches[i].N]
	if w.chained && !h.ps.semi && !h.ps.anti { // those output probe rows by whether a head was found, walking no chain
		h.touchChains()
	}
	return true, nil
}

// touchChains reads, for every row of the batch whose head has more rows, the chain's next two links, in two
// loops whose loads do not depend on one another. The join loop then walks those chains in probe order,
// one load after another (next[next[r]] cannot start before next[r] is in), and a chain's links lie anywhere in
// next[], so for a build side larger than the cache each was a miss the processor waited for in turn; here
// the misses of a batch's chains overlap, and the join loop finds them in the cache.
func (h *Hash) touchChains() {
	heads, next := h.heads, h.next
	rows := growTo(h.touched, len(heads))
	h.touched = rows
	k := 0
	for _, hd := range heads {
		rows[k] = hd &^ chainMore
		k += int(uint32(hd) >> 30 & 1) // chainMore; dropped and noMatch are negative, their bit 30 set too
		k -= int(uint32(hd) >> 31)
	}
	rows = rows[:k]
	var sum int32
	for i, r := range rows {
		rows[i] = next[r]
	}
	for _, r := range rows {
		if r >= 0 {
			sum += next[r]
		}
	}
	h.touchSum = sum
}

// releaseWindow drops the window and gives its memory back.
func (h *Hash) releaseWindow() {
	w := h.radix
	h.budget.Shrink(w.held)
	w.held = 0
	clear(w.batches)
	clear(w.keys)
	clear(w.strs)
	clear(w.skips)
	w.batches, w.keys, w.strs, w.starts, w.pos = w.batches[:0], w.keys[:0], w.strs[:0], w.starts[:0], 0
	w.skips = w.skips[:0]
}

// fillWindow reads the next window of probe batches and finds the heads of all its rows; it leaves the
// window empty at the end of the probe side.
func (h *Hash) fillWindow(ctx context.Context) error {
	h.releaseWindow()
	w := h.radix
	// Windows start small and grow fourfold to radixWindowRows, so a limit above the join waits for
	// radixMinWindowRows probe rows, not a full window.
	w.size = min(max(4*w.size, radixMinWindowRows), radixWindowRows)
	limit := w.size
	if h.radixWindow > 0 {
		limit = h.radixWindow
	}
	rows := 0
	for rows < limit {
		b, sel, err := h.readProbe(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		var skip []bool
		if sel != nil {
			skip = markUnselected(make([]bool, b.N), sel) // the window holds it: not unselected's buffer
		}
		w.skips = append(w.skips, skip)
		keys := h.keyCols(b, false)
		var strs []string
		if h.strs != nil {
			if singleStringKey(keys) {
				strs = keys[0].Strs[:b.N]
			} else {
				strs, h.buf = encodedKeys(keys, 0, b.N, h.buf, nil)
			}
		}
		w.batches, w.keys, w.strs, w.starts = append(w.batches, b), append(w.keys, keys), append(w.strs, strs), append(w.starts, rows)
		rows += b.N
		need := b.Bytes() + int64(b.N)*radixRowBytes
		if h.pack != nil {
			need += keys[0].Bytes() // the packed key column, made for the window
		}
		for _, s := range strs { // string keys: sortWindow copies their bytes in partition order
			need += int64(len(s))
		}
		if err := h.budget.Grow("the partitioned probe", need); err != nil {
			w.overBudget = true
			break
		}
		w.held += need
	}
	if len(w.batches) == 0 {
		return nil
	}
	w.windows++
	w.heads = growTo(w.heads, rows)
	least := radixMinWindowRows
	if h.radixMinWindow > 0 {
		least = h.radixMinWindow
	}
	if rows < least {
		h.lookupWindow()
		return nil
	}
	w.sorted++
	h.sortWindow(rows)
	h.lookupSorted()
	return nil
}

// growTo returns s resliced to n elements, reallocated when too small (its contents are not kept).
func growTo[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// lookupWindow finds the heads of a small window's rows in probe order, as the streaming probe does.
func (h *Hash) lookupWindow() {
	w := h.radix
	for i, b := range w.batches {
		heads := w.heads[w.starts[i] : w.starts[i]+b.N]
		keys := w.keys[i]
		skip := w.skips[i]
		for r := range heads {
			switch {
			case skip != nil && skip[r]:
				heads[r] = dropped
			case hasNullKey(keys, r):
				heads[r] = noMatch
			case h.ints != nil:
				heads[r] = h.ints.Find(keys[0].Ints[r])
			default:
				heads[r] = h.strs.Find(w.strs[i][r])
			}
		}
	}
}

// sortWindow computes every window row's partition and lists the rows with a key in partition order (a
// counting sort, stable: a partition's rows stay in probe order), with their keys beside them. Its loops read
// the window's slices through locals (see joinRows).
//
// A batch of one int64 key takes loops with no branch on the data (lean): a row the key filter proves
// unmatched, or that a selection below leaves out, goes to the sink, partition 1<<bits, past every real one,
// instead of being tested out; a null key's row, found from the null bitmap after the loop, is moved there too. The sink's rows are
// sorted with the others, after them, and lookupSorted marks them unmatched (or dropped) instead of looking them up. Under
// js/wasm every branch is a jump through a dispatch table, dearer than the row's work; a filter that rejects
// half the rows (sparse keys) makes that branch a coin toss natively too. Other batches (string or several
// keys, no filter) take the general loop, which tests each row.
func (h *Hash) sortWindow(rows int) {
	w := h.radix
	w.part = growTo(w.part, rows)
	counts := w.counts
	clear(counts)
	shift := 64 - w.bits
	sink := uint16(1) << w.bits
	isInt := h.ints != nil
	// String keys are copied into one block in partition order (placeKey), so that the lookups, which run in
	// that order, read each key's bytes one after another; sizes is per partition the bytes of its keys, then
	// where its next key's copy goes.
	var sizes []int
	if !isInt {
		w.sizes = growTo(w.sizes, len(counts))
		sizes = w.sizes
		clear(sizes)
	}
	filter, fshift, filtered := w.filter, w.fshift, int64(0)
	for i, b := range w.batches {
		part := w.part[w.starts[i] : w.starts[i]+b.N]
		keys := w.keys[i]
		if h.lean(i) {
			k := keys[0]
			ints := k.Ints[:len(part)]
			if filter == nil { // no nulls either (lean); four rows a turn
				r := 0
				for ; r+4 <= len(ints); r += 4 {
					xs, ps := ints[r:r+4:r+4], part[r:r+4:r+4]
					p0, p1 := uint16(keymap.IntHash(xs[0])>>shift), uint16(keymap.IntHash(xs[1])>>shift)
					p2, p3 := uint16(keymap.IntHash(xs[2])>>shift), uint16(keymap.IntHash(xs[3])>>shift)
					ps[0], ps[1], ps[2], ps[3] = p0, p1, p2, p3
					counts[p0]++
					counts[p1]++
					counts[p2]++
					counts[p3]++
				}
				for ; r < len(ints); r++ {
					p := keymap.IntHash(ints[r]) >> shift
					part[r] = uint16(p)
					counts[p]++
				}
				continue
			}
			// A row not selected below (skip) goes to the sink as a rejected one does; lookupSorted then
			// drops it. noSkip stands in for a batch with no selection, so that one loop serves both.
			skip := w.skips[i]
			if skip == nil {
				w.noSkip = growTo(w.noSkip, len(part))
				skip = w.noSkip
			}
			skip = skip[:len(part)]
			rejected, r := 0, 0
			for ; r+4 <= len(ints); r += 4 { // four rows a turn: see gather (engine/column) for why
				xs, sk, ps := ints[r:r+4:r+4], skip[r:r+4:r+4], part[r:r+4:r+4]
				p0, j0 := leanPart(keymap.IntHash(xs[0]), sk[0], filter, fshift, shift, sink)
				p1, j1 := leanPart(keymap.IntHash(xs[1]), sk[1], filter, fshift, shift, sink)
				p2, j2 := leanPart(keymap.IntHash(xs[2]), sk[2], filter, fshift, shift, sink)
				p3, j3 := leanPart(keymap.IntHash(xs[3]), sk[3], filter, fshift, shift, sink)
				ps[0], ps[1], ps[2], ps[3] = p0, p1, p2, p3
				counts[p0]++
				counts[p1]++
				counts[p2]++
				counts[p3]++
				rejected += j0 + j1 + j2 + j3
			}
			for ; r < len(ints); r++ {
				p, j := leanPart(keymap.IntHash(ints[r]), skip[r], filter, fshift, shift, sink)
				part[r] = p
				counts[p]++
				rejected += j
			}
			filtered += int64(rejected)
			// The null keys' rows, found a word of the bitmap at a time: only they cost a turn.
			for wi, word := range keyNullWords(k, len(part)) {
				for ; word != 0; word &= word - 1 {
					r := wi<<6 + bits.TrailingZeros64(word)
					if r >= len(part) {
						break
					}
					if p := part[r]; p != sink {
						counts[p]--
						counts[sink]++
						part[r] = sink
					} else if !skip[r] {
						filtered-- // a null key is no match of its own, not the filter's
					}
				}
			}
			continue
		}
		nulls := keys[0].HasNulls() || len(keys) > 1
		skip := w.skips[i]
		ints, strs := keys[0].Ints, w.strs[i] // read only at rows with a key
		for r := range part {
			if skip != nil && skip[r] {
				part[r] = unselectedPartition
				continue
			}
			if nulls && hasNullKey(keys, r) {
				part[r] = noPartition
				continue
			}
			var hx uint64
			if isInt {
				hx = keymap.IntHash(ints[r])
			} else {
				hx = keymap.StrHome(strs[r])
			}
			if f := hx >> fshift; filter != nil && filter[f/64]&(1<<(f%64)) == 0 {
				part[r] = noPartition
				filtered++
				continue
			}
			p := hx >> shift
			if !isInt {
				sizes[p] += len(strs[r])
			}
			part[r] = uint16(p)
			counts[p]++
		}
	}
	w.filtered += filtered
	w.keyed = 0
	for _, c := range counts[:sink] {
		w.keyed += c
	}
	sorted := w.keyed + counts[sink]
	startsFromCounts(counts)
	w.order = growTo(w.order, sorted)
	order, heads := w.order, w.heads
	var ikeys []int64
	var skeys []string
	if isInt {
		w.ikeys = growTo(w.ikeys, sorted)
		ikeys = w.ikeys
	} else {
		w.skeys = growTo(w.skeys, sorted)
		skeys = w.skeys
		w.arena = growTo(w.arena, startsFromCounts(sizes))
	}
	for i, b := range w.batches {
		base := w.starts[i]
		part := w.part[base : base+b.N]
		ints, strs := w.keys[i][0].Ints, w.strs[i]
		if h.lean(i) { // every row has a partition, the sink's included; four rows a turn
			ints = ints[:len(part)]
			r := 0
			for ; r+4 <= len(part); r += 4 {
				ps, xs, row := part[r:r+4:r+4], ints[r:r+4:r+4], int32(base+r)
				a0 := counts[ps[0]]
				counts[ps[0]]++
				a1 := counts[ps[1]]
				counts[ps[1]]++
				a2 := counts[ps[2]]
				counts[ps[2]]++
				a3 := counts[ps[3]]
				counts[ps[3]]++
				order[a0], order[a1], order[a2], order[a3] = row, row+1, row+2, row+3
				ikeys[a0], ikeys[a1], ikeys[a2], ikeys[a3] = xs[0], xs[1], xs[2], xs[3]
			}
			for ; r < len(part); r++ {
				at := counts[part[r]]
				counts[part[r]]++
				order[at] = int32(base + r)
				ikeys[at] = ints[r]
			}
			continue
		}
		for r, p := range part {
			switch p {
			case noPartition: // a null key, or one the filter proved unmatched
				heads[base+r] = noMatch
				continue
			case unselectedPartition:
				heads[base+r] = dropped
				continue
			}
			at := counts[p]
			counts[p]++
			order[at] = int32(base + r)
			if isInt {
				ikeys[at] = ints[r]
			} else {
				skeys[at] = placeKey(w.arena, &sizes[p], strs[r])
			}
		}
	}
}

// leanPart is the partition sortWindow's lean loop gives a row whose int64 key hashes to hx (keymap.IntHash):
// the hash's top bits, or sink when the key filter proves it unmatched or the selection below leaves it out
// (skip), with no branch; rejected is 1 for a selected row the filter proved unmatched.
func leanPart(hx uint64, skip bool, filter []uint64, fshift, shift uint, sink uint16) (p uint16, rejected int) {
	f := hx >> fshift
	keep := filter[f/64] >> (f % 64) & 1
	in := uint64(b2u(!skip))
	out := uint16(keep&in - 1) // all ones for a row the filter rejects or the selection leaves out
	return uint16(hx>>shift)&^out | sink&out, int(in &^ keep)
}

// lean reports whether window batch i takes sortWindow's loops with no branch on the data: one int64 key, and
// either the key filter or neither a selection nor a null key.
func (h *Hash) lean(i int) bool {
	w := h.radix
	keys := w.keys[i]
	return h.ints != nil && len(keys) == 1 && (w.filter != nil || w.skips[i] == nil && !keys[0].HasNulls())
}

// lookupSorted finds the heads of the sorted rows, in partition order, and marks the sink's rows unmatched.
func (h *Hash) lookupSorted() {
	w := h.radix
	heads := w.heads
	if h.ints != nil {
		h.ints.FindTo(w.ikeys[:w.keyed], w.order, heads)
		sink, j := w.order[w.keyed:], 0
		for ; j+4 <= len(sink); j += 4 { // four rows a turn: see gather (engine/column) for why
			rs := sink[j : j+4 : j+4]
			heads[rs[0]], heads[rs[1]], heads[rs[2]], heads[rs[3]] = noMatch, noMatch, noMatch, noMatch
		}
		for _, r := range sink[j:] {
			heads[r] = noMatch
		}
		for i, skip := range w.skips { // the sink's rows a selection left out are dropped, not unmatched
			if skip != nil && h.lean(i) {
				dropUnselected(heads[w.starts[i]:], skip)
			}
		}
		return
	}
	h.strs.FindTo(w.skeys[:w.keyed], w.order, heads)
	clear(w.skeys) // drop the window's strings for the garbage collector
}

// ProbeExplain describes, once the join has run, its key map and whether its probe was partitioned, for
// explain's "last run:".
func (h *Hash) ProbeExplain() string {
	keyMap := "no key map (not built)"
	switch {
	case h.ints != nil && h.intsWhy != "":
		keyMap = fmt.Sprintf("%s (%s)", h.ints, h.intsWhy)
	case h.ints != nil:
		keyMap = h.ints.String()
	case h.strs != nil:
		keyMap = h.strs.String()
	}
	if h.topSkipped > 0 {
		keyMap += fmt.Sprintf("; %d probe rows skipped by the top's bound", h.topSkipped)
	}
	w := h.radix
	if w == nil {
		return keyMap + "; probe streamed in probe order"
	}
	text := fmt.Sprintf("%s; probe looked up by %d partitions in %d of %d windows", keyMap, 1<<w.bits, w.sorted, w.windows)
	if w.filter != nil {
		text += fmt.Sprintf("; %d probe rows a filter of the build keys proved unmatched", w.filtered)
	}
	if w.overBudget {
		text += " (windows cut by the memory budget)"
	}
	return text
}
