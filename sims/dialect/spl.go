package dialect

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/expr"
)

// SPL renders requests for a Splunk-like source: search | where | sort | head | fields. Times compare as epoch
// seconds, the way Splunk stores _time.
type SPL struct{}

func (SPL) Name() string { return "spl" }

func splLit(v column.Value) string {
	switch {
	case v.Null:
		return "null()"
	case v.Type == column.String || v.Type == column.Dynamic:
		return quoteDouble(v.Str)
	case v.Type == column.DateTime:
		return fmt.Sprintf("%d.%09d", v.Int/1e9, v.Int%1e9)
	case v.Type == column.Bool:
		return quoteDouble(strconv.FormatBool(v.Bool))
	}
	return expr.ToString(v)
}

// splField quotes a field name with dots, as SPL's where needs.
func splField(c string) string {
	if strings.ContainsAny(c, ".-{} ") {
		return "'" + c + "'"
	}
	return c
}

var splSyntax = &syntax{
	and: " AND ", or: " OR ", group: paren, trueText: "true()",
	not: func(x string) string { return "NOT (" + x + ")" },
	compare: func(c, op string, v column.Value) string {
		if op == "==" {
			op = "="
		}
		return splField(c) + op + splLit(v)
	},
	in: func(c string, vals []column.Value, negate bool) string {
		t := "in(" + splField(c) + ", " + values(vals, splLit) + ")"
		if negate {
			return "NOT " + t
		}
		return t
	},
	notNull: func(c string) string { return "isnotnull(" + splField(c) + ")" },
}

func (SPL) Render(req connector.Request) (string, error) {
	var b strings.Builder
	b.WriteString("search index=main sourcetype=" + req.Table)
	if req.Where != nil {
		w, err := splSyntax.walk(req.Where)
		if err != nil {
			return "", err
		}
		b.WriteString(" | where " + w)
	}
	if len(req.OrderBy) > 0 {
		keys := make([]string, len(req.OrderBy))
		for i, k := range req.OrderBy {
			keys[i] = "+" + k.Column
			if k.Desc {
				keys[i] = "-" + k.Column
			}
		}
		b.WriteString(" | sort 0 " + strings.Join(keys, ", "))
	}
	if req.Limit > 0 {
		b.WriteString(" | head " + strconv.Itoa(req.Limit))
	}
	if len(req.Columns) > 0 {
		b.WriteString(" | fields " + strings.Join(req.Columns, ", "))
	} else {
		b.WriteString(" | stats count")
	}
	return b.String(), nil
}
