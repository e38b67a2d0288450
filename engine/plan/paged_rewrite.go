package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join"
)

// pagedRewrite hands a paged-family join the order and the row count the query asks above it, so the join
// produces the query's global order itself and stops as soon as the rows are certain:
//
//	sort by C1 [asc|desc] [nulls first|last], C2 … [| take N]   or   top N by C1, …   or   take N
//	  over projects and wheres that pass the Ci through unchanged
//	    over a paged join whose paged side has the columns Ci
//
// becomes the join with Sort = C1, C2 … (and Limit = N when only projects lie between, since a where would drop
// rows after the join counted them), the sort removed (a top N becomes a take N). A sort the join cannot
// follow — an expression, a column of the other side, the join key before the last place, a column after the
// first that the source does not declare never null, several columns under a baseline, a baseline that does
// not claim the order, nulls first under a kind that emits the probe side's unmatched rows last — is
// left in place: the answer stays right, only streaming and the early stop are lost, and explain says so.
//
// It runs once in Build, after pushdown and before liveness; it never changes the result of a correct
// strategy, only where the ordering happens.
func pagedRewrite(n Node) Node {
	return (&pagedRewriter{cfgs: map[*joinNode]join.PagedConfig{}}).rewrite(n)
}

func (r *pagedRewriter) rewrite(root Node) Node {
	return transform(root, func(n Node) Node {
		switch n := n.(type) {
		case *sortNode:
			if j, cols, onlyProjects := orderedJoin(n.in, n.keys); j != nil {
				if r.setOrder(j, cols, n.limit, onlyProjects) {
					if n.limit >= 0 {
						return &takeNode{base: n.base, in: n.in, n: n.limit}
					}
					return n.in
				}
			}
		case *takeNode:
			if j, _, onlyProjects := passThrough(n.in, -1); j != nil && onlyProjects {
				r.setLimit(j, n.n)
			}
		case *joinNode:
			if n.def.Name == StrategyPaged {
				for _, side := range n.Children() {
					if cs, ok := sideSource(side); ok {
						for _, w := range cs.engine {
							w.byJoin = true
						}
					}
				}
			}
		}
		return n
	})
}

// pagedJoin reports whether n is a paged-family join.
func pagedJoin(n Node) (*joinNode, bool) {
	j, ok := n.(*joinNode)
	if !ok {
		return nil, false
	}
	_, family := pagedFamily[j.def.Name]
	return j, family
}

// passThrough follows column col (-1: none) down through projects and wheres to a paged join, returning the
// join, the column's index in the join's output, and whether only projects were crossed.
func passThrough(n Node, col int) (*joinNode, int, bool) {
	onlyProjects := true
	for {
		if j, ok := pagedJoin(n); ok {
			return j, col, onlyProjects
		}
		switch x := n.(type) {
		case *projectNode:
			if col >= 0 {
				o := x.outs[col]
				switch {
				case o.Input >= 0 && o.Expr == nil:
					col = o.Input
				default:
					ref, ok := o.Expr.(*expr.ColumnRef)
					if !ok {
						return nil, 0, false
					}
					col = ref.Index
				}
			}
			n = x.in
		case *whereNode:
			onlyProjects = false
			n = x.in
		default:
			return nil, 0, false
		}
	}
}

// orderedJoin finds the paged join a sort can be handed to — every key a column passed through unchanged from
// the join's paged side — and the sort's columns on that side.
func orderedJoin(n Node, keys []exec.SortKey) (*joinNode, []join.SortColumn, bool) {
	var (
		j            *joinNode
		cols         []join.SortColumn
		onlyProjects bool
	)
	for _, k := range keys {
		ref, ok := k.Expr.(*expr.ColumnRef)
		if !ok {
			return nil, nil, false
		}
		kj, col, only := passThrough(n, ref.Index)
		if kj == nil || (j != nil && kj != j) {
			return nil, nil, false
		}
		j, onlyProjects = kj, only
		name, ok := pagedColumn(j, col)
		if !ok {
			return nil, nil, false
		}
		cols = append(cols, join.SortColumn{Column: name, Desc: !k.Asc, NullsFirst: k.NullsFirst})
	}
	return j, cols, onlyProjects
}

