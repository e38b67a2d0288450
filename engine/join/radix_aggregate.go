package join

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/keymap"
	"github.com/joinlab/joinlab/engine/memory"
)

// radixAggregate is HashAggregate's path when every aggregate is count() or an integer sum and the kind emits
// pairs (inner, innerunique, the outer kinds): the join is folded into the aggregates per key, and both sides
// are radix-partitioned on the key's hash so that each partition's table fits the L2 cache.
//
// Integer sums and counts do not depend on the order rows are added in (addition wraps, and wraps the same in
// any order), so the rows of a key can be folded in any order. Per distinct build key the table holds the key,
// its build rows and, per build-side sum, the sum of their values; a probe row that finds its key adds that many
// output rows, its own values times that many, and the key's build sums.
//
//	build    read the build side (held as its batches), choose 2^bits partitions so a partition's table is
//	         about radixPartitionBytes, copy each row's key and summed values into its partition and set its
//	         key's bit in the filter, drop the batches
//	probe    copy each probe row whose key's filter bit is set into its partition, while the budget allows;
//	         a row whose bit is clear matches no build row and is folded at once as unmatched
//	fold     per partition: build its table (in cache), probe its rows against it, fold the build keys no probe
//	         row found (outer kinds), clear the table for the next partition
//
// Int64 keys whose values span a dense range take no hash at all: the build side, once read, goes into an array
// indexed by the key's offset instead (denseTable), when the kind allows. One string key of 8 to 16 bytes with
// no nulls takes lean copies of these loops (radix_short.go).
//
// When the probe side does not fit the budget (or there is one partition, where partitioning gains nothing), the
// tables of every partition are built and kept, the probe rows held so far are folded, and the rest of the
// probe side is looked up batch by batch, one random table access per row as in the plain hash join.
//
// The filter (with more than one partition) has one bit per value of the top bits of a key hash, sized to
// filterBitsPerRow bits a build row: a clear bit proves no build row has the key, so a probe row that misses is never copied,
// hashed again or looked up. It is read at random, but it is small enough to stay in the last-level cache where
// the tables together are not, and a probe side whose keys mostly miss (an inner join that drops most probe
// rows) is then mostly read once and dropped.
//
// Rows of one partition keep their input order, so "first row" rules still hold: innerunique building on the
// left keeps a key's first build row, and probing with the left folds only a key's first probe row.
//
// A row carries its key already hashed, so no phase hashes a key twice: an int64 key is stored as its
// keymap.IntHash, which is a bijection (so equal hashes are equal keys, and the table compares hashes alone); any
// other key as its hash with the length in the low byte (keyTag), then its first 16 bytes. Two keys of at most 16 bytes are
// equal exactly when those three words are; a longer key is compared in full once they match. When long keys
// are common on the build side and none is longer than maxInlineKeyBytes, rows and slots hold every key whole
// instead (inlineKeyWords), and words alone decide.
//
// Memory: the build batches until they are partitioned; then 8 bytes a row per key word (1 for int64 keys, 3
// for any other, up to 9 for keys held whole) and per summed value, for every build row and every held probe row whose filter bit is set; the
// filter, filterBitsPerRow bits a build row; and tables of 8 bytes a slot per key word, meta word and build-side
// sum, two to four slots a build row of a partition — one partition's table at a time, or all of them when the
// probe side is not held.
// Keys longer than 16 bytes not held whole are also kept by reference. Cost: one pass over each side hashing each key once, one
// filter access per row, each build row and each probe row that passes the filter copied once into its
// partition, and table accesses that stay in cache.
type radixAggregate struct {
	spec         *Spec
	build, probe exec.Operator
	bkeys, pkeys []int
	budget       *memory.Budget
	held         int64
	bs, ps       side
	uniqueBuild  bool // innerunique building on the left: a key keeps its first build row
	dedupe       bool // innerunique probing with the left: a key's first probe row alone joins
	mark         bool // a found key is marked matched (outer build side, or dedupe)
	strKeys      bool // the key is not one int64: rows carry its tagged hash and first 16 bytes
	// keyW is how many words of a string key's bytes a row and a slot hold: 2 (its first 16 bytes, a longer
	// key kept by reference) or, inline, every build key whole (inlineKeyWords).
	keyW   int
	inline bool

	// The aggregates: pairs counts output rows; bsum and psum are the sums over build-side and probe-side
	// columns (bcols, pcols), in the order of aggs' targets bidx and pidx.
	aggs         []aggTarget
	pairs        int64
	bsum, psum   []sumAcc
	bcols, pcols []int
	bidx, pidx   []int

	bits uint // log2 of the partition count
	// filter has bit h>>filterShift set for the hash h of every build key; nil with one partition.
	filter      []uint64
	filterShift uint
	bparts      []radixPart
	pparts      []radixPart
	tabs        []radixTable
	table       []uint64 // the slots of every table in tabs (see radixTable)
	// tlong holds per slot the key, for keys longer than keymap.InlineBytes; bnulls per build-side sum and slot the
	// key's build rows whose value is null. Both are nil until needed.
	tlong  []string
	bnulls [][]int32
	buf    []byte
	encs   []string
	// hashes, words0, words1 and sel are scatter's scratch: per kept row of a batch, its key hash, its key's
	// first two words (string keys) and its row number.
	hashes, words0, words1 []uint64
	sel                    []int32
	// stage is scatterShort's scratch: per kept row of a batch, the row it copies into its partition;
	// pairNulls the null words of a batch's pair of key columns.
	stage     []uint64
	pairNulls column.Bitmap

	// Test knobs: forceBits, when >= 0, fixes bits; bufferBatches, when >= 0, stops holding probe rows after
	// that many batches, as if the budget had run out.
	forceBits     int
	bufferBatches int
	// noDense, a test knob, keeps a join off the dense path (dense_aggregate.go); usedDense records that it
	// took it, and usedDenseParts that it took its partitioned passes (dense_parts.go). denseBits, when >= 0,
	// fixes the partition bits of those passes (0: none).
	noDense, usedDense, usedDenseParts bool
	denseBits                          int
	// shortBatches and shortParts count the batches scattered and the partitions folded by the lean loops
	// (radix_short.go), for tests to read.
	shortBatches, shortParts int
}

