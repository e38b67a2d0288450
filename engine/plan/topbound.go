package plan

import (
	"context"
	"fmt"
	"sync"

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
			push := &topPush{pending: map[*exec.Env]*exec.TopBound{}}
			push.wire(j, col, s, !filtered)
			return &boundedTopNode{sortNode: s, push: push}
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

// topPush is one top whose bound is pushed into a hash join. Opening the plan opens the join before the top
// (children first), so the join makes each execution's bound and leaves it here for its top, keyed by the
// execution's Env; a plan may be opened by several executions at once, hence the lock.
type topPush struct {
	mu      sync.Mutex
	pending map[*exec.Env]*exec.TopBound
}

// wire makes join j open as a hash join filtered by a fresh bound on its probe column col, and says so in j's
// explain line. With whole, every join row reaches the top, so the join may also pick the top's candidates
// before it builds (join.Hash.SetTopBound).
func (p *topPush) wire(j *joinNode, col int, top *sortNode, whole bool) {
	probe := j.jp.Spec.Left
	if j.jp.BuildLeft {
		probe = j.jp.Spec.Right
	}
	k := top.keys[0]
	key := exec.SortKey{Expr: &expr.ColumnRef{Index: col, T: probe[col].Type}, Asc: k.Asc, NullsFirst: k.NullsFirst}
	hashOpen := j.def.Open
	j.def.Open = func(jp *JoinPlan, l, r exec.Operator, env *exec.Env) (exec.Operator, error) {
		op, err := hashOpen(jp, l, r, env)
		if err != nil {
			return nil, err
		}
		h, ok := op.(*join.Hash)
		if !ok {
			return op, nil // not the operator this rewrite knows: no bound, same result
		}
		b := &exec.TopBound{}
		first := int64(0)
		if whole {
			first = top.limit
		}
		if err := h.SetTopBound(b, key, first); err != nil {
			return nil, fmt.Errorf("plan: %w", err)
		}
		p.mu.Lock()
		p.pending[env] = b
		p.mu.Unlock()
		return h, nil
	}
	j.reason += fmt.Sprintf("; the bound of the top %d above is pushed into the join: probe rows whose %s cannot enter the top are skipped before their key is looked up",
		top.limit, probe[col].Name)
	if whole {
		j.reason += "; if its int keys are dense, it first picks the top's candidates and indexes only their build rows"
	}
}

// take returns the bound the join made for the execution env, if it made one, and forgets it.
func (p *topPush) take(env *exec.Env) *exec.TopBound {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.pending[env]
	delete(p.pending, env)
	return b
}

// boundedTopNode is a top whose bound is pushed into the hash join below it (see pushTopBounds).
type boundedTopNode struct {
	*sortNode
	push *topPush
}

func (n *boundedTopNode) open(ctx context.Context, env *exec.Env, c []exec.Operator) (exec.Operator, error) {
	op, err := n.sortNode.open(ctx, env, c)
	if err != nil {
		return nil, err
	}
	if s, ok := op.(*exec.Sort); ok {
		if b := n.push.take(env); b != nil {
			s.ShareBound(b)
		}
	}
	return op, nil
}
