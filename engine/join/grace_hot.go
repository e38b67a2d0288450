package join

import (
	"context"
	"fmt"
	"iter"
	"sort"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/keymap"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/spill"
)

// hotJoin is the Grace join's hot-key path for one pair whose smaller side cannot fit memory and cannot be
// split (one or a few keys hold most of its rows): a block nested-loop join in which each block is indexed by
// a hash table.
//
//	reserve the read buffers, the probe bitmap and the output batch
//	for each block of build rows that fits what is left:
//	    index the block by key
//	    read the whole probe side of the pair: emit pairs, mark matched build rows and, in a bitmap, probe rows
//	    emit the block's build rows the kind keeps (unmatched, anti: not marked; semi: marked)
//	read the probe side once more: emit its rows the kind keeps, from the bitmap
//
// Each build row belongs to one block and meets every probe row there, so build-side rows are decided per
// block; a probe row meets every block, so its fate waits for the bitmap. innerunique keeps the first left row
// of a key, so it always blocks the right side and probes with the left: the first left row to find a key in
// a block takes it (a mark on the key's head row) and later ones skip it, the same row every pass. Blocking
// the left side instead would need the set of every key of earlier blocks, memory no block bound covers;
// the I/O of a block nested loop is the product of both sides' pages whichever side is blocked.
//
// Memory, in the order it is reserved: two page buffers and two decoded pages (the build page in flight and
// the probe page), the bitmap (a bit a probe row), and the output batch (hotMemory.outBytes, an eighth of
// what is left, between one row and outRows); all of it is fixed before a build row is read. A block then
// takes rows while its exact cost — rows, chain links, marks and the hash table (blockCost) — fits the rest,
// cutting a page between rows if need be. Nothing is grown while a block is probed, so the pair's join
// succeeds exactly when every build row fits a block alone: what is left for blocks never shrinks as the
// budget grows, and for the same pair and page size a larger budget never fails where a smaller one succeeds. A build row that does not fit a block alone (or a fixed
// part that does not fit) fails the join with the least free memory it needs (hotMemoryError). Cost: the
// probe side is read once per block, plus once for the bitmap pass.
func (g *Grace) hotJoin(ctx context.Context, p *gracePair, buildLeft bool, shrink float64) iter.Seq2[*column.Batch, error] {
	return func(yield func(*column.Batch, error) bool) {
		var held int64
		defer func() { g.shrink(held) }()
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
		uniqueProbe := g.spec.Kind == InnerUnique // never built on the left (see above)
		// place puts build rows bidx and probe rows pidx on their sides of the output.
		place := func(bb *column.Batch, bidx []int32, pb *column.Batch, pidx []int32, n int) *column.Batch {
			if buildLeft {
				return g.assemble(bb, bidx, pb, pidx, n)
			}
			return g.assemble(pb, pidx, bb, bidx, n)
		}

		m := g.hotMemory(build, probe, pi, ps.unmatched || ps.semi || ps.anti, bs.unmatched || bs.semi || bs.anti || uniqueProbe)
		free := g.env.Budget.Available()
		out := m.outBytes(free)
		if err := g.grow("hot-key read buffers, bitmap and output", m.fixed+out); err != nil {
			fail(m.tooSmall(free, m.blockCost(1, 0)))
			return
		}
		held += m.fixed + out
		allowance := free - m.fixed - out
		maxOut := m.outRows(out)
		var probeMatched column.Bitmap
		if m.bitmap > 0 {
			probeMatched = make(column.Bitmap, m.bitmap/8)
		}

		var buf []byte
		br := spill.NewReader(build, g.codecs[bi])
		g.traceRead(p, bi)
		var carry *column.Batch
		for block := 0; ; block++ {
			// Load a block: build rows while the block's cost fits the allowance, a page or part of one at a time.
			tab := column.NewTable(g.sideSchema(bi))
			var data int64
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
					if b.N == 0 {
						continue
					}
				}
				take := b.N
				if g.cfg.HotBlockRows > 0 {
					take = min(take, g.cfg.HotBlockRows-tab.N)
				}
				if take > 0 && m.blockCost(tab.N+take, data+g.rowsBytes(b, bi, take)) > allowance {
					// The largest prefix of the page that still fits.
					take = sort.Search(take, func(k int) bool {
						return m.blockCost(tab.N+k+1, data+g.rowsBytes(b, bi, k+1)) > allowance
					})
				}
				if take == 0 && tab.N == 0 {
					fail(m.tooSmall(free, m.blockCost(1, g.rowsBytes(b, bi, 1))))
					return
				}
				if take == 0 {
					carry = b
					break
				}
				if take < b.N {
					carry = b.Slice(take, b.N)
				}
				data += g.rowsBytes(b, bi, take)
				tab.Append(b.Slice(0, take))
			}
			if tab.N == 0 {
				break
			}
			n := tab.N
			blockHeld := m.blockCost(n, data)
			if err := g.grow("hot-key block", blockHeld); err != nil {
				fail(err)
				return
			}
			held += blockHeld
			keys := keyColumns(tab.Batch(), g.sideKeys(bi), g.spec.KeyTypes)
			next := make([]int32, n)
			var ints *keymap.Ints
			var strs *keymap.Strs
			if m.intKeys {
				ints = keymap.NewInts(n)
			} else {
				strs = keymap.NewStrs(n)
				strs.Reserve(longKeyBytes(keys, n)) // counted in the block's cost (rowsBytes)
			}
			for i := n - 1; i >= 0; i-- { // backwards, so a chain lists its rows in input order
				if hasNullKey(keys, i) {
					next[i] = -1
					continue
				}
				if ints != nil {
					next[i] = ints.Push(keys[0].Ints[i], int32(i), false)
					continue
				}
				var s string
				s, buf = stringKey(keys, i, buf)
				next[i] = strs.Push(s, int32(i), false)
			}
			lookup := func(pk []*column.Vector, i int) int32 {
				if hasNullKey(pk, i) {
					return -1
				}
				if ints != nil {
					return ints.Lookup(pk[0].Ints[i])
				}
				var s string
				s, buf = stringKey(pk, i, buf)
				return strs.Lookup(s)
			}
			if block == 0 {
				g.traceHotKey(p, tab, keys, next, lookup, shrink)
			}
			// marked is, per build row, matched (outer, semi, anti) or, for innerunique, its key taken by a left row.
			var marked []bool
			if m.marks {
				marked = make([]bool, n)
			}

			// Stream the probe side past the block.
			pr := spill.NewReader(probe, g.codecs[pi])
			g.traceRead(p, pi)
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
					head := lookup(pkeys, i)
					if head < 0 {
						continue
					}
					if uniqueProbe {
						if marked[head] {
							continue
						}
						marked[head] = true
					}
					if probeMatched != nil {
						probeMatched.Set(ord + i)
					}
					for r := head; r >= 0; r = next[r] {
						if marked != nil {
							marked[r] = true
						}
						if !ps.pairs {
							continue
						}
						pidx, bidx = append(pidx, int32(i)), append(bidx, r)
						if len(pidx) >= maxOut {
							if !yield(place(tab.Batch(), bidx, pb, pidx, len(pidx)), nil) {
								return
							}
							pidx, bidx = pidx[:0], bidx[:0]
						}
					}
				}
				if len(pidx) > 0 && !yield(place(tab.Batch(), bidx, pb, pidx, len(pidx)), nil) {
					return
				}
				ord += pb.N
			}
			// The block's build rows the kind keeps.
			if bs.unmatched || bs.semi || bs.anti {
				want := bs.semi
				var bidx []int32
				for r := 0; r <= n; r++ {
					if r == n || len(bidx) >= maxOut {
						if len(bidx) > 0 && !yield(place(tab.Batch(), bidx, nil, nil, len(bidx)), nil) {
							return
						}
						bidx = bidx[:0]
					}
					if r < n && marked[r] == want {
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
			for i := 0; i <= pb.N; i++ {
				if i == pb.N || len(pidx) >= maxOut {
					if len(pidx) > 0 && !yield(place(nil, nil, pb, pidx, len(pidx)), nil) {
						return
					}
					pidx = pidx[:0]
				}
				if i < pb.N && probeMatched.Get(ord+i) == want {
					pidx = append(pidx, int32(i))
				}
			}
			ord += pb.N
		}
	}
}

