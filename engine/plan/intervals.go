package plan

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/kql"
)

// makeIntervals binds `make-intervals Time by Keys [until Expr]` (an extension of KQL; see kql.MakeIntervals):
// the output is the input's columns, then start and end of the time column's type.
func (b *binder) makeIntervals(in Node, op *kql.MakeIntervals) (Node, error) {
	schema := in.Schema()
	tc := schema.Index(op.Time.Name)
	if tc < 0 {
		return nil, kql.Errorf(op.Time.Pos, "make-intervals: unknown column %q", op.Time.Name)
	}
	tt := schema[tc].Type
	if tt != column.DateTime && tt != column.Long && tt != column.Timespan {
		return nil, kql.Errorf(op.Time.Pos, "make-intervals: %s is %s; the time column must be datetime, timespan or long", op.Time.Name, tt)
	}
	var keys []int
	text := "make-intervals " + op.Time.Name + " by " + identList(op.By)
	for _, id := range op.By {
		k := schema.Index(id.Name)
		if k < 0 {
			return nil, kql.Errorf(id.Pos, "make-intervals: unknown column %q", id.Name)
		}
		keys = append(keys, k)
	}
	for _, name := range []string{"start", "end"} {
		if schema.Index(name) >= 0 {
			return nil, kql.Errorf(op.Pos, "make-intervals: the input already has a column %q, which the output adds; rename it first (project %s_ = %s, …)", name, name, name)
		}
	}
	n := &makeIntervalsNode{in: in, time: tc, keys: keys, text: text}
	if op.Until != nil {
		e, err := expr.Compile(op.Until, schema)
		if err != nil {
			return nil, err
		}
		if len(e.Refs(nil)) > 0 {
			return nil, kql.Errorf(op.Until.Position(), "make-intervals: until needs a constant, such as datetime(2024-01-01T00:30:00Z)")
		}
		if e.Type() != tt {
			return nil, kql.Errorf(op.Until.Position(), "make-intervals: until is %s, the time column %s", e.Type(), tt)
		}
		v := e.Eval(column.NewBatch(nil, 1)).Value(0)
		if v.Null {
			return nil, kql.Errorf(op.Until.Position(), "make-intervals: until is null")
		}
		n.until, n.hasUntil = v.Int, true
		n.text += " until " + kql.String(op.Until)
	}
	n.schema = append(append(column.Schema(nil), schema...), column.Field{Name: "start", Type: tt}, column.Field{Name: "end", Type: tt})
	return n, nil
}

// makeIntervalsNode turns state events into intervals (exec.MakeIntervals).
type makeIntervalsNode struct {
	base
	in       Node
	time     int
	keys     []int
	until    int64
	hasUntil bool
	text     string
}

func (n *makeIntervalsNode) Children() []Node { return []Node{n.in} }
func (n *makeIntervalsNode) need(out []bool) [][]bool {
	need := append([]bool(nil), out[:len(n.in.Schema())]...)
	need[n.time] = true
	for _, k := range n.keys {
		need[k] = true
	}
	return [][]bool{need}
}
func (n *makeIntervalsNode) rows() float64   { return n.in.rows() }
func (n *makeIntervalsNode) logical() string { return n.text }
func (n *makeIntervalsNode) physical() string {
	return fmt.Sprintf("sort by key then time, end each row at the next row's time: %s", n.text)
}
func (n *makeIntervalsNode) open(_ context.Context, env *exec.Env, c []exec.Operator) (exec.Operator, error) {
	return exec.NewMakeIntervals(c[0], n.schema, n.time, n.keys, n.until, n.hasUntil, env.Budget), nil
}