// filterLogBits is the log2 of the bits of a key filter for n build rows — filterBitsPerRow bits a row,
// rounded up to a power of two, at least a word, at most maxFilterBits — which the radix join, the hash
// join's partitioned probe (keyFilter) and the join aggregate's keyed path (indexKeys) size theirs by. A key
// k's bit is IntHash(k) (or its string hash) >> (64 - filterLogBits(n)).
func filterLogBits(n int) uint {
	fbits := uint(6)
	for 1<<fbits < filterBitsPerRow*n && 1<<fbits < maxFilterBits {
		fbits++
	}
	return fbits
}

// sumAcc is a running sum and the count of values in it.
type sumAcc struct{ s, n int64 }

const (
	// radixPartitionBytes is the table size a partition aims at: half the 512 KiB L2 cache of the machines
	// measured, the rest left for the rows streaming through.
	radixPartitionBytes = 256 << 10
	// maxRadixBits caps partitions at 1,024: the scatter writes one stream per partition, and beyond that the
	// streams' open cache lines and pages no longer fit the L1 cache and the TLB.
	maxRadixBits = 10
	// radixChunkWords is the size of one block of partition rows (32 KiB): partitions grow by whole chunks, so
	// nothing is copied as they grow.
	radixChunkWords = 4096
	// filterBitsPerRow sizes the filter: with one bit tested per key, a key no build row has passes with
	// probability at most 1-e^(-1/8), under 12%, and a filter for 1M build rows is 1 MiB.
	filterBitsPerRow = 8
	// maxFilterBits caps the filter at 16 MiB, beyond which it no longer stays in a cache.
	maxFilterBits = 1 << 27
	// keyLenMask is the low byte of a tagged string hash (keyTag), which holds the key's length, capped at
	// keyLenMask: a capped length is a key longer than keymap.InlineBytes, compared in full anyway.
	keyLenMask = 0xFF
	// matchedBit marks, in a slot's meta word, a key some probe row found; the low 32 bits count its build rows.
	matchedBit = 1 << 32
)

// radixPart is the rows of one partition: fixed-stride rows of 8-byte words in chunks, in input order. A row is
// its key words (keymap.IntHash of the key, or the tagged hash and two words) and then its summed values (0 for a null
// one). A chunk holds radixChunkWords/stride rows; the last chunk, cur, holds the rows past the full ones.
type radixPart struct {
	chunks []*radixChunk // full chunks, in order
	cur    *radixChunk   // the chunk being filled; nil before the first row
	room   int           // words of cur not yet used
	rows   int
	nulls  []radixNull // the null values among the rows, in row order
	long   longKeys    // the keys longer than keymap.InlineBytes, in row order
}

// longKeys is a partition's keys longer than keymap.InlineBytes, in row order, in blocks of longKeyBlock: adding one
// never copies those before it, as appending to one growing slice of strings would (a copy the garbage
// collector's write barriers make dearer still; measured on 31- and 58-byte keys: a third of the scatter).
type longKeys struct {
	blocks [][]string
	n      int
}

// longKeyBlock is how many keys a block of longKeys holds (a power of two, so at is a shift and a mask).
const longKeyBlock = 1024

func (l *longKeys) add(s string) {
	if l.n%longKeyBlock == 0 {
		l.blocks = append(l.blocks, make([]string, 0, longKeyBlock))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, s)
	l.n++
}

// at is the i-th key added.
func (l *longKeys) at(i int) string { return l.blocks[i/longKeyBlock][i%longKeyBlock] }

// radixChunk is one block of partition rows.
type radixChunk [radixChunkWords]uint64

// radixChunks keeps the chunks of finished runs for the next ones. Writing rows into memory fresh from the
// operating system costs a page fault per 4 KiB natively, and under js/wasm every chunk allocated is garbage the
// collector must find again (and, with string columns in memory, a collection marks every string); a run that
// takes its chunks from here allocates almost nothing. Chunks are never cleared: a row is written before it is
// read. The pool holds no more than the collector lets it keep between two collections.
var radixChunks = sync.Pool{New: func() any { return new(radixChunk) }}

// radixNull is a null summed value: row of its partition and index of the sum.
type radixNull struct{ row, sum int32 }

// radixTable is one partition's table: slots [base, base+1<<lbits) of radixAggregate.table, open addressing
// with linear probing over the bits of the key hash below the partition bits, at most half full. A slot is the
// key words, a meta word (build rows | matchedBit; 0 when empty) and one word per build-side sum.
type radixTable struct {
	base  int
	lbits uint
}

