package join

import (
	"errors"
	"slices"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/memory"
)

// groupFold is a GroupAggregate's groups folded in place: instead of a share row per group-side row, which the
// summarize above would look up and combine one by one, each group-side row that yields output is given its
// group's number (exec.Groups, the summarize's own table: typed keys of any type, looked up a batch at a time)
// and its share goes straight into that group's states, one typed loop per aggregate. The summarize above then
// combines one share row per group.
//
// With the group keys on the build side, every build row's group is found once, after the build (gid), so
// folding a build row costs no lookup; with them on the probe side, each probe batch's rows that yield output
// are looked up together.
//
// States, per group, stride words side by side, so that a row's updates touch one cache line however many
// aggregates there are (with a hundred thousand groups the states outgrow the cache, and each line is a miss):
// its output rows; for build-side groups the place of its first output row (rank), which orders the groups as
// the join's output would; and per aggregate but count a value and the count of values taken (a value with
// none is null). A chunk's rows update the groups one aggregate at a time: the first loop brings the lines
// into the cache, and the others find them there. Every group is grown on the budget by exec.Groups before it
// exists; a refusal sends the GroupAggregate back to share rows per row, which the summarize spills (see
// GroupAggregate.dropFold).
//
// Only count and the sums, mins and maxes of int64-stored columns fold here (denseFolds); a distinct count
// or a string's extreme keeps the share rows.
type groupFold struct {
	groups    *exec.Groups
	states    []int64 // stride words per group: rows, rank (ranked), then a value and count per aggregate
	stride    int
	ranked    bool
	words     []int   // per aggregate, the first of its two words in a group's states (-1: count)
	gids      []int32 // the groups of the rows being folded
	maxGroups int     // past this many groups the fold is refused (0: none; GroupAggregate.foldCap)
}

// errFoldCap is the refusal of the test knob GroupAggregate.foldCap.
var errFoldCap = errors.New("group aggregate: the test's cap on folded groups")

// rankWord is the word of a group's states that holds its rank (build-side groups), as a uint64's bits; a
// group none of whose rows yields output yet has -1, the bits of the greatest rank.
const rankWord = 1

// denseFolds reports whether every aggregate folds in a groupFold: count, or one kept in int64 words.
func denseFolds(aggs []groupTarget) bool {
	for _, t := range aggs {
		if t.fn == "count" {
			continue
		}
		if t.fn == "dcount" || t.typ == column.String || t.typ == column.Real {
			return false
		}
	}
	return true
}

// newGroupFold makes the groups of keys of the given types for naggs aggregates, ranked for build-side groups.
func newGroupFold(types []column.Type, aggs []groupTarget, ranked bool, maxGroups int, budget *memory.Budget) *groupFold {
	f := &groupFold{stride: 1, ranked: ranked, maxGroups: maxGroups}
	if ranked {
		f.stride++
	}
	for _, t := range aggs {
		w := -1
		if t.fn != "count" {
			w = f.stride
			f.stride += 2
		}
		f.words = append(f.words, w)
	}
	// A ranked group is charged 8 bytes more, for its place in the list of ranks that orders the groups.
	state := int64(f.stride) * 8
	if ranked {
		state += 8
	}
	f.groups = exec.NewGroups(types, state, budget)
	return f
}

// assign sets gids to the groups of the n rows with key values kv, making groups (and their zero states) for
// new keys; a refusal of the budget is the error, with the groups made before it kept.
func (f *groupFold) assign(kv []*column.Vector, n int, gids []int32) ([]int32, error) {
	gids, err := f.groups.Assign(kv, n, gids)
	g := f.groups.Len()
	if f.maxGroups > 0 && g > f.maxGroups && err == nil {
		err = errFoldCap
	}
	if old := f.len(); g > old {
		f.states = append(f.states, make([]int64, (g-old)*f.stride)...)
		if f.ranked {
			for i := old; i < g; i++ {
				f.states[i*f.stride+rankWord] = -1
			}
		}
	}
	return gids, err
}

// len is the number of groups with states.
func (f *groupFold) len() int { return len(f.states) / f.stride }

// fold adds to groups gs[j] the shares of rows sel[j] of group-side batch b: mult[j] output rows, and the key
// summary of heads[j] for the aggregates over the fold side (-1: the row is alone, the fold side null). Each
// aggregate is one loop over the rows reading typed slices through locals.
func (f *groupFold) fold(a *GroupAggregate, b *column.Batch, sel []int32, mult []int64, heads, gs []int32) {
	states, stride := f.states, f.stride
	for j, g := range gs {
		states[int(g)*stride] += mult[j]
	}
	for i := range a.aggs {
		t, w := &a.aggs[i], f.words[i]
		switch {
		case w < 0:
		case t.onSide:
			v := b.Cols[t.col]
			foldOwn(states, stride, w, t.kernel, v.Ints, v.Nulls, sel, mult, gs)
		default:
			foldSummaries(states, stride, w, t.kernel, a.sums, a.stride, t.word, heads, gs)
		}
	}
}

