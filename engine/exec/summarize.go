package exec

import (
	"context"
	"slices"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// Agg is one aggregate of a summarize: Func is count, sum, min, max, avg or dcount; Arg is nil for count().
type Agg struct {
	Func string
	Arg  expr.Expr
	Type column.Type // the result type
}

// Summarize groups its input by its key expressions and computes aggregates per group, in one pass: per batch,
// every row's group number from a table of groups (one int key looked up as itself, any other by its key
// encoding; summarize_groups.go), then each aggregate over the whole batch into its column of states
// (summarize_update.go), all accounted against the budget. Groups come out in order of first appearance. With no
// keys there is exactly one group, even for an empty input (count() of nothing is 0). Nulls are skipped by
// every aggregate but count(); a group whose values were all null has a null sum, min, max and avg. Groups
// over the budget are partitioned to the spill store and finished partition by partition, in the same order
// (summarize_spill.go).
type Summarize struct {
	in     Operator
	schema column.Schema
	keys   []expr.Expr
	aggs   []Agg
	budget *memory.Budget

	loaded bool
	out    *column.Batch
	pos    int
	held   int64
	// level is how many partitionings above this one a spilled summarize's partition went through (0: the
	// query's own); spilled is the state once over the budget, and merged the merge its output then comes from.
	level   int
	spilled *aggSpill
	merged  *Sort
	details *trace.Details
	groups  *groupTable
	states  []*aggStates // one per aggregate
}

func NewSummarize(in Operator, schema column.Schema, keys []expr.Expr, aggs []Agg, budget *memory.Budget) *Summarize {
	return &Summarize{in: in, schema: schema, keys: keys, aggs: aggs, budget: budget}
}

// ReportTo makes the summarize add its spill figures (summarize_spills, summarize_partitions) to d.
func (s *Summarize) ReportTo(d *trace.Details) { s.details = d }

func (s *Summarize) addDetail(key string, n int64) {
	if s.details != nil {
		s.details.Add(key, n)
	}
}

func (s *Summarize) Schema() column.Schema { return s.schema }

func (s *Summarize) Next(ctx context.Context) (*column.Batch, error) {
	if !s.loaded {
		s.loaded = true
		if err := s.run(ctx); err != nil {
			return nil, err
		}
	}
	if s.merged != nil {
		b, err := s.merged.Next(ctx)
		if b == nil || err != nil {
			return nil, err
		}
		return column.NewBatch(b.Cols[:len(s.schema)], b.N), nil // without the first input row
	}
	if s.pos >= s.out.N {
		s.budget.Shrink(s.held)
		s.held = 0
		s.groups.release()
		s.releaseDcounts()
		return nil, nil
	}
	hi := min(s.pos+outBatchRows, s.out.N)
	b := s.out.Slice(s.pos, hi)
	s.pos = hi
	return b, nil
}

// groupBytes approximates the memory of an entry of a Go map of strings (a distinct row, a dcount value)
// beyond its bytes.
const groupBytes = 64

// run aggregates the whole input: per batch, the group of every row (groupTable.assign), then each aggregate
// over the batch at once (update). When the budget refuses a group or a dcount value, it spills (overflow)
// and writes every row not yet taken as a partial row.
func (s *Summarize) run(ctx context.Context) error {
	s.states = nil
	var stateBytes int64
	for _, a := range s.aggs {
		st := newAggStates(a, len(s.keys) > 0, s.budget)
		s.states = append(s.states, st)
		stateBytes += st.groupBytes()
	}
	types := make([]column.Type, len(s.keys))
	for i, k := range s.keys {
		types[i] = k.Type()
	}
	gt := newGroupTable("summarize", types, stateBytes, s.budget)
	s.groups = gt
	addGroup := func() {
		for _, st := range s.states {
			st.add()
		}
	}
	var firsts []int64 // each group's first input row
	var pos int64      // input rows before the batch
	var gids []int32
	if len(s.keys) == 0 {
		addGroup()
		firsts = append(firsts, 0)
	}
	err := Drain(ctx, s.in, func(b *column.Batch) error {
		defer func() { pos += int64(b.N) }()
		kv := make([]*column.Vector, len(s.keys))
		for i, k := range s.keys {
			kv[i] = k.Eval(b)
		}
		av := make([]*column.Vector, len(s.aggs))
		for i, a := range s.aggs {
			if a.Arg != nil {
				av[i] = a.Arg.Eval(b)
			}
		}
		if s.spilled != nil {
			return s.spilled.raw(kv, av, b, pos, 0, nil)
		}
		m := b.N
		var over error
		if len(s.keys) == 0 {
			gids = slices.Grow(gids[:0], b.N)[:b.N]
			clear(gids)
		} else {
			gids, m, over = gt.assign(kv, b.N, gids)
			for _, r := range gt.created {
				addGroup()
				firsts = append(firsts, pos+int64(r))
			}
		}
		// Rows before m have their groups; the aggregates take them one aggregate at a time.
		done, failed := len(s.aggs), m
		for i := range s.aggs {
			if r, err := s.update(i, av[i], gids[:m]); err != nil {
				done, failed, over = i, r, err
				break
			}
		}
		if over == nil {
			return nil
		}
		// Over the budget: aggregate done took rows up to failed, the ones before it every row up to m.
		gt.release()
		if err := s.overflow(ctx, over); err != nil {
			return err
		}
		if err := s.spilled.flush(gt.keyCols, firsts); err != nil {
			return err
		}
		gt.keyCols, s.states, firsts = nil, nil, nil
		return s.spilled.raw(kv, av, b, pos, m, func(j, a int) bool {
			return j < m && (a < done || a == done && j < failed)
		})
	})
	if err != nil {
		return err
	}
	if s.spilled != nil {
		s.merged, err = s.spilled.finish(ctx)
		return err
	}
	cols := make([]*column.Vector, 0, len(s.schema))
	cols = append(cols, gt.keyCols...)
	for i, a := range s.aggs {
		v := column.NewVector(a.Type, len(firsts))
		for g := range firsts {
			v.AppendValue(s.states[i].result(g))
		}
		cols = append(cols, v)
	}
	s.out = column.NewBatch(cols, len(firsts))
	return nil
}