func newRadixAggregate(h *Hash, aggs []aggTarget) *radixAggregate {
	r := &radixAggregate{spec: h.spec, build: h.build, probe: h.probe, budget: h.budget, bs: h.bs, ps: h.ps,
		uniqueBuild: h.unique && h.buildLeft, dedupe: h.unique && !h.buildLeft, aggs: aggs,
		strKeys: !intKeyed(h.spec.KeyTypes), keyW: 2, forceBits: -1, bufferBatches: -1, denseBits: -1}
	r.bkeys, r.pkeys = h.buildKeys()
	r.mark = r.bs.unmatched || r.dedupe
	for i, t := range aggs {
		switch {
		case !t.sum:
		case t.fromProbe:
			r.pcols, r.pidx = append(r.pcols, t.col), append(r.pidx, i)
		default:
			r.bcols, r.bidx = append(r.bcols, t.col), append(r.bidx, i)
		}
	}
	r.bsum, r.psum = make([]sumAcc, len(r.bcols)), make([]sumAcc, len(r.pcols))
	r.bnulls = make([][]int32, len(r.bcols))
	return r
}

// keyWords is how many words of a row or slot the key takes.
func (r *radixAggregate) keyWords() int {
	if r.strKeys {
		return 1 + r.keyW
	}
	return 1
}

// maxInlineKeyBytes is the longest build key inlineKeyWords holds whole in the rows and slots. Past it the
// longer rows cost more to copy than the compare by reference costs.
const maxInlineKeyBytes = 64

// inlineKeyWords sets keyW and inline from the build side's keys, for one string key column: when its longest
// key is at most maxInlineKeyBytes and at least a quarter of its keys are longer than keymap.InlineBytes, every
// row and slot holds its key whole, in ceil(longest/8) words (the first two as keymap.KeyWords gives them, then
// 8 bytes a word, zero-padded). Equal keys then have equal words, and a key's length is in its tag, so the
// words alone decide equality: a probe row that finds its key compares words already in cache instead of
// reading both keys' bytes from wherever the columns hold them (two cache misses a found row; on 31-byte keys
// under js/wasm a third of the join). A probe key longer than the longest build key matches nothing and is
// dropped at its scatter, as one the filter rejects. The quarter is a judgement, not a measured break-even:
// with few long keys their misses are rare, while the wider rows would cost every row, and keys of 8 to 16
// bytes would lose their lean loops (radix_short.go).
func (r *radixAggregate) inlineKeyWords(bb *buildBatches) {
	if !r.strKeys || len(r.bkeys) != 1 || r.spec.KeyTypes[0] != column.String {
		return
	}
	longest, long := 0, 0
	for _, b := range bb.batches {
		k := b.Cols[r.bkeys[0]]
		if k.Type != column.String {
			return
		}
		for _, s := range k.Strs[:b.N] {
			longest = max(longest, len(s))
			if len(s) > keymap.InlineBytes {
				long++
			}
		}
	}
	if longest <= maxInlineKeyBytes && 4*long >= bb.rows && long > 0 {
		r.keyW, r.inline = (longest+7)/8, true
	}
}

// inlineTail writes the words of key s past its first 16 bytes into dst, 8 bytes a word, zero-padded.
func inlineTail(dst []uint64, s string) {
	for j := range dst {
		if off := keymap.InlineBytes + 8*j; off < len(s) {
			dst[j] = keymap.TailWord(s[off:])
		} else {
			dst[j] = 0
		}
	}
}

func (r *radixAggregate) slotWords() int { return r.keyWords() + 1 + len(r.bcols) }

// run computes the aggregates into r.aggs.
func (r *radixAggregate) run(ctx context.Context) error {
	defer func() { r.budget.Shrink(r.held); r.held = 0 }()
	build, err := r.readBuild(ctx)
	if err != nil {
		return err
	}
	if d := r.newDenseTable(build); d != nil {
		if pb := r.densePartBits(d); pb > 0 {
			r.usedDenseParts = true
			err = r.runDenseParts(ctx, d, build, pb)
		} else {
			err = r.runDense(ctx, d, build)
		}
		d.release()
		if err != nil {
			return err
		}
		r.finish()
		return nil
	}
	r.inlineKeyWords(build)
	if err := r.partitionBuild(build); err != nil {
		return err
	}
	// held: every probe row so far is in pparts. One partition gains nothing from holding them. Every
	// partition's last chunk may be part empty.
	parts := len(r.bparts)
	heldBytes := int64(parts) * radixChunkWords * 8
	held := parts > 1 && r.grow("the radix join's probe rows", heldBytes) == nil
	if !held {
		if err := r.buildAllTables(); err != nil {
			return err
		}
	}
	batches := 0
	r.pparts = make([]radixPart, parts)
	err = exec.Drain(ctx, r.probe, func(b *column.Batch) error {
		need := r.rowBytes(b.N, len(r.pcols))
		if held && (batches == r.bufferBatches || r.grow("the radix join's probe rows", need) != nil) {
			held = false
			if err := r.buildAllTables(); err != nil {
				return err
			}
			for p := range r.pparts {
				r.probeRows(&r.pparts[p])
				r.pparts[p].release()
			}
			r.budget.Shrink(heldBytes)
			r.held -= heldBytes
		}
		batches++
		if held {
			heldBytes += need
			r.scatter(b, false, r.pparts)
			return nil
		}
		if err := r.grow("the radix join's probe rows", need); err != nil {
			return err
		}
		var direct [1]radixPart
		r.scatter(b, false, direct[:])
		r.probeRows(&direct[0])
		direct[0].release()
		r.budget.Shrink(need)
		r.held -= need
		return nil
	})
	if err != nil {
		return err
	}
	if held {
		if err := r.foldByPartition(ctx); err != nil {
			return err
		}
	} else if r.bs.unmatched {
		for _, t := range r.tabs {
			r.foldUnmatched(t)
		}
	}
	r.finish()
	return nil
}

