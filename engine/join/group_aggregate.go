package join

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/memory"
)

// GroupAgg is one aggregate of a GroupAggregate: Func is count, sum, min or max; Col, for all but count, is the
// join output column it reads, whose values are stored as int64 (long, timespan; datetime for min and max).
type GroupAgg struct {
	Func string
	Col  int
}

// GroupAggregate is a hash join whose output only feeds `summarize count(), sum(x), min(x), max(x) by keys`
// where every group key is a column of one side, the group side; the other side is the fold side. It computes
// exactly what exec.Summarize computes over the join's output — the same groups in the same order (first
// appearance in the join's output), nulls skipped, a null group for null keys, integer sums wrapping — without
// forming a single output pair.
//
// The algebra: the output rows of one group-side row g are g paired with each fold-side row of its key (or,
// null-extended, alone). So per key of the build table the fold side is summarised once — its row count m and,
// per aggregate over a fold-side column, the count, sum, least or greatest of its non-null values — and g adds
// m to its group's count, m·x to a sum of its own column x (m copies of x, wrapping as m additions would), x to
// a min or max when m > 0, and the key's summary to a fold-side aggregate. Min and max do not depend on order
// or multiplicity, and integer addition wraps the same in any order, which is why real sums (and avg, a real
// sum) are not taken here: in another order a real sum can differ in its last bits.
//
//	build    read the build side and index it (the hash join's table, hash.go); each build row's chain head is
//	         its key's number (roots)
//	fold     group keys on the probe side: summarise the build rows per key, then per probe batch find the
//	         heads (partitioned lookups for a large table, hash_radix.go) and fold each probe row that yields
//	         output into its group
//	         group keys on the build side: per probe batch find the heads and summarise the probe rows per
//	         key, noting the first probe row of each; then fold each build row into its group
//	end      the outer kinds' null-extended rows: a preserved fold-side row with no match is a row of the null
//	         group (its group keys are null); a preserved group-side row with no match counts once, alone
//	order    number the groups by the position of their first output row in the hash join's output (probe
//	         order, a probe row's matches in build order, then the build side's end rows) and emit them so
//
// innerunique keeps its first rows as the hash join does: a unique build keeps a key's first build row in its
// table, and probing with the left side a probe row whose key an earlier probe row had is dropped.
//
// Memory: the hash join's build side and table; per build row its root (4 bytes) and a summary of 8 bytes per
// word (1, and the first probe row when grouping on the build side, + 2 per fold-side aggregate); the groups'
// keys and states (exec.Groups), 16 bytes an aggregate. All of it is grown on the budget; past it the operator
// fails with the budget's error, as the hash join does. Cost: one pass over each side, one lookup per probe
// row (no pair is formed or gathered), a random summary access per matched row, one group lookup per output-
// producing group-side row.
type GroupAggregate struct {
	h       *Hash
	schema  column.Schema
	onBuild bool  // the group keys are build-side columns; else probe-side
	gkeys   []int // the group keys' columns on the group side
	types   []column.Type
	aggs    []groupTarget
	fold    []int // the aggregates over fold-side columns, in the order of their words in a key summary
	stride  int   // words per key summary
	held    int64
	done    bool

	roots []int32 // per build row, its chain head; -1 for a row no probe row can find
	// sums holds per chain head its key summary, stride words side by side so that a row's update costs one
	// cache miss: the fold side's rows, then (grouping on the build side) the first probe row that found the
	// key, then two words per fold-side aggregate.
	sums   []int64
	groups *exec.Groups
	pos    []int64 // per group, the position of its first output row (see outputPos)
	// nullGroup is the group of null keys once an end row made it, else -1.
	nullGroup int32
	gids      []int32
	sel       []int32 // the rows of a batch that yield output
	mult      []int64 // per such row, its output rows
	heads     []int32 // per such row, its key's head, or -1 (null-extended)
	places    []int64 // per such row, the position of its first output row
}

// groupTarget is one aggregate and its state per group: n counts the values taken (rows for count), v holds
// the sum or the extreme.
type groupTarget struct {
	fn     string
	onSide bool // reads a column of the group side
	col    int  // the input column on its side
	word   int  // fold side: the first of its two words in a key summary (non-null count, then value)
	n, v   []int64
}

