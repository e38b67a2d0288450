// Package expr compiles KQL scalar expressions against a schema into typed evaluators over column batches.
//
// Compile resolves every name to a column index and checks every operand's type once, reporting problems at
// their position in the query; evaluation then cannot fail on types. Evaluation is a batch at a time: each node
// produces a whole vector. Every operator and function over typed operands is a kernel (kernel.go): typed
// loops over the argument vectors, nulls combined as bitmaps. Subexpressions that read no column are folded to
// constants at compile time. Only dynamic operands (JSON values whose type each row decides) evaluate row by
// row on boxed values, through the row functions that are also the kernels' test oracle.
package expr

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/kql"
)

// Expr is a compiled expression.
type Expr interface {
	// Type is the type of every value Eval returns.
	Type() column.Type
	// Eval computes the expression for every row of b.
	Eval(b *column.Batch) *column.Vector
	// Refs appends the indexes of the input columns the expression reads.
	Refs(dst []int) []int
	// evalSel computes the expression at the rows of sel over in, compacted: row k of the result is the
	// value at row sel[k]; every row when sel is nil (selection.go).
	evalSel(in Input, sel []int32) *column.Vector
}

// ColumnRef reads an input column as is.
type ColumnRef struct {
	Index int
	T     column.Type
}

func (c *ColumnRef) Type() column.Type                   { return c.T }
func (c *ColumnRef) Eval(b *column.Batch) *column.Vector { return b.Cols[c.Index] }
func (c *ColumnRef) Refs(dst []int) []int                { return append(dst, c.Index) }
func (c *ColumnRef) evalSel(in Input, sel []int32) *column.Vector {
	return in.Column(c.Index, sel)
}

// Const is a constant.
type Const struct {
	V     column.Value
	cache atomic.Pointer[column.Vector]
}

func (c *Const) Type() column.Type                   { return c.V.Type }
func (c *Const) Eval(b *column.Batch) *column.Vector { return constVector(&c.cache, c.V, b.N) }
func (c *Const) Refs(dst []int) []int                { return dst }
func (c *Const) evalSel(in Input, sel []int32) *column.Vector {
	return constVector(&c.cache, c.V, rows(in, sel))
}

// rowFunc computes its value row by row from its arguments' values.
type rowFunc struct {
	args []Expr
	t    column.Type
	fn   func(args []column.Value) column.Value
}

func (f *rowFunc) Type() column.Type { return f.t }
func (f *rowFunc) Refs(dst []int) []int {
	for _, a := range f.args {
		dst = a.Refs(dst)
	}
	return dst
}

func (f *rowFunc) Eval(b *column.Batch) *column.Vector { return f.evalSel(batchInput{b}, nil) }

func (f *rowFunc) evalSel(in Input, sel []int32) *column.Vector {
	n := rows(in, sel)
	vecs := make([]*column.Vector, len(f.args))
	for i, a := range f.args {
		vecs[i] = a.evalSel(in, sel)
	}
	out := column.NewVector(f.t, n)
	vals := make([]column.Value, len(f.args))
	for r := 0; r < n; r++ {
		for i, v := range vecs {
			vals[i] = v.Value(r)
		}
		x := f.fn(vals)
		if !x.Null && x.Type != f.t {
			x = convert(x, f.t)
		}
		out.AppendValue(x)
	}
	return out
}

// Compile compiles e against schema. Errors are *kql.Error values with the position of the offending part.
func Compile(e kql.Expr, schema column.Schema) (Expr, error) {
	c := compiler{schema: schema}
	return c.compile(e)
}

// compileRows compiles e to row functions only, with no kernels and no folding: the oracle the kernels are
// tested against.
func compileRows(e kql.Expr, schema column.Schema) (Expr, error) {
	c := compiler{schema: schema, rows: true}
	return c.compile(e)
}

type compiler struct {
	schema column.Schema
	rows   bool // build the row-at-a-time oracle
}

// pick returns the kernel for a node whose row function is row, or row itself when no kernel covers the
// operand types or the compiler is building the oracle. Either way the result folds if it reads no column.
func (c *compiler) pick(row Expr, kernel func() Expr) Expr {
	if c.rows {
		return row
	}
	if k := kernel(); k != nil {
		row = k
	}
	return fold(row)
}

// Resolve finds the column a name refers to. A dotted name matches a column of that exact name first (a
// nested path the scan extracted); otherwise its first segment must name a dynamic column, and the rest of the
// path is read from each row's JSON at evaluation time.
func Resolve(schema column.Schema, name string, pos kql.Pos) (Expr, error) {
	if i := schema.Index(name); i >= 0 {
		return &ColumnRef{Index: i, T: schema[i].Type}, nil
	}
	if dot := strings.IndexByte(name, '.'); dot > 0 {
		if i := schema.Index(name[:dot]); i >= 0 && schema[i].Type == column.Dynamic {
			return newPath(&ColumnRef{Index: i, T: column.Dynamic}, name[dot+1:]), nil
		}
	}
	return nil, kql.Errorf(pos, "unknown column %q%s", name, suggest(schema, name))
}

