package join

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// Sweep is the interval join: rows with equal keys whose intervals overlap. A left row [ls, le] and a right
// row [rs, re] overlap when
//
//	ls < re  and  rs < le        (exclusive bounds: intervals that only touch do not overlap)
//	ls <= re and  rs <= le       (inclusive bounds: touching intervals overlap, at one instant)
//
// each of the two comparisons strict or not on its own (Overlap says which). The predicate is applied as
// written, so an interval whose end comes before its start is compared like any other, and a row with a null
// key, start or end overlaps nothing.
//
// It holds both inputs. The phases, in order:
//
//	load ──► order ──► sweep ──► unmatched ──► done
//
//	load       read both inputs whole, accounting them (and 40 bytes a row of working arrays) to the budget;
//	           batches that are consecutive views of one array (an in-memory table's scan) are not copied
//	order      give every key a dense number, counting-sort each side's rows by key, then order each key's
//	           rows by start: by insertion for the few dozen rows most keys hold, by pdqsort for larger keys
//	           (after a check: rows that arrive in time order, as time series do, are not sorted)
//	sweep      for each key, merge the two sides by start. Each side keeps an active set: a min-heap of its
//	           rows ordered by end. When a row is reached at position p = its start, the other side's rows that
//	           end too early to overlap anything at or after p are popped from the top of that side's heap
//	           (expired), every row left in it overlaps the new row's start, and is emitted with it once the
//	           remaining comparison holds; then the new row joins its own side's heap — unless it already ends
//	           too early for the other side's next row, and so expires on arrival (most rows, when intervals
//	           are short against the gaps between them)
//	unmatched  emit the rows the kind asks for at the end: never matched (outer, anti) or matched (semi)
//
// Each pair is met exactly once: by whichever of its two rows the sweep reaches second, while the first is
// still active (it can only have expired if its end makes it miss every later row). A pair's output row is
// the left row's columns, the right row's, then overlap_start = max(ls, rs) and overlap_end = min(le, re).
// A pair records both rows' bounds and the key (one int column), so those output columns are built from the
// pairs; only other columns are gathered from the inputs by row number.
//
// Output order: by key number, then by the sweep; the end phase's rows in input order, left before right.
// Memory: both inputs, the working arrays, and the heaps (at most the rows of one key). Cost: O(n log n) to
// order rows that are not yet in time order (O(n) when they are), then O(n log a + output) for the sweep,
// where a is the active-set size: no held row is visited unless it is emitted or expired. When the inputs do
// not fit the budget the join fails with *memory.ExceededError.
//
// Every kind is served but innerunique, whose "first left row per key" would silently drop intervals.
// Trace: a SweepAdvanced event every traceStride rows swept and for every output batch. Details:
// active_set_max (the largest combined size of both active sets), expired, overlaps.
type Sweep struct {
	spec   *SweepSpec
	left   exec.Operator
	right  exec.Operator
	budget *memory.Budget
	sink   trace.Sink
	det    *trace.Details
	ls, rs side

	state      sweepState
	lt, rt     *column.Table
	lv, rv     []interval // each side's rows with non-null key, start and end, by key then start
	lgrp, rgrp []int32    // key k's rows are lv[lgrp[k]:lgrp[k+1]] (and rv likewise)
	keyText    func(k int) string
	// When the key is one int column (intKeys), key number k's value is keyVals[k], or keyLo+k when the keys
	// are numbered by offset (keyVals nil): pairs carry it, so the key columns of the output are not gathered.
	intKeys bool
	keyLo   int64
	keyVals []int64
	lmatch  []bool // by input row; nil when the kind needs no end phase for that side
	rmatch  []bool
	held    int64
	key     int   // the key being swept
	inKey   bool  // the sweep of s.key has begun (its heaps are live)
	i, j    int   // the next left and right rows of that key
	pos     int64 // the sweep line: the start of the row reached last
	lheap   endHeap
	rheap   endHeap
	out     pending
	endSide int // unmatched phase: 0 left, 1 right
	endRow  int

	stats sweepStats
	// maxOut bounds the rows of one output batch (it may exceed it by one active set); tests shrink it.
	maxOut int
	// traceStride is how many swept rows pass between SweepAdvanced events; tests set it to 1.
	traceStride int
	sinceTrace  int
}

type sweepState int