// NewGroupAggregate makes the hash join of left and right under spec (building on the left when buildLeft) and
// the grouped aggregates over its output: keys are the join output columns grouped by, all of one side;
// schema is the result's (the keys' columns, then one per aggregate). It returns an error for a shape it cannot
// compute exactly: keys from both sides, a semi or anti kind, an aggregate other than count, sum, min or max
// of an int64-stored column.
func NewGroupAggregate(spec *Spec, left, right exec.Operator, buildLeft bool, budget *memory.Budget, keys []int, aggs []GroupAgg, schema column.Schema) (*GroupAggregate, error) {
	if len(keys) == 0 || len(schema) != len(keys)+len(aggs) {
		return nil, fmt.Errorf("group aggregate: %d keys and %d aggregates for %d result columns", len(keys), len(aggs), len(schema))
	}
	h := NewHash(spec, left, right, buildLeft, budget)
	if h.ps.semi || h.ps.anti || h.bs.semi || h.bs.anti {
		return nil, fmt.Errorf("group aggregate: kind=%s emits no pairs", spec.Kind)
	}
	a := &GroupAggregate{h: h, schema: schema, stride: 1, nullGroup: -1}
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
	}
	if a.onBuild {
		a.stride = 2
	}
	for _, g := range aggs {
		t := groupTarget{fn: g.Func}
		switch g.Func {
		case "count":
			a.aggs = append(a.aggs, t)
			continue
		case "sum", "min", "max":
		default:
			return nil, fmt.Errorf("group aggregate: %s is not folded", g.Func)
		}
		if g.Col < 0 || g.Col >= len(spec.Schema) {
			return nil, fmt.Errorf("group aggregate: %s of column %d, the join has %d", g.Func, g.Col, len(spec.Schema))
		}
		switch typ := spec.Schema[g.Col].Type; {
		case typ == column.Long || typ == column.Timespan:
		case typ == column.DateTime && g.Func != "sum":
		default:
			return nil, fmt.Errorf("group aggregate: %s over %s column %s", g.Func, typ, spec.Schema[g.Col].Name)
		}
		onLeft, c := outputSource(spec, g.Col)
		if c < 0 {
			return nil, fmt.Errorf("group aggregate: output column %d comes from neither side", g.Col)
		}
		t.col, t.onSide = c, a.onBuild == (onLeft == buildLeft)
		if !t.onSide {
			t.word = a.stride
			a.stride += 2
			a.fold = append(a.fold, len(a.aggs))
		}
		a.aggs = append(a.aggs, t)
	}
	return a, nil
}

var _ exec.Operator = (*GroupAggregate)(nil)

func (a *GroupAggregate) Schema() column.Schema { return a.schema }

// Explain says which side the groups are on, for the plan's explain.
func (a *GroupAggregate) Explain() string {
	if a.onBuild {
		return "group keys on the build side: the probe side summarised per key, then each build row folded into its group"
	}
	return "group keys on the probe side: the build side summarised per key, then each probe row folded into its group"
}

// Next runs the whole join on its first call and returns the groups in one batch; then nil.
func (a *GroupAggregate) Next(ctx context.Context) (*column.Batch, error) {
	if a.done {
		return nil, nil
	}
	a.done = true
	defer a.release()
	if err := a.run(ctx); err != nil {
		return nil, fmt.Errorf("group aggregate: %w", err)
	}
	return a.result(), nil
}

func (a *GroupAggregate) release() {
	a.h.budget.Shrink(a.h.held + a.held)
	a.h.held, a.held = 0, 0
	if a.groups != nil {
		a.groups.Release()
	}
	a.sums, a.roots = nil, nil
}

func (a *GroupAggregate) grow(what string, n int64) error {
	if err := a.h.budget.Grow(what, n); err != nil {
		return err
	}
	a.held += n
	return nil
}

// outputPos places an output row in the hash join's output: probe row p's rows at p (its matches in build
// order after it, by build row r), the build side's end rows after every probe row, in build order.
func outputPos(p int64, r int32) int64 { return p<<32 | int64(r+1) }

