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
func aggregateJoins(root Node) Node {
	return transform(root, func(n Node) Node {
		s, ok := n.(*summarizeNode)
		if !ok || len(s.keys) != 0 {
			return n
		}
		if j, ok := s.in.(*joinNode); ok && j.def.Name == StrategyHash {
			if aggs, ok := pairAggs(s.aggs, j.jp.Spec.Schema); ok {
				return &joinAggNode{base: s.base, join: j, aggs: aggs, text: s.text}
			}
		}
		return n
	})
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
	return join.NewHashAggregate(jp.Spec, c[0], c[1], jp.BuildLeft, env.Budget, n.aggs, n.schema)
}