// finish adds the pair count and the sums to the aggregates.
func (r *radixAggregate) finish() {
	for i := range r.aggs {
		if !r.aggs[i].sum {
			r.aggs[i].n += r.pairs
		}
	}
	for j, i := range r.bidx {
		r.aggs[i].n, r.aggs[i].i = r.aggs[i].n+r.bsum[j].n, r.aggs[i].i+r.bsum[j].s
	}
	for j, i := range r.pidx {
		r.aggs[i].n, r.aggs[i].i = r.aggs[i].n+r.psum[j].n, r.aggs[i].i+r.psum[j].s
	}
}

// grow reserves n bytes of the budget for the rest of the run.
func (r *radixAggregate) grow(holder string, n int64) error {
	if err := r.budget.Grow(holder, n); err != nil {
		return fmt.Errorf("hash aggregate: %w", err)
	}
	r.held += n
	return nil
}

// rowBytes bounds what n rows with vals summed values take in partitions.
func (r *radixAggregate) rowBytes(n, vals int) int64 { return int64(n) * int64(r.keyWords()+vals) * 8 }

// buildBatches is the build side as read: its batches, rows and the bytes they hold against the budget.
type buildBatches struct {
	batches []*column.Batch
	rows    int
	bytes   int64
}

// readBuild reads the whole build side.
func (r *radixAggregate) readBuild(ctx context.Context) (*buildBatches, error) {
	bb := &buildBatches{}
	err := exec.Drain(ctx, r.build, func(b *column.Batch) error {
		if err := r.grow("the build side", b.Bytes()); err != nil {
			return err
		}
		bb.bytes += b.Bytes()
		bb.batches = append(bb.batches, b)
		bb.rows += b.N
		return nil
	})
	if err != nil {
		return nil, err
	}
	if bb.rows > maxBuildRows {
		return nil, fmt.Errorf("hash aggregate: %d build rows, more than the %d a hash table indexes", bb.rows, maxBuildRows)
	}
	return bb, nil
}

// drop releases the build batches once their rows are copied elsewhere.
func (r *radixAggregate) drop(bb *buildBatches) {
	clear(bb.batches)
	r.budget.Shrink(bb.bytes)
	r.held -= bb.bytes
}

// partitionBuild copies the build rows into 2^bits partitions (r.bparts).
func (r *radixAggregate) partitionBuild(bb *buildBatches) error {
	n := bb.rows
	r.bits = r.chooseBits(n)
	parts := 1 << r.bits
	// Every partition's last chunk may be part empty.
	if err := r.grow("the radix join's build rows", r.rowBytes(n, len(r.bcols))+int64(parts)*radixChunkWords*8); err != nil {
		return err
	}
	if r.bits > 0 {
		fbits := filterLogBits(n)
		if err := r.grow("the radix join's filter", 1<<fbits/8); err != nil {
			return err
		}
		r.filter, r.filterShift = make([]uint64, 1<<fbits/64), 64-fbits
	}
	r.bparts = make([]radixPart, parts)
	for i, b := range bb.batches {
		r.scatter(b, true, r.bparts)
		bb.batches[i] = nil // free as the rows are copied
	}
	r.drop(bb)
	return nil
}

// chooseBits picks the fewest partitions whose tables, for n build rows, are about radixPartitionBytes each.
func (r *radixAggregate) chooseBits(n int) uint {
	if r.forceBits >= 0 {
		return uint(r.forceBits)
	}
	total := int64(2*n) * int64(r.slotWords()) * 8
	bits := uint(0)
	for total>>bits > radixPartitionBytes && bits < maxRadixBits {
		bits++
	}
	return bits
}

