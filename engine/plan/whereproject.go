package plan

import (
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/kql"
)

// pushWheresBelowProjects moves a where below a project, extend or project-away under it when the where reads
// only columns the project passes through as they are, under the same names: the where's condition, compiled
// against the project's input, reads exactly the input columns behind the output columns it reads above.
// Filtering rows and then computing the columns of those left gives the rows computing first and filtering
// after gives (a project works row by row and drops no row), so only the work changes: no column is computed
// for a row the where drops, and a where written after `join | project …` reaches the join, whose one-side
// conjuncts then move onto its sides (pushFiltersIntoJoins) and whose other conjuncts it evaluates on its row
// pairs (pushWheresIntoJoins). A where sinks through every such project in a row. It runs first in Build.
func pushWheresBelowProjects(root Node) Node {
	if !wheresBelowProjects {
		return root
	}
	return transform(root, func(n Node) Node {
		if w, ok := n.(*whereNode); ok && !w.byJoin {
			return sinkWhere(w)
		}
		return n
	})
}

// wheresBelowProjects turns pushWheresBelowProjects on; a test knob, so that the differential test compares
// each answer with the one the where above the project gives.
var wheresBelowProjects = true

// sinkWhere returns w moved below the projects under it that it reads through unchanged (see
// pushWheresBelowProjects), or w itself.
func sinkWhere(w *whereNode) Node {
	p, ok := w.in.(*projectNode)
	if !ok {
		return w
	}
	in := p.in.Schema()
	out := make([]int, len(in)) // input column i is output column out[i], or -1
	for i := range out {
		out[i] = -1
	}
	for o, x := range p.outs {
		if x.Input >= 0 && out[x.Input] < 0 && p.schema[o].Name == in[x.Input].Name {
			out[x.Input] = o
		}
	}
	below, err := expr.Compile(w.cond, in)
	if err != nil || !readsSame(w.pred, below, out) {
		return w
	}
	moved := &whereNode{base: base{schema: in}, in: p.in, cond: w.cond, pred: below, text: kql.String(w.cond)}
	p.in = sinkWhere(moved)
	return p
}
