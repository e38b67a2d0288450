package join

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/keymap"
)

// The join aggregate's keyed path: groups folded in place (group_fold.go) over one int64 key, when the build
// side is large enough for its tables to miss the cache.
//
// On the general path each probe row looks its key up in the hash join's table and adds itself to the key's
// summary, which is indexed by the key's first build row: two accesses at random into tables of the build
// side's size per probe row, each a cache miss once the build side outgrows the cache. The partitioned probe
// (hash_radix.go) orders the lookups of a window by partition, but every window still touches every
// partition of the table, and the summaries stay in build-row order. Here nothing is chained (the fold needs
// each key's summary, never its rows one by one), and both accesses stay in the cache:
//
//	number     the build keys go into a map (keymap.Ints) partition by partition — a key's partition is the
//	           top bits of its hash, which are also those of its home slot — and each distinct key is numbered
//	           as it first comes: a partition's keys have consecutive numbers, so their slots and their
//	           summaries (indexed by number) are two runs of memory. Each build row's root is its key's number.
//	scatter    each probe row with a key is copied into its partition's rows: the key, its place in the probe
//	           side with a bit per fold-side value that is null, and those values. With the probe side not
//	           preserved, a row whose hash bit is clear in a filter of the build keys has no match and is
//	           dropped at once, never copied.
//	summarise  at the end of the probe side, partition by partition, each row finds its key's number and adds
//	           itself to the key's summary: the partition's runs of slots and summaries stay in the cache for
//	           all of its rows. A row of a preserved probe side with no match goes into the null summary.
//	fold       foldBuild, as on the general path, each build row's summary found through its root.
//
// Order: rows of a partition keep their probe order, so a key's first row summarised is its first probe row,
// whose place the summary's order word keeps: the build rows' groups then rank by the places of their keys'
// first probe rows, as the join's output lists them (buildRank). The null summary ranks by the place of its
// first row.
//
// Probe-side groups take the same steps with the roles of the summaries turned: the build side is summarised
// per key number (its rows, and its values the aggregates read), each probe batch's live rows get their
// groups in probe order (exec.Groups, as on the general path), and a scattered row carries its group and its
// own values; at the end each row finds its key's summary and folds into its group. A group made for a row
// that yields no output keeps no output row and never goes out, and a group ranks by the least place of its
// rows that yield output, so the groups go out in the order of their first output rows, as the general
// path's do (rankedGroups). If the budget refuses a group, the rows held are folded, the groups so far go out
// as share rows, and this batch's rows and every later one's go as share rows per row (keyedShares).
//
// Memory, on the budget: the map (keymap.IntsBytes of the build rows), a root a build row, a summary per
// distinct key, the partitioned build's order while the keys are numbered, the filter (a byte a build row),
// a chunk of slack a partition, and per scattered probe row 8 bytes for its key, 8 for its place and 8 per
// value it carries (per fold-side value; probe-side groups: its group and its own values). When the budget
// refuses the scattered rows, the rows held so far are summarised and the rest of the probe side is
// summarised batch by batch in probe order, looking each key up at random as the general path does: the
// same answer, more misses. Cost: per probe row one hash and one filter bit at scatter; per scattered row a
// copy, a lookup and a summary update that hit the cache; per build row one root and one summary read.
type keyedProbe struct {
	nums   *keymap.Ints // the build keys numbered in partition order (also the join's h.ints)
	shift  uint         // a key's partition is IntHash(key) >> shift
	words  int          // words per scattered row after its key: place and null bits, then one per carried value
	parts  []radixPart  // a row: its key, then its words, all as uint64 bits
	filter []uint64     // bit IntHash(key) >> fshift set for every build key; nil when the probe side is preserved
	fshift uint
	placed int64 // probe rows read so far: the next row's place
	held   int64 // the scattered rows' share of the budget
	direct bool  // the budget refused the scatter: batches are summarised as they come
	shares bool  // the budget refused a probe-side group: share rows per row (keyedShares)
	// carried is a.carried(), once; kns is the summarise loop's scratch (per row of a chunk, its key's number),
	// row and one a single row's (summariseDirect, addNull).
	carried []int
	kns     []int32
	row     []uint64
	one     [1]int32
	// hashes and kept are scatterLean's scratch: per kept row of a batch, its key's hash and its row; vals the
	// batch's carried values.
	hashes []uint64
	kept   []int32
	vals   [][]int64
}