const (
	sweepLoad      sweepState = iota // nothing read yet
	sweepJoin                        // sweeping key s.key
	sweepUnmatched                   // emitting end-phase rows
	sweepDone
)

// traceStride is how many rows the sweep passes between trace events: often enough to animate a sweep line
// over a scenario's few thousand rows (no event is built when nobody listens).
const traceStride = 64

// workBytesPerRow is what the sweep holds per input row beyond the row itself: the interval (24 bytes), its
// key number (4), its place in the key order (4), a matched flag and heap room (8).
const workBytesPerRow = 40

// The sweep's trace event is joinevent.SweepAdvanced.

// Overlap is an interval join's overlap condition, as column indexes into each side's schema.
type Overlap struct {
	LeftStart, LeftEnd, RightStart, RightEnd int
	// InclusiveLeftStart makes the first comparison left.start <= right.end instead of <.
	InclusiveLeftStart bool
	// InclusiveRightStart makes the second comparison right.start <= left.end instead of <.
	InclusiveRightStart bool
}

// SweepSpec is a validated interval join: an equality join Spec plus the overlap condition. Its Schema is the
// Spec's followed, for the kinds that output pairs, by overlap_start and overlap_end.
type SweepSpec struct {
	*Spec
	Overlap Overlap
	// IntervalType is the type of all four interval columns: long, datetime or timespan.
	IntervalType column.Type
	Schema       column.Schema
	// StartOut and EndOut are the output positions of overlap_start and overlap_end, -1 when not output.
	StartOut, EndOut int
}

// NewSweepSpec checks that the overlap condition's columns are of one integer-stored type and that the kind
// is one the sweep serves.
func NewSweepSpec(spec *Spec, o Overlap) (*SweepSpec, error) {
	if spec.Kind == InnerUnique {
		return nil, fmt.Errorf("interval join: kind=innerunique (KQL's default) keeps one left row per key, " +
			"which would drop intervals; write kind=inner")
	}
	cols := []struct {
		f     column.Field
		where string
	}{{spec.Left[o.LeftStart], "$left"}, {spec.Left[o.LeftEnd], "$left"}, {spec.Right[o.RightStart], "$right"},
		{spec.Right[o.RightEnd], "$right"}}
	t := cols[0].f.Type
	for _, c := range cols {
		switch c.f.Type {
		case column.Long, column.DateTime, column.Timespan:
		default:
			return nil, fmt.Errorf("interval join: %s.%s is %s; interval bounds must be datetime, timespan or long",
				c.where, c.f.Name, c.f.Type)
		}
		if c.f.Type != t {
			return nil, fmt.Errorf("interval join: interval bounds must share one type: %s.%s is %s, %s.%s is %s",
				cols[0].where, cols[0].f.Name, t, c.where, c.f.Name, c.f.Type)
		}
	}
	s := &SweepSpec{Spec: spec, Overlap: o, IntervalType: t, Schema: spec.Schema, StartOut: -1, EndOut: -1}
	if l, _ := spec.Kind.sides(); l.pairs {
		s.Schema = append(column.Schema(nil), spec.Schema...)
		taken := map[string]bool{}
		for _, f := range s.Schema {
			taken[f.Name] = true
		}
		add := func(base string) int {
			name := base
			for n := 1; taken[name]; n++ {
				name = base + strconv.Itoa(n)
			}
			taken[name] = true
			s.Schema = append(s.Schema, column.Field{Name: name, Type: t})
			return len(s.Schema) - 1
		}
		s.StartOut, s.EndOut = add("overlap_start"), add("overlap_end")
	}
	return s, nil
}

// interval is one row as the sweep sees it: its bounds and its row number in its side's input.
type interval struct {
	start, end int64
	row        int32
}

type sweepStats struct {
	activeMax, expired, overlaps int64
}

// NewSweep makes an interval join of left and right under spec, reporting to sink and details (either may be
// nil).
func NewSweep(spec *SweepSpec, left, right exec.Operator, budget *memory.Budget, sink trace.Sink, details *trace.Details) *Sweep {
	if sink == nil {
		sink = trace.Discard
	}
	if details == nil {
		details = &trace.Details{}
	}
	s := &Sweep{spec: spec, left: left, right: right, budget: budget, sink: sink, det: details,
		maxOut: outRows, traceStride: traceStride}
	s.ls, s.rs = spec.Kind.sides()
	return s
}

func (s *Sweep) Schema() column.Schema { return s.spec.Schema }

