package plan

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join"
)

// aggregateJoins rewrites a summarize with no by clause whose aggregates are all count() and sum() of plain
// columns, directly over a hash join, into one node that folds the join's output into the aggregates without
// materialising it (join.HashAggregate). For `join … | summarize n=count(), s=sum(v)` that removes the copy of
// every output pair, and for a skewed key it counts the pairs instead of enumerating them.
//
// It runs once in Build, after the other rewrites and before liveness. It changes how the result is computed,
// never the result: HashAggregate computes what summarize computes over the join's output (nulls skipped,
// a sum of nothing null, integer sums wrapping, real sums in output order). Any other shape is left as it is.
//
// A summarize with a by clause whose keys are plain columns of one side of the join, and whose aggregates are
// count() and sum, min and max of plain int64-stored columns of either side, becomes a joinGroupAggNode: the
// join emits, without forming a pair, one share row per row of the keys' side (join.GroupAggregate: the other
// side summarised per join key), and a summarize combines the shares per group — with its own group table,
// budget and spill — into the same groups, in the same order, as the summarize over the join's output. When
// the aggregates allow, the join folds the shares into their groups itself and its one share row per group is
// the result (join.GroupCombine).
func aggregateJoins(root Node) Node {
	return transform(root, func(n Node) Node {
		s, ok := n.(*summarizeNode)
		if !ok {
			return n
		}
		if w, ok := s.in.(*whereNode); ok && len(s.keys) == 0 {
			return foldThroughWhere(s, w)
		}
		j, ok := s.in.(*joinNode)
		if !ok || j.def.Name != StrategyHash {
			return n
		}
		if len(s.keys) != 0 {
			if keys, aggs, ok := groupAggs(s.keys, s.aggs, j.jp); ok {
				return &joinGroupAggNode{joinAggNode: joinAggNode{base: s.base, join: j, text: s.text}, keys: keys, gaggs: aggs}
			}
			return n
		}
		if aggs, ok := pairAggs(s.aggs, j.jp.Spec.Schema); ok {
			return &joinAggNode{base: s.base, join: j, aggs: aggs, text: s.text}
		}
		return n
	})
}

// foldThroughWhere folds a summarize with no by clause over a where over a hash join: the join takes the where
// on its row pairs (as pushWheresIntoJoins would give it) and folds the pairs that pass into the aggregates,
// so neither the where's columns nor the aggregates' are copied into an output batch. The aggregates' order
// of addition is the pairs' output order, as the summarize's would be. Only the pairs path can take a where
// (join.HashAggregate.SetWhere): the radix path counts a key's pairs without forming them. The where's one-side
// conjuncts already went below the join (pushFiltersIntoJoins). Any other shape is left as it is.
func foldThroughWhere(s *summarizeNode, w *whereNode) Node {
	j, ok := w.in.(*joinNode)
	if !ok || w.byJoin || j.def.Name != StrategyHash || !j.def.TakesWhere || j.jp.Where != nil || j.jp.Interval != nil {
		return s
	}
	aggs, ok := pairAggs(s.aggs, j.jp.Spec.Schema)
	if !ok {
		return s
	}
	j.jp.Where, j.where = w.pred, w.text
	return &joinAggNode{base: s.base, join: j, aggs: aggs, text: s.text}
}

// groupAggs translates a grouped summarize over join jp into the join's group keys and aggregates: keys must be
// columns of one side, aggregates count(), or those of a column read as is that join.GroupAggFolds allows.
// The kind must emit pairs (not semi or anti). It reports false for anything else.
func groupAggs(keys []expr.Expr, aggs []exec.Agg, jp *JoinPlan) ([]int, []join.GroupAgg, bool) {
	spec := jp.Spec
	switch spec.Kind {
	case join.Inner, join.InnerUnique, join.LeftOuter, join.RightOuter, join.FullOuter:
	default:
		return nil, nil, false
	}
	side := func(o int) int {
		for _, x := range spec.LeftOut {
			if x == o {
				return 0
			}
		}
		return 1
	}
	var out []int
	for i, k := range keys {
		ref, ok := k.(*expr.ColumnRef)
		if !ok || ref.Index >= len(spec.Schema) || ref.T != spec.Schema[ref.Index].Type {
			return nil, nil, false
		}
		if i > 0 && side(ref.Index) != side(out[0]) {
			return nil, nil, false
		}
		out = append(out, ref.Index)
	}
	gaggs := make([]join.GroupAgg, 0, len(aggs))
	for _, a := range aggs {
		if a.Func == "count" {
			gaggs = append(gaggs, join.GroupAgg{Func: "count"})
			continue
		}
		ref, ok := a.Arg.(*expr.ColumnRef)
		if !ok || ref.Index >= len(spec.Schema) || ref.T != spec.Schema[ref.Index].Type {
			return nil, nil, false
		}
		if a.Func != "dcount" && a.Type != ref.T || !join.GroupAggFolds(a.Func, ref.T, side(ref.Index) == side(out[0])) {
			return nil, nil, false
		}
		gaggs = append(gaggs, join.GroupAgg{Func: a.Func, Col: ref.Index})
	}
	return out, gaggs, true
}