const (
	// keyedNullBits is how many carried values a row's null bits cover (see carried); an aggregate with more
	// takes the general path.
	keyedNullBits = 8
	// maxPlace bounds a probe row's place: a rank holds it in 32 bits, below the rank of a build row alone.
	maxPlace = 1<<32 - 2
)

// keyable reports whether the join takes the keyed path once its build side is read: build-side groups whose
// aggregates all fold in place, an int64 key (one column, or packed: Hash.intKeys), and no dedupe of probe rows (innerunique probing with the left)
// or top bound, both of which need the probe's rows in order.
func (a *GroupAggregate) keyable() bool {
	h := a.h
	return !a.shareRowsOnly && denseFolds(a.aggs) && len(a.carried()) <= keyedNullBits &&
		h.intKeys() && !(h.unique && !h.buildLeft) && h.top == nil && h.table.N <= maxBuildRows
}

// carried lists the aggregates whose values a scattered probe row carries: with build-side groups those over
// the probe side, which the keys' summaries take; with probe-side groups the row's group, as the first value,
// then its own values (count() carries none), which fold into that group.
func (a *GroupAggregate) carried() []int {
	if a.onBuild {
		return a.fold
	}
	out := []int{-1} // the group
	for i, t := range a.aggs {
		if t.onSide && t.fn != "count" {
			out = append(out, i)
		}
	}
	return out
}

// indexKeys numbers the build keys in partition order (the roots) and makes their summaries and the probe's
// partitions. It reports false, having given back what it took, when the table is small enough for the cache
// (no partitions) or the budget refuses it.
func (a *GroupAggregate) indexKeys() bool {
	h := a.h
	n := h.table.N
	slots := keymap.Slots(n)
	tableBits := uint(bits.TrailingZeros(uint(slots)))
	mapBytes := keymap.IntsBytes(n)
	sumBytes := int64(n+1) * int64(a.stride) * 8
	pbits := h.partitionBits(mapBytes+sumBytes, 64-tableBits)
	if pbits == 0 {
		return false
	}
	var filterWords int
	if !h.ps.unmatched {
		filterWords = 1 << filterLogBits(n) / 64
	}
	// The partitions' unfilled chunks are counted up front; their rows as each batch is scattered.
	need := mapBytes + int64(n)*4 + sumBytes + int64(filterWords)*8 + int64(1)<<pbits*radixChunkWords*8
	if h.budget.Grow("the join aggregate's keyed summaries", need) != nil {
		return false
	}
	keys := h.keyCols(h.table.Batch(), true)
	rows, ikeys, _, ok := h.buildOrder(keys, true, pbits, true)
	if !ok {
		h.budget.Shrink(need)
		return false
	}
	a.held += need
	ints := keymap.NewInts(n)
	roots := make([]int32, n)
	for i := range roots {
		roots[i] = -1 // a null key keeps -1: buildOrder left it out
	}
	// A unique build (innerunique building on the left) keeps a key's first row: buildOrder lists a
	// partition's rows in build order.
	k := ints.NumberTo(ikeys, rows, roots, h.unique)
	h.releaseBuildOrder()
	unused := int64(n-k) * int64(a.stride) * 8
	h.budget.Shrink(unused)
	a.held -= unused
	a.roots, a.sums, a.nullKey = roots, make([]int64, (k+1)*a.stride), int32(k)
	h.ints = ints
	if !a.onBuild {
		// Probe-side groups: the build side summarised per key, a key's rows and values, as build does; and,
		// with the build side preserved, which keys a probe row found.
		if h.bs.unmatched {
			if h.budget.Grow("the join aggregate's matched keys", int64(k)) != nil {
				a.dropKeyed()
				return false
			}
			a.held += int64(k)
			a.matched = make([]bool, k)
		}
		bt := h.table.Batch()
		for lo := 0; lo < n; lo += shareChunkRows {
			a.sel, a.heads = a.sel[:0], a.heads[:0]
			for r := lo; r < min(lo+shareChunkRows, n); r++ {
				if kn := roots[r]; kn >= 0 {
					a.sel, a.heads = append(a.sel, int32(r)), append(a.heads, kn)
				}
			}
			a.summarise(bt, a.sel, a.heads, true)
		}
	}
	carried := a.carried()
	kp := &keyedProbe{nums: ints, shift: 64 - pbits, words: 1 + len(carried), parts: make([]radixPart, 1<<pbits),
		carried: carried, row: make([]uint64, 1+len(carried))}
	if filterWords > 0 {
		kp.filter = make([]uint64, filterWords)
		kp.fshift = 64 - filterLogBits(n)
		for j, x := range ikeys {
			if roots[rows[j]] >= 0 {
				f := keymap.IntHash(x) >> kp.fshift
				kp.filter[f/64] |= 1 << (f % 64)
			}
		}
	}
	a.keyed, a.usedKeyed = kp, true
	return true
}