func (s *Sweep) Next(ctx context.Context) (*column.Batch, error) {
	for {
		switch s.state {
		case sweepLoad:
			if err := s.load(ctx); err != nil {
				return nil, err
			}
			s.state = sweepJoin
		case sweepJoin:
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if s.sweep() {
				return s.assemble(), nil
			}
			if len(s.out.lrow) > 0 {
				return s.assemble(), nil
			}
			s.finish()
			s.state = sweepUnmatched
		case sweepUnmatched:
			if b := s.endRows(); b != nil {
				return b, nil
			}
			s.budget.Shrink(s.held)
			s.held = 0
			s.state = sweepDone
		case sweepDone:
			return nil, nil
		default:
			return nil, fmt.Errorf("sweep join: impossible state %d", s.state)
		}
	}
}

// load reads both inputs and orders their rows by key, then start.
func (s *Sweep) load(ctx context.Context) error {
	// Batches are kept as they come and joined once per column (see joinColumn).
	read := func(op exec.Operator, what string) (*column.Table, error) {
		var batches []*column.Batch
		rows := 0
		err := exec.Drain(ctx, op, func(b *column.Batch) error {
			n := b.Bytes() + int64(b.N)*workBytesPerRow
			if err := s.budget.Grow(what, n); err != nil {
				return fmt.Errorf("sweep join: %w", err)
			}
			s.held += n
			batches = append(batches, b)
			rows += b.N
			return nil
		})
		t := column.NewTable(op.Schema())
		for c, f := range op.Schema() {
			t.Cols[c] = joinColumn(batches, c, f.Type, rows)
		}
		t.N = rows
		return t, err
	}
	var err error
	if s.lt, err = read(s.left, "the left side"); err != nil {
		return err
	}
	if s.rt, err = read(s.right, "the right side"); err != nil {
		return err
	}
	if s.ls.unmatched || s.ls.semi || s.ls.anti {
		s.lmatch = make([]bool, s.lt.N)
	}
	if s.rs.unmatched || s.rs.semi || s.rs.anti {
		s.rmatch = make([]bool, s.rt.N)
	}
	lk := keyColumns(s.lt.Batch(), s.spec.LeftKeys, s.spec.KeyTypes)
	rk := keyColumns(s.rt.Batch(), s.spec.RightKeys, s.spec.KeyTypes)
	lids, rids, nkeys := s.numberKeys(lk, rk)
	o := s.spec.Overlap
	s.lv, s.lgrp = orderByKey(lids, nkeys, s.lt.Cols[o.LeftStart], s.lt.Cols[o.LeftEnd])
	s.rv, s.rgrp = orderByKey(rids, nkeys, s.rt.Cols[o.RightStart], s.rt.Cols[o.RightEnd])
	return nil
}

// joinColumn makes column c of the batches one vector of rows rows (nil if the column is dead). Batches that
// are consecutive views of one int64 array without nulls, as a scan of an in-memory table returns, are joined
// as that array, without copying a row (the batches belong to the sweep, which only reads them); otherwise
// the rows are copied once into a vector of the exact size, as appending to a growing vector would copy every
// row about twice more.
func joinColumn(batches []*column.Batch, c int, t column.Type, rows int) *column.Vector {
	for _, b := range batches {
		if b.Cols[c] == nil {
			return nil
		}
	}
	if v := adjacentInts(batches, c, t, rows); v != nil {
		return v
	}
	v := column.NewVector(t, rows)
	for _, b := range batches {
		v.AppendVector(b.Cols[c])
	}
	return v
}

// adjacentInts returns column c of the batches as one vector over their shared array, or nil unless each
// batch's values start where the previous batch's end in memory and none holds a null.
func adjacentInts(batches []*column.Batch, c int, t column.Type, rows int) *column.Vector {
	if len(batches) == 0 {
		return nil
	}
	whole := batches[0].Cols[c].Ints
	if len(whole) == 0 || cap(whole) < rows {
		return nil
	}
	whole = whole[:rows]
	at := 0
	for _, b := range batches {
		v := b.Cols[c]
		if v.HasNulls() || len(v.Ints) < b.N || (b.N > 0 && &v.Ints[0] != &whole[at]) {
			return nil
		}
		at += b.N
	}
	out := column.NewVector(t, 0)
	out.Ints = whole
	out.SetLen(rows)
	return out
}

