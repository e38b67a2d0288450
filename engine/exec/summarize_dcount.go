package exec

import (
	"slices"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// A dcount's state is one table of the distinct (group, value) pairs its rows brought, for all groups at once:
// the summarize's group table (summarize_groups.go) over two key columns, the group number and the value, and
// per group the count of its pairs. A batch is looked up at once, by a hash of the two values confirmed by a
// typed compare, and each pair the table did not have adds one to its group's count; a null value counts for
// nothing. Values are equal as a summarize's keys are (nulls aside, -0 equals 0, reals otherwise by their bits),
// which is what the encoded keys of column.AppendKey tell apart. Cost per row: one hash and about one slot
// visited, no boxed value and no allocation. Memory: per distinct pair its two values and a slot, grown on the
// budget before the pair is kept. A summarize without keys has one group, so its table is of the values alone
// (one long looked up as itself, keymap.Ints).

// dcountState is a dcount's table of pairs and the scratch of its batch.
type dcountState struct {
	pairs *groupTable
	one   bool           // one group: the table holds the values alone
	gv    *column.Vector // the batch's rows' groups, as the pairs' first column
	rows  []int32        // the batch's rows with a value, when some are null
	ids   []int32        // the batch's pairs' numbers, which nothing reads
}

// newDcountState makes the state of a dcount of values of valueType, in a summarize with keys (grouped) or
// without.
func newDcountState(valueType column.Type, grouped bool, budget *memory.Budget) *dcountState {
	types := []column.Type{column.Long, valueType}
	if !grouped {
		types = types[1:]
	}
	return &dcountState{
		pairs: newGroupTable("summarize dcount", types, 0, budget),
		one:   !grouped,
		gv:    column.NewVector(column.Long, 0),
	}
}

// dcount adds the values of v whose groups are gids (row r in group gids[r]) to st's pairs, counting each new
// pair in st.n. If the budget refuses a pair it returns the row it stopped at, as update does.
func (st *aggStates) dcount(v *column.Vector, gids []int32) (int, error) {
	d := st.distinct
	gs := d.gv.Ints[:0]
	selected := v.HasNulls()
	if selected { // only the rows with a value
		d.rows = d.rows[:0]
		for r, g := range gids {
			if !v.IsNull(r) {
				d.rows = append(d.rows, int32(r))
				gs = append(gs, int64(g))
			}
		}
		v = v.Gather(d.rows)
	} else {
		for _, g := range gids {
			gs = append(gs, int64(g))
		}
	}
	d.gv.Ints = gs
	d.gv.SetLen(len(gs))
	var m int
	var err error
	kv := []*column.Vector{d.gv, v}
	if d.one {
		kv = kv[1:]
	}
	d.ids, m, err = d.pairs.assign(kv, len(gs), d.ids)
	for _, r := range d.pairs.created {
		st.n[gs[r]]++
	}
	switch {
	case err == nil:
		return len(gids), nil
	case selected:
		return int(d.rows[m]), err
	}
	return m, err
}

// values lists, per group of the groups 0…n-1, its distinct values as column.AppendKey encodings, sorted: a
// dcount's partial state when the summarize spills.
func (d *dcountState) values(n int) [][]string {
	out := make([][]string, n)
	v := d.pairs.keyCols[len(d.pairs.keyCols)-1]
	var buf []byte
	for p := range d.pairs.n {
		g := 0
		if !d.one {
			g = int(d.pairs.keyCols[0].Ints[p])
		}
		buf = column.AppendKey(buf[:0], v, p)
		out[g] = append(out[g], string(buf))
	}
	for _, vs := range out {
		slices.Sort(vs)
	}
	return out
}

// releaseDcounts gives back the memory of every dcount's pairs; their key columns stay for a spill's flush.
func (s *Summarize) releaseDcounts() {
	for _, st := range s.states {
		if st.distinct != nil {
			st.distinct.pairs.release()
		}
	}
}