// hotMemory is the memory plan of one hot pair: what is reserved before any build row is read, and what a
// block of build rows costs.
type hotMemory struct {
	readers, bitmap int64 // page buffers and decoded pages (see hotMemory); the probe bitmap
	fixed           int64 // readers + bitmap
	outRow, outBase int64 // an output row's bytes, and a batch's own (a null-bitmap word a column)
	marks           bool  // a mark a build row
	intKeys         bool  // a keymap.Ints indexes the blocks, else a keymap.Strs
}

// hotMemory plans a pair's hot-key path building on build and probing with probe, side pi: the readers hold
// a page buffer and a decoded page each, plus the probe page's keys converted to the compared type when they
// need converting (as large as the decoded page for a number; about that for text).
func (g *Grace) hotMemory(build, probe spill.Run, pi int, bitmap, marks bool) hotMemory {
	m := hotMemory{readers: 2*int64(g.pageBytes) + build.MaxPageMem + probe.MaxPageMem, marks: marks,
		intKeys: intKeyed(g.spec.KeyTypes)}
	for i, k := range g.sideKeys(pi) {
		if g.sideSchema(pi)[k].Type != g.spec.KeyTypes[i] {
			m.readers += probe.MaxPageMem
			break
		}
	}
	if bitmap {
		m.bitmap = (probe.Rows + 63) / 64 * 8
	}
	m.fixed = m.readers + m.bitmap
	cols := int64(len(g.spec.Schema))
	// A gathered cell copies at most a string header (the string's bytes stay shared with the input) and a
	// null bit; the two index slices hold 4 bytes each a row.
	m.outRow = cols*(graceOutCellBytes+1) + 8
	m.outBase = cols * 8
	return m
}