// foldOwn folds the group side's own values vals[sel[j]] (null where nulls says) into the value and count
// pair at word of the states of groups gs[j]: a sum takes the value mult[j] times (wrapping as that many
// additions would), a min or max takes it once.
func foldOwn(states []int64, stride, word, kernel int, vals []int64, nulls column.Bitmap, sel []int32, mult []int64, gs []int32) {
	for j, g := range gs {
		r := sel[j]
		if nulls != nil && nulls.Get(int(r)) {
			continue
		}
		p := states[int(g)*stride+word:][:2]
		foldInto(&p[0], &p[1], vals[r], mult[j], kernel)
	}
}

// foldSummaries folds the fold side's key summaries (two words from sumWord in the summary of head heads[j],
// sumStride words each: its count of values, then their sum or extreme) into the value and count pair at word
// of the states of groups gs[j]; a row alone (head -1) or a summary with no value adds nothing.
func foldSummaries(states []int64, stride, word, kernel int, sums []int64, sumStride, sumWord int, heads, gs []int32) {
	for j, g := range gs {
		hd := heads[j]
		if hd < 0 {
			continue
		}
		w := sums[int(hd)*sumStride+sumWord:][:2]
		if w[0] == 0 {
			continue
		}
		p := states[int(g)*stride+word:][:2]
		foldInto(&p[0], &p[1], w[1], 1, kernel)
	}
}

// shares returns the share rows of groups gs, in that order: each group's keys, its output rows for count(),
// and per other aggregate its value, null when it took none.
func (f *groupFold) shares(a *GroupAggregate, gs []int32) *column.Batch {
	n := len(gs)
	cols := make([]*column.Vector, 0, len(a.schema))
	for _, k := range f.groups.Keys() {
		cols = append(cols, k.Gather(gs))
	}
	states, stride := f.states, f.stride
	for i, t := range a.aggs {
		out := column.NewVector(t.typ, n)
		if w := f.words[i]; w < 0 {
			for _, g := range gs {
				out.Ints = append(out.Ints, states[int(g)*stride])
			}
			out.SetLen(n)
		} else {
			for _, g := range gs {
				if p := states[int(g)*stride+w:][:2]; p[1] == 0 {
					out.AppendNull()
				} else {
					out.AppendInt(p[0])
				}
			}
		}
		cols = append(cols, out)
	}
	return column.NewBatch(cols, n)
}

// release gives the groups' memory back to the budget.
func (f *groupFold) release() {
	f.groups.Release()
	f.states = nil
}

// The rank of a build row r in the join's output, for build-side groups: the join lists a key's build rows,
// in build order, at the first probe row that finds the key, so a row of the key found o-th ranks o<<32|r+1;
// the rows no probe row found, alone (outer kinds), come after every found key's; and the share of the
// preserved probe rows with no match goes in before the key found nullAt-th, at nullAt<<32 (low word 0, which
// no build row's rank has). A group's first output row is its row of least rank.
func buildRank(o uint64, r int) uint64 { return o<<32 | uint64(r+1) }

// foldBuild folds every build row that yields output into its group (build-side groups, at the end of the
// probe side) and returns the groups' ranks in order, which say the order their share rows go out in.
func (a *GroupAggregate) foldBuild() []uint64 {
	h, f := a.h, a.folding
	n := h.table.N
	a.firsts = nil         // each found key's place among them is in its summary (ordWord)
	alone := uint64(n + 1) // past every key's place among the found keys
	if a.keyed != nil {
		alone = maxPlace + 1 // past every probe row's place
	}
	bt := h.table.Batch()
	roots, sums, stride, ordWord, gid, unmatched := a.roots, a.sums, a.stride, a.ordWord, a.gid, h.bs.unmatched
	for lo := 0; lo < n; lo += shareChunkRows {
		hi := min(lo+shareChunkRows, n)
		// The chunk's rows that yield output, written by index: no append's length and capacity per row.
		sel, mult, heads, gs := growTo(a.sel, hi-lo), growTo(a.mult, hi-lo), growTo(a.heads, hi-lo), growTo(f.gids, hi-lo)
		states, fstride := f.states, f.stride
		k := 0
		for r := lo; r < hi; r++ {
			hd, m := roots[r], int64(0)
			var s []int64
			if hd >= 0 {
				s = sums[int(hd)*stride:]
				m = s[0]
			}
			var rk uint64
			switch {
			case m > 0:
				rk = buildRank(uint64(s[ordWord]), r)
			case !unmatched:
				continue
			default:
				hd, m, rk = -1, 1, buildRank(alone, r)
			}
			g := gid[r]
			if p := &states[int(g)*fstride+rankWord]; rk < uint64(*p) {
				*p = int64(rk)
			}
			sel[k], mult[k], heads[k], gs[k] = int32(r), m, hd, g
			k++
		}
		a.sel, a.mult, a.heads, f.gids = sel, mult, heads, gs
		f.fold(a, bt, sel[:k], mult[:k], heads[:k], gs[:k])
	}
	// The preserved probe rows with no match are an output row each with null group keys: their summary goes
	// into the null group, made if no build row had it, ranked where their first row was met. If the budget
	// refuses that group, their share row goes out apart, in its place among the groups'.
	if a.nullAt >= 0 {
		if g, ok := f.nullGroup(a); ok {
			a.mergeNull(g, uint64(a.nullAt)<<32)
			a.nullGroup = g
		} else {
			a.apart = true
		}
	}
	var order []uint64
	for g := range f.len() {
		if p := f.states[g*f.stride:]; p[0] > 0 {
			order = append(order, uint64(p[rankWord]))
		}
	}
	if a.apart {
		order = append(order, uint64(a.nullAt)<<32)
	}
	slices.Sort(order)
	return order
}

