package join

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// GroupAgg is one aggregate of a GroupAggregate: Func is count, sum, min or max; Col, for all but count, is the
// join output column it reads, whose values are stored as int64 (long, timespan; datetime for min and max).
type GroupAgg struct {
	Func string
	Col  int
}

// GroupAggregate is a hash join whose output only feeds `summarize count(), sum(x), min(x), max(x) by keys`
// where every group key is a column of one side, the group side; the other side is the fold side. It never
// forms an output pair: it emits one share row per group-side row that yields output — the row's group keys
// and, per aggregate, that row's share of it — and the plan's Summarize above combines the shares per group
// (a sum of counts and sums, a min of mins, a max of maxes, a distinct count of values) with its typed group
// table, inside the budget and spilling past it. When every aggregate is count or a sum, min or max kept in
// int64 words, it folds the shares into their groups itself instead (group_fold.go): each group-side row's
// share goes straight into its group's states, and it emits one share row per group, which is the result
// (GroupCombine); the share rows per row are then only the way back when the budget refuses a group.
//
// The algebra: the output rows of a group-side row g are g paired with each fold-side row of its key (or,
// null-extended, g alone). So per key of the build table the fold side is summarised once — its row count m
// and, per aggregate over a fold-side column, the count, sum, least or greatest of its non-null values — and
// g's share is m for count(), m·x for a sum of its own column x (m copies of x, wrapping as m additions would),
// x for its min or max, and the key's summary for an aggregate over the fold side (null when that has no
// values, which the summarize skips as it skips a null). Min and max do not depend on order or multiplicity,
// and integer addition wraps the same in any order; real sums (and avg, a real sum) are not taken here: in
// another order a real sum can differ in its last bits.
//
//	build    read the build side and index it (the hash join's table, hash.go); each build row's chain head
//	         is its key's number (roots)
//	probe    group keys on the probe side: the build side summarised per key first; per probe batch, the heads
//	         (partitioned lookups for a large table, hash_radix.go), and a share row per probe row that yields
//	         output. Group keys on the build side: per probe batch, the heads, and each matched probe row added
//	         to its key's summary; a key found for the first time is listed (firsts)
//	end      group keys on the probe side: the build rows no probe row found (outer kinds), each alone, as
//	         share rows of the null group. On the build side: a share row per build row of each listed key,
//	         key after key, then (outer kinds) one per build row no probe row found
//	folded   (groups folded in place) the build rows folded into their groups, found once after the build,
//	         or the probe rows folded batch by batch; then a share row per group, in the groups' order
//
// A preserved fold-side row with no match is an output row alone, its group keys null. innerunique keeps its
// first rows as the hash join does: a unique build keeps a key's first build row in its table, and probing
// with the left side a probe row whose key an earlier probe row had is dropped (lookupBatch).
//
// Order: the share rows come in the order of the hash join's output rows they stand for, so the summarize's
// groups come out in the order they would over the join. With the group keys on the probe side that is probe
// order. On the build side, the join's output lists a key's build rows (in build order) at the first probe row
// that finds the key: so the keys are walked in the order of their first probe rows (firsts), each key's chain
// in build order; the preserved probe rows with no match, all of the null group, are summarised together and
// their one share row goes in where the first of them was met (nullAt); the preserved build rows no probe row
// found come last, in build order, as the join emits them.
//
// Memory: the hash join's build side and table; per build row its root (4 bytes), a key summary of stride
// words (8 bytes each) and, for build-side groups, a listed key (4 bytes), grown on the budget, which fails
// the join past it as the hash join fails; one batch of share rows at a time. Cost: one pass over each side,
// one lookup per probe row, one summary update per matched fold-side row, one share row per group-side row
// that yields output — against one output row per pair, each gathered, for the join and summarize.
type GroupAggregate struct {
	h       *Hash
	schema  column.Schema
	onBuild bool  // the group keys are build-side columns; else probe-side
	gkeys   []int // the group keys' columns on the group side
	types   []column.Type
	aggs    []groupTarget
	fold    []int // the aggregates over fold-side columns, in the order of their words in a key summary
	stride  int   // words per key summary
	ordWord int   // build-side groups folded in place: the summary's word for its key's place in firsts
	held    int64
	state   groupState

	roots []int32 // per build row, its chain head; -1 for a row no probe row can find
	// sums holds per chain head its key summary, stride words side by side so that a row's update costs one
	// cache miss: the fold side's rows, then two words per fold-side aggregate (non-null values, then their
	// sum or extreme). One more summary, past the build rows', is the null group's (see nullAt).
	sums    []int64
	nullKey int32  // the null group's summary: past the build rows' (or, keyed, past the keys')
	matched []bool // per chain head, found by a probe row (probe-side groups, build side preserved)
	end     int    // the next build row of the end phase's rows in build order

	// Build-side groups: firsts lists the keys' heads in the order of their first probe rows, next the first
	// not yet walked and row the next row of the chain of head being walked (-1: none). The summary past the
	// build rows' (index table.N) is the preserved probe rows' with no match, whose share row goes before
	// firsts[nullAt] (-1: no such row).
	firsts   []int32
	next     int
	head     int32 // the key being walked
	row      int32
	nullAt   int
	nullDone bool

	// The rows of the batch being turned into share rows: row, output rows, key's head (-1: alone).
	sel   []int32
	mult  []int64
	heads []int32

	// folding, when not nil, folds the group-side rows into their groups in place of share rows per row
	// (group_fold.go); gid is each build row's group (build-side groups). order lists the build-side groups'
	// ranks once they are folded (folded), emit is the next group (or rank) whose share row goes out.
	// shareRowsOnly is a test knob: never fold, always share rows per row. pending are batches of share rows
	// to return next (the groups folded and the rest of a probe batch, after a fold the budget stopped).
	folding       *groupFold
	gid           []int32
	order         []uint64
	porder        []int32 // probe-side groups on the keyed path, in the order they go out
	folded        bool
	emit          int
	shareRowsOnly bool
	foldedGroups  bool  // the groups were folded in place, from the start
	apart         bool  // a null share could not join the folded null group and goes out apart
	nullGroup     int32 // else the folded null group it joined (build-side groups)
	refused       bool  // the budget refused a folded group: share rows per row since
	foldCap       int   // test knob: past this many groups (0: no cap), the fold is refused as by the budget
	pending       []*column.Batch
	// keyed, when set, is the keyed path (group_keyed.go): roots and summaries are by key number, and the
	// probe side is summarised partition by partition.
	keyed     *keyedProbe
	usedKeyed bool // it took the keyed path, for explain and tests
	// keyedDirect records that the budget refused the keyed path's scattered rows (a test reads it).
	keyedDirect bool
}