// probeKeyed reads the next probe batch and scatters its rows, or summarises them when the budget refused the
// scatter; at the end of the probe side it summarises the partitions and moves on to the fold.
func (a *GroupAggregate) probeKeyed(b *column.Batch, sel []int32) error {
	kp, h := a.keyed, a.h
	if kp.placed+int64(b.N) > maxPlace {
		return fmt.Errorf("the join aggregate ranks at most %d probe rows", int64(maxPlace))
	}
	key := h.keyCols(b, false)[0]
	var vals []*column.Vector
	for _, ai := range kp.carried {
		if ai < 0 {
			g, err := a.keyedGroups(b, sel)
			if err != nil {
				a.refuseKeyed(b, sel)
				return nil
			}
			vals = append(vals, g)
			continue
		}
		vals = append(vals, b.Cols[a.aggs[ai].col])
	}
	place := kp.placed
	kp.placed += int64(b.N)
	if !kp.direct {
		need := int64(b.N) * int64(1+kp.words) * 8
		if h.budget.Grow("the join aggregate's scattered probe rows", need) == nil {
			kp.held += need
			a.scatterKeyed(key, vals, place, sel, b.N)
			return nil
		}
		a.summariseParts()
		kp.direct, a.keyedDirect = true, true
	}
	a.summariseDirect(key, vals, place, sel, b.N)
	return nil
}

// scatterKeyed copies the live rows of a probe batch of n rows (sel; nil: all) into their partitions: rows
// with a null key go into the null summary at once when the probe side is preserved, rows the filter proves
// unmatched are dropped. The loop reads locals only and calls nothing per row but append.
func (a *GroupAggregate) scatterKeyed(key *column.Vector, vals []*column.Vector, place int64, sel []int32, n int) {
	kp := a.keyed
	filter, fshift, shift, parts, stride := kp.filter, kp.fshift, kp.shift, kp.parts, 1+kp.words
	nulls := key.HasNulls()
	valNulls := false
	for _, v := range vals {
		valNulls = valNulls || v.HasNulls()
	}
	if sel == nil && !valNulls && (!nulls || !a.h.ps.unmatched) {
		kp.vals = kp.vals[:0]
		for _, v := range vals {
			kp.vals = append(kp.vals, v.Ints[:n])
		}
		a.scatterLean(key.Ints[:n], keyNullWords(key, n), kp.vals, place)
		clear(kp.vals) // hold no batch past its scatter
		return
	}
	for i := range liveCount(sel, n) {
		r := liveRow(sel, i)
		if nulls && key.IsNull(r) {
			a.addNull(place+int64(r), vals, r)
			continue
		}
		x := key.Ints[r]
		hx := keymap.IntHash(x)
		if filter != nil {
			if f := hx >> fshift; filter[f/64]&(1<<(f%64)) == 0 {
				continue
			}
		}
		pt := &parts[hx>>shift]
		row := pt.claim(stride)
		pm := uint64(place+int64(r)) << keyedNullBits
		if valNulls {
			for j, v := range vals {
				if v.IsNull(r) {
					pm |= 1 << j
				}
			}
		}
		row[0], row[1] = uint64(x), pm
		for j, v := range vals {
			row[2+j] = uint64(v.Ints[r]) // a null's stored value, never read: its bit is set
		}
	}
}