// run folds the whole join into the groups.
func (a *GroupAggregate) run(ctx context.Context) error {
	h := a.h
	if err := h.buildTable(ctx); err != nil {
		return err
	}
	if h.unique && !h.buildLeft {
		h.seenInts, h.seenStrs = map[int64]struct{}{}, map[string]struct{}{}
	}
	n := h.table.N
	words := int64(n) * int64(a.stride)
	if err := a.grow("the join aggregate's key summaries", int64(n)*4+words*8); err != nil {
		return err
	}
	a.roots = h.roots()
	a.sums = make([]int64, n*a.stride)
	stateBytes := int64(8 + 16*len(a.aggs))
	a.groups = exec.NewGroups(a.types, stateBytes, h.budget)
	if a.onBuild {
		return a.groupOnBuild(ctx)
	}
	return a.groupOnProbe(ctx)
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
// count (and, with first >= 0, the first of the key's rows, first+row), in one loop whose cache misses on the
// summaries overlap, then each aggregate's words, which the first loop brought into the cache.
func (a *GroupAggregate) summarise(b *column.Batch, rows, heads []int32, first int64) {
	stride := a.stride
	for j, head := range heads {
		s := a.sums[int(head)*stride:][:stride]
		if first >= 0 && s[0] == 0 {
			s[1] = first + int64(rows[j])
		}
		s[0]++
	}
	for _, k := range a.fold {
		t := &a.aggs[k]
		v := b.Cols[t.col]
		for j, head := range heads {
			r := int(rows[j])
			if v.IsNull(r) {
				continue
			}
			x := v.Ints[r]
			w := a.sums[int(head)*stride+t.word:][:2]
			switch {
			case t.fn == "sum":
				w[1] += x
			case w[0] == 0, t.fn == "min" && x < w[1], t.fn == "max" && x > w[1]:
				w[1] = x
			}
			w[0]++
		}
	}
}

// groupOnProbe folds with the group keys on the probe side: the build rows summarised per key, then each probe
// row that yields output folded into its group, in probe order; then the build side's preserved end rows.
func (a *GroupAggregate) groupOnProbe(ctx context.Context) error {
	h := a.h
	bt := h.table.Batch()
	for lo := 0; lo < h.table.N; lo += foldChunkRows {
		a.sel, a.heads = a.sel[:0], a.heads[:0]
		for r := lo; r < min(lo+foldChunkRows, h.table.N); r++ {
			if head := a.roots[r]; head >= 0 {
				a.sel, a.heads = append(a.sel, int32(r)), append(a.heads, head)
			}
		}
		a.summarise(bt, a.sel, a.heads, -1)
	}
	var matched []bool
	if h.bs.unmatched {
		matched = make([]bool, h.table.N)
	}
	var p int64 // probe rows before the batch
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		ok, err := h.nextProbe(ctx)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		a.sel, a.mult, a.heads, a.places = a.sel[:0], a.mult[:0], a.heads[:0], a.places[:0]
		for i, hd := range h.heads {
			switch {
			case hd >= 0:
				head := hd &^ chainMore
				if matched != nil {
					matched[head] = true
				}
				a.take(i, a.sums[int(head)*a.stride], head, outputPos(p+int64(i), head))
			case hd == noMatch && h.ps.unmatched:
				a.take(i, 1, -1, outputPos(p+int64(i), -1))
			}
		}
		if err := a.foldRows(h.pb, a.gkeys); err != nil {
			return err
		}
		p += int64(h.pb.N)
	}
	if matched == nil {
		return nil
	}
	// The build rows no probe row found, each an output row alone: the null group's, in build order.
	for r, head := range a.roots {
		if head < 0 || !matched[head] {
			if err := a.foldEnd(bt, r, outputPos(p, int32(r))); err != nil {
				return err
			}
		}
	}
	return nil
}

// groupOnBuild folds with the group keys on the build side: the probe rows summarised per key (and the
// preserved unmatched ones into the null group), then each build row folded into its group.
func (a *GroupAggregate) groupOnBuild(ctx context.Context) error {
	h := a.h
	var p int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		ok, err := h.nextProbe(ctx)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		a.sel, a.heads = a.sel[:0], a.heads[:0]
		for i, hd := range h.heads {
			switch {
			case hd >= 0:
				a.sel, a.heads = append(a.sel, int32(i)), append(a.heads, hd&^chainMore)
			case hd == noMatch && h.ps.unmatched:
				if err := a.foldEnd(h.pb, i, outputPos(p+int64(i), -1)); err != nil {
					return err
				}
			}
		}
		a.summarise(h.pb, a.sel, a.heads, p)
		p += int64(h.pb.N)
	}
	bt := h.table.Batch()
	for lo := 0; lo < h.table.N; lo += foldChunkRows {
		hi := min(lo+foldChunkRows, h.table.N)
		a.sel, a.mult, a.heads, a.places = a.sel[:0], a.mult[:0], a.heads[:0], a.places[:0]
		for r := lo; r < hi; r++ {
			switch head := a.roots[r]; {
			case head >= 0 && a.sums[int(head)*a.stride] > 0:
				s := a.sums[int(head)*a.stride:]
				a.take(r-lo, s[0], head, outputPos(s[1], int32(r)))
			case h.bs.unmatched:
				a.take(r-lo, 1, -1, outputPos(p, int32(r)))
			}
		}
		if err := a.foldRows(bt.Slice(lo, hi), a.gkeys); err != nil {
			return err
		}
	}
	return nil
}

// foldChunkRows is how many build rows are folded into their groups at once: a batch's worth, so the chunk's
// gathered keys, group numbers and notes stay in cache.
const foldChunkRows = 4096

// take notes row i of the batch being folded: m output rows, its key's head (-1: null-extended), the position
// of its first output row.
func (a *GroupAggregate) take(i int, m int64, head int32, place int64) {
	a.sel = append(a.sel, int32(i))
	a.mult = append(a.mult, m)
	a.heads = append(a.heads, head)
	a.places = append(a.places, place)
}

