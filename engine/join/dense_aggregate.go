package join

import (
	"context"
	"sync"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
)

// denseTable is the radix aggregate's path for int64 keys whose values span a dense range [lo, lo+span]: the
// table is an array with one entry per value of the range, so a key's entry is at its offset from lo — no
// hash, no probing, no key compare, no partitions. An entry is stride words: the count of build rows with the
// key (0: none), then per build-side sum the sum of their values, then, when a build-side summed column has
// nulls (counted), per sum the count of those rows whose value is not null.
//
//	build  one pass over the build batches adds each row with a non-null key into its entry; the batches
//	       are then dropped
//	probe  one pass over the probe side: a row whose key is in range and whose entry counts c > 0 rows adds c
//	       output rows, c times its own values and the entry's build sums
//
// It applies to inner joins, innerunique building on the left (an entry keeps its key's first build row: the
// batches are read in order) and kinds that keep unmatched probe rows (each adds one output row with a null
// build side). Kinds that keep unmatched build rows and innerunique probing with the left take the partitioned
// path, which marks the keys they need.
//
// Memory: 8·stride bytes a value of the range, at most denseValuesPerRow values a build row (plus
// denseSpanMin), so never much more than the partitioned path's rows and tables. Cost: one random access into
// the array per build row and per probe row in range, and no hashing. The array is larger than the L2 cache at a
// million keys; for the commonest aggregates the rows are first split by their offset's top bits so that each
// part reads a cache-sized slice of it (dense_parts.go), otherwise it is read with no dependency between rows,
// so the processor overlaps the misses.
type denseTable struct {
	lo      int64
	span    uint64
	stride  int
	counted bool
	words   []uint64
}

// denseValuesPerRow bounds the range of a dense table: at most 2 values a build row plus denseSpanMin.
const denseValuesPerRow = 2

// newDenseTable returns a dense table for the build side bb and reserves its memory, or nil when the join does
// not qualify or the budget refuses it (the partitioned path then runs).
func (r *radixAggregate) newDenseTable(bb *buildBatches) *denseTable {
	if r.strKeys || r.bs.unmatched || r.dedupe || r.noDense {
		return nil
	}
	var lo, hi int64
	seen, counted := false, false
	for _, b := range bb.batches {
		for _, c := range r.bcols {
			counted = counted || b.Cols[c].HasNulls()
		}
		lo, hi, seen = keyRange(keyColumns(b, r.bkeys, r.spec.KeyTypes)[0], b.N, lo, hi, seen)
	}
	span := uint64(hi) - uint64(lo)
	if !seen || span >= uint64(bb.rows)*denseValuesPerRow+denseSpanMin {
		return nil
	}
	stride := 1 + len(r.bcols)
	if counted {
		stride += len(r.bcols)
	}
	words := (span + 1) * uint64(stride)
	if r.grow("the dense join table", int64(words)*8) != nil {
		return nil
	}
	r.usedDense = true
	w := denseWords.Get().(*[]uint64)
	if uint64(cap(*w)) < words {
		*w = make([]uint64, words)
	} else {
		*w = (*w)[:words]
		clear(*w)
	}
	return &denseTable{lo: lo, span: span, stride: stride, counted: counted, words: *w}
}

// denseWords keeps the array of the last dense table for the next one. A table of a million keys is 16 MB, and
// on js/wasm every such table allocated brings the next collection closer; clearing a kept one costs the same as
// the zeroing a new one needs.
var denseWords = sync.Pool{New: func() any { return new([]uint64) }}

// release gives d's array back to denseWords; d is not used after.
func (d *denseTable) release() {
	w := d.words
	d.words = nil
	denseWords.Put(&w)
}

// runDense folds the join through table d: it fills d from the build batches, drops them, and streams the
// probe side through it.
func (r *radixAggregate) runDense(ctx context.Context, d *denseTable, bb *buildBatches) error {
	for i, b := range bb.batches {
		d.add(r, b)
		bb.batches[i] = nil
	}
	r.drop(bb)
	return exec.Drain(ctx, r.probe, func(b *column.Batch) error {
		d.probe(r, b)
		return nil
	})
}

