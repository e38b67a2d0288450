package join

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/spill"
)

// hotJoin is the Grace join's hot-key path for one pair whose smaller side cannot fit memory and cannot be
// split (one or a few keys hold most of its rows): a block nested-loop join in which each block is indexed by
// a hash table.
//
//	for each block of build rows that fits the memory left:
//	    index the block by key
//	    read the whole probe side of the pair: emit pairs, mark matched build rows and, in a bitmap, probe rows
//	    emit the block's build rows the kind keeps (unmatched, anti: not marked; semi: marked)
//	read the probe side once more: emit its rows the kind keeps, from the bitmap
//
// Each build row belongs to one block and meets every probe row there, so build-side rows are decided per
// block; a probe row meets every block, so its fate waits for the bitmap. innerunique keeps the first left row
// of a key: building on the left, keys indexed by an earlier block are skipped; probing with the left, each
// pass keeps the first row of a key, the same row every pass. Memory: one block, its table, the bitmap (a bit a
// probe row) and the seen-key sets, all grown on the budget. Cost: the probe side is read once per block, plus
// once for the bitmap pass.
func (g *Grace) hotJoin(ctx context.Context, p *gracePair, buildLeft bool, shrink float64) iter.Seq2[*column.Batch, error] {
	return func(yield func(*column.Batch, error) bool) {
		var held int64
		defer func() { g.shrink(held) }()
		grow := func(what string, n int64) error {
			if err := g.grow("grace join: hot-key "+what, n); err != nil {
				return err
			}
			held += n
			return nil
		}
		fail := func(err error) { yield(nil, err) }

		bi, pi := 1, 0
		if buildLeft {
			bi, pi = 0, 1
		}
		build, probe := p.runs[bi], p.runs[pi]
		ls, rs := g.spec.Kind.sides()
		bs, ps := rs, ls
		if buildLeft {
			bs, ps = ls, rs
		}
		uniqueBuild := g.spec.Kind == InnerUnique && buildLeft
		uniqueProbe := g.spec.Kind == InnerUnique && !buildLeft
		// place puts build rows bidx and probe rows pidx on their sides of the output.
		place := func(bb *column.Batch, bidx []int32, pb *column.Batch, pidx []int32, n int) *column.Batch {
			if buildLeft {
				return g.assemble(bb, bidx, pb, pidx, n)
			}
			return g.assemble(pb, pidx, bb, bidx, n)
		}

		if err := grow("read buffers", 2*int64(g.pageBytes)+build.MaxPageMem+probe.MaxPageMem); err != nil {
			fail(err)
			return
		}
		var probeMatched column.Bitmap
		if ps.unmatched || ps.semi || ps.anti {
			words := (probe.Rows + 63) / 64
			if err := grow("probe bitmap", words*8); err != nil {
				fail(err)
				return
			}
			probeMatched = make(column.Bitmap, words)
		}
		seenBuild := map[string]struct{}{}
		var buf []byte
		br := spill.NewReader(build, g.codecs[bi])
		g.traceRead(p, bi)
		var carry *column.Batch
		for block := 0; ; block++ {
			// Load a block: pages of build rows while they fit what the budget has left.
			tab := column.NewTable(g.sideSchema(bi))
			var blockHeld int64
			for {
				b := carry
				carry = nil
				if b == nil {
					var err error
					if b, err = br.Next(); err != nil {
						fail(err)
						return
					}
					if b == nil {
						break
					}
				}
				cost := b.Bytes() + int64(b.N)*graceRowOverhead
				full := g.cfg.HotBlockRows > 0 && tab.N+b.N > g.cfg.HotBlockRows
				if tab.N > 0 && (full || cost > g.env.Budget.Available()) {
					carry = b
					break
				}
				if err := grow("block", cost); err != nil {
					fail(fmt.Errorf("a block of one page does not fit: %w", err))
					return
				}
				blockHeld += cost
				tab.Append(b)
			}
			if tab.N == 0 {
				break
			}
			n := tab.N
			keys := keyColumns(tab.Batch(), g.sideKeys(bi), g.spec.KeyTypes)
			next := make([]int32, n)
			var ints *intTable
			var strs strTable
			if intKeyed(g.spec.KeyTypes) {
				ints = newIntTable(n)
			} else {
				strs = strTable{}
			}
			insert := func(i int) {
				if hasNullKey(keys, i) {
					next[i] = -1
					return
				}
				if uniqueBuild {
					var s string
					s, buf = stringKey(keys, i, buf)
					if _, ok := seenBuild[s]; ok {
						next[i] = -1
						return
					}
				}
				if ints != nil {
					if !ints.pushFront(keys[0].Ints[i], int32(i), next, uniqueBuild) {
						next[i] = -1
					}
					return
				}
				var s string
				s, buf = stringKey(keys, i, buf)
				if !strs.pushFront(s, int32(i), next, uniqueBuild) {
					next[i] = -1
				}
			}
			if uniqueBuild { // the first row of a key wins, so insert forwards
				for i := 0; i < n; i++ {
					insert(i)
				}
				for i := 0; i < n; i++ {
					if !hasNullKey(keys, i) {
						var s string
						s, buf = stringKey(keys, i, buf)
						if _, ok := seenBuild[s]; !ok {
							if err := grow("seen keys", graceMapEntryBytes+int64(len(s))); err != nil {
								fail(err)
								return
							}
							seenBuild[s] = struct{}{}
						}
					}
				}
			} else {
				for i := n - 1; i >= 0; i-- {
					insert(i)
				}
			}
			lookup := func(pk []*column.Vector, i int) int32 {
				if hasNullKey(pk, i) {
					return -1
				}
				if ints != nil {
					return ints.lookup(pk[0].Ints[i])
				}
				var s string
				s, buf = stringKey(pk, i, buf)
				return strs.lookup(s)
			}
			if block == 0 {
				g.traceHotKey(p, tab, keys, next, shrink)
			}
			var matchedB []bool
			if bs.unmatched || bs.semi || bs.anti {
				if err := grow("build marks", int64(n)); err != nil {
					fail(err)
					return
				}
				blockHeld += int64(n)
				matchedB = make([]bool, n)
			}

			// Stream the probe side past the block.
			pr := spill.NewReader(probe, g.codecs[pi])
			g.traceRead(p, pi)
			seenProbe := map[string]struct{}{}
			ord := 0
			for {
				if err := ctx.Err(); err != nil {
					fail(err)
					return
				}
				pb, err := pr.Next()
				if err != nil {
					fail(err)
					return
				}
				if pb == nil {
					break
				}
				pkeys := keyColumns(pb, g.sideKeys(pi), g.spec.KeyTypes)
				var pidx, bidx []int32
				for i := 0; i < pb.N; i++ {
					if uniqueProbe && !hasNullKey(pkeys, i) {
						var s string
						s, buf = stringKey(pkeys, i, buf)
						if _, ok := seenProbe[s]; ok {
							continue
						}
						if err := grow("seen keys", graceMapEntryBytes+int64(len(s))); err != nil {
							fail(err)
							return
						}
						blockHeld += graceMapEntryBytes + int64(len(s))
						seenProbe[s] = struct{}{}
					}
					head := lookup(pkeys, i)
					if head < 0 {
						continue
					}
					if probeMatched != nil {
						probeMatched.Set(ord + i)
					}
					for r := head; r >= 0; r = next[r] {
						if matchedB != nil {
							matchedB[r] = true
						}
						if !ps.pairs {
							continue
						}
						pidx, bidx = append(pidx, int32(i)), append(bidx, r)
						if len(pidx) >= outRows {
							if !yield(place(tab.Batch(), bidx, pb, pidx, len(pidx)), nil) {
								return
							}
							pidx, bidx = nil, nil
						}
					}
				}
				if len(pidx) > 0 && !yield(place(tab.Batch(), bidx, pb, pidx, len(pidx)), nil) {
					return
				}
				ord += pb.N
			}
			// The block's build rows the kind keeps.
			if matchedB != nil {
				want := bs.semi
				var bidx []int32
				for r := 0; r <= n; r++ {
					if r == n || len(bidx) >= outRows {
						if len(bidx) > 0 && !yield(place(tab.Batch(), bidx, nil, nil, len(bidx)), nil) {
							return
						}
						bidx = nil
					}
					if r < n && matchedB[r] == want {
						bidx = append(bidx, int32(r))
					}
				}
			}
			g.shrink(blockHeld)
			held -= blockHeld
		}

		// The probe rows the kind keeps, from the bitmap.
		if probeMatched == nil {
			return
		}
		want := ps.semi
		pr := spill.NewReader(probe, g.codecs[pi])
		g.traceRead(p, pi)
		ord := 0
		for {
			pb, err := pr.Next()
			if err != nil {
				fail(err)
				return
			}
			if pb == nil {
				return
			}
			var pidx []int32
			for i := 0; i < pb.N; i++ {
				if probeMatched.Get(ord+i) == want {
					pidx = append(pidx, int32(i))
				}
			}
			ord += pb.N
			if len(pidx) > 0 && !yield(place(nil, nil, pb, pidx, len(pidx)), nil) {
				return
			}
		}
	}
}

// traceHotKey reports the most frequent key of a hot pair's first block.
func (g *Grace) traceHotKey(p *gracePair, tab *column.Table, keys []*column.Vector, next []int32, shrink float64) {
	// Chains are disjoint, so a row's chain length from itself counts the rows after it; the longest chain
	// starts at the first row of the most frequent key.
	depth := make([]int32, len(next))
	best, bestRow := int32(0), -1
	for i := len(next) - 1; i >= 0; i-- {
		if hasNullKey(keys, i) {
			continue
		}
		depth[i] = 1
		if next[i] >= 0 {
			depth[i] += depth[next[i]]
		}
		if depth[i] >= best {
			best, bestRow = depth[i], i
		}
	}
	var key []string
	if bestRow >= 0 {
		for _, v := range keys {
			key = append(key, expr.ToString(v.Value(bestRow)))
		}
	}
	g.emit(EventHotKey, map[string]any{"partition": p.id, "level": p.level, "key": strings.Join(key, ","),
		"rows": best, "block_rows": tab.N, "left_rows": p.runs[0].Rows, "right_rows": p.runs[1].Rows,
		"shrink": shrink})
}