type groupState int

const (
	groupBuild  groupState = iota // the build side has not been read
	groupProbe                    // streaming the probe side
	groupFolded                   // the folded groups' share rows (group_fold.go)
	groupEnd                      // the build side's share rows (build-side groups) or end rows (outer kinds)
	groupDone
)

// groupTarget is one aggregate: what it reads and, over the fold side, where its words are in a summary.
type groupTarget struct {
	fn     string
	typ    column.Type // its share's type
	onSide bool        // reads a column of the group side
	col    int         // the input column on its side
	word   int         // fold side: the first of its two words in a key summary
	kernel int         // what it folds a value into: foldSum, foldMin, foldMax or foldOther
}

// shareChunkRows is how many build rows the end phase turns into share rows at once: a batch's worth.
const shareChunkRows = 4096

// NewGroupAggregate makes the hash join of left and right under spec (building on the left when buildLeft)
// emitting the share rows of the grouped aggregates over its output: keys are the join output columns grouped
// by, all of one side. The share rows' schema is the keys', then one column per aggregate. It returns an error
// for a shape it cannot compute exactly: keys from both sides, a semi or anti kind, an aggregate
// GroupAggFolds refuses.
func NewGroupAggregate(spec *Spec, left, right exec.Operator, buildLeft bool, budget *memory.Budget, keys []int, aggs []GroupAgg) (*GroupAggregate, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("group aggregate: no group key")
	}
	h := NewHash(spec, left, right, buildLeft, budget)
	if h.ps.semi || h.ps.anti || h.bs.semi || h.bs.anti {
		return nil, fmt.Errorf("group aggregate: kind=%s emits no pairs", spec.Kind)
	}
	a := &GroupAggregate{h: h, stride: 1, row: -1, nullAt: -1}
	for i, o := range keys {
		onLeft, c := outputSource(spec, o)
		if c < 0 {
			return nil, fmt.Errorf("group aggregate: key column %d comes from neither side", o)
		}
		if i == 0 {
			a.onBuild = onLeft == buildLeft
		} else if a.onBuild != (onLeft == buildLeft) {
			return nil, fmt.Errorf("group aggregate: the group keys come from both sides")
		}
		a.gkeys, a.types = append(a.gkeys, c), append(a.types, spec.Schema[o].Type)
		a.schema = append(a.schema, spec.Schema[o])
	}
	for i, g := range aggs {
		t := groupTarget{fn: g.Func, typ: column.Long, kernel: kernelOf(g.Func)}
		switch g.Func {
		case "count":
		case "sum", "min", "max", "dcount":
			if g.Col < 0 || g.Col >= len(spec.Schema) {
				return nil, fmt.Errorf("group aggregate: %s of column %d, the join has %d", g.Func, g.Col, len(spec.Schema))
			}
			onLeft, c := outputSource(spec, g.Col)
			if c < 0 {
				return nil, fmt.Errorf("group aggregate: output column %d comes from neither side", g.Col)
			}
			t.col, t.onSide, t.typ = c, a.onBuild == (onLeft == buildLeft), spec.Schema[g.Col].Type
			if !GroupAggFolds(g.Func, t.typ, t.onSide) {
				side := "other"
				if t.onSide {
					side = "group keys'"
				}
				return nil, fmt.Errorf("group aggregate: %s over %s column %s of the %s side", g.Func, t.typ, spec.Schema[g.Col].Name, side)
			}
			if !t.onSide {
				t.word = a.stride
				a.stride += 2
				a.fold = append(a.fold, len(a.aggs))
			}
		default:
			return nil, fmt.Errorf("group aggregate: %s is not folded", g.Func)
		}
		a.aggs = append(a.aggs, t)
		a.schema = append(a.schema, column.Field{Name: fmt.Sprintf("share%d", i), Type: t.typ})
	}
	if a.onBuild && denseFolds(a.aggs) {
		a.ordWord = a.stride
		a.stride++
	}
	return a, nil
}

