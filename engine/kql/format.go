package kql

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Format dumps the whole tree, every field and position included, as S-expressions: one operator per line and
// a join's right side indented beneath it. Each node is written (type@line:col fields…), for instance
//
//	(query@1:1 @Users
//	  (where@1:10 (==@1:18 (ident@1:16 a) (long@1:21 1))))
//
// The output depends only on the tree, so golden tests can compare it as text.
func Format(q *Query) string {
	var f formatter
	f.query(q, 0)
	return f.String()
}

type formatter struct{ strings.Builder }

func (f *formatter) printf(format string, args ...any) { fmt.Fprintf(&f.Builder, format, args...) }

func (f *formatter) newline(depth int) {
	f.WriteByte('\n')
	f.WriteString(strings.Repeat("  ", depth))
}

func (f *formatter) query(q *Query, depth int) {
	if q == nil {
		f.WriteString("<nil>")
		return
	}
	f.printf("(query@%s @%s", q.Pos, q.Source)
	for _, op := range q.Ops {
		f.newline(depth + 1)
		f.op(op, depth+1)
	}
	f.WriteString(")")
}

func (f *formatter) op(op Op, depth int) {
	switch o := op.(type) {
	case *Where:
		f.printf("(where@%s ", o.Pos)
		f.expr(o.Pred)
	case *Project:
		f.printf("(project@%s", o.Pos)
		f.items(o.Items)
	case *ProjectAway:
		f.printf("(project-away@%s", o.Pos)
		f.idents(o.Columns)
	case *Extend:
		f.printf("(extend@%s", o.Pos)
		f.items(o.Items)
	case *Summarize:
		f.printf("(summarize@%s (aggs", o.Pos)
		f.items(o.Aggs)
		f.WriteString(") (by")
		f.items(o.By)
		f.WriteString(")")
	case *Sort:
		f.printf("(sort@%s", o.Pos)
		f.keys(o.Keys)
	case *Take:
		f.printf("(take@%s %d", o.Pos, o.N)
	case *Top:
		f.printf("(top@%s %d", o.Pos, o.N)
		f.keys(o.Keys)
	case *Distinct:
		f.printf("(distinct@%s", o.Pos)
		if o.Star {
			f.WriteString(" *")
		}
		f.idents(o.Columns)
	case *Count:
		f.printf("(count@%s", o.Pos)
	case *Join:
		op := "join"
		if o.Lookup {
			op = "lookup"
		}
		f.printf("(%s@%s kind=%q", op, o.Pos, o.Kind)
		for _, p := range o.Params {
			f.printf(" (param@%s %s %q)", p.Pos, name(p.Name), p.Value)
		}
		f.newline(depth + 1)
		f.query(o.Right, depth+1)
		f.newline(depth + 1)
		f.WriteString("(on")
		for _, c := range o.On {
			if c.Op != "" {
				f.printf(" (cond@%s %s %s %s)", c.Pos, c.Op, name(c.Left), name(c.Right))
				continue
			}
			f.printf(" (cond@%s %s %s)", c.Pos, name(c.Left), name(c.Right))
		}
		f.WriteString(")")
	case *MakeIntervals:
		f.printf("(make-intervals@%s ", o.Pos)
		f.expr(o.Time)
		f.WriteString(" (by")
		f.idents(o.By)
		f.WriteString(")")
		if o.Until != nil {
			f.WriteString(" (until ")
			f.expr(o.Until)
			f.WriteString(")")
		}
	case nil:
		f.WriteString("(<nil>")
	default:
		f.printf("(%T", op)
	}
	f.WriteString(")")
}

func (f *formatter) items(items []NamedExpr) {
	for _, it := range items {
		f.printf(" (item@%s ", it.Pos)
		if it.Name != "" {
			f.printf("%s ", name(it.Name))
		}
		f.expr(it.Expr)
		f.WriteString(")")
	}
}

func (f *formatter) idents(ids []*Ident) {
	for _, id := range ids {
		f.WriteString(" ")
		f.expr(id)
	}
}

func (f *formatter) keys(keys []SortKey) {
	for _, k := range keys {
		dir := "desc"
		if k.Asc {
			dir = "asc"
		}
		f.printf(" (%s ", dir)
		if k.Nulls != "" {
			f.printf("nulls=%s ", k.Nulls)
		}
		f.expr(k.Expr)
		f.WriteString(")")
	}
}

func (f *formatter) exprs(list []Expr) {
	for _, e := range list {
		f.WriteString(" ")
		f.expr(e)
	}
}

func (f *formatter) expr(e Expr) {
	switch e := e.(type) {
	case *Ident:
		f.printf("(ident@%s %s)", e.Pos, name(e.Name))
	case *Literal:
		f.literal(e)
	case *Unary:
		f.printf("(unary@%s %s ", e.Pos, e.Op)
		f.expr(e.X)
		f.WriteString(")")
	case *Binary:
		f.printf("(%s@%s ", e.Op, e.Pos)
		f.expr(e.L)
		f.WriteString(" ")
		f.expr(e.R)
		f.WriteString(")")
	case *In:
		op := "in"
		if e.Not {
			op = "!in"
		}
		f.printf("(%s@%s ", op, e.Pos)
		f.expr(e.X)
		f.exprs(e.List)
		f.WriteString(")")
	case *Between:
		op := "between"
		if e.Not {
			op = "!between"
		}
		f.printf("(%s@%s ", op, e.Pos)
		f.expr(e.X)
		f.exprs([]Expr{e.Lo, e.Hi})
		f.WriteString(")")
	case *Call:
		f.printf("(call@%s %s", e.Pos, name(e.Name))
		f.exprs(e.Args)
		f.WriteString(")")
	case nil:
		f.WriteString("<nil>")
	default:
		f.printf("(%T)", e)
	}
}

func (f *formatter) literal(l *Literal) {
	var kind, val string
	switch l.Kind {
	case LitBool:
		kind, val = "bool", strconv.FormatBool(l.Bool)
	case LitLong:
		kind, val = "long", strconv.FormatInt(l.Long, 10)
	case LitReal:
		kind, val = "real", strconv.FormatFloat(l.Real, 'g', -1, 64)
	case LitString:
		kind, val = "string", strconv.Quote(l.Str)
	case LitDateTime:
		kind, val = "datetime", l.Time.UTC().Format(time.RFC3339Nano)
	case LitTimespan:
		kind, val = "timespan", l.Span.String()
	default:
		kind, val = "literal-kind-"+strconv.Itoa(int(l.Kind)), "?"
	}
	f.printf("(%s@%s %s)", kind, l.Pos, val)
}

// name writes a column or function name bare when it reads as a path (a.b.c) and quoted otherwise, so that a
// bracketed name with spaces or punctuation cannot be mistaken for the tree's own syntax.
func name(s string) string {
	for seg := range strings.SplitSeq(s, ".") {
		if seg == "" || isDigit(seg[0]) || strings.IndexFunc(seg, func(r rune) bool {
			return r >= 0x80 || !isIdentChar(byte(r))
		}) >= 0 {
			return strconv.Quote(s)
		}
	}
	return s
}
