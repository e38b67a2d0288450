package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/partition"
	"github.com/joinlab/joinlab/engine/spill"
)

// Grouped aggregation over the budget: a summarize whose groups outgrow the budget partitions them by a hash
// of the group key and aggregates each partition alone.
//
//	aggregate in memory until a new group (or a dcount's new value) does not fit
//	flush: write every group's partial state as rows, each to the partition of its key; free the groups
//	every later input row: write it as a partial row of one row, to its key's partition
//	for each partition: a summarize of its partial rows that combines them (count: sum of counts; sum: sum;
//	    avg: sum of sums over sum of counts; min, max: min, max; dcount: dcount of the distinct values),
//	    written out as a run of finished groups
//	merge the runs by each group's first input row
//
// A key's rows all go to one partition, so each group is finished by exactly one partition's summarize, and
// that summarize may spill the same way, one level down, with a new hash seed. A partial row carries the input
// position of the group's first row; partitions keep input order, so each partition finishes its groups in
// order of that position and the merge restores the in-memory order of first appearance. A dcount's partial
// state is its set of distinct values, one per partial row (their key encodings, sorted so the spill is the
// same bytes every run); the group's other partials ride on its first row.
//
// Cost: each row spilled is written and read once per level, and every finished group once more for the merge.
// Memory: one page buffer per partition while spilling, then what one partition's groups need; a summarize
// without keys has one group and cannot be split, so it fails as before, and so does a partition that is still
// over the budget after maxAggLevels levels (one group whose dcount values alone exceed the budget).

// Spill settings of a summarize.
const (
	// aggFanoutMin and aggFanoutMax bound the partitions of one level: the budget's share for page buffers
	// (a quarter, at one sort-sized page each) decides within them.
	aggFanoutMin = 4
	aggFanoutMax = 64
	// maxAggLevels is how deep partitions are split again before the summarize gives up.
	maxAggLevels = 6
	// aggSeed is the base of each level's partitioning seed.
	aggSeed = 0x73756d6d
)

// aggSpill is the spilled state of one summarize: the partial rows' schema and the partitions' writers.
type aggSpill struct {
	s       *Summarize
	part    partition.Partitioner
	schema  column.Schema // keys…, o (first input row), each aggregate's partials
	codec   *spill.Codec
	store   spill.Store
	page    int
	writers []*spill.Writer
	held    int64 // the writers' page buffers
	assign  []int32
}

// partialFields are the columns of an aggregate's partial state (see the file comment).
func partialFields(a Agg) []column.Field {
	switch a.Func {
	case "count":
		return []column.Field{{Name: "n", Type: column.Long}}
	case "avg":
		return []column.Field{{Name: "s", Type: column.Real}, {Name: "n", Type: column.Long}}
	case "dcount":
		return []column.Field{{Name: "v", Type: column.String}}
	}
	return []column.Field{{Name: "v", Type: a.Type}}
}

// combiners are the aggregates that combine partial rows of a, over the partial columns starting at col.
func combiners(a Agg, col int) []Agg {
	ref := func(i int, t column.Type) expr.Expr { return &expr.ColumnRef{Index: col + i, T: t} }
	switch a.Func {
	case "count":
		return []Agg{{Func: "sum", Arg: ref(0, column.Long), Type: column.Long}}
	case "avg":
		return []Agg{{Func: "sum", Arg: ref(0, column.Real), Type: column.Real},
			{Func: "sum", Arg: ref(1, column.Long), Type: column.Long}}
	case "dcount":
		return []Agg{{Func: "dcount", Arg: ref(0, column.String), Type: column.Long}}
	}
	return []Agg{{Func: a.Func, Arg: ref(0, a.Type), Type: a.Type}}
}