var _ exec.Operator = (*GroupAggregate)(nil)

// GroupAggFolds reports whether aggregate fn over a column of type typ can be folded, the column being on the
// group keys' side (onSide) or on the other. Over the other side a key's rows are summarised as int64 words,
// so only count, sum (long, timespan), min and max (long, datetime, timespan) fold. A group-side row's share
// is its own value, so min, max and dcount of a string also fold there: a min or max does not depend on
// multiplicity, nor a distinct count. Reals never fold: a real sum depends on its order, and a real min or
// max keeps the first of equal values (-0 and 0), which the order of the shares need not preserve.
func GroupAggFolds(fn string, typ column.Type, onSide bool) bool {
	ints := typ == column.Long || typ == column.Timespan || typ == column.DateTime
	switch fn {
	case "sum":
		return typ == column.Long || typ == column.Timespan
	case "min", "max":
		return ints || onSide && typ == column.String
	case "dcount":
		return onSide && (ints || typ == column.String)
	}
	return false
}

// Schema is the share rows': the group keys, then one share per aggregate.
func (a *GroupAggregate) Schema() column.Schema { return a.schema }

// Explain says which side the groups are on, for the plan's explain.
// Once it has run, it also says whether the groups were folded in place (group_fold.go) or the budget, or an
// aggregate that keeps share rows, made it send a share row per row.
func (a *GroupAggregate) Explain() string {
	side, rows := "build", "build"
	if !a.onBuild {
		side, rows = "probe", "probe"
	}
	s := fmt.Sprintf("group keys on the %s side: the other side summarised per key", side)
	switch {
	case a.foldedGroups && !a.refused && a.usedKeyed && a.onBuild:
		return s + ", each " + rows + " row folded into its group in place; keys numbered by partition, " +
			"the probe side summarised partition by partition"
	case a.foldedGroups && !a.refused && a.usedKeyed:
		return s + ", each " + rows + " row folded into its group in place; keys numbered by partition, " +
			"the probe rows folded partition by partition"
	case a.foldedGroups && !a.refused:
		return s + ", each " + rows + " row folded into its group in place"
	case a.refused:
		return s + ", groups folded in place until the budget refused one, then a share row per " + rows + " row"
	}
	return s + ", a share row per " + rows + " row"
}

// Next returns the next batch of share rows, or nil at the end.
func (a *GroupAggregate) Next(ctx context.Context) (*column.Batch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch a.state {
		case groupBuild:
			if err := a.build(ctx); err != nil {
				return nil, fmt.Errorf("group aggregate: %w", err)
			}
			a.state = groupProbe
		case groupProbe:
			if len(a.pending) > 0 {
				b := a.pending[0]
				a.pending = a.pending[1:]
				return b, nil
			}
			b, err := a.probe(ctx)
			if err != nil {
				return nil, fmt.Errorf("group aggregate: %w", err)
			}
			if b != nil {
				return b, nil
			}
		case groupFolded:
			if b := a.foldedRows(); b != nil {
				return b, nil
			}
			if a.onBuild {
				// Every build row that yields output was folded, the null share with them.
				a.release()
				a.state = groupDone
			} else {
				a.dropFold()
				a.state = groupEnd
			}
		case groupEnd:
			if b := a.endRows(); b != nil {
				return b, nil
			}
			if a.end >= a.h.table.N && (!a.onBuild || a.next >= len(a.firsts) && a.row < 0) {
				a.release()
				a.state = groupDone
			}
		case groupDone:
			return nil, nil
		default:
			return nil, fmt.Errorf("group aggregate: impossible state %d", a.state)
		}
	}
}