// scatterLean is scatterKeyed for a batch with every row live and no null value, whose null keys (nulls, a
// word for every 64 rows; nil for none) match nothing and are dropped: the common case, on loops with no test
// per row. The first (keepKeys) hashes every key and keeps the rows the filter passes and nulls leave; the second
// writes the kept rows into their partitions, one or two values without a loop. Under js/wasm every branch and
// every loop's back-edge is a jump through a dispatch table, dearer than the row's work.
func (a *GroupAggregate) scatterLean(keys []int64, nulls column.Bitmap, vals [][]int64, place int64) {
	kp := a.keyed
	filter, fshift, shift, parts, stride := kp.filter, kp.fshift, kp.shift, kp.parts, 1+kp.words
	kp.hashes, kp.kept = growTo(kp.hashes, len(keys)), growTo(kp.kept, len(keys))
	hs, rows := kp.hashes, kp.kept
	n := keepKeys(keys, nulls, filter, fshift, hs, rows)
	for k, h := range hs[:n] {
		i := rows[k]
		pt := &parts[h>>shift]
		row := pt.claim(stride)
		row[0], row[1] = uint64(keys[i]), uint64(place+int64(i))<<keyedNullBits
		switch len(vals) {
		case 0:
		case 1:
			row[2] = uint64(vals[0][i])
		case 2:
			row[2], row[3] = uint64(vals[0][i]), uint64(vals[1][i])
		default:
			for j, v := range vals {
				row[2+j] = uint64(v[i])
			}
		}
	}
}

// keyedRow writes into row the words of probe row r at place, as scatterKeyed lays them after the key:
// place<<8 with bit i set when the i-th carried value is null, then the values.
func keyedRow(row []uint64, place int64, vals []*column.Vector, r int) {
	pm := uint64(place) << keyedNullBits
	for i, v := range vals {
		if v.IsNull(r) {
			pm |= 1 << i
			row[1+i] = 0
			continue
		}
		row[1+i] = uint64(v.Ints[r])
	}
	row[0] = pm
}

// summariseParts summarises every partition's scattered rows, partition by partition, and drops them.
func (a *GroupAggregate) summariseParts() {
	kp := a.keyed
	for p := range kp.parts {
		pt := &kp.parts[p]
		stride := 1 + kp.words
		for _, c := range pt.words(stride) {
			kp.kns = growTo(kp.kns, len(c)/stride)
			kp.nums.FindStrided(c, stride, kp.kns)
			a.summariseRows(kp.kns, c[1:], stride)
		}
		pt.release()
	}
	a.h.budget.Shrink(kp.held)
	kp.held = 0
}

// summariseDirect summarises the live rows of a probe batch of n rows (sel; nil: all) in probe order, each key
// looked up as it comes: the way of the rows the budget would not let the scatter hold.
func (a *GroupAggregate) summariseDirect(key *column.Vector, vals []*column.Vector, place int64, sel []int32, n int) {
	row, kns := a.keyed.row, a.keyed.one[:]
	for i := range liveCount(sel, n) {
		r := liveRow(sel, i)
		kns[0] = -1
		if !key.IsNull(r) {
			kns[0] = a.h.ints.Find(key.Ints[r])
		}
		keyedRow(row, place+int64(r), vals, r)
		a.summariseRows(kns, row, len(row))
	}
}

