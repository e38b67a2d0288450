package dialect

import (
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/expr"
)

// KQL renders requests for a Sentinel / Log Analytics-like source: table | where | sort by | take | project.
type KQL struct{}

func (KQL) Name() string { return "kql" }

func kqlLit(v column.Value) string {
	switch {
	case v.Null:
		return "dynamic(null)"
	case v.Type == column.String || v.Type == column.Dynamic:
		return quoteDouble(v.Str)
	case v.Type == column.DateTime:
		return "datetime(" + column.FormatDateTime(v.Int) + ")"
	case v.Type == column.Long:
		return strconv.FormatInt(v.Int, 10)
	}
	return expr.ToString(v)
}

var kqlSyntax = &syntax{
	and: " and ", or: " or ", group: paren, trueText: "true",
	not:     func(x string) string { return "not(" + x + ")" },
	compare: func(c, op string, v column.Value) string { return c + " " + op + " " + kqlLit(v) },
	in: func(c string, vals []column.Value, negate bool) string {
		op := " in ("
		if negate {
			op = " !in ("
		}
		return c + op + values(vals, kqlLit) + ")"
	},
	notNull: func(c string) string { return "isnotnull(" + c + ")" },
}

func (KQL) Render(req connector.Request) (string, error) {
	var b strings.Builder
	b.WriteString(req.Table)
	if req.Where != nil {
		w, err := kqlSyntax.walk(req.Where)
		if err != nil {
			return "", err
		}
		b.WriteString("\n| where " + w)
	}
	if len(req.OrderBy) > 0 {
		keys := make([]string, len(req.OrderBy))
		for i, k := range req.OrderBy {
			keys[i] = k.Column + " asc"
			if k.Desc {
				keys[i] = k.Column + " desc"
			}
		}
		b.WriteString("\n| sort by " + strings.Join(keys, ", "))
	}
	if req.Limit > 0 {
		b.WriteString("\n| take " + strconv.Itoa(req.Limit))
	}
	if len(req.Columns) > 0 {
		b.WriteString("\n| project " + strings.Join(req.Columns, ", "))
	} else {
		b.WriteString("\n| count")
	}
	return b.String(), nil
}