func (a *GroupAggregate) release() {
	a.dropFold()
	a.h.budget.Shrink(a.h.held + a.held)
	a.h.held, a.held = 0, 0
	a.sums, a.roots, a.matched, a.h.table, a.h.ints, a.keyed = nil, nil, nil, nil, nil, nil
}

// dropKeyed gives back what indexKeys took, for the general path to index the build side instead.
func (a *GroupAggregate) dropKeyed() {
	a.h.budget.Shrink(a.held)
	a.held = 0
	a.roots, a.sums, a.matched, a.h.ints, a.keyed = nil, nil, nil, nil, nil
	a.usedKeyed, a.refused = false, false // the general path decides again, with this memory given back
}

// dropFold gives the folded groups and the build rows' groups back to the budget; the rows still to come
// become share rows per row.
func (a *GroupAggregate) dropFold() {
	if a.folding == nil {
		return
	}
	a.folding.release()
	a.folding = nil
	if a.gid != nil {
		a.h.budget.Shrink(int64(len(a.gid)) * 4)
		a.held -= int64(len(a.gid)) * 4
		a.gid = nil
	}
}

// startFold makes the groups folded in place when every aggregate folds there (denseFolds); with build-side
// groups it finds every build row's group now. If the budget refuses them, the aggregate makes share rows
// per row instead.
func (a *GroupAggregate) startFold() {
	if a.shareRowsOnly || !denseFolds(a.aggs) {
		return
	}
	h := a.h
	// Build-side groups are ordered by rank; so are probe-side groups on the keyed path, whose rows are
	// folded out of probe order (group_keyed.go).
	a.folding = newGroupFold(a.types, a.aggs, a.onBuild || a.keyed != nil, a.foldCap, h.budget)
	if !a.onBuild {
		a.foldedGroups = true
		return
	}
	n := h.table.N
	if err := h.budget.Grow("the join aggregate's build row groups", int64(n)*4); err != nil {
		a.folding.release()
		a.folding = nil
		a.refused = true
		return
	}
	a.held += int64(n) * 4
	a.gid = make([]int32, n)
	bt := h.table.Batch()
	kv := make([]*column.Vector, len(a.gkeys))
	for lo := 0; lo < n; lo += shareChunkRows {
		hi := min(lo+shareChunkRows, n)
		for i, c := range a.gkeys {
			kv[i] = bt.Cols[c].Slice(lo, hi)
		}
		if _, err := a.folding.assign(kv, hi-lo, a.gid[lo:hi]); err != nil {
			a.dropFold()
			a.refused = true
			return
		}
	}
	a.foldedGroups = true
}

// build reads and indexes the build side and makes the key summaries (of the build side, for probe-side
// groups).
func (a *GroupAggregate) build(ctx context.Context) error {
	h := a.h
	if err := h.readBuildSide(ctx); err != nil {
		return err
	}
	if a.keyable() && a.indexKeys() {
		a.startFold()
		if a.folding != nil {
			return nil
		}
		a.dropKeyed() // the groups were refused: share rows per row need the chains
	}
	if err := h.indexBuild(); err != nil {
		return err
	}
	if h.unique && !h.buildLeft {
		h.seenInts, h.seenStrs = map[int64]struct{}{}, map[string]struct{}{}
	}
	n := h.table.N
	need := int64(n)*4 + int64(n+1)*int64(a.stride)*8
	if h.bs.unmatched && !a.onBuild {
		need += int64(n) // matched
	}
	if a.onBuild {
		need += int64(n+1) * 4 // firsts
	}
	if err := h.budget.Grow("the join aggregate's key summaries", need); err != nil {
		return err
	}
	a.held += need
	a.roots = h.roots()
	a.sums, a.nullKey = make([]int64, (n+1)*a.stride), int32(n)
	a.startFold()
	if a.onBuild {
		a.firsts = make([]int32, 0, n+1) // room for the probe loop's one write past the keys listed
		return nil
	}
	if h.bs.unmatched {
		a.matched = make([]bool, n)
	}
	bt := h.table.Batch()
	for lo := 0; lo < n; lo += shareChunkRows {
		a.sel, a.heads = a.sel[:0], a.heads[:0]
		for r := lo; r < min(lo+shareChunkRows, n); r++ {
			if head := a.roots[r]; head >= 0 {
				a.sel, a.heads = append(a.sel, int32(r)), append(a.heads, head)
			}
		}
		a.summarise(bt, a.sel, a.heads, true)
	}
	return nil
}

