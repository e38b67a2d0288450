package connector

import (
	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/kql"
)

// Translate turns one KQL condition into a Predicate over schema, or reports false when the condition uses
// anything a source cannot be trusted to compute exactly as the engine does. Accepted: comparisons of a column
// with a constant of the same type (or numbers with numbers), in and !in lists of constants, between, and/or
// of accepted conditions, and isnotnull(column). Dynamic columns, functions and string operators stay in the
// engine: their meaning differs between dialects.
func Translate(e kql.Expr, schema column.Schema) (Predicate, bool) {
	switch e := e.(type) {
	case *kql.Binary:
		switch e.Op {
		case "and", "or":
			l, ok := Translate(e.L, schema)
			if !ok {
				return nil, false
			}
			r, ok := Translate(e.R, schema)
			if !ok {
				return nil, false
			}
			if e.Op == "and" {
				return And{l, r}, true
			}
			return Or{l, r}, true
		case "==", "!=", "<", "<=", ">", ">=":
			op := e.Op
			id, isID := e.L.(*kql.Ident)
			lit, isLit := e.R.(*kql.Literal)
			if !isID || !isLit {
				id, isID = e.R.(*kql.Ident)
				lit, isLit = e.L.(*kql.Literal)
				op = expr.Mirror(op)
			}
			if !isID || !isLit {
				return nil, false
			}
			v, ok := literalFor(schema, id.Name, lit)
			if !ok {
				return nil, false
			}
			return Compare{Column: id.Name, Op: op, Value: v}, true
		}
	case *kql.In:
		id, ok := e.X.(*kql.Ident)
		if !ok {
			return nil, false
		}
		vals := make([]column.Value, 0, len(e.List))
		for _, item := range e.List {
			lit, ok := item.(*kql.Literal)
			if !ok {
				return nil, false
			}
			v, ok := literalFor(schema, id.Name, lit)
			if !ok {
				return nil, false
			}
			vals = append(vals, v)
		}
		return In{Column: id.Name, Values: vals, Negate: e.Not}, true
	case *kql.Between:
		id, ok := e.X.(*kql.Ident)
		lo, ok1 := e.Lo.(*kql.Literal)
		hi, ok2 := e.Hi.(*kql.Literal)
		if !ok || !ok1 || !ok2 || e.Not {
			return nil, false
		}
		lv, ok1 := literalFor(schema, id.Name, lo)
		hv, ok2 := literalFor(schema, id.Name, hi)
		if !ok1 || !ok2 {
			return nil, false
		}
		return And{Compare{Column: id.Name, Op: ">=", Value: lv}, Compare{Column: id.Name, Op: "<=", Value: hv}}, true
	case *kql.Call:
		if e.Name == "isnotnull" && len(e.Args) == 1 {
			if id, ok := e.Args[0].(*kql.Ident); ok && columnType(schema, id.Name) != column.Dynamic {
				return NotNull{Column: id.Name}, true
			}
		}
	}
	return nil, false
}

// columnType is the type of the named column, or Dynamic when the schema has no such column (which refuses
// the translation, as dynamic columns are refused).
func columnType(schema column.Schema, name string) column.Type {
	if i := schema.Index(name); i >= 0 {
		return schema[i].Type
	}
	return column.Dynamic
}

// literalFor converts a literal for comparison with the named column, refusing pairs the engine would compare
// in some other way than by value (text against numbers, anything against dynamic).
func literalFor(schema column.Schema, name string, lit *kql.Literal) (column.Value, bool) {
	t := columnType(schema, name)
	var v column.Value
	switch lit.Kind {
	case kql.LitBool:
		v = column.Value{Type: column.Bool, Bool: lit.Bool}
	case kql.LitLong:
		v = column.Value{Type: column.Long, Int: lit.Long}
	case kql.LitReal:
		v = column.Value{Type: column.Real, Real: lit.Real}
	case kql.LitString:
		v = column.Value{Type: column.String, Str: lit.Str}
	case kql.LitDateTime:
		v = column.Value{Type: column.DateTime, Int: lit.Time.UnixNano()}
	case kql.LitTimespan:
		v = column.Value{Type: column.Timespan, Int: int64(lit.Span)}
	}
	switch {
	case t == column.Dynamic:
		return v, false
	case t == v.Type, t.IsNumeric() && v.Type.IsNumeric():
		return v, true
	}
	return v, false
}
