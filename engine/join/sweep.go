package join

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
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
//	load       read both inputs whole, accounting them (and 40 bytes a row of working arrays) to the budget
//	order      give every key a dense number, counting-sort each side's rows by key, then order each key's
//	           rows by start (a check first: rows that arrive in time order, as time series do, are not sorted)
//	sweep      for each key, merge the two sides by start. Each side keeps an active set: a min-heap of its
//	           rows ordered by end. When a row is reached at position p = its start, the other side's rows that
//	           end too early to overlap anything at or after p are popped from the top of that side's heap
//	           (expired), every row left in it overlaps the new row's start, and is emitted with it once the
//	           remaining comparison holds; then the new row joins its own side's heap
//	unmatched  emit the rows the kind asks for at the end: never matched (outer, anti) or matched (semi)
//
// Each pair is met exactly once: by whichever of its two rows the sweep reaches second, while the first is
// still active (it can only have expired if its end makes it miss every later row). A pair's output row is
// the left row's columns, the right row's, then overlap_start = max(ls, rs) and overlap_end = min(le, re).
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

	state       sweepState
	lt, rt      *column.Table
	lv, rv      []interval // each side's rows with non-null key, start and end, by key then start
	lgrp, rgrp  []int32    // key k's rows are lv[lgrp[k]:lgrp[k+1]] (and rv likewise)
	keyText     func(k int) string
	lmatch      []bool // by input row; nil when the kind needs no end phase for that side
	rmatch      []bool
	held        int64
	key         int   // the key being swept
	inKey       bool  // the sweep of s.key has begun (its heaps are live)
	i, j        int   // the next left and right rows of that key
	pos         int64 // the sweep line: the start of the row reached last
	lheap       endHeap
	rheap       endHeap
	lidx, ridx  []int32
	ostart, oen []int64
	endSide     int // unmatched phase: 0 left, 1 right
	endRow      int

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