// roots returns each build row's chain head, the row a probe of its key finds: -1 for a null key or a row a
// unique build left out. Chains link rows forwards (next[r] > r), so one pass in build order carries each head
// down its chain.
func (h *Hash) roots() []int32 {
	n := h.table.N
	roots := make([]int32, n)
	for i := range roots {
		roots[i] = -1
	}
	bk, _ := h.buildKeys()
	keys := keyColumns(h.table.Batch(), bk, h.spec.KeyTypes)
	for r := 0; r < n; r++ {
		if roots[r] < 0 {
			if h.next[r] == notIndexed || hasNullKey(keys, r) {
				continue
			}
			roots[r] = int32(r)
		}
		if nx := h.next[r]; nx >= 0 {
			roots[nx] = roots[r]
		}
	}
	return roots
}

// summarise adds rows[j] of fold-side batch b to the summary of key heads[j], for every j: first each row's
// count when count is set (the caller may have counted them), in one loop whose cache misses on the summaries
// overlap, then each aggregate's words, which the first loop brought into the cache.
func (a *GroupAggregate) summarise(b *column.Batch, rows, heads []int32, count bool) {
	stride, sums := a.stride, a.sums
	if count {
		for _, head := range heads {
			sums[int(head)*stride]++
		}
	}
	for _, k := range a.fold {
		t := &a.aggs[k]
		v := b.Cols[t.col]
		// The loop reads locals only, and branches on the aggregate by a number, not by its name per row.
		vals, nulls, word, fn := v.Ints, v.HasNulls(), t.word, t.kernel
		for j, head := range heads {
			r := int(rows[j])
			if nulls && v.IsNull(r) {
				continue
			}
			w := sums[int(head)*stride+word:][:2]
			foldInto(&w[1], &w[0], vals[r], 1, fn)
		}
	}
}

// foldInto folds x into a running value and its count of values: a sum takes x mult times (wrapping as that
// many additions would), a min or max takes it once, and the first value is taken whatever the kernel. It is
// small enough to be inlined into the typed loops that call it per row.
func foldInto(value, count *int64, x, mult int64, kernel int) {
	switch {
	case kernel == foldSum:
		*value += x * mult
	case *count == 0, kernel == foldMin && x < *value, kernel == foldMax && x > *value:
		*value = x
	}
	*count++
}

// What summarise folds a value into: its sum, its least, its greatest, or (foldOther) the first value seen.
const (
	foldOther = iota
	foldSum
	foldMin
	foldMax
)

// kernelOf is the fold of aggregate fn.
func kernelOf(fn string) int {
	switch fn {
	case "sum":
		return foldSum
	case "min":
		return foldMin
	case "max":
		return foldMax
	}
	return foldOther
}

// probe reads the next probe batch and returns its share rows: with probe-side groups, one per probe row that
// yields output; with build-side groups, the matched rows go into their keys' summaries and the share rows
// are those of the preserved probe rows with no match, alone. It returns nil, with the state moved on, at the
// end of the probe side, and nil for a batch with no share rows.
func (a *GroupAggregate) probe(ctx context.Context) (*column.Batch, error) {
	h := a.h
	if a.keyed != nil {
		b, sel, err := h.readProbe(ctx)
		switch {
		case err != nil:
			return nil, err
		case b != nil && a.keyed.shares:
			return a.keyedShares(b, sel), nil
		case b != nil:
			return nil, a.probeKeyed(b, sel)
		}
		a.summariseParts()
		a.endProbe()
		return nil, nil
	}
	ok, err := h.nextProbe(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		a.endProbe()
		return nil, nil
	}
	a.clear()
	if a.onBuild {
		// The loop keeps what it reads and grows in locals (see Hash.joinRows). Whether a row's key is found
		// for the first time is known only once its summary's cache line arrives, usually a miss: the loop
		// does not branch on it, so that a mispredicted guess does not throw away the loads of the rows after
		// it. Every matched row writes its head at firsts[nf], and nf moves past it only on a first find.
		nullSum := a.nullKey
		sums, stride, sel, heads, unmatched := a.sums, a.stride, a.sel, a.heads, h.ps.unmatched
		ordWord, nf, firsts := a.ordWord, len(a.firsts), a.firsts[:cap(a.firsts)]
		for i, hd := range h.heads {
			switch {
			case hd >= 0:
				head := hd &^ chainMore
				s := sums[int(head)*stride:]
				first := int((uint64(s[0]) - 1) >> 63) // 1 when the key has no row yet, else 0
				if ordWord > 0 {
					s[ordWord] |= int64(nf) & -int64(first) // its place, written once: the word is 0 before
				}
				firsts[nf] = head
				nf += first
				s[0]++
				sel, heads = append(sel, int32(i)), append(heads, head)
			case hd == noMatch && unmatched:
				if a.nullAt < 0 {
					a.nullAt = nf
				}
				sums[int(nullSum)*stride]++
				sel, heads = append(sel, int32(i)), append(heads, nullSum)
			}
		}
		a.firsts, a.sel, a.heads = firsts[:nf], sel, heads
		a.summarise(h.pb, a.sel, a.heads, false)
		return nil, nil
	}
	if a.takeProbeRows(h.heads) == 0 {
		return nil, nil
	}
	if a.folding != nil {
		return a.foldProbe(h.pb), nil
	}
	return a.shareRows(h.pb), nil
}

