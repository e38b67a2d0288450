// Package plan turns a parsed query into a plan: names resolved against the sources' schemas, types checked,
// a join strategy chosen with its reason, and the columns each scan must read worked out from what the rest of
// the query uses. A Plan is immutable and can be opened any number of times into a tree of running operators.
package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/source"
)

// Options are what planning needs to know beyond the query and its sources.
type Options struct {
	// MemoryBudget is the bytes the query may hold (0: memory.DefaultBudget); strategies plan against it.
	MemoryBudget int64
}

// Plan is a validated, planned query.
type Plan struct {
	root Node
	// visible are the root's output columns that the query returns (hidden nested-path columns are not).
	visible []int
	schema  column.Schema
	// logical is the plan as bound, before the rewrites (pushdown, the paged join's order, folded aggregates,
	// top bounds, dynamic filters), for Explain.
	logical string
}

// Build plans q against sources, keyed by the name written after '@'. Errors about the query are *kql.Error
// values carrying a position.
func Build(ctx context.Context, q *kql.Query, sources map[string]source.Source, opts Options) (*Plan, error) {
	b := &binder{ctx: ctx, sources: sources, paths: dottedNames(q), names: map[*kql.Query][]string{},
		budget: memory.NewBudget(opts.MemoryBudget).Limit()}
	b.collectNames(q, nil)
	root, err := b.query(q)
	if err != nil {
		return nil, err
	}
	var logical strings.Builder
	explain(&logical, root, 1, logicalLine)
	root = pushWheresBelowProjects(root) // a where sinks below projects it reads through (whereproject.go)
	root = pushFiltersIntoJoins(root)    // a where's one-side conjuncts go below the join (filterjoin.go)
	root = pushdown(root)
	root = pagedRewrite(root)        // paged joins take the sort and take above them (paged_rewrite.go)
	root = pushSideExpressions(root) // aggregates' one-side expressions computed below the join (sideexpr.go)
	root = aggregateJoins(root)      // summarize count()/sum() folded into the hash join below it (joinagg.go)
	root = pushTopBounds(root)       // a top's bound filters the inner hash join's probe below it (topbound.go)
	root = pushWheresIntoJoins(root) // a where over a join runs on its row pairs (pairwhere.go)
	dynamicFilters(root)             // a hash join's build keys filter its connector probe scan (dynfilter.go)
	p := &Plan{root: root, logical: logical.String()}
	live := make([]bool, len(root.Schema()))
	for i, f := range root.Schema() {
		if !f.Hidden {
			live[i] = true
			p.visible = append(p.visible, i)
			p.schema = append(p.schema, f)
		}
	}
	setLive(root, live)
	return p, nil
}

// setLive marks the columns of n that something reads, and recursively of its children, so that scans read
// only those and operators skip computing the rest.
func setLive(n Node, live []bool) {
	n.setLive(live)
	for i, need := range n.need(live) {
		setLive(n.Children()[i], need)
	}
}

// plannedJoin is a join node of the plan: the strategy it runs and why the planner chose it.
type plannedJoin interface {
	strategy() Strategy
	why() string
}

// joins lists the plan's joins, outermost first.
func (p *Plan) joins() []plannedJoin {
	var out []plannedJoin
	var walk func(Node)
	walk = func(n Node) {
		if j, ok := n.(plannedJoin); ok {
			out = append(out, j)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(p.root)
	return out
}

// Strategies names the join strategies the plan runs, outermost first, comma-separated ("" without joins).
func (p *Plan) Strategies() string {
	var names []string
	for _, j := range p.joins() {
		names = append(names, string(j.strategy()))
	}
	return strings.Join(names, ",")
}

// Reason is why the planner chose the first join's strategy (the one Strategies names first), or "" when the
// query has no join.
func (p *Plan) Reason() string {
	if j := p.joins(); len(j) > 0 {
		return j[0].why()
	}
	return ""
}

// Schema is the output schema.
func (p *Plan) Schema() column.Schema { return p.schema }

// Open makes the running operators of the plan, returning the root; its batches hold only the visible columns.
func (p *Plan) Open(ctx context.Context, env *exec.Env) (exec.Operator, error) {
	op, err := open(ctx, p.root, env)
	if err != nil {
		return nil, err
	}
	return &visibleOnly{in: op, cols: p.visible, schema: p.schema}, nil
}

func open(ctx context.Context, n Node, env *exec.Env) (exec.Operator, error) {
	var children []exec.Operator
	for _, c := range n.Children() {
		op, err := open(ctx, c, env)
		if err != nil {
			return nil, err
		}
		children = append(children, op)
	}
	return n.open(ctx, env, children)
}

// visibleOnly drops the hidden columns from the root's batches.
type visibleOnly struct {
	in     exec.Operator
	cols   []int
	schema column.Schema
}

func (v *visibleOnly) Schema() column.Schema { return v.schema }

func (v *visibleOnly) Next(ctx context.Context) (*column.Batch, error) {
	b, err := v.in.Next(ctx)
	if b == nil || err != nil {
		return nil, err
	}
	cols := make([]*column.Vector, len(v.cols))
	for i, c := range v.cols {
		cols[i] = b.Cols[c]
		if cols[i] == nil { // cannot happen: visible columns are live
			return nil, fmt.Errorf("plan: output column %s was not computed", v.schema[i].Name)
		}
	}
	return column.NewBatch(cols, b.N), nil
}

// Explain prints the logical plan as the query was bound, before any rewrite (what it asks, with each node's
// columns), and the physical plan after the rewrites (how it runs: strategies and their reasons, what each
// scan reads and what was pushed into it, the sorts and aggregates a join took over).
func (p *Plan) Explain() string {
	var b strings.Builder
	b.WriteString("logical plan (as written, before rewrites):\n")
	b.WriteString(p.logical)
	b.WriteString("physical plan (after rewrites):\n")
	explain(&b, p.root, 1, func(n Node) string {
		return fmt.Sprintf("%s  (est. %.0f rows)", n.physical(), n.rows())
	})
	return b.String()
}

// logicalLine is a node's line in the logical plan: what it computes and the columns it gives.
func logicalLine(n Node) string {
	return fmt.Sprintf("%s  => [%s]", n.logical(), describeSchema(n.Schema()))
}

func explain(b *strings.Builder, n Node, depth int, line func(Node) string) {
	b.WriteString(strings.Repeat("  ", depth))
	b.WriteString(line(n))
	b.WriteByte('\n')
	for _, c := range n.Children() {
		explain(b, c, depth+1, line)
	}
}

func describeSchema(s column.Schema) string {
	parts := make([]string, 0, len(s))
	for _, f := range s {
		h := ""
		if f.Hidden {
			h = " hidden"
		}
		parts = append(parts, fmt.Sprintf("%s:%s%s", f.Name, f.Type, h))
	}
	return strings.Join(parts, ", ")
}
