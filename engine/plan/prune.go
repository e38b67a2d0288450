package plan

import (
	"context"
	"fmt"
	"math"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/plan/planevent"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
)

// pruneByTime narrows a scan of a time-partitioned source to the partitions a filter can keep. The filter's
// top-level conjuncts that bound the source's time column by constants (t >= c, t < c, t == c,
// t between (a .. b), either way round) give a range [lo, hi]; partitions wholly outside it are not read. The
// filter itself still runs above the scan, so pruning changes what is read, never the result. Any other
// input is returned as it is.
func pruneByTime(in Node, pred kql.Expr) Node {
	var full source.TimePartitioned
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch n := in.(type) {
	case *scanNode:
		tp, ok := n.src.(source.TimePartitioned)
		if !ok {
			return in
		}
		full = tp
	case *prunedScanNode: // a second where narrows the range further
		full, lo, hi = n.full, n.lo, n.hi
	default:
		return in
	}
	schema := in.Schema()
	tc := schema.Index(full.TimeColumn())
	if tc < 0 {
		return in
	}
	narrowed := false
	for _, c := range andTerms(pred, nil) {
		if l, h, ok := timeBounds(c, full.TimeColumn(), schema); ok {
			lo, hi, narrowed = max(lo, l), min(hi, h), true
		}
	}
	if !narrowed {
		return in
	}
	view, pruned := full.Prune(lo, hi)
	scan := scanNode{base: base{schema: schema}, src: view}
	return &prunedScanNode{scanNode: scan, full: full, lo: lo, hi: hi, pruned: pruned}
}

// timeBounds reads one conjunct as a range of the time column: [lo, hi], open ends at the int64 limits.
// The column holds integers (datetime, timespan or long), so t < c is t <= c-1.
func timeBounds(e kql.Expr, timeCol string, schema column.Schema) (lo, hi int64, ok bool) {
	lo, hi = math.MinInt64, math.MaxInt64
	isTime := func(x kql.Expr) bool {
		id, ok := x.(*kql.Ident)
		return ok && id.Name == timeCol
	}
	constant := func(x kql.Expr) (int64, bool) {
		c, err := expr.Compile(x, schema)
		if err != nil || len(c.Refs(nil)) > 0 {
			return 0, false
		}
		switch c.Type() {
		case column.DateTime, column.Long, column.Timespan:
		default:
			return 0, false
		}
		v := c.Eval(column.NewBatch(nil, 1)).Value(0)
		return v.Int, !v.Null
	}
	switch e := e.(type) {
	case *kql.Between:
		if e.Not || !isTime(e.X) {
			return lo, hi, false
		}
		a, okA := constant(e.Lo)
		b, okB := constant(e.Hi)
		return a, b, okA && okB
	case *kql.Binary:
		op := e.Op
		x, c := e.L, e.R
		if !isTime(x) {
			x, c = e.R, e.L
			op = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "=="}[op]
		}
		if !isTime(x) {
			return lo, hi, false
		}
		v, okV := constant(c)
		if !okV {
			return lo, hi, false
		}
		// The time column is stored as an integer, so a strict bound moves by one, unless already at the limit.
		switch {
		case op == ">" && v < math.MaxInt64:
			return v + 1, hi, true
		case op == "<" && v > math.MinInt64:
			return lo, v - 1, true
		}
		switch op {
		case ">", ">=":
			return v, hi, true
		case "<", "<=":
			return lo, v, true
		case "==":
			return v, v, true
		}
	}
	return lo, hi, false
}

// prunedScanNode scans the partitions of a time-partitioned source that its filter can keep.
type prunedScanNode struct {
	scanNode
	full   source.TimePartitioned
	lo, hi int64
	pruned int
}

func (n *prunedScanNode) physical() string {
	return fmt.Sprintf("%s; %d of %d partitions read, %d pruned by time", n.scanNode.physical(),
		n.full.Partitions()-n.pruned, n.full.Partitions(), n.pruned)
}

func (n *prunedScanNode) open(ctx context.Context, env *exec.Env, c []exec.Operator) (exec.Operator, error) {
	env.Details.Add("partitions_pruned", int64(n.pruned))
	env.Details.Add("partitions_read", int64(n.full.Partitions()-n.pruned))
	env.Trace.Emit(trace.Event{Op: "scan @" + n.full.Name(), Payload: planevent.PartitionsPruned{
		Source: n.full.Name(), Read: n.full.Partitions() - n.pruned, Pruned: n.pruned, Lo: n.lo, Hi: n.hi,
	}})
	return n.scanNode.open(ctx, env, c)
}

// andTerms splits a condition at its top-level ands.
func andTerms(e kql.Expr, dst []kql.Expr) []kql.Expr {
	if b, ok := e.(*kql.Binary); ok && b.Op == "and" {
		return andTerms(b.R, andTerms(b.L, dst))
	}
	return append(dst, e)
}