// overflow decides what a summarize does when the budget refuses it more (err): with keys, and levels left,
// it starts spilling; otherwise it fails with err.
func (s *Summarize) overflow(ctx context.Context, err error) error {
	if !errors.As(err, new(*memory.ExceededError)) || len(s.keys) == 0 {
		return err
	}
	if s.level >= maxAggLevels {
		return fmt.Errorf("summarize: the groups of one partition still do not fit after %d levels of "+
			"partitioning (one group's distinct values?): %w", s.level, err)
	}
	sp := &aggSpill{s: s}
	for _, k := range s.keys {
		sp.schema = append(sp.schema, column.Field{Name: "k", Type: k.Type()})
	}
	sp.schema = append(sp.schema, column.Field{Name: "o", Type: column.Long})
	for _, a := range s.aggs {
		sp.schema = append(sp.schema, partialFields(a)...)
	}
	sp.codec = spill.NewCodec(sp.schema, nil)
	store, serr := spill.StoreFor(ctx)
	if serr != nil {
		return fmt.Errorf("summarize: spill store: %w", serr)
	}
	sp.store = store
	sp.page = int(min(max(s.budget.Limit()/sortPageShare, minSortPageBytes), maxSortPageBytes))
	fan := int(min(max(s.budget.Limit()/4/int64(sp.page), aggFanoutMin), aggFanoutMax))
	sp.part = partition.Partitioner{Seed: partition.LevelSeed(aggSeed, s.level), Fanout: fan}
	s.budget.Shrink(s.held) // the caller flushes the groups before it writes another row
	s.held = 0
	s.releaseDcounts()
	sp.held = int64(fan) * int64(sp.page)
	if gerr := s.budget.Grow("summarize spill", sp.held); gerr != nil {
		return fmt.Errorf("summarize: %d partitions of %s pages: %w", fan, memory.Bytes(int64(sp.page)), gerr)
	}
	for range fan {
		f, ferr := store.Create()
		if ferr != nil {
			return fmt.Errorf("summarize: spill: %w", ferr)
		}
		sp.writers = append(sp.writers, spill.NewWriter(f, sp.codec, sp.page))
	}
	s.spilled = sp
	return nil
}

// write appends each row of partial rows pb to its key's partition.
func (sp *aggSpill) write(pb *column.Batch) error {
	sp.assign = sp.part.Assign(pb.Cols[:len(sp.s.keys)], pb.N, sp.assign)
	for i, p := range sp.assign {
		if err := sp.writers[p].Append(pb, i); err != nil {
			return fmt.Errorf("summarize: spill: %w", err)
		}
	}
	return nil
}

// newPartial returns empty vectors of the partial schema.
func (sp *aggSpill) newPartial(n int) []*column.Vector {
	cols := make([]*column.Vector, len(sp.schema))
	for i, f := range sp.schema {
		cols[i] = column.NewVector(f.Type, n)
	}
	return cols
}

// flush writes the in-memory groups (their keys, first input rows and states) as partial rows.
func (sp *aggSpill) flush(keyCols []*column.Vector, firsts []int64) error {
	cols := sp.newPartial(len(firsts))
	k := len(sp.s.keys)
	n := 0
	values := make([][][]string, len(sp.s.aggs)) // per dcount, per group its distinct values
	for i, st := range sp.s.states {
		if st.distinct != nil {
			values[i] = st.distinct.values(len(firsts))
		}
	}
	seen := make([][]string, len(sp.s.aggs))
	for g := range firsts {
		rows := 1
		for i := range sp.s.aggs {
			if values[i] != nil {
				seen[i] = values[i][g]
				rows = max(rows, len(seen[i]))
			}
		}
		for j := range rows {
			for c := range k {
				cols[c].AppendFrom(keyCols[c], g)
			}
			cols[k].AppendInt(firsts[g])
			c := k + 1
			for i, a := range sp.s.aggs {
				st := sp.s.states[i]
				switch {
				case a.Func == "dcount":
					if j < len(seen[i]) {
						cols[c].AppendString(seen[i][j])
					} else {
						cols[c].AppendNull()
					}
				case a.Func == "count":
					cols[c].AppendInt(st.n[g] * boolInt(j == 0))
				case a.Func == "avg":
					if j == 0 && st.n[g] > 0 {
						cols[c].AppendReal(st.f[g])
						cols[c+1].AppendInt(st.n[g])
					} else {
						cols[c].AppendNull()
						cols[c+1].AppendInt(0)
					}
				case j == 0:
					cols[c].AppendValue(st.result(g))
				default:
					cols[c].AppendNull()
				}
				c += len(partialFields(a))
			}
			n++
		}
	}
	return sp.write(column.NewBatch(cols, n))
}