// denseSlack bounds how sparse int keys may be for their values, less the smallest, to serve directly as key
// numbers: up to twice the rows plus a little (dictionary codes, small ids) costs no more than a hash map.
const denseSlack = 4096

// numberKeys gives each distinct non-null key a number in [0, n), shared by both sides; a row whose key has a
// null gets -1. One int key spanning a small range (dictionary-encoded ids) is numbered by its offset from the
// smallest; other keys through a map.
func (s *Sweep) numberKeys(lk, rk []*column.Vector) (lids, rids []int32, n int) {
	ln, rn := s.lt.N, s.rt.N
	lids, rids = make([]int32, ln), make([]int32, rn)
	if s.intKeys = intKeyed(s.spec.KeyTypes); s.intKeys {
		lo, hi, seen := int64(math.MaxInt64), int64(math.MinInt64), false
		for _, side := range []struct {
			k *column.Vector
			n int
		}{{lk[0], ln}, {rk[0], rn}} {
			if side.k.HasNulls() {
				for i, x := range side.k.Ints[:side.n] {
					if !side.k.Nulls.Get(i) {
						lo, hi, seen = min(lo, x), max(hi, x), true
					}
				}
				continue
			}
			for _, x := range side.k.Ints[:side.n] {
				lo, hi = min(lo, x), max(hi, x)
			}
			seen = seen || side.n > 0
		}
		if span := uint64(hi - lo); seen && span < uint64(2*(ln+rn)+denseSlack) {
			fill := func(k *column.Vector, ids []int32) {
				for i, x := range k.Ints[:len(ids)] {
					ids[i] = int32(x - lo)
				}
				if k.HasNulls() {
					for i := range ids {
						if k.IsNull(i) {
							ids[i] = -1
						}
					}
				}
			}
			fill(lk[0], lids)
			fill(rk[0], rids)
			s.keyLo = lo
			s.keyText = func(k int) string { return strconv.FormatInt(lo+int64(k), 10) }
			return lids, rids, int(span) + 1
		}
		m := map[int64]int32{}
		var texts []int64
		fill := func(k *column.Vector, ids []int32) {
			for i, x := range k.Ints[:len(ids)] {
				if k.HasNulls() && k.IsNull(i) {
					ids[i] = -1
					continue
				}
				id, ok := m[x]
				if !ok {
					id = int32(len(m))
					m[x] = id
					texts = append(texts, x)
				}
				ids[i] = id
			}
		}
		fill(lk[0], lids)
		fill(rk[0], rids)
		s.keyVals = texts
		s.keyText = func(k int) string { return strconv.FormatInt(texts[k], 10) }
		return lids, rids, len(m)
	}
	m := map[string]int32{}
	var texts []string
	var buf []byte
	fill := func(keys []*column.Vector, ids []int32) {
		for i := range ids {
			if hasNullKey(keys, i) {
				ids[i] = -1
				continue
			}
			var k string
			k, buf = stringKey(keys, i, buf)
			id, ok := m[k]
			if !ok {
				id = int32(len(m))
				m[k] = id
				texts = append(texts, k)
			}
			ids[i] = id
		}
	}
	fill(lk, lids)
	fill(rk, rids)
	s.keyText = func(k int) string { return strconv.Quote(texts[k]) }
	return lids, rids, len(m)
}

// orderByKey counting-sorts one side's rows by key number (rows with a null key, start or end are left out:
// they overlap nothing), then orders each key's rows by start: by insertion for a key of at most insertionMax
// rows, else by sortLarge.
func orderByKey(ids []int32, nkeys int, start, end *column.Vector) ([]interval, []int32) {
	grp := make([]int32, nkeys+1)
	nulls := start.HasNulls() || end.HasNulls()
	for i, id := range ids {
		if nulls && (start.IsNull(i) || end.IsNull(i)) {
			ids[i] = -1
			continue
		}
		if id >= 0 {
			grp[id+1]++
		}
	}
	for k := 1; k <= nkeys; k++ {
		grp[k] += grp[k-1]
	}
	v := make([]interval, grp[nkeys])
	at := append([]int32(nil), grp[:nkeys]...)
	for i, id := range ids {
		if id < 0 {
			continue
		}
		v[at[id]] = interval{start: start.Ints[i], end: end.Ints[i], row: int32(i)}
		at[id]++
	}
	for k := 0; k < nkeys; k++ {
		g := v[grp[k]:grp[k+1]]
		if len(g) > insertionMax {
			sortLarge(g)
			continue
		}
		// Insertion, inline: most keys hold a few dozen rows, and a call per key would cost as much.
		for i := 1; i < len(g); i++ {
			x := g[i]
			j := i
			for ; j > 0 && g[j-1].start > x.start; j-- {
				g[j] = g[j-1]
			}
			g[j] = x
		}
	}
	return v, grp
}