// suggest lists the columns a name could have meant, for the error message.
func suggest(schema column.Schema, name string) string {
	var names []string
	for _, f := range schema {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	if len(names) == 0 {
		return " (the input has no columns)"
	}
	if len(names) > 12 {
		names = append(names[:12], "…")
	}
	return fmt.Sprintf(" (columns: %s)", strings.Join(names, ", "))
}

func (c *compiler) compile(e kql.Expr) (Expr, error) {
	switch e := e.(type) {
	case *kql.Ident:
		return Resolve(c.schema, e.Name, e.Pos)
	case *kql.Literal:
		return &Const{V: literalValue(e)}, nil
	case *kql.Unary:
		x, err := c.compile(e.X)
		if err != nil {
			return nil, err
		}
		row, err := unary(e, x)
		if err != nil || row == x {
			return row, err
		}
		return c.pick(row, func() Expr { return negKernel(x) }), nil
	case *kql.Binary:
		l, err := c.compile(e.L)
		if err != nil {
			return nil, err
		}
		r, err := c.compile(e.R)
		if err != nil {
			return nil, err
		}
		row, err := binary(e, l, r)
		if err != nil {
			return nil, err
		}
		return c.pick(row, func() Expr { return binaryKernel(e.Op, l, r, row.Type()) }), nil
	case *kql.In:
		return c.in(e)
	case *kql.Between:
		return c.between(e)
	case *kql.Call:
		args := make([]Expr, len(e.Args))
		for i, a := range e.Args {
			x, err := c.compile(a)
			if err != nil {
				return nil, err
			}
			args[i] = x
		}
		row, err := call(e, args)
		if err != nil {
			return nil, err
		}
		return c.pick(row, func() Expr { return callKernel(e.Name, args, row.Type()) }), nil
	}
	return nil, kql.Errorf(e.Position(), "unsupported expression")
}

func literalValue(l *kql.Literal) column.Value {
	switch l.Kind {
	case kql.LitBool:
		return column.Value{Type: column.Bool, Bool: l.Bool}
	case kql.LitLong:
		return column.Value{Type: column.Long, Int: l.Long}
	case kql.LitReal:
		return column.Value{Type: column.Real, Real: l.Real}
	case kql.LitDateTime:
		return column.Value{Type: column.DateTime, Int: l.Time.UnixNano()}
	case kql.LitTimespan:
		return column.Value{Type: column.Timespan, Int: int64(l.Span)}
	default:
		return column.Value{Type: column.String, Str: l.Str}
	}
}

func (c *compiler) in(e *kql.In) (Expr, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	set := make([]column.Value, 0, len(e.List))
	for _, item := range e.List {
		lit, ok := item.(*kql.Literal)
		if !ok {
			return nil, kql.Errorf(item.Position(), "in: expected a constant, found an expression")
		}
		v := literalValue(lit)
		if !comparable(x.Type(), v.Type) {
			return nil, kql.Errorf(item.Position(), "in: cannot compare %s with %s", x.Type(), v.Type)
		}
		set = append(set, v)
	}
	not := e.Not
	row := &rowFunc{args: []Expr{x}, t: column.Bool, fn: func(a []column.Value) column.Value {
		if a[0].Null {
			return boolValue(not)
		}
		for _, s := range set {
			if c, ok := Compare(a[0], s); ok && c == 0 {
				return boolValue(!not)
			}
		}
		return boolValue(not)
	}}
	return c.pick(row, func() Expr { return inKernel(x, set, not) }), nil
}

func (c *compiler) between(e *kql.Between) (Expr, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	lo, err := c.compile(e.Lo)
	if err != nil {
		return nil, err
	}
	hi, err := c.compile(e.Hi)
	if err != nil {
		return nil, err
	}
	for _, b := range []Expr{lo, hi} {
		if !comparable(x.Type(), b.Type()) {
			return nil, kql.Errorf(e.Pos, "between: cannot compare %s with %s", x.Type(), b.Type())
		}
	}
	not := e.Not
	row := &rowFunc{args: []Expr{x, lo, hi}, t: column.Bool, fn: func(a []column.Value) column.Value {
		c1, ok1 := Compare(a[0], a[1])
		c2, ok2 := Compare(a[0], a[2])
		if !ok1 || !ok2 {
			return column.Value{Type: column.Bool, Null: true}
		}
		return boolValue((c1 >= 0 && c2 <= 0) != not)
	}}
	return c.pick(row, func() Expr { return betweenKernel(x, lo, hi, not) }), nil
}

func boolValue(b bool) column.Value { return column.Value{Type: column.Bool, Bool: b} }

func null(t column.Type) column.Value { return column.Value{Type: t, Null: true} }