// summariseRows adds each row of words (kp.words each, stride apart: place and null bits, then the values it
// carries) to the
// summary of its key's number kns[j]; a row whose key has no number (-1) is unmatched and goes into the null
// summary when the probe side is preserved. A key's first row writes its place into the order word. With
// probe-side groups the rows fold into their groups instead (foldKeyedRows).
func (a *GroupAggregate) summariseRows(kns []int32, words []uint64, stride int) {
	if !a.onBuild {
		a.foldKeyedRows(kns, words, stride)
		return
	}
	sums, sstride, ordWord, width := a.sums, a.stride, a.ordWord, a.keyed.words
	unmatched := a.h.ps.unmatched
	null := a.nullSummary()
	for j, kn := range kns {
		row := words[j*stride:][:width]
		s := null
		switch {
		case kn >= 0:
			s = sums[int(kn)*sstride:][:sstride]
			if s[0] == 0 {
				s[ordWord] = int64(row[0] >> keyedNullBits)
			}
		case !unmatched:
			continue
		default:
			if place := int(row[0] >> keyedNullBits); a.nullAt < 0 || place < a.nullAt {
				a.nullAt = place
			}
		}
		s[0]++
		for i, fi := range a.fold {
			if row[0]&(1<<i) != 0 {
				continue
			}
			t := &a.aggs[fi]
			w := s[t.word:][:2]
			foldInto(&w[1], &w[0], int64(row[1+i]), 1, t.kernel)
		}
	}
}

// addNull adds probe row r, at place, to the null summary when the probe side is preserved (a null key
// matches no build row): its count, its fold-side values, and the place of the summary's first row.
func (a *GroupAggregate) addNull(place int64, vals []*column.Vector, r int) {
	if !a.h.ps.unmatched {
		return
	}
	kp := a.keyed
	keyedRow(kp.row, place, vals, r)
	kp.one[0] = -1
	a.summariseRows(kp.one[:], kp.row, len(kp.row))
}

// nullSummary is the summary of the preserved probe rows with no match, past the keys' summaries.
func (a *GroupAggregate) nullSummary() []int64 {
	return a.sums[int(a.nullKey)*a.stride:][:a.stride]
}

// foldKeyedRows folds each row of words (probe-side groups: place and null bits, the row's group, its own
// values) into its group: a row whose key has number kns[j] stands for its key's build rows (the summary's
// count) and takes the key's summary of the build side; a row with none (-1) is alone when the probe side is
// preserved (one output row, no build-side value) and dropped otherwise. The group's rank is its least place,
// so the groups go out in the order of their first output rows whatever order their rows came in.
func (a *GroupAggregate) foldKeyedRows(kns []int32, words []uint64, rowStride int) {
	f := a.folding
	states, fstride := f.states, f.stride
	sums, stride, matched, unmatched, width := a.sums, a.stride, a.matched, a.h.ps.unmatched, a.keyed.words
	own := a.keyed.carried[1:]
	for j, kn := range kns {
		row := words[j*rowStride:][:width]
		var s []int64
		m := int64(1)
		switch {
		case kn >= 0:
			s = sums[int(kn)*stride:][:stride]
			m = s[0]
			if matched != nil {
				matched[kn] = true
			}
		case !unmatched:
			continue
		}
		st := states[int(row[1])*fstride:][:fstride]
		st[0] += m
		if place := row[0] >> keyedNullBits; place < uint64(st[rankWord]) {
			st[rankWord] = int64(place)
		}
		for v, ai := range own {
			if row[0]&(1<<(v+1)) != 0 {
				continue
			}
			p := st[f.words[ai]:][:2]
			foldInto(&p[0], &p[1], int64(row[2+v]), m, a.aggs[ai].kernel)
		}
		if s == nil {
			continue
		}
		for _, ai := range a.fold {
			t := &a.aggs[ai]
			w := s[t.word:][:2]
			if w[0] == 0 {
				continue
			}
			p := st[f.words[ai]:][:2]
			foldInto(&p[0], &p[1], w[1], 1, t.kernel)
		}
	}
}