// SweepAdvanced is the sweep's trace event. Attrs: key (the key's text), position (the start the sweep line has
// reached), active_left and active_right (the active-set sizes), expired and overlaps (totals so far).
const SweepAdvanced trace.Kind = "sweep_advanced"

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
	activeMax, expired, overlaps, swept int64
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
			if len(s.lidx) > 0 {
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
	// Batches are kept as they come and copied once into vectors of the exact size: appending to growing
	// vectors would copy every row about twice more.
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
		for i, f := range op.Schema() {
			t.Cols[i] = column.NewVector(f.Type, rows)
		}
		for _, b := range batches {
			t.Append(b)
		}
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

// denseSlack bounds how sparse int keys may be for their values, less the smallest, to serve directly as key
// numbers: up to twice the rows plus a little (dictionary codes, small ids) costs no more than a hash map.
const denseSlack = 4096

// numberKeys gives each distinct non-null key a number in [0, n), shared by both sides; a row whose key has a
// null gets -1. One int key spanning a small range (dictionary-encoded ids) is numbered by its offset from the
// smallest; other keys through a map.
func (s *Sweep) numberKeys(lk, rk []*column.Vector) (lids, rids []int32, n int) {
	ln, rn := s.lt.N, s.rt.N
	lids, rids = make([]int32, ln), make([]int32, rn)
	if intKeyed(s.spec.KeyTypes) {
		lo, hi, seen := int64(0), int64(0), false
		for _, side := range []struct {
			k *column.Vector
			n int
		}{{lk[0], ln}, {rk[0], rn}} {
			for i, x := range side.k.Ints[:side.n] {
				if side.k.HasNulls() && side.k.IsNull(i) {
					continue
				}
				if !seen || x < lo {
					lo = x
				}
				if !seen || x > hi {
					hi = x
				}
				seen = true
			}
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
// they overlap nothing), then orders each key's rows by start, sorting only a key whose rows are out of order.
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
		if !slices.IsSortedFunc(g, byStart) {
			slices.SortStableFunc(g, byStart)
		}
	}
	return v, grp
}

func byStart(a, b interval) int { return cmp.Compare(a.start, b.start) }

// sweep advances the sweep until an output batch is full (true) or every key is done (false).
func (s *Sweep) sweep() bool {
	o := s.spec.Overlap
	nkeys := len(s.lgrp) - 1
	for ; s.key < nkeys; s.key++ {
		la, lb := int(s.lgrp[s.key]), int(s.lgrp[s.key+1])
		ra, rb := int(s.rgrp[s.key]), int(s.rgrp[s.key+1])
		if la == lb || ra == rb {
			continue // nothing to pair; the end phase emits these rows if the kind wants them
		}
		if !s.inKey {
			s.i, s.j, s.inKey = la, ra, true
			s.lheap.reset()
			s.rheap.reset()
		}
		for s.i < lb || s.j < rb {
			leftNext := s.j >= rb || (s.i < lb && s.lv[s.i].start <= s.rv[s.j].start)
			if leftNext {
				if s.j >= rb && s.rheap.len() == 0 {
					s.i = lb // no right row can overlap the remaining left rows
					break
				}
				x := s.lv[s.i]
				s.i++
				s.pos = x.start
				// A right row misses x, and every later left row, once its end is before x.start (x.start <= end
				// stays possible only while end >= x.start, or end > x.start for the strict comparison).
				s.stats.expired += s.rheap.expire(x.start, o.InclusiveLeftStart)
				for _, r := range s.rheap.items {
					rv := s.rv[r.pos]
					if before(rv.start, x.end, o.InclusiveRightStart) {
						s.pair(x, rv)
					}
				}
				if s.j < rb { // only a right row still to come can meet x in the left heap
					// Every right row to come starts at or after x.start: left rows ending too early for that
					// leave now, so the active set holds only rows that may still pair.
					s.stats.expired += s.lheap.expire(x.start, o.InclusiveRightStart)
					s.lheap.push(x.end, int32(s.i-1))
				}
			} else {
				if s.i >= lb && s.lheap.len() == 0 {
					s.j = rb
					break
				}
				y := s.rv[s.j]
				s.j++
				s.pos = y.start
				s.stats.expired += s.lheap.expire(y.start, o.InclusiveRightStart)
				for _, l := range s.lheap.items {
					lv := s.lv[l.pos]
					if before(lv.start, y.end, o.InclusiveLeftStart) {
						s.pair(lv, y)
					}
				}
				if s.i < lb {
					s.stats.expired += s.rheap.expire(y.start, o.InclusiveLeftStart)
					s.rheap.push(y.end, int32(s.j-1))
				}
			}
			if a := int64(s.lheap.len() + s.rheap.len()); a > s.stats.activeMax {
				s.stats.activeMax = a
			}
			s.stats.swept++
			if s.sinceTrace++; s.sinceTrace >= s.traceStride {
				s.traceEvent()
			}
			if len(s.lidx) >= s.maxOut {
				s.traceEvent()
				return true
			}
		}
		s.inKey = false
	}
	return false
}

// before is the comparison a < b, or a <= b when inclusive.
func before(a, b int64, inclusive bool) bool {
	if inclusive {
		return a <= b
	}
	return a < b
}

// pair records an overlapping pair, as the kind asks.
func (s *Sweep) pair(l, r interval) {
	s.stats.overlaps++
	if s.lmatch != nil {
		s.lmatch[l.row] = true
	}
	if s.rmatch != nil {
		s.rmatch[r.row] = true
	}
	if s.ls.pairs {
		if s.lidx == nil { // a fresh output batch: room for it, so the appends below never copy
			s.lidx, s.ridx = make([]int32, 0, s.maxOut), make([]int32, 0, s.maxOut)
			s.ostart, s.oen = make([]int64, 0, s.maxOut), make([]int64, 0, s.maxOut)
		}
		s.lidx, s.ridx = append(s.lidx, l.row), append(s.ridx, r.row)
		s.ostart, s.oen = append(s.ostart, max(l.start, r.start)), append(s.oen, min(l.end, r.end))
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
	s.sink.Emit(trace.Event{Kind: SweepAdvanced, Op: "sweep join", Attrs: map[string]any{
		"key": key, "position": s.pos, "active_left": s.lheap.len(), "active_right": s.rheap.len(),
		"expired": s.stats.expired, "overlaps": s.stats.overlaps,
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
			s.lidx, s.ridx = idx, none
		} else {
			s.lidx, s.ridx = none, idx
		}
		s.ostart, s.oen = nil, nil
		return s.assemble()
	}
	return nil
}

// assemble builds an output batch from the pending pairs (lidx, ridx; -1 null-extends a side) and resets them.
// With no overlap bounds pending (the end phase) the overlap columns are null.
func (s *Sweep) assemble() *column.Batch {
	n := len(s.lidx)
	cols := make([]*column.Vector, len(s.spec.Schema))
	place := func(out []int, t *column.Table, idx []int32) {
		for c, o := range out {
			if o >= 0 && t.Cols[c] != nil {
				cols[o] = t.Cols[c].Gather(idx)
			}
		}
	}
	place(s.spec.LeftOut, s.lt, s.lidx)
	place(s.spec.RightOut, s.rt, s.ridx)
	if s.spec.StartOut >= 0 {
		t := s.spec.IntervalType
		if s.ostart == nil {
			cols[s.spec.StartOut], cols[s.spec.EndOut] = column.NullVector(t, n), column.NullVector(t, n)
		} else {
			st, en := column.NewVector(t, 0), column.NewVector(t, 0)
			st.Ints, en.Ints = s.ostart, s.oen
			st.SetLen(n)
			en.SetLen(n)
			cols[s.spec.StartOut], cols[s.spec.EndOut] = st, en
		}
	}
	s.lidx, s.ridx, s.ostart, s.oen = nil, nil, nil, nil
	return column.NewBatch(cols, n)
}

// endHeap is an active set: a binary min-heap of rows keyed by their interval's end, so the rows that end
// first — the next to expire — are at the top, and expiring k of a rows costs O(k log a).
type endHeap struct{ items []heapItem }

type heapItem struct {
	end int64
	pos int32 // the row's place in its side's interval slice
}

func (h *endHeap) len() int { return len(h.items) }
func (h *endHeap) reset()   { h.items = h.items[:0] }

func (h *endHeap) push(end int64, pos int32) {
	h.items = append(h.items, heapItem{end, pos})
	it := h.items
	for i := len(it) - 1; i > 0; {
		p := (i - 1) / 2
		if it[p].end <= it[i].end {
			break
		}
		it[p], it[i] = it[i], it[p]
		i = p
	}
}

// expire pops every row that ends before at (at or before it when not inclusive: the later row's start must
// stay below the end, strictly unless inclusive) and returns how many.
func (h *endHeap) expire(at int64, inclusive bool) int64 {
	var n int64
	for len(h.items) > 0 {
		top := h.items[0].end
		if top > at || (inclusive && top == at) {
			return n
		}
		h.pop()
		n++
	}
	return n
}

func (h *endHeap) pop() {
	it := h.items
	last := len(it) - 1
	it[0] = it[last]
	it = it[:last]
	h.items = it
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(it) {
			return
		}
		c := l
		if r := l + 1; r < len(it) && it[r].end < it[l].end {
			c = r
		}
		if it[i].end <= it[c].end {
			return
		}
		it[i], it[c] = it[c], it[i]
		i = c
	}
}
