package plan

import (
	"slices"

	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/kql"
)

// pushFiltersIntoJoins moves the conjuncts of a where directly over a join that read one side's columns only
// below the join, onto that side, where the kind allows: a filter of a side's rows before the join gives the
// same rows as the filter of the join's output when every output row of an input row carries that row's
// values and the kind adds no row of its own on that side. So:
//
//	inner                   both sides
//	innerunique             the right side (the left is reduced to one row per key first: a left filter
//	                        below would change which row is kept)
//	leftouter, leftsemi,    the left side (the right side's columns are null on a row no right row
//	leftanti                matched, which a filter above sees and one below would not)
//	rightouter, rightsemi,  the right side
//	rightanti
//	fullouter               neither
//
// Each side then reads fewer rows into the join (a smaller build table, a shorter probe), a connector side
// takes the condition into its requests (pushdown runs after), and a summarize over a join with no where
// left between them folds into the join (aggregateJoins). A conjunct over both sides stays above. The paged
// family is left alone: it builds its own requests from its sides' conditions, and its baselines refuse the
// ones a connector cannot compute.
//
// A conjunct moves only when it reads the same columns under the side's own names: it is compiled against the
// side's schema, and must read exactly the input columns whose output columns it read above (a right column
// renamed in the output, user_id1, is not its input's name). It runs once in Build, after binding and before
// the other rewrites; it changes how much each side feeds the join, never the result.
func pushFiltersIntoJoins(root Node) Node {
	if !filterIntoJoins {
		return root
	}
	return transform(root, pushFilterIntoJoin)
}

// filterIntoJoins turns pushFiltersIntoJoins on; a test knob, so that the differential test compares each
// answer with the one the filter above the join gives.
var filterIntoJoins = true

// pushFilterIntoJoin is pushFiltersIntoJoins at one node.
func pushFilterIntoJoin(n Node) Node {
	w, ok := n.(*whereNode)
	if !ok {
		return n
	}
	var j *joinNode
	switch in := w.in.(type) {
	case *joinNode:
		j = in
	case *intervalJoinNode:
		j = in.joinNode
	default:
		return n
	}
	if _, paged := pagedFamily[j.def.Name]; paged {
		return n
	}
	left, right := filterSides(j.jp.Spec.Kind)
	var keep, toLeft, toRight []kql.Expr
	for _, c := range conjuncts(w.cond, nil) {
		switch {
		case left && readsOnly(c, w, j.left, j.jp.Spec.LeftOut):
			toLeft = append(toLeft, c)
		case right && readsOnly(c, w, j.right, j.jp.Spec.RightOut):
			toRight = append(toRight, c)
		default:
			keep = append(keep, c)
		}
	}
	if len(toLeft) == 0 && len(toRight) == 0 {
		return n
	}
	l, err := filtered(j.left, toLeft)
	if err != nil {
		return n
	}
	r, err := filtered(j.right, toRight)
	if err != nil {
		return n
	}
	setSide(j, 0, l)
	setSide(j, 1, r)
	if len(keep) == 0 {
		return w.in
	}
	rest := and(keep)
	pred, err := expr.Compile(rest, w.schema)
	if err != nil {
		return n // cannot happen: each conjunct compiled in this schema as part of w's condition
	}
	return &whereNode{base: w.base, in: w.in, cond: rest, pred: pred, text: kql.String(rest)}
}

// filterSides says which sides of a join of kind k a filter above may move to (see pushFiltersIntoJoins).
func filterSides(k join.Kind) (left, right bool) {
	switch k {
	case join.Inner:
		return true, true
	case join.InnerUnique, join.RightOuter, join.RightSemi, join.RightAnti:
		return false, true
	case join.LeftOuter, join.LeftSemi, join.LeftAnti:
		return true, false
	}
	return false, false
}

// readsOnly reports whether conjunct c of w (a where over a join) reads only columns of side, whose column i is
// the join's output column out[i], by the same names there: compiled against side's schema it reads exactly
// the side's columns behind the output columns it reads over the join.
func readsOnly(c kql.Expr, w *whereNode, side Node, out []int) bool {
	above, err := expr.Compile(c, w.schema)
	if err != nil {
		return false
	}
	below, err := expr.Compile(c, side.Schema())
	if err != nil {
		return false
	}
	return readsSame(above, below, out)
}

// readsSame reports whether below, an expression compiled over one side of a join, reads exactly the output
// columns above (the same written over the join's output) reads, the side's column i being output column
// out[i] (-1: not output).
func readsSame(above, below expr.Expr, out []int) bool {
	want := slices.Compact(slices.Sorted(slices.Values(above.Refs(nil))))
	var got []int
	for _, i := range below.Refs(nil) {
		if i < 0 || i >= len(out) || out[i] < 0 {
			return false
		}
		got = append(got, out[i])
	}
	slices.Sort(got)
	return slices.Equal(want, slices.Compact(got))
}

// filtered is side under a where of the conjuncts conds (side itself when there are none).
func filtered(side Node, conds []kql.Expr) (Node, error) {
	if len(conds) == 0 {
		return side, nil
	}
	cond := and(conds)
	pred, err := expr.Compile(cond, side.Schema())
	if err != nil {
		return nil, err
	}
	return &whereNode{base: base{schema: side.Schema()}, in: side, cond: cond, pred: pred, text: kql.String(cond)}, nil
}

// and joins conjuncts back into one condition, in their order.
func and(conds []kql.Expr) kql.Expr {
	out := conds[0]
	for _, c := range conds[1:] {
		out = &kql.Binary{Op: "and", L: out, R: c}
	}
	return out
}