// insertionMax is the largest key whose rows are ordered by insertion: a few dozen rows sit in L1, and
// insertion does fewer steps than a general sort's setup; past it the quadratic worst case would show.
// Insertion moves a row only past rows that start later, so ties keep row order.
const insertionMax = 32

// sortLarge orders a large key's rows by start, ties in row order (the order the counting sort left them in,
// so the result is the stable sort's), after a check that skips rows already in order, as time series are.
func sortLarge(g []interval) {
	if slices.IsSortedFunc(g, byStart) {
		return
	}
	slices.SortFunc(g, func(a, b interval) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.row, b.row)
	})
}

func byStart(a, b interval) int { return cmp.Compare(a.start, b.start) }

// sweep advances the sweep until an output batch is full (true) or every key is done (false). It works on
// local copies of its place (key, rows, heaps, figures), stored back (park) whenever it stops or reports a
// trace event: they stay in registers instead of being reloaded through s after every call, and the heaps
// change without a write barrier.
func (s *Sweep) sweep() bool {
	o := s.spec.Overlap
	inclL, inclR := o.InclusiveLeftStart, o.InclusiveRightStart
	lv, rv, lgrp, rgrp := s.lv, s.rv, s.lgrp, s.rgrp
	k, i, j, pos := s.key, s.i, s.j, s.pos
	lh, rh := s.lheap, s.rheap
	st := s.stats
	tracing, full := s.sink != trace.Discard, false
	for nkeys := len(lgrp) - 1; k < nkeys; k++ {
		lb, rb := int(lgrp[k+1]), int(rgrp[k+1])
		if !s.inKey {
			la, ra := int(lgrp[k]), int(rgrp[k])
			if la == lb || ra == rb {
				continue // nothing to pair; the end phase emits these rows if the kind wants them
			}
			i, j, lh, rh, s.inKey = la, ra, lh[:0], rh[:0], true
		}
		var key int64
		if s.intKeys {
			key = s.keyInt(k)
		}
		for i < lb || j < rb {
			if j >= rb || (i < lb && lv[i].start <= rv[j].start) {
				if j >= rb && len(rh) == 0 {
					i = lb // no right row can overlap the remaining left rows
					break
				}
				x := lv[i]
				i++
				pos = x.start
				// A right row misses x, and every later left row, once its end is before x.start (x.start <= end
				// stays possible only while end >= x.start, or end > x.start for the strict comparison).
				for len(rh) > 0 && ended(rh[0].end, x.start, inclL) {
					rh = rh.drop()
					st.expired++
				}
				for _, r := range rh {
					if y := rv[r.pos]; before(y.start, x.end, inclR) {
						st.overlaps++
						s.pair(x, y, key)
						full = len(s.out.lrow) >= s.maxOut
					}
				}
				if j < rb { // only a right row still to come can meet x in the left heap
					// Every right row to come starts at or after x.start: left rows ending too early for that
					// leave now, so the active set holds only rows that may still pair.
					for len(lh) > 0 && ended(lh[0].end, x.start, inclR) {
						lh = lh.drop()
						st.expired++
					}
					if ended(x.end, rv[j].start, inclR) {
						st.expired++ // x ends before the next right row starts: it expires on arrival
					} else {
						lh = lh.push(x.end, int32(i-1))
						st.activeMax = max(st.activeMax, int64(len(lh)+len(rh)))
					}
				}
			} else {
				if i >= lb && len(lh) == 0 {
					j = rb
					break
				}
				y := rv[j]
				j++
				pos = y.start
				for len(lh) > 0 && ended(lh[0].end, y.start, inclR) {
					lh = lh.drop()
					st.expired++
				}
				for _, l := range lh {
					if x := lv[l.pos]; before(x.start, y.end, inclL) {
						st.overlaps++
						s.pair(x, y, key)
						full = len(s.out.lrow) >= s.maxOut
					}
				}
				if i < lb {
					for len(rh) > 0 && ended(rh[0].end, y.start, inclL) {
						rh = rh.drop()
						st.expired++
					}
					if ended(y.end, lv[i].start, inclL) {
						st.expired++
					} else {
						rh = rh.push(y.end, int32(j-1))
						st.activeMax = max(st.activeMax, int64(len(lh)+len(rh))) // sets only grow here
					}
				}
			}
			if tracing {
				if s.sinceTrace++; s.sinceTrace >= s.traceStride {
					s.park(k, i, j, pos, lh, rh, st)
					s.traceEvent()
				}
			}
			if full {
				s.park(k, i, j, pos, lh, rh, st)
				s.traceEvent()
				return true
			}
		}
		s.inKey = false
	}
	s.park(k, i, j, pos, lh, rh, st)
	return false
}