// scatter copies the rows of b with a non-null key into parts (by the top bits of the key hash; all into
// parts[0] when there is one), setting their keys' filter bits for the build side. Probe rows whose filter bit
// is clear, and rows with a null key, match nothing: they are folded as unmatched rows when the kind outputs
// them, and dropped.
//
// It runs in two passes over the batch. The first hashes every key and lists the rows kept, without a branch on
// the filter test (which goes either way at random when many probe rows miss); the second copies the rows
// listed, each to the end of its partition.
func (r *radixAggregate) scatter(b *column.Batch, build bool, parts []radixPart) {
	keyIdx, colIdx, unmatched := r.pkeys, r.pcols, r.ps.unmatched
	if build {
		keyIdx, colIdx, unmatched = r.bkeys, r.bcols, r.bs.unmatched
	}
	keys := keyColumns(b, keyIdx, r.spec.KeyTypes)
	vals := make([]*column.Vector, len(colIdx))
	valNulls := false
	for j, c := range colIdx {
		vals[j] = b.Cols[c]
		valNulls = valNulls || vals[j].HasNulls()
	}
	keyNulls := false
	for _, k := range keys {
		keyNulls = keyNulls || k.HasNulls()
	}
	n := b.N
	if cap(r.hashes) < n {
		r.hashes, r.words0, r.words1, r.sel = make([]uint64, n), make([]uint64, n), make([]uint64, n), make([]int32, n)
	}
	ints := make([][]int64, len(vals))
	for j, v := range vals {
		ints[j] = v.Ints[:n]
	}
	if !r.strKeys && !valNulls {
		acc := r.psum
		if build {
			acc = r.bsum
		}
		r.scatterInts(keys[0].Ints[:n], keyNullWords(keys[0], n), ints, build, unmatched, acc, parts)
		return
	}
	var strs []string
	var pair [2][]int64 // two int64-stored key columns: their values are the key's words (see intPair)
	if r.strKeys {
		switch {
		case singleStringKey(keys):
			strs = keys[0].Strs[:n]
		case intPair(keys):
			pair = [2][]int64{keys[0].Ints[:n], keys[1].Ints[:n]}
		default:
			r.encs, r.buf = encodedKeys(keys, 0, n, r.buf, r.encs)
			strs = r.encs
		}
		var nulls column.Bitmap // a pair's null keys: either column's null
		if keyNulls && pair[0] != nil {
			r.pairNulls = orNullWords(keys[0], keys[1], n, r.pairNulls)
			nulls = r.pairNulls
		}
		if (!keyNulls || pair[0] != nil) && !valNulls && !r.inline && r.scatterShort(strs, pair, nulls, n, ints, build, unmatched, parts) {
			return
		}
	}
	kept := r.hashKeys(keys, strs, pair, keyNulls, build, n)
	if unmatched && kept < n {
		k := 0
		for i := 0; i < n; i++ {
			if k < kept && int(r.sel[k]) == i {
				k++
				continue
			}
			r.foldUnmatchedRow(vals, i, build)
		}
	}
	// Pass 2: copy the kept rows.
	kw := r.keyWords()
	stride := kw + len(vals)
	shift := r.partShift(len(parts))
	hs, w0s, w1s, sel := r.hashes[:kept], r.words0[:kept], r.words1[:kept], r.sel[:kept]
	for k, h := range hs {
		i := int(sel[k])
		pt := &parts[h>>shift]
		row := pt.claim(stride)
		row[0] = h
		if r.strKeys {
			row[1], row[2] = w0s[k], w1s[k]
			if r.inline {
				inlineTail(row[3:kw], strs[i])
			} else if uint32(h&keyLenMask) > keymap.InlineBytes {
				pt.long.add(strs[i])
			}
		}
		for j, v := range ints {
			row[kw+j] = uint64(v[i])
		}
		if valNulls {
			for j, v := range vals {
				if v.IsNull(i) {
					row[kw+j] = 0
					pt.nulls = append(pt.nulls, radixNull{row: int32(pt.rows), sum: int32(j)})
				}
			}
		}
		pt.rows++
	}
}

// hashKeys is scatter's first pass over the n rows of a batch: rows [0, kept) of r.hashes, r.words0, r.words1
// and r.sel are the kept rows' key hashes, first two key words (string keys, strs, or a pair of int keys) and
// row numbers. It sets the keys' filter bits for the build side and keeps only the probe rows whose bit is set.
func (r *radixAggregate) hashKeys(keys []*column.Vector, strs []string, pair [2][]int64, keyNulls, build bool, n int) int {
	hs, w0s, w1s, sel := r.hashes[:n], r.words0[:n], r.words1[:n], r.sel[:n]
	filter, fshift := r.filter, r.filterShift
	test, set := filter != nil && !build, filter != nil && build
	longest := math.MaxInt
	if r.inline && !build {
		longest = 8 * r.keyW
	}
	kept := 0
	for i := 0; i < n; i++ {
		if keyNulls && hasNullKey(keys, i) {
			continue
		}
		var h uint64
		if strs != nil {
			s := strs[i]
			if len(s) > longest {
				continue // longer than every build key (inline keys): it matches nothing
			}
			var w0, w1 uint64
			if len(s) >= keymap.InlineBytes {
				w0, w1 = keymap.Word(s), keymap.Word(s[8:])
			} else {
				w0, w1 = keymap.KeyWords(s)
			}
			h = keymap.HashWords(len(s), w0, w1) // strHash, by hand: a call per row costs more than the hash
			if len(s) > keymap.InlineBytes {
				h = keymap.HashTail(h, s[keymap.InlineBytes:])
			}
			h = keyTag(h^h>>31, len(s))
			w0s[kept], w1s[kept] = w0, w1
		} else if pair[0] != nil {
			w0, w1 := uint64(pair[0][i]), uint64(pair[1][i])
			h = pairHash(w0, w1)
			w0s[kept], w1s[kept] = w0, w1
		} else {
			h = keymap.IntHash(keys[0].Ints[i])
		}
		f := h >> fshift
		hs[kept], sel[kept] = h, int32(i)
		switch {
		case test:
			kept += int(filter[f/64] >> (f % 64) & 1)
		case set:
			filter[f/64] |= 1 << (f % 64)
			kept++
		default:
			kept++
		}
	}
	return kept
}

// orNullWords is the null bitmap of a key of columns a and b over their first n rows — a row is null when
// either value is — in buf, reused; nil when neither has a null.
func orNullWords(a, b *column.Vector, n int, buf column.Bitmap) column.Bitmap {
	na, nb := keyNullWords(a, n), keyNullWords(b, n)
	switch {
	case na == nil:
		return nb
	case nb == nil:
		return na
	}
	buf = growTo(buf, len(na))
	for i := range buf {
		buf[i] = na[i] | nb[i]
	}
	return buf
}

