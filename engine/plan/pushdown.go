package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/dynfilter"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
)

// pushdown rewrites the plan so that sources which evaluate conditions themselves (source.Pushdown: a
// connector to a remote service) receive them: a where directly over a scan of such a source is split into its
// top-level conjuncts, the source takes those it can compute exactly and that fit its caps, and the where keeps
// the rest (or disappears when nothing is left). Every scan of such a source becomes a pushedScanNode, which
// reports its requests to the run's trace. Projection is already pushed: scans read only live columns.
//
// It runs once in Build, after binding and before liveness, over every node transform walks. It changes what
// is fetched, never the result: a rejected conjunct is still applied.
func pushdown(root Node) Node {
	return transform(root, func(n Node) Node {
		switch n := n.(type) {
		case *scanNode:
			if p, ok := n.src.(source.Pushdown); ok {
				return &pushedScanNode{base: n.base, src: p}
			}
		case *whereNode:
			if scan, ok := n.in.(*pushedScanNode); ok {
				return pushWhere(n, scan)
			}
		}
		return n
	})
}

// pushWhere offers w's conjuncts to the scan's source.
func pushWhere(w *whereNode, scan *pushedScanNode) Node {
	conj := conjuncts(w.cond, nil)
	pushed, rejected := scan.src.Push(conj)
	if len(rejected) == len(conj) {
		return w
	}
	in := &pushedScanNode{base: scan.base, src: pushed, filtered: scan.filtered + len(conj) - len(rejected)}
	if len(rejected) == 0 {
		return in
	}
	rest := rejected[0]
	for _, r := range rejected[1:] {
		rest = &kql.Binary{Op: "and", L: rest, R: r}
	}
	pred, err := expr.Compile(rest, w.schema)
	if err != nil {
		return w
	}
	return &whereNode{base: w.base, in: in, cond: rest, pred: pred, text: kql.String(rest)}
}

// conjuncts splits a condition at its top-level ands.
func conjuncts(e kql.Expr, dst []kql.Expr) []kql.Expr {
	if b, ok := e.(*kql.Binary); ok && b.Op == "and" {
		return conjuncts(b.R, conjuncts(b.L, dst))
	}
	return append(dst, e)
}

// pushedScanNode scans a source that applies pushed conditions itself.
type pushedScanNode struct {
	base
	src source.Pushdown
	// filtered counts the conjuncts pushed, for the row estimate.
	filtered int
	// dynKey, when set, is the key column of the join's dynamic filter this scan takes (dynfilter.go).
	dynKey string
	opened *dynfilter.Probe // the probe last opened, until its join takes it (dynfilter.go)
	ran    *dynfilter.Probe // the probe last opened, for explain after a run
}

// pushedSelectivity is the planner's guess at the fraction of rows one pushed condition keeps, the same guess
// a where makes.
const pushedSelectivity = 0.5

func (n *pushedScanNode) Children() []Node     { return nil }
func (n *pushedScanNode) need([]bool) [][]bool { return nil }
func (n *pushedScanNode) rows() float64 {
	r := float64(n.src.Rows())
	for i := 0; i < n.filtered; i++ {
		r *= pushedSelectivity
	}
	return r
}
func (n *pushedScanNode) logical() string {
	if p := n.src.Pushed(); p != "" {
		return fmt.Sprintf("scan @%s where %s", n.src.Name(), p)
	}
	return fmt.Sprintf("scan @%s", n.src.Name())
}
func (n *pushedScanNode) physical() string {
	var read []string
	for i, f := range n.schema {
		if n.live[i] {
			read = append(read, f.Name)
		}
	}
	pushed := ""
	if p := n.src.Pushed(); p != "" {
		pushed = ", pushed: " + p
	}
	if n.dynKey != "" {
		pushed += n.probeFilterExplain()
	}
	return fmt.Sprintf("connector scan @%s (%d rows) reading [%s]%s", n.src.Name(), n.src.Rows(), strings.Join(read, ", "), pushed)
}
func (n *pushedScanNode) open(ctx context.Context, env *exec.Env, _ []exec.Operator) (exec.Operator, error) {
	if n.dynKey != "" {
		return n.openProbe(env), nil
	}
	traced := &tracedSource{Pushdown: n.src, sink: env.Trace, details: env.Details}
	return exec.NewScan(ctx, traced, n.schema, n.live), nil
}

// tracedSource makes a Pushdown source's plain Scan report to one run's trace and details.
type tracedSource struct {
	source.Pushdown
	sink    trace.Sink
	details *trace.Details
}

func (t *tracedSource) Scan(ctx context.Context, cols []column.Field) source.Iterator {
	return t.ScanTraced(ctx, cols, t.sink, t.details)
}