// keyInt is the value of key number k when the key is one int column.
func (s *Sweep) keyInt(k int) int64 {
	if s.keyVals != nil {
		return s.keyVals[k]
	}
	return s.keyLo + int64(k)
}

// park stores the local state of sweep back into s.
func (s *Sweep) park(k, i, j int, pos int64, lh, rh endHeap, st sweepStats) {
	s.key, s.i, s.j, s.pos, s.lheap, s.rheap, s.stats = k, i, j, pos, lh, rh, st
}

// before is the comparison a < b, or a <= b when inclusive.
func before(a, b int64, inclusive bool) bool {
	if inclusive {
		return a <= b
	}
	return a < b
}

// ended reports whether a row ending at end misses every row that starts at or after at: end < at, or
// end <= at when the comparison is strict.
func ended(end, at int64, inclusive bool) bool {
	return end < at || (!inclusive && end == at)
}

// pending is the output batch being filled. A pair records both row numbers, both intervals' bounds and
// the key's value (when it is one int column): the bound and key columns of the output are then made from
// these as they are, and only the other columns are gathered from the inputs by row number — reads in no
// order, a cache miss apiece on large inputs. bounded is false in the end phase, whose rows come from one
// side only and whose overlap columns are null.
type pending struct {
	lrow, rrow     []int32 // -1 null-extends a side
	ls, le, rs, re []int64
	key            []int64
	bounded        bool
}

// pair records an overlapping pair, as the kind asks; the caller counts it.
func (s *Sweep) pair(l, r interval, key int64) {
	if s.lmatch != nil {
		s.lmatch[l.row] = true
	}
	if s.rmatch != nil {
		s.rmatch[r.row] = true
	}
	if !s.ls.pairs {
		return
	}
	p := &s.out
	if p.lrow == nil { // a fresh output batch: room for it, so the appends below never copy
		c := s.maxOut
		p.lrow, p.rrow = make([]int32, 0, c), make([]int32, 0, c)
		p.ls, p.le, p.rs, p.re = make([]int64, 0, c), make([]int64, 0, c), make([]int64, 0, c), make([]int64, 0, c)
		if s.intKeys {
			p.key = make([]int64, 0, c)
		}
		p.bounded = true
	}
	p.lrow, p.rrow = append(p.lrow, l.row), append(p.rrow, r.row)
	p.ls, p.le = append(p.ls, l.start), append(p.le, l.end)
	p.rs, p.re = append(p.rs, r.start), append(p.re, r.end)
	if p.key != nil {
		p.key = append(p.key, key)
	}
}

func (s *Sweep) traceEvent() {
	s.sinceTrace = 0
	if s.sink == trace.Discard {
		return
	}
	key := ""
	if s.key < len(s.lgrp)-1 {
		key = s.keyText(s.key)
	}
	s.sink.Emit(trace.Event{Op: "sweep join", Payload: joinevent.SweepAdvanced{
		Key: key, Position: s.pos, ActiveLeft: len(s.lheap), ActiveRight: len(s.rheap),
		ActiveMax: s.stats.activeMax, Expired: s.stats.expired, Overlaps: s.stats.overlaps,
	}})
}

// finish reports the run's figures once the sweep is over.
func (s *Sweep) finish() {
	s.traceEvent()
	s.det.Add("expired", s.stats.expired)
	s.det.Add("overlaps", s.stats.overlaps)
	// One query may run several sweeps: report the largest active set of any.
	if old, ok := s.det.Map()["active_set_max"].(int64); !ok || s.stats.activeMax > old {
		s.det.Set("active_set_max", s.stats.activeMax)
	}
}