// keyNullWords is k's null bitmap as a word for each of its first n rows, or nil when none of them is null.
func keyNullWords(k *column.Vector, n int) column.Bitmap {
	if !k.HasNulls() {
		return nil
	}
	w := (n + 63) >> 6
	if len(k.Nulls) >= w {
		return k.Nulls[:w]
	}
	return append(append(column.Bitmap(nil), k.Nulls...), make(column.Bitmap, w-len(k.Nulls))...)
}

// scatterInts is scatter for int64 keys and values with no nulls, the common case, on loops without the general
// one's per-row tests; acc is the side's sums, for rows that match nothing when unmatched. nulls, when not nil,
// is the keys' null bitmap, a word for every 64 rows: a null key's row is left out as a row the filter rejects
// is, by a bit and not a branch (a probe side with a tenth of its keys null would otherwise take the general
// loop, which tests every row for nulls, strings and pairs).
func (r *radixAggregate) scatterInts(keys []int64, nulls column.Bitmap, vals [][]int64, build, unmatched bool, acc []sumAcc, parts []radixPart) {
	filter, fshift := r.filter, r.filterShift
	hs, sel := r.hashes[:len(keys)], r.sel[:len(keys)]
	kept := len(keys)
	switch {
	case build && filter != nil && nulls != nil: // the build side sets the filter's bits of its keys
		kept = 0
		for i, x := range keys {
			h := keymap.IntHash(x)
			has := ^nulls[i>>6] >> (uint(i) & 63) & 1
			hs[kept], sel[kept] = h, int32(i)
			kept += int(has)
			f := h >> fshift
			filter[f/64] |= has << (f % 64)
		}
	case build && filter != nil:
		for i, x := range keys {
			h := keymap.IntHash(x)
			hs[i], sel[i] = h, int32(i)
			f := h >> fshift
			filter[f/64] |= 1 << (f % 64)
		}
	default:
		kept = keepKeys(keys, nulls, filter, fshift, hs, sel)
	}
	if unmatched {
		r.foldUnkept(vals, sel[:kept], len(keys), acc)
	}
	shift := r.partShift(len(parts))
	stride := 1 + len(vals)
	for k, h := range hs[:kept] {
		i := sel[k]
		pt := &parts[h>>shift]
		row := pt.claim(stride)
		row[0] = h
		for j, v := range vals {
			row[1+j] = uint64(v[i])
		}
		pt.rows++
	}
}

// keepKeys hashes int64 keys into hs and lists in sel, from the front, the rows whose key filter passes (nil:
// every key) and nulls leaves (a word for every 64 rows; nil: none null), and returns how many it kept (hs and
// sel hold a row's hash and number at the place it was kept). A row is kept by a bit, not a branch, and the
// loop is chosen once: under js/wasm a branch per row is a jump through a dispatch table.
func keepKeys(keys []int64, nulls column.Bitmap, filter []uint64, fshift uint, hs []uint64, sel []int32) int {
	hs, sel = hs[:len(keys)], sel[:len(keys)]
	kept := 0
	switch {
	case filter != nil && nulls != nil:
		for i, x := range keys {
			h := keymap.IntHash(x)
			f := h >> fshift
			hs[kept], sel[kept] = h, int32(i)
			kept += int((filter[f/64] >> (f % 64)) & (^nulls[i>>6] >> (uint(i) & 63)) & 1)
		}
	case filter != nil:
		for i, x := range keys {
			h := keymap.IntHash(x)
			f := h >> fshift
			hs[kept], sel[kept] = h, int32(i)
			kept += int(filter[f/64] >> (f % 64) & 1)
		}
	case nulls != nil:
		for i, x := range keys {
			hs[kept], sel[kept] = keymap.IntHash(x), int32(i)
			kept += int(^nulls[i>>6] >> (uint(i) & 63) & 1)
		}
	default:
		for i, x := range keys {
			hs[i], sel[i] = keymap.IntHash(x), int32(i)
		}
		kept = len(keys)
	}
	return kept
}

// foldUnkept folds as unmatched the rows of a batch of n rows, with values vals and no nulls, that sel (the kept
// rows' numbers, ascending) leaves out: one output row each, and its own values into acc.
func (r *radixAggregate) foldUnkept(vals [][]int64, sel []int32, n int, acc []sumAcc) {
	if len(sel) == n {
		return
	}
	r.pairs += int64(n - len(sel))
	for j, v := range vals {
		k := 0
		for i, x := range v[:n] {
			if k < len(sel) && int(sel[k]) == i {
				k++
				continue
			}
			acc[j].s += x
			acc[j].n++
		}
	}
}

// keyTag is hash h of a string key of n bytes with n, capped at keyLenMask, in its low byte: tables and
// partitions take their bits from the top, and an equal tag implies an equal length (or two long keys).
func keyTag(h uint64, n int) uint64 { return h&^keyLenMask | uint64(min(n, keyLenMask)) }

// partShift is the shift that takes a key hash to its partition among parts (all to 0 when there is one).
func (r *radixAggregate) partShift(parts int) uint {
	if parts == 1 {
		return 64
	}
	return 64 - r.bits
}

// nextChunk starts a new chunk for pt's next rows. Not inlined, so that claim, which calls it once a chunk,
// stays small enough to inline in the scatter loops.
//
//go:noinline
func (pt *radixPart) nextChunk() {
	if pt.cur != nil {
		pt.chunks = append(pt.chunks, pt.cur)
	}
	pt.cur, pt.room = radixChunks.Get().(*radixChunk), radixChunkWords
}