// takeProbeRows takes the rows of a probe batch that yield output (probe-side groups), given each row's head
// (see lookupBatch's marks): a matched row with its key's rows on the build side, a preserved row with no
// match alone. It returns how many it took.
func (a *GroupAggregate) takeProbeRows(rowHeads []int32) int {
	// The rows that yield output, written by index through locals: no append's length and capacity per row.
	n := len(rowHeads)
	sel, mult, heads := growTo(a.sel, n), growTo(a.mult, n), growTo(a.heads, n)
	sums, stride, matched, unmatched := a.sums, a.stride, a.matched, a.h.ps.unmatched
	k := 0
	for i, hd := range rowHeads {
		switch {
		case hd >= 0:
			head := hd &^ chainMore
			if matched != nil {
				matched[head] = true
			}
			sel[k], mult[k], heads[k] = int32(i), sums[int(head)*stride], head
			k++
		case hd == noMatch && unmatched:
			sel[k], mult[k], heads[k] = int32(i), 1, -1
			k++
		}
	}
	a.sel, a.mult, a.heads = sel[:k], mult[:k], heads[:k]
	return k
}

// endProbe moves on at the end of the probe side: to the folded groups, with probe-side groups after the
// build rows no probe row found (outer kinds), or to the end phase's share rows when nothing was folded.
func (a *GroupAggregate) endProbe() {
	a.state = groupEnd
	if a.folding != nil {
		a.state = groupFolded
		if !a.onBuild && a.matched != nil {
			a.foldAlone()
		}
	}
}

// refuseFold is the way back when the budget refuses a probe-side group: the groups so far go out first, as
// share rows, and the aggregate sends a share row per row from then on.
func (a *GroupAggregate) refuseFold() {
	for {
		p := a.foldedRows()
		if p == nil {
			break
		}
		a.pending = append(a.pending, p)
	}
	a.dropFold()
	a.refused = true
}

// foldProbe folds the taken rows of probe batch b into their groups (probe-side groups) and returns nil. If the
// budget refuses a group, the groups so far go out as share rows, this batch's rows as share rows per row
// after them, and so do the rest of the probe side's.
func (a *GroupAggregate) foldProbe(b *column.Batch) *column.Batch {
	f := a.folding
	kv := make([]*column.Vector, len(a.gkeys))
	for i, c := range a.gkeys {
		kv[i] = b.Cols[c].Gather(a.sel)
	}
	gs, err := f.assign(kv, len(a.sel), f.gids)
	f.gids = gs
	if err == nil {
		f.fold(a, b, a.sel, a.mult, a.heads, gs)
		return nil
	}
	a.refuseFold()
	a.pending = append(a.pending, a.shareRows(b))
	return nil
}

// endRows returns the next chunk of the end phase's share rows, nil for a chunk with none: with probe-side
// groups the unmatched build rows' alone (outer kinds); with build-side groups the listed keys' build rows,
// the null group's share where it goes, then the unmatched build rows.
func (a *GroupAggregate) endRows() *column.Batch {
	h := a.h
	if a.onBuild && (a.next < len(a.firsts) || a.row >= 0 || a.nullAt >= 0 && !a.nullDone) {
		return a.keyRows()
	}
	if !a.onBuild && a.matched == nil || a.onBuild && !h.bs.unmatched {
		a.end = h.table.N
		return nil
	}
	lo := a.end
	hi := min(lo+shareChunkRows, h.table.N)
	a.end = hi
	a.clear()
	bt := h.table.Batch().Slice(lo, hi)
	for r := lo; r < hi; r++ {
		head := a.roots[r]
		switch {
		case !a.onBuild:
			if head < 0 || !a.matched[head] {
				a.take(int32(r-lo), 1, -1)
			}
		case head < 0 || a.sums[int(head)*a.stride] == 0:
			a.take(int32(r-lo), 1, -1)
		}
	}
	if len(a.sel) == 0 {
		return nil
	}
	if a.onBuild {
		return a.shareRows(bt)
	}
	return a.aloneRows(bt)
}