// foldRows folds the taken rows of group-side batch b into their groups: each row's own values times its
// output rows, and its key's summary of the fold side.
func (a *GroupAggregate) foldRows(b *column.Batch, keys []int) error {
	if len(a.sel) == 0 {
		return nil
	}
	kv := make([]*column.Vector, len(keys))
	for i, c := range keys {
		kv[i] = b.Cols[c].Gather(a.sel)
	}
	if err := a.assign(kv, len(a.sel)); err != nil {
		return err
	}
	for j, g := range a.gids {
		if a.places[j] < a.pos[g] {
			a.pos[g] = a.places[j]
		}
	}
	for k := range a.aggs {
		t := &a.aggs[k]
		switch {
		case t.fn == "count":
			for j, g := range a.gids {
				t.n[g] += a.mult[j]
			}
		case t.onSide:
			v := b.Cols[t.col]
			for j, g := range a.gids {
				if r := int(a.sel[j]); !v.IsNull(r) {
					t.add(g, v.Ints[r], a.mult[j])
				}
			}
		default:
			for j, g := range a.gids {
				if head := a.heads[j]; head >= 0 {
					w := a.sums[int(head)*a.stride+t.word:][:2]
					t.merge(g, w[0], w[1])
				}
			}
		}
	}
	return nil
}

// foldEnd folds row r of fold-side batch b, an output row alone (its group-side columns null), into the null
// group, at output position place.
func (a *GroupAggregate) foldEnd(b *column.Batch, r int, place int64) error {
	if a.nullGroup < 0 {
		kv := make([]*column.Vector, len(a.types))
		for i, t := range a.types {
			kv[i] = column.NullVector(t, 1)
		}
		if err := a.assign(kv, 1); err != nil {
			return err
		}
		a.nullGroup = a.gids[0]
	}
	g := a.nullGroup
	a.pos[g] = min(a.pos[g], place)
	for k := range a.aggs {
		t := &a.aggs[k]
		switch {
		case t.fn == "count":
			t.n[g]++
		case !t.onSide:
			if v := b.Cols[t.col]; !v.IsNull(r) {
				t.add(g, v.Ints[r], 1)
			}
		}
	}
	return nil
}

// assign finds the groups of n rows of key values kv into a.gids, growing the states for new groups.
func (a *GroupAggregate) assign(kv []*column.Vector, n int) error {
	var err error
	if a.gids, err = a.groups.Assign(kv, n, a.gids); err != nil {
		return err
	}
	for len(a.pos) < a.groups.Len() {
		a.pos = append(a.pos, 1<<63-1)
		for k := range a.aggs {
			t := &a.aggs[k]
			t.n, t.v = append(t.n, 0), append(t.v, 0)
		}
	}
	return nil
}

// add takes value x m times into group g: m copies of x summed (wrapping as m additions would), or x as a
// candidate extreme when m > 0.
func (t *groupTarget) add(g int32, x, m int64) {
	if m == 0 {
		return
	}
	switch {
	case t.fn == "sum":
		t.v[g] += x * m
	case t.n[g] == 0, t.fn == "min" && x < t.v[g], t.fn == "max" && x > t.v[g]:
		t.v[g] = x
	}
	t.n[g] += m
}

// merge takes into group g a key summary's n values whose sum or extreme is x.
func (t *groupTarget) merge(g int32, n, x int64) {
	if n == 0 {
		return
	}
	switch {
	case t.fn == "sum":
		t.v[g] += x
	case t.n[g] == 0, t.fn == "min" && x < t.v[g], t.fn == "max" && x > t.v[g]:
		t.v[g] = x
	}
	t.n[g] += n
}

// result emits the groups in the order of their first output rows.
func (a *GroupAggregate) result() *column.Batch {
	n := a.groups.Len()
	order := make([]int32, n)
	for g := range order {
		order[g] = int32(g)
	}
	slices.SortFunc(order, func(x, y int32) int { return cmp.Compare(a.pos[x], a.pos[y]) })
	cols := make([]*column.Vector, 0, len(a.schema))
	for _, k := range a.groups.Keys() {
		cols = append(cols, k.Gather(order))
	}
	for i, t := range a.aggs {
		v := column.NewVector(a.schema[len(a.types)+i].Type, n)
		for _, g := range order {
			switch {
			case t.fn == "count":
				v.AppendInt(t.n[g])
			case t.n[g] == 0:
				v.AppendNull()
			default:
				v.AppendInt(t.v[g])
			}
		}
		cols = append(cols, v)
	}
	return column.NewBatch(cols, n)
}