// nullGroup returns the group whose keys are all null, making it if there is none; false if the budget
// refuses it.
func (f *groupFold) nullGroup(a *GroupAggregate) (int32, bool) {
	kv := make([]*column.Vector, len(a.types))
	for i, t := range a.types {
		kv[i] = column.NullVector(t, 1)
	}
	gs, err := f.assign(kv, 1, f.gids)
	f.gids = gs
	if err != nil {
		return 0, false
	}
	return gs[0], true
}

// mergeNull folds the preserved probe rows with no match (build-side groups), summarised past the build
// rows' summaries, into group g, whose first output row ranks at most rk: their rows, and their summary for
// the aggregates over the probe side; they have no build-side value.
func (a *GroupAggregate) mergeNull(g int32, rk uint64) {
	f := a.folding
	p := f.states[int(g)*f.stride:]
	p[0] += a.nullSummary()[0]
	if rk < uint64(p[rankWord]) {
		p[rankWord] = int64(rk)
	}
	heads, gs := []int32{a.nullKey}, []int32{g}
	for i, t := range a.aggs {
		if w := f.words[i]; w >= 0 && !t.onSide {
			foldSummaries(f.states, f.stride, w, t.kernel, a.sums, a.stride, t.word, heads, gs)
		}
	}
}

// foldAlone folds the build rows no probe row found (probe-side groups, build side preserved), each an output
// row alone with null group keys, into the null group: made after every probe row's group if no probe row had
// it, as the join emits them last. Their values are those of the aggregates over the build side. If the
// budget refuses the group, they stay for the end phase's share rows.
func (a *GroupAggregate) foldAlone() {
	h, f := a.h, a.folding
	n := h.table.N
	bt := h.table.Batch()
	g := int32(-1)
	for lo := 0; lo < n; lo += shareChunkRows {
		a.clear()
		for r := lo; r < min(lo+shareChunkRows, n); r++ {
			if hd := a.roots[r]; hd < 0 || !a.matched[hd] {
				a.take(int32(r), 1, -1)
			}
		}
		if len(a.sel) == 0 {
			continue
		}
		if g < 0 {
			var ok bool
			if g, ok = f.nullGroup(a); !ok {
				a.apart = true
				return
			}
		}
		gs := f.gids[:0]
		for range a.sel {
			gs = append(gs, g)
		}
		f.gids = gs
		f.states[int(g)*f.stride] += int64(len(a.sel))
		for i, t := range a.aggs {
			if w := f.words[i]; w >= 0 && !t.onSide {
				v := bt.Cols[t.col]
				foldOwn(f.states, f.stride, w, t.kernel, v.Ints, v.Nulls, a.sel, a.mult, gs)
			}
		}
	}
	a.end = n // none is left for the end phase
}

// foldedRows returns the next chunk of the folded groups' share rows, nil after the last: build-side groups in
// the order of their ranks (the preserved probe rows' null share in its place), probe-side groups in the
// order they were made, which is that of their first output rows.
func (a *GroupAggregate) foldedRows() *column.Batch {
	f := a.folding
	gs := f.gids[:0]
	if a.onBuild {
		if !a.folded {
			a.order, a.folded = a.foldBuild(), true
		}
	loop:
		for a.emit < len(a.order) && len(gs) < shareChunkRows {
			rk := a.order[a.emit]
			low := uint32(rk)
			switch {
			case low > 0:
				gs = append(gs, a.gid[low-1])
			case !a.apart: // the null group ranked by the preserved probe rows' null share
				gs = append(gs, a.nullGroup)
			case len(gs) > 0:
				break loop
			default: // the null share, apart
				a.emit++
				return a.nullShare()
			}
			a.emit++
		}
	} else if f.ranked { // probe-side groups on the keyed path: by rank
		if !a.folded {
			a.porder, a.folded = f.rankedGroups(), true
		}
		for a.emit < len(a.porder) && len(gs) < shareChunkRows {
			gs = append(gs, a.porder[a.emit])
			a.emit++
		}
	} else {
		for a.emit < f.len() && len(gs) < shareChunkRows {
			if f.states[a.emit*f.stride] > 0 {
				gs = append(gs, int32(a.emit))
			}
			a.emit++
		}
	}
	f.gids = gs
	if len(gs) == 0 {
		return nil
	}
	return f.shares(a, gs)
}