// keyRows returns the share rows of the next listed keys' build rows (build-side groups), up to a chunk, or
// the null group's one share row when its place comes.
func (a *GroupAggregate) keyRows() *column.Batch {
	h := a.h
	a.clear()
	// The walk keeps its cursor and lists in locals (see Hash.joinRows).
	row, head, key, chain := a.row, a.head, a.next, h.next
	sel, mult, heads, firsts, sums, stride := a.sel, a.mult, a.heads, a.firsts, a.sums, a.stride
	stop := len(firsts)
	if a.nullAt >= 0 && !a.nullDone {
		stop = min(stop, a.nullAt) // the null group's share comes in its place among the keys
	}
	for len(sel) < shareChunkRows {
		if row < 0 {
			if key >= stop {
				break
			}
			head = firsts[key]
			row = head
			key++
		}
		sel, mult, heads = append(sel, row), append(mult, sums[int(head)*stride]), append(heads, head)
		if nx := chain[row]; nx >= 0 {
			row = nx
		} else {
			row = -1
		}
	}
	a.row, a.head, a.next = row, head, key
	a.sel, a.mult, a.heads = sel, mult, heads
	if len(a.sel) > 0 {
		return a.shareRows(h.table.Batch())
	}
	if a.next == a.nullAt && !a.nullDone {
		a.nullDone = true
		return a.nullShare()
	}
	return nil
}

// nullShare is the one share row of the preserved probe rows with no match (build-side groups): null group
// keys, their count, their summary for the aggregates over the probe side, nothing for the others.
func (a *GroupAggregate) nullShare() *column.Batch {
	s := a.nullSummary()
	cols := make([]*column.Vector, 0, len(a.schema))
	for _, t := range a.types {
		cols = append(cols, column.NullVector(t, 1))
	}
	for _, t := range a.aggs {
		out := column.NewVector(t.typ, 1)
		switch {
		case t.fn == "count":
			out.AppendInt(s[0])
		case t.onSide || s[t.word] == 0:
			out.AppendNull()
		default:
			out.AppendInt(s[t.word+1])
		}
		cols = append(cols, out)
	}
	return column.NewBatch(cols, 1)
}

func (a *GroupAggregate) clear() {
	a.sel, a.mult, a.heads = a.sel[:0], a.mult[:0], a.heads[:0]
}

// take notes row i of the batch being turned into share rows: m output rows, its key's head (-1: alone).
func (a *GroupAggregate) take(i int32, m int64, head int32) {
	a.sel = append(a.sel, i)
	a.mult = append(a.mult, m)
	a.heads = append(a.heads, head)
}

// shareRows makes the share rows of the taken rows of group-side batch b: each row's keys, its output rows
// for count(), its own values times its output rows or as an extreme, and its key's summary of the fold side.
func (a *GroupAggregate) shareRows(b *column.Batch) *column.Batch {
	n := len(a.sel)
	cols := make([]*column.Vector, 0, len(a.schema))
	for _, c := range a.gkeys {
		cols = append(cols, b.Cols[c].Gather(a.sel))
	}
	for _, t := range a.aggs {
		out := column.NewVector(t.typ, n)
		switch {
		case t.fn == "count":
			out.Ints = append(out.Ints, a.mult...)
			out.SetLen(n)
		case t.onSide && t.fn != "sum":
			out = b.Cols[t.col].Gather(a.sel) // a min, max or distinct count takes the value once
		case t.onSide: // a sum of the group side's own column: its value times its output rows
			v := b.Cols[t.col]
			vals, mult, nulls := v.Ints, a.mult, v.HasNulls()
			for j, r := range a.sel {
				if nulls && v.IsNull(int(r)) {
					out.AppendNull()
					continue
				}
				out.AppendInt(vals[r] * mult[j])
			}
		default:
			sums, stride, word := a.sums, a.stride, t.word
			for _, head := range a.heads {
				if head < 0 {
					out.AppendNull()
					continue
				}
				if w := sums[int(head)*stride+word:][:2]; w[0] == 0 {
					out.AppendNull()
				} else {
					out.AppendInt(w[1])
				}
			}
		}
		cols = append(cols, out)
	}
	return column.NewBatch(cols, n)
}