// add adds build batch b's rows with a non-null key into their entries.
func (d *denseTable) add(r *radixAggregate, b *column.Batch) {
	k := keyColumns(b, r.bkeys, r.spec.KeyTypes)[0]
	nulls := k.HasNulls()
	vals := make([]*column.Vector, len(r.bcols))
	for j, c := range r.bcols {
		vals[j] = b.Cols[c]
	}
	words, lo, stride, m := d.words, uint64(d.lo), uint64(d.stride), len(vals)
	if !nulls && !d.counted && !r.uniqueBuild && m == 1 { // the common case, on a loop of its own
		v := vals[0].Ints[:b.N]
		for i, x := range k.Ints[:b.N] {
			u := uint64(x) - lo
			e := words[2*u : 2*u+2 : 2*u+2]
			e[0]++
			e[1] += uint64(v[i])
		}
		return
	}
	for i, x := range k.Ints[:b.N] {
		if nulls && k.IsNull(i) {
			continue
		}
		e := words[(uint64(x)-lo)*stride:][:stride]
		if r.uniqueBuild && e[0] != 0 {
			continue
		}
		e[0]++
		for j, v := range vals {
			if d.counted && v.IsNull(i) {
				continue
			}
			e[1+j] += uint64(v.Ints[i])
			if d.counted {
				e[1+m+j]++
			}
		}
	}
}

// probe folds probe batch b into the aggregates.
func (d *denseTable) probe(r *radixAggregate, b *column.Batch) {
	k := keyColumns(b, r.pkeys, r.spec.KeyTypes)[0]
	vals := make([]*column.Vector, len(r.pcols))
	simple := !k.HasNulls() && !r.ps.unmatched && !d.counted
	for j, c := range r.pcols {
		vals[j] = b.Cols[c]
		simple = simple && !vals[j].HasNulls()
	}
	if simple && d.stride == 2 && len(vals) == 1 {
		d.probeOneEach(r, k.Ints[:b.N], vals[0].Ints[:b.N])
		return
	}
	words, lo, span, stride, m := d.words, uint64(d.lo), d.span, uint64(d.stride), len(r.bsum)
	for i, x := range k.Ints[:b.N] {
		var c uint64
		var e []uint64
		if u := uint64(x) - lo; u <= span && !k.IsNull(i) {
			e = words[u*stride:][:stride]
			c = e[0]
		}
		if c == 0 {
			if r.ps.unmatched {
				r.pairs++
				for j, v := range vals {
					if !v.IsNull(i) {
						r.psum[j].s += v.Ints[i]
						r.psum[j].n++
					}
				}
			}
			continue
		}
		r.pairs += int64(c)
		for j := range r.bsum {
			nn := c
			if d.counted {
				nn = e[1+m+j]
			}
			r.bsum[j].s += int64(e[1+j])
			r.bsum[j].n += int64(nn)
		}
		for j, v := range vals {
			if !v.IsNull(i) {
				r.psum[j].s += v.Ints[i] * int64(c)
				r.psum[j].n += int64(c)
			}
		}
	}
}

// probeOneEach is probe for one build-side sum, one probe-side sum, no nulls and pairs only: the loop of the
// common case, with the sums in locals.
func (d *denseTable) probeOneEach(r *radixAggregate, keys, w []int64) {
	words, lo, span := d.words, uint64(d.lo), d.span
	var pairs, bs, ps int64
	w = w[:len(keys)]
	for i, x := range keys {
		u := uint64(x) - lo
		if u > span {
			continue
		}
		c := int64(words[2*u])
		pairs += c
		bs += int64(words[2*u+1])
		ps += w[i] * c
	}
	r.pairs += pairs
	r.bsum[0].s += bs
	r.bsum[0].n += pairs
	r.psum[0].s += ps
	r.psum[0].n += pairs
}