// keyedGroups finds the groups of a probe batch's live rows (sel; nil: all), making groups for new keys, and
// returns them as a column by batch row (a row not live reads 0, never used). Every live row gets its group,
// matched or not: a group none of whose rows yields output keeps no output row and never goes out.
func (a *GroupAggregate) keyedGroups(b *column.Batch, sel []int32) (*column.Vector, error) {
	f := a.folding
	kv := make([]*column.Vector, len(a.gkeys))
	n := b.N
	for i, c := range a.gkeys {
		kv[i] = b.Cols[c]
		if sel != nil {
			kv[i] = kv[i].Gather(sel)
		}
	}
	if sel != nil {
		n = len(sel)
	}
	gs, err := f.assign(kv, n, f.gids)
	f.gids = gs
	if err != nil {
		return nil, err
	}
	out := column.NewVector(column.Long, b.N)
	out.Ints = out.Ints[:b.N]
	if sel == nil {
		for r, g := range gs[:n] {
			out.Ints[r] = int64(g)
		}
	} else {
		for j, r := range sel {
			out.Ints[r] = int64(gs[j])
		}
	}
	out.SetLen(b.N)
	return out, nil
}

// refuseKeyed is the way back when the budget refuses a probe-side group: the rows held are folded, the groups
// so far go out as share rows (in the order of their first output rows), then this batch's rows and every
// later one's as share rows per row (keyedShares), as on the general path.
func (a *GroupAggregate) refuseKeyed(b *column.Batch, sel []int32) {
	a.summariseParts()
	a.refuseFold()
	a.keyed.shares = true
	if p := a.keyedShares(b, sel); p != nil {
		a.pending = append(a.pending, p)
	}
}

// keyedShares returns the share rows of a probe batch's live rows (sel; nil: all) that yield output, each key
// looked up by its number, or nil when none does.
func (a *GroupAggregate) keyedShares(b *column.Batch, sel []int32) *column.Batch {
	key := a.h.keyCols(b, false)[0]
	heads := growTo(a.keyed.kns, b.N)
	a.keyed.kns = heads
	for r := range heads {
		heads[r] = noMatch
		if !key.IsNull(r) {
			heads[r] = a.h.ints.Find(key.Ints[r])
		}
	}
	dropUnselected(heads, a.h.unselected(sel, b.N))
	if a.takeProbeRows(heads) == 0 {
		return nil
	}
	return a.shareRows(b)
}

// rankedGroups lists the folded groups that have output rows by rank, least first: the order probe-side groups
// go out in on the keyed path.
func (f *groupFold) rankedGroups() []int32 {
	type ranked struct {
		rank uint64
		g    int32
	}
	var rs []ranked
	for g := range f.len() {
		if p := f.states[g*f.stride:]; p[0] > 0 {
			rs = append(rs, ranked{uint64(p[rankWord]), int32(g)})
		}
	}
	slices.SortFunc(rs, func(x, y ranked) int { return cmp.Compare(x.rank, y.rank) })
	out := make([]int32, len(rs))
	for i, r := range rs {
		out[i] = r.g
	}
	return out
}

// liveCount is how many rows of a batch of n rows are live: sel's, or all when sel is nil.
func liveCount(sel []int32, n int) int {
	if sel != nil {
		return len(sel)
	}
	return n
}

// liveRow is the batch row of the i-th live row.
func liveRow(sel []int32, i int) int {
	if sel != nil {
		return int(sel[i])
	}
	return i
}