// claim returns the next stride words of pt's chunk, starting a new chunk when this one has less room (a row
// never spans two chunks). Its cost is at the compiler's inlining budget (go build -gcflags=-m): the scatter
// loops call it a row, so keep it this small.
func (pt *radixPart) claim(stride int) []uint64 {
	if pt.room < stride {
		pt.nextChunk()
	}
	pt.room -= stride
	return pt.cur[radixChunkWords-pt.room-stride:][:stride]
}

// release empties pt, giving its chunks back to radixChunks.
func (pt *radixPart) release() {
	for _, c := range pt.chunks {
		radixChunks.Put(c)
	}
	if pt.cur != nil {
		radixChunks.Put(pt.cur)
	}
	*pt = radixPart{}
}

// words lists pt's chunks in row order, each cut to its rows of stride words.
func (pt *radixPart) words(stride int) [][]uint64 {
	out := make([][]uint64, 0, len(pt.chunks)+1)
	for _, c := range pt.chunks {
		out = append(out, c[:radixChunkWords/stride*stride])
	}
	if pt.cur != nil {
		out = append(out, pt.cur[:radixChunkWords-pt.room])
	}
	return out
}

// foldUnmatchedRow folds row i of a batch as an unmatched row of its side: one output row, and its own values.
func (r *radixAggregate) foldUnmatchedRow(vals []*column.Vector, i int, build bool) {
	acc := r.psum
	if build {
		acc = r.bsum
	}
	r.pairs++
	for j, v := range vals {
		if !v.IsNull(i) {
			acc[j].s += v.Ints[i]
			acc[j].n++
		}
	}
}

// buildAllTables gives every partition its own table and fills them all, for probe rows looked up in any order.
func (r *radixAggregate) buildAllTables() error {
	r.tabs = make([]radixTable, len(r.bparts))
	slots := 0
	for p := range r.bparts {
		lbits := tableBits(r.bparts[p].rows)
		r.tabs[p] = radixTable{base: slots, lbits: lbits}
		slots += 1 << lbits
	}
	if err := r.allocTable(slots); err != nil {
		return err
	}
	for p := range r.bparts {
		r.insertRows(&r.bparts[p], r.tabs[p])
		r.bparts[p].release()
	}
	return nil
}

// tableBits is log2 of the slots of a table for n rows (keymap.Slots).
func tableBits(n int) uint {
	bits := uint(0)
	for 1<<bits < keymap.Slots(n) {
		bits++
	}
	return bits
}

// allocTable makes r.table slots long, accounted.
func (r *radixAggregate) allocTable(slots int) error {
	if err := r.grow("the radix join's tables", int64(slots)*int64(r.slotWords())*8); err != nil {
		return err
	}
	r.table = make([]uint64, slots*r.slotWords())
	return nil
}

// foldByPartition folds the held probe rows partition by partition, each against its own table built just
// before into one shared, cache-sized region.
func (r *radixAggregate) foldByPartition(ctx context.Context) error {
	most := 0
	for p := range r.bparts {
		most = max(most, r.bparts[p].rows)
	}
	lbits := tableBits(most)
	if err := r.allocTable(1 << lbits); err != nil {
		return err
	}
	r.tabs = make([]radixTable, len(r.bparts))
	sw := r.slotWords()
	for p := range r.bparts {
		if err := ctx.Err(); err != nil {
			return err
		}
		t := radixTable{lbits: tableBits(r.bparts[p].rows)}
		r.tabs[p] = t
		short := r.strKeys && !r.inline && !r.mark && !r.uniqueBuild && shortPartition(&r.bparts[p])
		if short {
			r.insertShort(&r.bparts[p], t)
		} else {
			r.insertRows(&r.bparts[p], t)
		}
		r.bparts[p].release()
		if short && shortPartition(&r.pparts[p]) {
			r.shortParts++
			r.probeShort(&r.pparts[p], t)
		} else {
			r.probeRows(&r.pparts[p])
		}
		r.pparts[p].release()
		if r.bs.unmatched {
			r.foldUnmatched(t)
		}
		clear(r.table[:sw<<t.lbits])
		if r.tlong != nil {
			clear(r.tlong[:1<<t.lbits])
		}
		for _, bn := range r.bnulls {
			if bn != nil {
				clear(bn[:1<<t.lbits])
			}
		}
	}
	return nil
}