// outBytes is the output batch's reservation when free bytes are free: graceHotOutDivisor of what the fixed
// part leaves, between one row and outRows. It grows no faster than free does, so what it leaves for blocks
// never shrinks as the budget grows.
func (m hotMemory) outBytes(free int64) int64 {
	return min(max((free-m.fixed)/graceHotOutDivisor, m.outBase+m.outRow), m.outBase+outRows*m.outRow)
}

// outRows is how many rows an output batch of out reserved bytes may have.
func (m hotMemory) outRows(out int64) int { return int(max((out-m.outBase)/m.outRow, 1)) }

// blockCost is what a block of n build rows taking data bytes holds: the rows, a chain link each, a mark
// each when the kind needs them, and the hash table.
func (m hotMemory) blockCost(n int, data int64) int64 {
	per := int64(4)
	if m.marks {
		per++
	}
	table := keymap.StrsBytes(n)
	if m.intKeys {
		table = keymap.IntsBytes(n)
	}
	return data + int64(n)*per + table
}

// tooSmall is the error of a pair whose hot-key path cannot run with free bytes free, block being the cost of
// a block of one build row: of the row that did not fit, or of an empty row when the reservation itself
// failed (then the need is a lower bound).
func (m hotMemory) tooSmall(free, block int64) error {
	allowance := func(f int64) int64 { return f - m.fixed - m.outBytes(f) }
	hi := m.fixed + m.outBase + outRows*m.outRow + block
	need := int64(sort.Search(int(hi)+1, func(f int) bool { return allowance(int64(f)) >= block }))
	return &hotMemoryError{Need: need, Free: free, Readers: m.readers, Bitmap: m.bitmap, Output: m.outBase + m.outRow,
		Block: block}
}

// hotMemoryError says that a pair's hot-key path cannot run in the memory left, and the least it needs: Need
// bytes free, of which the read buffers, the probe bitmap, an output batch of one row and a block of one
// build row are the parts (the output batch takes more when there is more).
type hotMemoryError struct {
	Need, Free                     int64
	Readers, Bitmap, Output, Block int64
}

func (e *hotMemoryError) Error() string {
	return fmt.Sprintf("hot-key path needs at least %s of free memory (read buffers %s, probe bitmap %s, "+
		"output from %s, a block of one build row %s) but %s is free", memory.Bytes(e.Need), memory.Bytes(e.Readers),
		memory.Bytes(e.Bitmap), memory.Bytes(e.Output), memory.Bytes(e.Block), memory.Bytes(e.Free))
}

// rowsBytes is what the first n rows of b, from side s, hold once copied into a block: their bytes and those
// of their keys converted to the compared type, when a key column needs converting.
func (g *Grace) rowsBytes(b *column.Batch, s, n int) int64 {
	rows := b
	if n < b.N {
		rows = b.Slice(0, n)
	}
	total := rows.Bytes()
	keys := make([]*column.Vector, 0, len(g.spec.KeyTypes))
	for i, k := range g.sideKeys(s) {
		v := rows.Cols[k]
		if v.Type != g.spec.KeyTypes[i] {
			v = castKey(v, g.spec.KeyTypes[i], n)
			total += v.Bytes()
		}
		keys = append(keys, v)
	}
	if !intKeyed(g.spec.KeyTypes) { // the block's keymap.Strs copies its long keys
		total += longKeyBytes(keys, n)
	}
	return total
}

// traceHotKey reports the most frequent key of a hot pair's first block: the longest chain, walked from each
// chain's head (the row lookup finds for its own key), so every row is visited once and nothing is allocated.
func (g *Grace) traceHotKey(p *gracePair, tab *column.Table, keys []*column.Vector, next []int32,
	lookup func([]*column.Vector, int) int32, shrink float64) {
	best, bestRow := 0, -1
	for i := range next {
		if lookup(keys, i) != int32(i) {
			continue
		}
		n := 0
		for r := int32(i); r >= 0; r = next[r] {
			n++
		}
		if n > best {
			best, bestRow = n, i
		}
	}
	var key []string
	if bestRow >= 0 {
		for _, v := range keys {
			key = append(key, expr.ToString(v.Value(bestRow)))
		}
	}
	g.emit(joinevent.HotKey{Partition: p.id, Level: p.level, Key: strings.Join(key, ","),
		Rows: int32(best), BlockRows: tab.N, LeftRows: p.runs[0].Rows, RightRows: p.runs[1].Rows,
		Shrink: shrink})
}
