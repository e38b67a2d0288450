package plan

// pushWheresIntoJoins hands a where directly above a join to the join itself, when its strategy takes one
// (StrategyDef.TakesWhere): the join evaluates it on each output batch's row pairs and copies the other
// columns only for the pairs that pass (join's pairs.go). The result is the where's over the join's output —
// the predicate is the same expression over the same output schema, null-extended rows of the outer kinds
// included — only the copying changes: a column the predicate alone reads (ts in `where v > w and ts % 3 !=
// 0`) is gathered for the pairs the first conjunct kept, and never for the output.
//
// It runs after the rewrites that read a where between a join and what is above it (aggregateJoins folds a
// summarize only over a join with no where between; pushTopBounds looks through a where and counts it), so
// those see the where as written; and after pushFiltersIntoJoins, so only the conjuncts over both sides (or
// over a side the kind keeps them above) remain. The paged family's own where (byJoin) stays where it is.
func pushWheresIntoJoins(root Node) Node {
	if !wheresIntoJoins {
		return root
	}
	return transform(root, func(n Node) Node {
		w, ok := n.(*whereNode)
		if !ok || w.byJoin {
			return n
		}
		j, ok := w.in.(*joinNode)
		if !ok || !j.def.TakesWhere || j.jp.Where != nil || j.jp.Interval != nil {
			return n
		}
		j.jp.Where, j.where = w.pred, w.text
		return j
	})
}

// wheresIntoJoins turns pushWheresIntoJoins on; a test knob, so that the oracle test compares each answer with
// the one the where over the join's output gives.
var wheresIntoJoins = true