// insertRows adds the build rows of pt to table t: a new key takes a slot, a known key counts one more row and
// adds its values (innerunique building on the left skips it: the first row of a key stays alone).
func (r *radixAggregate) insertRows(pt *radixPart, t radixTable) {
	kw, sw, nb := r.keyWords(), r.slotWords(), len(r.bcols)
	stride := kw + nb
	tab := r.table
	mask := uint64(1)<<t.lbits - 1
	lshift := 64 - t.lbits
	strKeys, inline, bits := r.strKeys, r.inline, r.bits
	row, nc, lc := 0, 0, 0
	for _, c := range pt.words(stride) {
		for o := 0; o+stride <= len(c); o += stride {
			x := c[o : o+stride : o+stride]
			h, long := x[0], ""
			if strKeys && !inline && h&keyLenMask > keymap.InlineBytes {
				long = pt.long.at(lc)
				lc++
			}
			s := (h << bits) >> lshift
			kept := true
			for {
				e := (t.base + int(s)) * sw
				meta := tab[e+kw]
				if meta == 0 {
					// Word by word: copy is a call (memmove) under js/wasm, dearer than a few words.
					slot := tab[e : e+sw : e+sw]
					for j := 0; j < kw; j++ {
						slot[j] = x[j]
					}
					slot[kw] = 1
					for j := kw; j < stride; j++ {
						slot[j+1] = x[j]
					}
					if long != "" {
						if r.tlong == nil {
							r.tlong = make([]string, len(tab)/sw)
						}
						r.tlong[t.base+int(s)] = long
					}
					break
				}
				if tab[e] == x[0] && (!strKeys || r.sameStr(tab, e, t.base+int(s), x, long)) {
					if r.uniqueBuild {
						kept = false
						break
					}
					tab[e+kw] = meta + 1
					for j := kw; j < stride; j++ {
						tab[e+1+j] += x[j]
					}
					break
				}
				s = (s + 1) & mask
			}
			for ; nc < len(pt.nulls) && int(pt.nulls[nc].row) == row; nc++ {
				if kept {
					j := pt.nulls[nc].sum
					if r.bnulls[j] == nil {
						r.bnulls[j] = make([]int32, len(tab)/sw)
					}
					r.bnulls[j][t.base+int(s)]++
				}
			}
			row++
		}
	}
}

// sameStr reports whether slot e (number slot) holds the string key of row x, whose tagged hash already
// matched; long is the key when it is longer than keymap.InlineBytes and not inline.
func (r *radixAggregate) sameStr(tab []uint64, e, slot int, x []uint64, long string) bool {
	if tab[e+1] != x[1] || tab[e+2] != x[2] {
		return false
	}
	for j := 3; j <= r.keyW; j++ {
		if tab[e+j] != x[j] {
			return false
		}
	}
	return long == "" || keymap.SameBytes(r.tlong[slot], long)
}

// probeRows folds the probe rows of pt against the tables: a found key adds its build rows as output rows,
// the row's values times that many and the key's build-side sums; a missing key adds the row alone when the kind
// keeps unmatched probe rows.
func (r *radixAggregate) probeRows(pt *radixPart) {
	kw, sw, np, nb := r.keyWords(), r.slotWords(), len(r.pcols), len(r.bcols)
	stride := kw + np
	tab, tabs := r.table, r.tabs
	bsum, psum := r.bsum, r.psum
	pairs, unmatched := r.pairs, r.ps.unmatched
	strKeys, inline, mark, dedupe, bits, bnulls := r.strKeys, r.inline, r.mark, r.dedupe, r.bits, r.bnulls
	shift := 64 - bits
	row, nc, lc := 0, 0, 0
	for _, c := range pt.words(stride) {
		for o := 0; o+stride <= len(c); o += stride {
			x := c[o : o+stride : o+stride]
			h, long := x[0], ""
			if strKeys && !inline && h&keyLenMask > keymap.InlineBytes {
				long = pt.long.at(lc)
				lc++
			}
			t := tabs[h>>shift]
			mask := uint64(1)<<t.lbits - 1
			s := (h << bits) >> (64 - t.lbits)
			// Find the key's slot, or the empty slot that ends its run. The fold below needs no branch on which:
			// an empty slot's meta and sums are 0, so it adds nothing (whether a probe row finds its key is a
			// coin toss on typical data, and a mispredicted branch per row cost more than the table access).
			var e int
			for {
				e = (t.base + int(s)) * sw
				if tab[e+kw] == 0 || tab[e] == x[0] && (!strKeys || r.sameStr(tab, e, t.base+int(s), x, long)) {
					break
				}
				s = (s + 1) & mask
			}
			meta := tab[e+kw]
			if mark && meta != 0 {
				if meta&matchedBit != 0 && dedupe {
					meta = 0 // a later probe row of the key: it joins nothing
				} else {
					tab[e+kw] = meta | matchedBit
				}
			}
			m := int64(uint32(meta)) // output rows this probe row makes
			found := int64(0)
			if meta != 0 {
				found = 1
			}
			for j := 0; j < nb; j++ {
				bsum[j].s += int64(tab[e+kw+1+j]) * found
				bsum[j].n += m
				if bn := bnulls[j]; bn != nil {
					bsum[j].n -= int64(bn[t.base+int(s)]) * found
				}
			}
			if meta == 0 && unmatched {
				m = 1
			}
			for j := range psum {
				psum[j].s += int64(x[kw+j]) * m // wraps exactly as m additions would
				psum[j].n += m
			}
			pairs += m
			for ; nc < len(pt.nulls) && int(pt.nulls[nc].row) == row; nc++ {
				psum[pt.nulls[nc].sum].n -= m
			}
			row++
		}
	}
	r.pairs = pairs
}

// foldUnmatched folds the keys of table t that no probe row found: each of their build rows is an output row
// with a null probe side.
func (r *radixAggregate) foldUnmatched(t radixTable) {
	kw, sw := r.keyWords(), r.slotWords()
	for s := t.base; s < t.base+1<<t.lbits; s++ {
		e := s * sw
		meta := r.table[e+kw]
		if meta == 0 || meta&matchedBit != 0 {
			continue
		}
		m := int64(uint32(meta))
		r.pairs += m
		for j := range r.bsum {
			r.bsum[j].s += int64(r.table[e+kw+1+j])
			r.bsum[j].n += m
			if bn := r.bnulls[j]; bn != nil {
				r.bsum[j].n -= int64(bn[s])
			}
		}
	}
}