// raw writes the rows of input batch b (key values kv, aggregate arguments av; row 0 is input row first) as
// partial rows of one row each. skip(j, a) says aggregate a already took row j (nil: none did); a row before
// lo that every aggregate took is left out, since its group, in memory, was flushed with it.
func (sp *aggSpill) raw(kv, av []*column.Vector, b *column.Batch, first int64, lo int, skip func(j, a int) bool) error {
	cols := sp.newPartial(b.N)
	k := len(sp.s.keys)
	n := 0
	for r := range b.N {
		if r < lo && skip != nil && sp.takenByAll(r, skip) {
			continue
		}
		for c := range k {
			cols[c].AppendFrom(kv[c], r)
		}
		cols[k].AppendInt(first + int64(r))
		c := k + 1
		for i, a := range sp.s.aggs {
			sp.rawPartial(cols[c:], a, av[i], r, skip != nil && skip(r, i))
			c += len(partialFields(a))
		}
		n++
	}
	return sp.write(column.NewBatch(cols, n))
}

// takenByAll reports whether every aggregate took row r.
func (sp *aggSpill) takenByAll(r int, skip func(j, a int) bool) bool {
	for i := range sp.s.aggs {
		if !skip(r, i) {
			return false
		}
	}
	return true
}

// rawPartial appends aggregate a's partial state of row r of its argument v to cols (neutral when skipped: a
// zero count, null values).
func (sp *aggSpill) rawPartial(cols []*column.Vector, a Agg, v *column.Vector, r int, skipped bool) {
	switch a.Func {
	case "count":
		cols[0].AppendInt(boolInt(!skipped))
	case "avg", "sum":
		x, ok := column.Value{}, false
		if !skipped && !v.IsNull(r) {
			x, ok = v.Value(r), true
			if x.Type == column.Dynamic {
				n, num := expr.Numeric(x)
				x, ok = column.Value{Type: column.Real, Real: n.Float()}, num
			}
		}
		switch {
		case !ok:
			cols[0].AppendNull()
		case a.Func == "avg" || a.Type == column.Real:
			cols[0].AppendReal(x.Float())
		default:
			cols[0].AppendInt(x.Int)
		}
		if a.Func == "avg" {
			cols[1].AppendInt(boolInt(ok))
		}
	case "dcount":
		if skipped || v.IsNull(r) {
			cols[0].AppendNull()
		} else {
			cols[0].AppendString(string(column.AppendKey(nil, v, r)))
		}
	default:
		if skipped {
			cols[0].AppendNull()
		} else {
			cols[0].AppendFrom(v, r)
		}
	}
}