// aloneRows makes the share rows of the taken rows of fold-side batch b, each an output row alone: null
// group keys, one output row, its own values for the fold-side aggregates and nothing for the others.
func (a *GroupAggregate) aloneRows(b *column.Batch) *column.Batch {
	n := len(a.sel)
	cols := make([]*column.Vector, 0, len(a.schema))
	for _, t := range a.types {
		cols = append(cols, column.NullVector(t, n))
	}
	for _, t := range a.aggs {
		out := column.NewVector(t.typ, n)
		switch {
		case t.fn == "count":
			for range n {
				out.AppendInt(1)
			}
		case t.onSide:
			out = column.NullVector(t.typ, n)
		default:
			v := b.Cols[t.col]
			for _, r := range a.sel {
				if v.IsNull(int(r)) {
					out.AppendNull()
				} else {
					out.AppendInt(v.Ints[r])
				}
			}
		}
		cols = append(cols, out)
	}
	return column.NewBatch(cols, n)
}

// grouped reports whether every share row a emits is its group's only one, in the order of the groups' first
// output rows: its groups were folded in place throughout, the null share and the rows alone with them.
func (a *GroupAggregate) grouped() bool {
	return a.foldedGroups && !a.refused && !a.apart
}

// Combine returns the operator computing the grouped aggregates from a's share rows, with result schema
// schema (the keys, then one column per aggregate): a Summarize by the keys taking the sum of the counts, the
// sum of the sums, the min of the mins, the max of the maxes and the distinct count of the values; or, when
// a's groups were folded in place, the share rows themselves, which are the result (GroupCombine).
func (a *GroupAggregate) Combine(schema column.Schema, budget *memory.Budget) *GroupCombine {
	return &GroupCombine{a: a, schema: schema, budget: budget, through: a.passes(schema)}
}

// passes reports whether a's share rows have schema's types, so that folded groups' can be the result.
func (a *GroupAggregate) passes(schema column.Schema) bool {
	if len(schema) != len(a.schema) {
		return false
	}
	for i, f := range schema {
		if f.Type != a.schema[i].Type {
			return false
		}
	}
	return true
}

// summarize is the Summarize combining share rows read from in, rows of a's schema, into result schema.
func (a *GroupAggregate) summarize(in exec.Operator, schema column.Schema, budget *memory.Budget) *exec.Summarize {
	k := len(a.types)
	keys := make([]expr.Expr, k)
	for i, t := range a.types {
		keys[i] = &expr.ColumnRef{Index: i, T: t}
	}
	aggs := make([]exec.Agg, 0, len(a.aggs)+1)
	for i, t := range a.aggs {
		fn := t.fn
		if fn == "count" {
			fn = "sum"
		}
		aggs = append(aggs, exec.Agg{Func: fn, Arg: &expr.ColumnRef{Index: k + i, T: t.typ}, Type: schema[k+i].Type})
	}
	return exec.NewSummarize(in, schema, keys, aggs, budget)
}

// GroupCombine is the result of a GroupAggregate: the grouped aggregates over the join's output. When the
// aggregate folded its groups in place (group_fold.go), its share rows are already one per group, in the
// order of first output rows, with each aggregate's value, so they pass through as the result; otherwise a
// Summarize combines them (the sum of the counts and sums, the min of mins…), with its own budget and spill.
// Which it is, the aggregate knows once it returns its first batch, which comes after its whole input.
type GroupCombine struct {
	a         *GroupAggregate
	schema    column.Schema
	budget    *memory.Budget
	details   *trace.Details
	through   bool // the share rows can be the result, if the groups were folded
	started   bool
	first     *column.Batch // the aggregate's first batch, which the summarize reads first
	summarize *exec.Summarize
}

var _ exec.Operator = (*GroupCombine)(nil)

// ReportTo makes the combining summarize, if it runs, add its spill figures to d.
func (c *GroupCombine) ReportTo(d *trace.Details) { c.details = d }

func (c *GroupCombine) Schema() column.Schema { return c.schema }

func (c *GroupCombine) Next(ctx context.Context) (*column.Batch, error) {
	if !c.started {
		c.started = true
		b, err := c.a.Next(ctx)
		if err != nil {
			return nil, err
		}
		c.through = c.through && c.a.grouped()
		if c.through {
			return b, nil
		}
		c.first = b
		c.summarize = c.a.summarize(firstThen{c}, c.schema, c.budget)
		c.summarize.ReportTo(c.details)
	}
	if c.through {
		return c.a.Next(ctx)
	}
	return c.summarize.Next(ctx)
}

// firstThen is the combining summarize's input: the aggregate's first batch, then the rest of them.
type firstThen struct{ c *GroupCombine }

func (f firstThen) Schema() column.Schema { return f.c.a.Schema() }

func (f firstThen) Next(ctx context.Context) (*column.Batch, error) {
	if b := f.c.first; b != nil {
		f.c.first = nil
		return b, nil
	}
	return f.c.a.Next(ctx)
}