// pagedColumn names the paged side's column that is output column col of join j.
func pagedColumn(j *joinNode, col int) (string, bool) {
	out, schema := j.jp.Spec.RightOut, j.jp.Spec.Right
	if pagedLeft(j.jp) {
		out, schema = j.jp.Spec.LeftOut, j.jp.Spec.Left
	}
	for i, o := range out {
		if o == col {
			return schema[i].Name, true
		}
	}
	return "", false
}

// setOrder hands the sort (and the limit, when only projects lie between) to the join, if its strategy
// claims that order: the paged join follows any columns of its paged side, mixed directions and nulls included,
// with the join key only last (it is the cursor's tiebreaker); a baseline claims at most one column. It reports
// whether it did.
func (r *pagedRewriter) setOrder(j *joinNode, cols []join.SortColumn, limit int64, onlyProjects bool) bool {
	fam := pagedFamily[j.def.Name]
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Column
		if c.Desc {
			names[i] += " desc"
		} else {
			names[i] += " asc"
		}
	}
	text := strings.Join(names, ", ")
	cs, ok := sideSource(pagedSideNode(j.jp))
	claimed := ok && (j.def.Name == StrategyPaged || len(cols) == 1) && fam.claimsOrder(cols[0].Column, cols[0].Desc, cs.src.Info())
	key := j.jp.Spec.RightKeys[0]
	keySchema := j.jp.Spec.Right
	if pagedLeft(j.jp) {
		key, keySchema = j.jp.Spec.LeftKeys[0], j.jp.Spec.Left
	}
	for i, c := range cols {
		if c.Column == keySchema[key].Name && i != len(cols)-1 {
			claimed = false // the key in the middle: the cursor (sort…, key) would not follow it
		}
	}
	if !claimed {
		j.reason += fmt.Sprintf("; the sort by %s stays above the join (this strategy does not produce that order)", text)
		return false
	}
	nullable := 0
	for _, c := range cols {
		if c.Column != keySchema[key].Name && !slices.Contains(cs.src.Info().NeverNull, c.Column) {
			nullable++
		}
	}
	if nullable > join.MaxNullableSortColumns {
		j.reason += fmt.Sprintf("; the sort by %s stays above the join (%d of its columns may hold nulls, at most %d are paged: each doubles the null phases)",
			text, nullable, join.MaxNullableSortColumns)
		return false
	}
	if err := join.CheckPagedSort(j.jp.Spec.Kind, pagedLeft(j.jp), cols); err != nil {
		j.reason += fmt.Sprintf("; the sort by %s stays above the join (%v)", text, err)
		return false
	}
	cfg := r.cfg(j)
	cfg.Sort = cols
	j.reason += fmt.Sprintf("; output in the query's order (%s, then the key), the sort above removed", text)
	if limit >= 0 && onlyProjects {
		cfg.Limit = limit
		j.reason += fmt.Sprintf("; stops after %d rows", limit)
	}
	r.set(j, cfg)
	return true
}

func (r *pagedRewriter) setLimit(j *joinNode, n int64) {
	cfg := r.cfg(j)
	if cfg.Limit >= 0 && cfg.Limit <= n {
		return
	}
	cfg.Limit = n
	j.reason += fmt.Sprintf("; take %d stops paging once %d rows are out", n, n)
	r.set(j, cfg)
}

func pagedSideNode(jp *JoinPlan) Node {
	if pagedLeft(jp) {
		return jp.left
	}
	return jp.right
}

// pagedRewriter is one run of the pass: the configuration handed to each join so far (a sort, then a take
// above it, both configure the same join).
type pagedRewriter struct {
	cfgs map[*joinNode]join.PagedConfig
}

func (r *pagedRewriter) cfg(j *joinNode) join.PagedConfig {
	if c, ok := r.cfgs[j]; ok {
		return c
	}
	return join.PagedConfig{Limit: -1, PagedLeft: pagedLeft(j.jp)}
}

// set records cfg and makes the join's strategy open with it.
func (r *pagedRewriter) set(j *joinNode, cfg join.PagedConfig) {
	r.cfgs[j] = cfg
	name := j.def.Name
	j.def.Open = func(jp *JoinPlan, _, _ exec.Operator, env *exec.Env) (exec.Operator, error) {
		c := cfg
		c.PagedLeft = pagedLeft(jp)
		return openPaged(jp, name, c, env)
	}
}
