package runner

import "github.com/joinlab/joinlab/engine/kql"

// arbitraryTake reports whether q keeps the first rows of a pipeline whose order nothing defines: a take (or
// limit) with no sort or top before it since the last operator that makes a new order (a source's scan, a
// join, a summarize, a distinct). KQL leaves such rows to the engine, so two strategies may rightly keep
// different ones: the page then calls two runs' rows arbitrary instead of lost or extra. A join's right side is
// a pipeline of its own and is checked the same way. The walk is over the query's operators, once.
func arbitraryTake(q *kql.Query) bool {
	ordered := false // a source's rows come in whatever order its connector serves
	for _, op := range q.Ops {
		switch o := op.(type) {
		case *kql.Sort, *kql.Top:
			ordered = true
		case *kql.Take:
			if !ordered {
				return true
			}
		case *kql.Where, *kql.Project, *kql.ProjectAway, *kql.Extend:
			// keep the rows' order
		case *kql.Count:
			ordered = true // one row: nothing to choose from
		case *kql.Join:
			if o.Right != nil && arbitraryTake(o.Right) {
				return true
			}
			ordered = false
		default:
			ordered = false
		}
	}
	return false
}
