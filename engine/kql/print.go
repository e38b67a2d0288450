package kql

import (
	"strconv"
	"strings"
	"time"
)

// String renders an expression back as KQL text, fully parenthesised where precedence matters; explain uses
// it to show what each plan node computes.
func String(e Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	return b.String()
}

func writeExpr(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case *Ident:
		b.WriteString(e.Name)
	case *Literal:
		switch e.Kind {
		case LitBool:
			b.WriteString(strconv.FormatBool(e.Bool))
		case LitLong:
			b.WriteString(strconv.FormatInt(e.Long, 10))
		case LitReal:
			b.WriteString(strconv.FormatFloat(e.Real, 'g', -1, 64))
		case LitString:
			b.WriteString(strconv.Quote(e.Str))
		case LitDateTime:
			b.WriteString("datetime(" + e.Time.UTC().Format(time.RFC3339Nano) + ")")
		case LitTimespan:
			b.WriteString(timespanLiteral(e.Span))
		}
	case *Unary:
		b.WriteString(e.Op)
		writeExpr(b, e.X)
	case *Binary:
		b.WriteByte('(')
		writeExpr(b, e.L)
		b.WriteString(" " + e.Op + " ")
		writeExpr(b, e.R)
		b.WriteByte(')')
	case *In:
		writeExpr(b, e.X)
		if e.Not {
			b.WriteString(" !in (")
		} else {
			b.WriteString(" in (")
		}
		writeList(b, e.List)
		b.WriteByte(')')
	case *Between:
		writeExpr(b, e.X)
		if e.Not {
			b.WriteString(" !between (")
		} else {
			b.WriteString(" between (")
		}
		writeExpr(b, e.Lo)
		b.WriteString(" .. ")
		writeExpr(b, e.Hi)
		b.WriteByte(')')
	case *Call:
		b.WriteString(e.Name + "(")
		writeList(b, e.Args)
		b.WriteByte(')')
	}
}

func writeList(b *strings.Builder, list []Expr) {
	for i, x := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, x)
	}
}

// timespanLiteral writes a duration in the largest KQL unit that divides it exactly: 90m, 2h, 1500ms.
func timespanLiteral(d time.Duration) string {
	units := []struct {
		suffix string
		size   time.Duration
	}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second},
		{"ms", time.Millisecond}, {"us", time.Microsecond}}
	for _, u := range units {
		if d != 0 && d%u.size == 0 {
			return strconv.FormatInt(int64(d/u.size), 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}
