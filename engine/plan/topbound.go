package plan

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join"
)

// pushTopBounds pushes a top's bound into the hash join below it (top-N dynamic filtering):
//
//	top N by C                                 (one key, N > 0; also sort by C | take N, fused by the binder)
//	  over projects and wheres that pass C through unchanged
//	    over a hash join of kind=inner whose probe side has column C
//
// Once the top holds N rows it publishes the value of C in its last kept row (exec.TopBound), and the join
// checks every later probe row's C against it before looking its key up, skipping the rows that cannot enter
// the top. For `join … | sort by ts desc | take 100` that turns millions of pairs gathered and thrown away into
// one compare a probe row.
//
// The result is exactly the one without the bound: a skipped row would have reached the top after the rows that
// made the cut and sorted no earlier than the cut, so the top would have dropped it; a where in between only
// drops rows, a project only computes columns, so neither sees a difference. Only inner joins are filtered (see
// join.Hash.SetTopBound), and nothing that drops or counts rows (take, summarize, distinct) may lie in between.
//
// It runs once in Build, after the other rewrites and before liveness. Any other shape is left as it is.
func pushTopBounds(root Node) Node {
	return transform(root, func(n Node) Node {
		s, ok := n.(*sortNode)
		if !ok {
			return n
		}
		if j, col, filtered, ok := boundableJoin(s); ok {
			j.jp.Top = topInput(j, col, s, !filtered)
			return &boundedTopNode{sortNode: s, top: j.jp.Top}
		}
		return n
	})
}

// boundableJoin finds the inner hash join top s can filter, the index of s's key among the join's probe
// columns, and whether a where between them may drop join rows on their way to the top.
func boundableJoin(s *sortNode) (j *joinNode, col int, filtered, ok bool) {
	if s.limit <= 0 || len(s.keys) != 1 {
		return nil, 0, false, false
	}
	ref, ok := s.keys[0].Expr.(*expr.ColumnRef)
	if !ok || ref.T != s.in.Schema()[ref.Index].Type {
		return nil, 0, false, false
	}
	col = ref.Index
	n := s.in
	for {
		switch x := n.(type) {
		case *projectNode:
			o := x.outs[col]
			switch ref, isRef := o.Expr.(*expr.ColumnRef); {
			case o.Input >= 0 && o.Expr == nil:
				col = o.Input
			case isRef && ref.T == x.in.Schema()[ref.Index].Type:
				col = ref.Index
			default:
				return nil, 0, false, false
			}
			n = x.in
		case *whereNode:
			n, filtered = x.in, true
		case *joinNode:
			spec := x.jp.Spec
			if x.def.Name != StrategyHash || spec.Kind != join.Inner || x.jp.Interval != nil {
				return nil, 0, false, false
			}
			out := spec.LeftOut
			if x.jp.BuildLeft {
				out = spec.RightOut
			}
			for i, o := range out {
				if o == col {
					return x, i, filtered, true
				}
			}
			return nil, 0, false, false
		default:
			return nil, 0, false, false
		}
	}
}

// TopInput is the top N above a hash join whose bound filters the join's probe: an input of the join, set by
// pushTopBounds and read by the hash strategy when it opens the join (join.Hash.SetTopBound). The bound itself
// lives in each execution's Env, under the TopInput, where the top publishes it and the join reads it.
type TopInput struct {
	// Key is the top's key, on the join's probe column.
	Key exec.SortKey
	// Limit is the top's N.
	Limit int64
	// Whole is true when every join row reaches the top (no where in between), so the join may also pick the
	// top's candidates before it builds.
	Whole bool
}

// first is SetTopBound's first: the top's N when the join may pick the candidates first, else 0.
func (t *TopInput) first() int64 {
	if t.Whole {
		return t.Limit
	}
	return 0
}

// explain says what the bound does to the join, for its explain line.
func (t *TopInput) explain(probe string) string {
	s := fmt.Sprintf("; the bound of the top %d above is pushed into the join: probe rows whose %s cannot enter the top are skipped before their key is looked up",
		t.Limit, probe)
	if t.Whole {
		s += "; if its int keys are dense, it first picks the top's candidates and indexes only their build rows"
	}
	return s
}

// topInput makes the input join j takes from top, whose key is j's probe column col.
func topInput(j *joinNode, col int, top *sortNode, whole bool) *TopInput {
	probe := j.jp.Spec.Left
	if j.jp.BuildLeft {
		probe = j.jp.Spec.Right
	}
	k := top.keys[0]
	return &TopInput{
		Key:   exec.SortKey{Expr: &expr.ColumnRef{Index: col, T: probe[col].Type}, Asc: k.Asc, NullsFirst: k.NullsFirst},
		Limit: top.limit,
		Whole: whole,
	}
}

// boundedTopNode is a top whose bound is pushed into the hash join below it (see pushTopBounds).
type boundedTopNode struct {
	*sortNode
	top *TopInput
}

func (n *boundedTopNode) open(ctx context.Context, env *exec.Env, c []exec.Operator) (exec.Operator, error) {
	op, err := n.sortNode.open(ctx, env, c)
	if err != nil {
		return nil, err
	}
	if s, ok := op.(*exec.Sort); ok {
		s.ShareBound(env.TopBound(n.top))
	}
	return op, nil
}