// pairAggs translates summarize aggregates into the join's: count(), or sum() of a long, timespan or real
// column read as is. It reports false for anything else.
func pairAggs(aggs []exec.Agg, schema column.Schema) ([]join.PairAgg, bool) {
	out := make([]join.PairAgg, 0, len(aggs))
	for _, a := range aggs {
		switch a.Func {
		case "count":
			out = append(out, join.PairAgg{})
		case "sum":
			ref, ok := a.Arg.(*expr.ColumnRef)
			if !ok || ref.Index >= len(schema) || ref.T != schema[ref.Index].Type || a.Type != ref.T {
				return nil, false
			}
			switch ref.T {
			case column.Long, column.Timespan, column.Real:
			default:
				return nil, false
			}
			out = append(out, join.PairAgg{Sum: true, Col: ref.Index})
		default:
			return nil, false
		}
	}
	return out, true
}

// joinAggNode is a summarize folded into the hash join below it (see aggregateJoins).
type joinAggNode struct {
	base
	join *joinNode
	aggs []join.PairAgg
	text string
}

func (n *joinAggNode) Children() []Node   { return n.join.Children() }
func (n *joinAggNode) strategy() Strategy { return n.join.strategy() }
func (n *joinAggNode) why() string        { return n.join.why() }
func (n *joinAggNode) need([]bool) [][]bool {
	out := make([]bool, len(n.join.Schema()))
	for _, a := range n.aggs {
		if a.Sum {
			out[a.Col] = true
		}
	}
	return n.join.need(out)
}
func (n *joinAggNode) rows() float64 { return 1 }
func (n *joinAggNode) logical() string {
	return fmt.Sprintf("summarize %s over %s", n.text, n.join.logical())
}
func (n *joinAggNode) physical() string {
	return fmt.Sprintf("%s, aggregated in the join (output not materialised): %s", n.join.physical(), n.text)
}
func (n *joinAggNode) open(_ context.Context, env *exec.Env, c []exec.Operator) (exec.Operator, error) {
	jp := n.join.jp
	a, err := join.NewHashAggregate(jp.Spec, c[0], c[1], jp.BuildLeft, env.Budget, n.aggs, n.schema)
	if err != nil {
		return nil, err
	}
	if jp.Where != nil {
		a.SetWhere(jp.Where)
	}
	return a, nil
}

// joinGroupAggNode is a grouped summarize folded into the hash join below it (see aggregateJoins).
type joinGroupAggNode struct {
	joinAggNode
	keys  []int
	gaggs []join.GroupAgg
	// ran is the operator the last open made, which says which side the groups were on.
	ran *join.GroupAggregate
}

func (n *joinGroupAggNode) need([]bool) [][]bool {
	out := make([]bool, len(n.join.Schema()))
	for _, k := range n.keys {
		out[k] = true
	}
	for _, a := range n.gaggs {
		if a.Func != "count" {
			out[a.Col] = true
		}
	}
	return n.join.need(out)
}
func (n *joinGroupAggNode) rows() float64 { return n.join.rows() * 0.5 }
func (n *joinGroupAggNode) physical() string {
	s := fmt.Sprintf("%s, aggregated by group in the join (no pair formed): %s", n.join.physical(), n.text)
	if n.ran != nil {
		s += "; last run: " + n.ran.Explain()
	}
	return s
}
func (n *joinGroupAggNode) open(_ context.Context, env *exec.Env, c []exec.Operator) (exec.Operator, error) {
	jp := n.join.jp
	ga, err := join.NewGroupAggregate(jp.Spec, c[0], c[1], jp.BuildLeft, env.Budget, n.keys, n.gaggs)
	if err != nil {
		return nil, err
	}
	n.ran = ga
	s := ga.Combine(n.schema, env.Budget)
	s.ReportTo(env.Details)
	return s, nil
}
