package exec

import (
	"context"
	"fmt"

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

// Summarize groups its input by its key expressions and computes aggregates per group, in one pass with a
// hash table of groups (accounted against the budget). Groups come out in order of first appearance. With no
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
		return nil, nil
	}
	hi := min(s.pos+outBatchRows, s.out.N)
	b := s.out.Slice(s.pos, hi)
	s.pos = hi
	return b, nil
}

// aggState is the running state of one aggregate in one group.
type aggState struct {
	n    int64 // rows (count) or non-null values seen
	i    int64
	f    float64
	v    column.Value
	seen map[string]struct{}
}

// groupBytes approximates the memory of one group beyond its key: the states and the map entry.
const groupBytes = 64

func (s *Summarize) run(ctx context.Context) error {
	groups := map[string]int32{}
	keyCols := make([]*column.Vector, len(s.keys))
	for i, k := range s.keys {
		keyCols[i] = column.NewVector(k.Type(), 0)
	}
	var states [][]aggState
	var firsts []int64 // each group's first input row
	var buf []byte
	var pos int64 // input rows before the batch
	newGroup := func(key string) int32 {
		g := int32(len(states))
		groups[key] = g
		states = append(states, make([]aggState, len(s.aggs)))
		firsts = append(firsts, pos)
		return g
	}
	if len(s.keys) == 0 {
		newGroup("")
	}
	// spillFrom starts spilling at row r of b, whose aggregates before from already took it.
	spillFrom := func(err error, b *column.Batch, kv, av []*column.Vector, r, from int) error {
		if err := s.overflow(ctx, err); err != nil {
			return err
		}
		if err := s.spilled.flush(keyCols, firsts, states); err != nil {
			return err
		}
		groups, states, firsts = nil, nil, nil
		return s.spilled.raw(kv, av, b, r, from, pos+int64(r))
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
			return s.spilled.raw(kv, av, b, 0, 0, pos)
		}
		for r := 0; r < b.N; r++ {
			g := int32(0)
			if len(s.keys) > 0 {
				buf = buf[:0]
				for _, v := range kv {
					buf = column.AppendKey(buf, v, r)
				}
				var ok bool
				if g, ok = groups[string(buf)]; !ok {
					n := int64(len(buf)) + groupBytes*int64(len(s.aggs)+1)
					if err := s.budget.Grow("summarize", n); err != nil {
						return spillFrom(err, b, kv, av, r, 0)
					}
					s.held += n
					g = newGroup(string(buf))
					firsts[g] = pos + int64(r)
					for i, v := range kv {
						keyCols[i].AppendFrom(v, r)
					}
				}
			}
			for i := range s.aggs {
				if err := s.accumulate(&states[g][i], s.aggs[i], av[i], r); err != nil {
					return spillFrom(err, b, kv, av, r, i)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if s.spilled != nil {
		s.merged, err = s.spilled.finish(ctx)
		return err
	}
	cols := make([]*column.Vector, 0, len(s.schema))
	cols = append(cols, keyCols...)
	for i, a := range s.aggs {
		v := column.NewVector(a.Type, len(states))
		for g := range states {
			v.AppendValue(result(&states[g][i], a))
		}
		cols = append(cols, v)
	}
	s.out = column.NewBatch(cols, len(states))
	return nil
}

func (s *Summarize) accumulate(st *aggState, a Agg, v *column.Vector, r int) error {
	if a.Func == "count" {
		st.n++
		return nil
	}
	if v.IsNull(r) {
		return nil
	}
	x := v.Value(r)
	switch a.Func {
	case "sum", "avg":
		if x.Type == column.Dynamic {
			// An untyped value counts only when it holds a number; the result is real (see plan.aggregate).
			n, ok := expr.Numeric(x)
			if !ok {
				return nil
			}
			st.f += n.Float()
			break
		}
		if x.Type == column.Real || a.Func == "avg" {
			st.f += x.Float()
		} else {
			st.i += x.Int
		}
	case "min", "max":
		if st.n == 0 {
			st.v = x
		} else if c, _ := expr.Compare(x, st.v); (a.Func == "min" && c < 0) || (a.Func == "max" && c > 0) {
			st.v = x
		}
	case "dcount":
		if st.seen == nil {
			st.seen = map[string]struct{}{}
		}
		k := string(column.AppendKey(nil, v, r))
		if _, ok := st.seen[k]; !ok {
			if err := s.budget.Grow("summarize dcount", int64(len(k))+groupBytes); err != nil {
				return err
			}
			s.held += int64(len(k)) + groupBytes
			st.seen[k] = struct{}{}
		}
	default:
		return fmt.Errorf("summarize: unknown aggregate %s", a.Func)
	}
	st.n++
	return nil
}

func result(st *aggState, a Agg) column.Value {
	switch a.Func {
	case "count":
		return column.Value{Type: column.Long, Int: st.n}
	case "dcount":
		return column.Value{Type: column.Long, Int: int64(len(st.seen))}
	}
	if st.n == 0 {
		return column.Value{Type: a.Type, Null: true}
	}
	switch a.Func {
	case "sum":
		if a.Type == column.Real {
			return column.Value{Type: a.Type, Real: st.f}
		}
		return column.Value{Type: a.Type, Int: st.i}
	case "avg":
		return column.Value{Type: column.Real, Real: st.f / float64(st.n)}
	}
	return st.v
}