// finish closes the partitions, finishes each one's groups into a run ordered by first input row, and returns
// the merge of those runs: batches of the summarize's schema and, last, the first input row.
func (sp *aggSpill) finish(ctx context.Context) (*Sort, error) {
	s := sp.s
	var parts []spill.Run
	for _, w := range sp.writers {
		run, err := w.Finish()
		if err != nil {
			return nil, fmt.Errorf("summarize: spill: %w", err)
		}
		parts = append(parts, run)
	}
	s.budget.Shrink(sp.held)
	sp.held = 0
	s.addDetail("summarize_spills", 1)
	s.addDetail("summarize_partitions", int64(len(parts)))

	// The combining summarize of a partition: its keys are the partial rows' key columns, its first
	// aggregate the least first input row, then each aggregate's combiners.
	k := len(s.keys)
	var keys []expr.Expr
	var out column.Schema
	for i := range k {
		keys = append(keys, &expr.ColumnRef{Index: i, T: sp.schema[i].Type})
		out = append(out, sp.schema[i])
	}
	aggs := []Agg{{Func: "min", Arg: &expr.ColumnRef{Index: k, T: column.Long}, Type: column.Long}}
	col := k + 1
	for _, a := range s.aggs {
		aggs = append(aggs, combiners(a, col)...)
		col += len(partialFields(a))
	}
	for _, a := range aggs {
		out = append(out, column.Field{Name: a.Func, Type: a.Type})
	}
	final := append(append(column.Schema{}, s.schema...), column.Field{Name: "o", Type: column.Long})
	merged := &sortSpill{store: sp.store, codec: spill.NewCodec(final, nil), pageBytes: sp.page}
	if err := s.budget.Grow("summarize spill", int64(sp.page)); err != nil {
		return nil, fmt.Errorf("summarize: %w", err)
	}
	defer s.budget.Shrink(int64(sp.page))
	for _, run := range parts {
		if run.Rows == 0 {
			continue
		}
		child := &Summarize{in: &runScan{schema: sp.schema, r: spill.NewReader(run, sp.codec)}, schema: out,
			keys: keys, aggs: aggs, budget: s.budget, level: s.level + 1, details: s.details}
		f, err := sp.store.Create()
		if err != nil {
			return nil, fmt.Errorf("summarize: spill: %w", err)
		}
		w := spill.NewWriter(f, merged.codec, merged.pageBytes)
		err = Drain(ctx, child, func(b *column.Batch) error {
			fb := sp.finished(b)
			for i := range fb.N {
				if err := w.Append(fb, i); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err // a partition's error is the summarize's: the partition number tells a user nothing
		}
		res, err := w.Finish()
		if err != nil {
			return nil, fmt.Errorf("summarize: spill: %w", err)
		}
		if err := run.File.Remove(); err != nil {
			return nil, fmt.Errorf("summarize: spill: %w", err)
		}
		merged.runs = append(merged.runs, res)
	}
	m := &Sort{in: &runScan{schema: final}, keys: []SortKey{{Expr: &expr.ColumnRef{Index: len(s.schema), T: column.Long}, Asc: true}},
		limit: -1, budget: s.budget, loaded: true, spilled: merged}
	if err := m.finishSpill(ctx, column.NewTable(final)); err != nil {
		return nil, fmt.Errorf("summarize: %w", err)
	}
	return m, nil
}

// finished turns a combining summarize's batch (keys, least first row, combined partials) into the
// summarize's own rows with the first input row last.
func (sp *aggSpill) finished(b *column.Batch) *column.Batch {
	s := sp.s
	k := len(s.keys)
	cols := append([]*column.Vector{}, b.Cols[:k]...)
	c := k + 1
	for _, a := range s.aggs {
		switch a.Func {
		case "avg":
			sum, n := b.Cols[c], b.Cols[c+1]
			v := column.NewVector(column.Real, b.N)
			for r := range b.N {
				if sum.IsNull(r) || n.Ints[r] == 0 {
					v.AppendNull()
				} else {
					v.AppendReal(sum.Reals[r] / float64(n.Ints[r]))
				}
			}
			cols = append(cols, v)
			c += 2
		default:
			cols = append(cols, b.Cols[c])
			c++
		}
	}
	cols = append(cols, b.Cols[k])
	return column.NewBatch(cols, b.N)
}

// runScan reads a spilled run as an operator (with no reader: an empty input of schema).
type runScan struct {
	schema column.Schema
	r      *spill.Reader
}

func (r *runScan) Schema() column.Schema { return r.schema }
func (r *runScan) Next(ctx context.Context) (*column.Batch, error) {
	if r.r == nil {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return r.r.Next()
}

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
