package join

import (
	"context"
	"math/bits"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
)

// The dense table's partitioned passes. A table larger than the cache is read and written at random, one miss
// per row; when the commonest shape allows it — one sum from each side, no nulls, pairs only — the rows are
// first copied, by the top bits of their key's offset, into a few partitions, each with a slice of the table of
// at most densePartBytes, and each partition then adds into (build) or reads (probe) its own slice alone. The
// key's offset is its own partition number: no hash. A probe row whose key is out of range matches nothing and
// is dropped before it is copied.
//
// Memory: 16 bytes a build row and a probe row in range, held until their partition is done; without the
// budget for the probe rows, the probe side reads the table directly.

// densePartBytes is the slice of the table a partition aims at. Measured on workload a (16 MB of table) in node,
// paired runs against 64 partitions (256 KiB slices, the size of the hash path's cache-sized tables, which took
// 0.79 of the direct passes' time): 16 partitions 0.76, 8 0.77, 4 0.82, 2 0.97; on c, 8 partitions 0.86 and 16
// 0.90. Past a few partitions the scatter's open chunks cost more than the misses that smaller slices save.
const densePartBytes = 2 << 20

// densePartBits is log2 of the partitions for table d: the fewest whose slices of the table are at most
// densePartBytes, and 0 when the whole table is that small or the shape does not allow it.
func (r *radixAggregate) densePartBits(d *denseTable) uint {
	if d.stride != 2 || len(r.pcols) != 1 || r.uniqueBuild || r.ps.unmatched || d.counted {
		return 0
	}
	if r.denseBits >= 0 {
		return uint(r.denseBits)
	}
	tableBytes := (d.span + 1) * 16
	pb := uint(0)
	for tableBytes>>pb > densePartBytes && pb < maxRadixBits {
		pb++
	}
	return pb
}

// denseParts holds the rows of one side of a partitioned dense join: (offset, value) pairs by partition.
type denseParts struct {
	parts []radixPart
	shift uint // offset >> shift is the partition
}

func newDenseParts(d *denseTable, pb uint) *denseParts {
	return &denseParts{parts: make([]radixPart, 1<<pb), shift: uint(max(0, bits.Len64(d.span)-int(pb)))}
}

// scatter copies the rows of keys (no nulls) whose offset from lo is at most span, with their values w, into
// their partitions. It lists the rows in range first, on a loop with no branch on the data, and then copies
// them.
func (dp *denseParts) scatter(keys, w []int64, lo, span uint64, sel []int32) {
	w = w[:len(keys)]
	kept := 0
	for i, x := range keys {
		sel[kept] = int32(i)
		in := 0
		if uint64(x)-lo <= span { // a select, not a branch
			in = 1
		}
		kept += in
	}
	parts, shift := dp.parts, dp.shift
	for _, i := range sel[:kept] {
		u := uint64(keys[i]) - lo
		pt := &parts[u>>shift]
		pt.rows++
		row := pt.claim(2)
		row[0], row[1] = u, uint64(w[i])
	}
}

// runDenseParts is runDense with the partitioned passes, pb partition bits.
func (r *radixAggregate) runDenseParts(ctx context.Context, d *denseTable, bb *buildBatches, pb uint) error {
	lo, span := uint64(d.lo), d.span
	bp := newDenseParts(d, pb)
	if err := r.grow("the dense join's build rows", int64(bb.rows)*16+int64(len(bp.parts))*radixChunkWords*8); err != nil {
		return err
	}
	for i, b := range bb.batches {
		k, v := keyColumns(b, r.bkeys, r.spec.KeyTypes)[0], b.Cols[r.bcols[0]]
		if k.HasNulls() || v.HasNulls() {
			d.add(r, b)
		} else {
			r.ensureSel(b.N)
			bp.scatter(k.Ints[:b.N], v.Ints[:b.N], lo, span, r.sel)
		}
		bb.batches[i] = nil
	}
	r.drop(bb)
	for p := range bp.parts {
		for _, c := range bp.parts[p].words(2) {
			d.addRows(c)
		}
		bp.parts[p].release()
	}
	pp := newDenseParts(d, pb)
	held := r.grow("the dense join's probe rows", int64(len(pp.parts))*radixChunkWords*8) == nil
	batches := 0
	err := exec.Drain(ctx, r.probe, func(b *column.Batch) error {
		k, w := keyColumns(b, r.pkeys, r.spec.KeyTypes)[0], b.Cols[r.pcols[0]]
		if held && (batches == r.bufferBatches || r.grow("the dense join's probe rows", int64(b.N)*16) != nil) {
			held = false // the rows held so far are folded below; the rest read the table directly
		}
		batches++
		if !held || k.HasNulls() || w.HasNulls() {
			d.probe(r, b)
			return nil
		}
		r.ensureSel(b.N)
		pp.scatter(k.Ints[:b.N], w.Ints[:b.N], lo, span, r.sel)
		return nil
	})
	if err != nil {
		return err
	}
	for p := range pp.parts {
		for _, c := range pp.parts[p].words(2) {
			d.probeRows(r, c)
		}
		pp.parts[p].release()
	}
	return nil
}

// ensureSel makes r.sel at least n long.
func (r *radixAggregate) ensureSel(n int) {
	if len(r.sel) < n {
		r.sel = make([]int32, n)
	}
}

// addRows adds build rows (offset, value) into their entries.
func (d *denseTable) addRows(rows []uint64) {
	words := d.words
	for o := 0; o+2 <= len(rows); o += 2 {
		u := rows[o]
		e := words[2*u : 2*u+2 : 2*u+2]
		e[0]++
		e[1] += rows[o+1]
	}
}

// probeRows folds probe rows (offset, value), every offset in range, as probeOneEach does.
func (d *denseTable) probeRows(r *radixAggregate, rows []uint64) {
	words := d.words
	var pairs, bs, ps int64
	for o := 0; o+2 <= len(rows); o += 2 {
		u := rows[o]
		c := int64(words[2*u])
		pairs += c
		bs += int64(words[2*u+1])
		ps += int64(rows[o+1]) * c
	}
	r.pairs += pairs
	r.bsum[0].s += bs
	r.bsum[0].n += pairs
	r.psum[0].s += ps
	r.psum[0].n += pairs
}
