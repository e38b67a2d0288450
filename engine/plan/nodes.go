package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/source"
)

// Node is one operator of a plan. Nodes are immutable once the plan is built, except for the liveness pass
// that runs once inside Build.
type Node interface {
	Schema() column.Schema
	Children() []Node
	// need maps the node's live output columns to the live columns of each child.
	need(out []bool) [][]bool
	// open makes the running operator, given the children's operators.
	open(ctx context.Context, env *exec.Env, children []exec.Operator) (exec.Operator, error)
	// logical and physical describe the node for explain.
	logical() string
	physical() string
	// rows is the planner's estimate of the output rows.
	rows() float64
	setLive(live []bool)
}

// base holds what every node has.
type base struct {
	schema column.Schema
	live   []bool
}

func (b *base) Schema() column.Schema { return b.schema }
func (b *base) setLive(l []bool)      { b.live = l }

func all(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

func refs(in int, exprs ...expr.Expr) []bool {
	need := make([]bool, in)
	for _, e := range exprs {
		if e == nil {
			continue
		}
		for _, r := range e.Refs(nil) {
			need[r] = true
		}
	}
	return need
}

func or(a, b []bool) []bool {
	for i := range a {
		a[i] = a[i] || b[i]
	}
	return a
}

// scanNode reads a source.
type scanNode struct {
	base
	src source.Source
}

func (n *scanNode) Children() []Node     { return nil }
func (n *scanNode) need([]bool) [][]bool { return nil }
func (n *scanNode) rows() float64        { return float64(n.src.Rows()) }
func (n *scanNode) logical() string      { return fmt.Sprintf("scan @%s", n.src.Name()) }
func (n *scanNode) physical() string {
	var read []string
	for i, f := range n.schema {
		if n.live[i] {
			read = append(read, f.Name)
		}
	}
	return fmt.Sprintf("scan @%s (%d rows) reading [%s]", n.src.Name(), n.src.Rows(), strings.Join(read, ", "))
}
func (n *scanNode) open(ctx context.Context, _ *exec.Env, _ []exec.Operator) (exec.Operator, error) {
	return exec.NewScan(ctx, n.src, n.schema, n.live), nil
}

// whereNode filters.
type whereNode struct {
	base
	in   Node
	cond kql.Expr // the condition as written, for rewrites such as pushdown
	pred expr.Expr
	text string
	// byJoin marks a where the paged join above applies itself to the rows it fetches (join.EngineCond):
	// explain says so, as the node never runs on its own.
	byJoin bool
}

func (n *whereNode) Children() []Node { return []Node{n.in} }
func (n *whereNode) need(out []bool) [][]bool {
	return [][]bool{or(append([]bool(nil), out...), refs(len(out), n.pred))}
}
func (n *whereNode) rows() float64   { return n.in.rows() * 0.5 }
func (n *whereNode) logical() string { return "where " + n.text }
func (n *whereNode) physical() string {
	if n.byJoin {
		return "filter " + n.text + ", applied by the paged join above to the rows it fetches"
	}
	return "filter " + n.text
}
func (n *whereNode) open(_ context.Context, _ *exec.Env, c []exec.Operator) (exec.Operator, error) {
	f := exec.NewFilter(c[0], n.pred)
	f.Keep(n.live)
	return f, nil
}

// projectNode computes columns: project, project-away, extend, and the column list of distinct.
type projectNode struct {
	base
	in   Node
	outs []exec.Output
	// asts holds, per output, the expression it was compiled from, nil for one kept as it was (extend's
	// input columns); nil when unknown. pushSideExpressions reads them.
	asts []kql.Expr
	text string
}

func (n *projectNode) Children() []Node { return []Node{n.in} }
func (n *projectNode) need(out []bool) [][]bool {
	need := make([]bool, len(n.in.Schema()))
	for i, o := range n.outs {
		if !out[i] {
			continue
		}
		if o.Input >= 0 {
			need[o.Input] = true
		}
		or(need, refs(len(need), o.Expr))
	}
	return [][]bool{need}
}
func (n *projectNode) rows() float64    { return n.in.rows() }
func (n *projectNode) logical() string  { return n.text }
func (n *projectNode) physical() string { return "compute " + n.text }
func (n *projectNode) open(_ context.Context, _ *exec.Env, c []exec.Operator) (exec.Operator, error) {
	outs := make([]exec.Output, len(n.outs))
	for i, o := range n.outs {
		if n.live[i] {
			outs[i] = o
		} else {
			outs[i] = exec.Output{Input: -1}
		}
	}
	return exec.NewProject(c[0], n.schema, outs), nil
}

// summarizeNode groups and aggregates.
type summarizeNode struct {
	base
	in   Node
	keys []expr.Expr
	aggs []exec.Agg
	// args holds, per aggregate, the expression its argument was compiled from (nil: count(), or unknown).
	args []kql.Expr
	text string
}

func (n *summarizeNode) Children() []Node { return []Node{n.in} }
func (n *summarizeNode) need([]bool) [][]bool {
	es := append([]expr.Expr(nil), n.keys...)
	for _, a := range n.aggs {
		es = append(es, a.Arg)
	}
	return [][]bool{refs(len(n.in.Schema()), es...)}
}
func (n *summarizeNode) rows() float64 {
	if len(n.keys) == 0 {
		return 1
	}
	return n.in.rows() * 0.5
}
func (n *summarizeNode) logical() string  { return "summarize " + n.text }
func (n *summarizeNode) physical() string { return "hash aggregate " + n.text }
func (n *summarizeNode) open(_ context.Context, env *exec.Env, c []exec.Operator) (exec.Operator, error) {
	s := exec.NewSummarize(c[0], n.schema, n.keys, n.aggs, env.Budget)
	s.ReportTo(env.Details)
	return s, nil
}

// sortNode sorts, or keeps the top rows when limit >= 0.
type sortNode struct {
	base
	in    Node
	keys  []exec.SortKey
	limit int64
	text  string
}

func (n *sortNode) Children() []Node { return []Node{n.in} }
func (n *sortNode) need(out []bool) [][]bool {
	need := append([]bool(nil), out...)
	for _, k := range n.keys {
		or(need, refs(len(need), k.Expr))
	}
	return [][]bool{need}
}
func (n *sortNode) rows() float64 {
	if n.limit >= 0 {
		return min(n.in.rows(), float64(n.limit))
	}
	return n.in.rows()
}
func (n *sortNode) logical() string {
	if n.limit >= 0 {
		return fmt.Sprintf("top %d by %s", n.limit, n.text)
	}
	return "sort by " + n.text
}
func (n *sortNode) physical() string {
	if n.limit >= 0 {
		return fmt.Sprintf("sort, keep first %d, by %s", n.limit, n.text)
	}
	return "sort by " + n.text
}
func (n *sortNode) open(_ context.Context, env *exec.Env, c []exec.Operator) (exec.Operator, error) {
	s := exec.NewSort(c[0], n.keys, n.limit, env.Budget)
	s.ReportTo(env.Details)
	return s, nil
}

// takeNode keeps the first n rows.
type takeNode struct {
	base
	in Node
	n  int64
}

func (n *takeNode) Children() []Node         { return []Node{n.in} }
func (n *takeNode) need(out []bool) [][]bool { return [][]bool{out} }
func (n *takeNode) rows() float64            { return min(n.in.rows(), float64(n.n)) }
func (n *takeNode) logical() string          { return fmt.Sprintf("take %d", n.n) }
func (n *takeNode) physical() string         { return fmt.Sprintf("take %d, then stop reading", n.n) }
func (n *takeNode) open(_ context.Context, _ *exec.Env, c []exec.Operator) (exec.Operator, error) {
	return exec.NewTake(c[0], n.n), nil
}

// distinctNode keeps the first row of each distinct combination of its input's columns.
type distinctNode struct {
	base
	in Node
}

func (n *distinctNode) Children() []Node     { return []Node{n.in} }
func (n *distinctNode) need([]bool) [][]bool { return [][]bool{all(len(n.schema))} }
func (n *distinctNode) rows() float64        { return n.in.rows() * 0.5 }
func (n *distinctNode) logical() string      { return "distinct " + names(n.schema) }
func (n *distinctNode) physical() string     { return "hash distinct " + names(n.schema) }
func (n *distinctNode) open(_ context.Context, env *exec.Env, c []exec.Operator) (exec.Operator, error) {
	d := exec.NewDistinct(c[0], env.Budget)
	d.ReportTo(env.Details)
	return d, nil
}

// countNode counts.
type countNode struct {
	base
	in Node
}

func (n *countNode) Children() []Node     { return []Node{n.in} }
func (n *countNode) need([]bool) [][]bool { return [][]bool{make([]bool, len(n.in.Schema()))} }
func (n *countNode) rows() float64        { return 1 }
func (n *countNode) logical() string      { return "count" }
func (n *countNode) physical() string     { return "count" }
func (n *countNode) open(_ context.Context, _ *exec.Env, c []exec.Operator) (exec.Operator, error) {
	return exec.NewCount(c[0]), nil
}

// joinNode joins its two children with the strategy the planner chose.
type joinNode struct {
	base
	left, right Node
	jp          *JoinPlan
	def         StrategyDef
	reason      string
	on          string
	// dynProbe, when set, is the probe scan fed by this join's build keys (dynfilter.go).
	dynProbe *pushedScanNode
	// ran is the operator the last open made, when it can say how its run went (the hash join's key map
	// and whether its probe was partitioned, known only once it has built): explain adds it as "last run:".
	ran interface{ ProbeExplain() string }
	// where is the text of jp.Where, for explain (pushWheresIntoJoins).
	where string
}

func (n *joinNode) Children() []Node   { return []Node{n.left, n.right} }
func (n *joinNode) strategy() Strategy { return n.def.Name }
func (n *joinNode) why() string {
	if t := n.jp.Top; t != nil {
		probe := n.jp.Spec.Left
		if n.jp.BuildLeft {
			probe = n.jp.Spec.Right
		}
		return n.reason + t.explain(probe[t.Key.Expr.(*expr.ColumnRef).Index].Name)
	}
	return n.reason
}

// setLive also tells the join which of its output columns are read above it, so that it gathers only those
// (join.Spec.Live): a key read only to match is not copied into the output.
func (n *joinNode) setLive(live []bool) {
	n.base.setLive(live)
	n.jp.Spec.Live = live
}

func (n *joinNode) need(out []bool) [][]bool {
	spec := n.jp.Spec
	if w := n.jp.Where; w != nil { // the where on the pairs reads its columns from the sides too
		out = or(append([]bool(nil), out...), refs(len(out), w))
	}
	l, r := make([]bool, len(spec.Left)), make([]bool, len(spec.Right))
	for i, o := range spec.LeftOut {
		l[i] = o >= 0 && out[o]
	}
	for i, o := range spec.RightOut {
		r[i] = o >= 0 && out[o]
	}
	for i := range spec.LeftKeys {
		l[spec.LeftKeys[i]], r[spec.RightKeys[i]] = true, true
	}
	return [][]bool{l, r}
}
func (n *joinNode) rows() float64 { return max(n.left.rows(), n.right.rows()) }
func (n *joinNode) logical() string {
	return fmt.Sprintf("join kind=%s on %s", n.jp.Spec.Kind, n.on)
}
func (n *joinNode) physical() string {
	extra := ""
	if n.def.Explain != nil {
		extra = ", " + n.def.Explain(n.jp)
	}
	if n.jp.Where != nil {
		extra += ", where " + n.where + " on the row pairs before their columns are copied"
	}
	if n.ran != nil {
		extra += "; last run: " + n.ran.ProbeExplain()
	}
	return fmt.Sprintf("%s join kind=%s%s: %s", n.def.Name, n.jp.Spec.Kind, extra, n.why())
}
func (n *joinNode) open(_ context.Context, env *exec.Env, c []exec.Operator) (exec.Operator, error) {
	op, err := n.def.Open(n.jp, c[0], c[1], env)
	if err != nil {
		return nil, err
	}
	if err := wireProbeFilter(n, op); err != nil {
		return nil, err
	}
	if r, ok := op.(interface{ ProbeExplain() string }); ok {
		n.ran = r
	}
	return op, nil
}

func names(s column.Schema) string {
	out := make([]string, 0, len(s))
	for _, f := range s {
		out = append(out, f.Name)
	}
	return strings.Join(out, ", ")
}