// endRows returns the next batch of rows the kind emits after the sweep, or nil.
func (s *Sweep) endRows() *column.Batch {
	for ; s.endSide < 2; s.endSide, s.endRow = s.endSide+1, 0 {
		match, sd := s.lmatch, s.ls
		if s.endSide == 1 {
			match, sd = s.rmatch, s.rs
		}
		if match == nil {
			continue
		}
		want := !(sd.unmatched || sd.anti) // semi wants the matched rows
		var idx []int32
		for ; s.endRow < len(match) && len(idx) < s.maxOut; s.endRow++ {
			if match[s.endRow] == want {
				idx = append(idx, int32(s.endRow))
			}
		}
		if len(idx) == 0 {
			continue
		}
		none := make([]int32, len(idx))
		for i := range none {
			none[i] = -1
		}
		if s.endSide == 0 {
			s.out = pending{lrow: idx, rrow: none}
		} else {
			s.out = pending{lrow: none, rrow: idx}
		}
		return s.assemble()
	}
	return nil
}

// assemble builds an output batch from the pending rows and resets them. A pair's bound and int key columns
// come from what the pair recorded, the other columns are gathered by row number; with nothing bounded
// pending (the end phase) every column is gathered and the overlap columns are null.
func (s *Sweep) assemble() *column.Batch {
	p := s.out
	s.out = pending{}
	n := len(p.lrow)
	cols := make([]*column.Vector, len(s.spec.Schema))
	ints := func(t column.Type, v []int64) *column.Vector {
		x := column.NewVector(t, 0)
		x.Ints = v
		x.SetLen(n)
		return x
	}
	keyTaken := false
	place := func(out []int, t *column.Table, idx []int32, start, end, key int, starts, ends []int64) {
		for c, o := range out {
			if o < 0 || t.Cols[c] == nil {
				continue
			}
			typ := t.Cols[c].Type
			switch {
			case !p.bounded:
				cols[o] = t.Cols[c].Gather(idx)
			case c == start:
				cols[o] = ints(typ, starts)
			case c == end:
				cols[o] = ints(typ, ends)
			case c == key && p.key != nil:
				v := p.key
				if keyTaken { // both sides output the key: the second gets its own copy
					v = slices.Clone(v)
				}
				keyTaken = true
				cols[o] = ints(typ, v)
			default:
				cols[o] = t.Cols[c].Gather(idx)
			}
		}
	}
	o := s.spec.Overlap
	place(s.spec.LeftOut, s.lt, p.lrow, o.LeftStart, o.LeftEnd, s.spec.LeftKeys[0], p.ls, p.le)
	place(s.spec.RightOut, s.rt, p.rrow, o.RightStart, o.RightEnd, s.spec.RightKeys[0], p.rs, p.re)
	if s.spec.StartOut >= 0 {
		t := s.spec.IntervalType
		if !p.bounded {
			cols[s.spec.StartOut], cols[s.spec.EndOut] = column.NullVector(t, n), column.NullVector(t, n)
		} else {
			st, en := make([]int64, n), make([]int64, n)
			for i := range st {
				st[i], en[i] = max(p.ls[i], p.rs[i]), min(p.le[i], p.re[i])
			}
			cols[s.spec.StartOut], cols[s.spec.EndOut] = ints(t, st), ints(t, en)
		}
	}
	return column.NewBatch(cols, n)
}

// endHeap is an active set: a binary min-heap of rows keyed by their interval's end, so the rows that end
// first — the next to expire — are at the top, and expiring k of a rows costs O(k log a). Its operations
// return the updated slice, so the sweep keeps its heaps in local variables.
type endHeap []heapItem

type heapItem struct {
	end int64
	pos int32 // the row's place in its side's interval slice
}

func (h endHeap) push(end int64, pos int32) endHeap {
	h = append(h, heapItem{end, pos})
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].end <= h[i].end {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	return h
}

// drop removes the top row: the sweep calls it inline while the top has ended (see ended), so expiring k rows
// costs O(k log a). A set of one, the common case of short intervals, empties without a call.
func (h endHeap) drop() endHeap {
	if len(h) == 1 {
		return h[:0]
	}
	return h.pop()
}

func (h endHeap) pop() endHeap {
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(h) {
			return h
		}
		c := l
		if r := l + 1; r < len(h) && h[r].end < h[l].end {
			c = r
		}
		if h[i].end <= h[c].end {
			return h
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
