package dialect

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/expr"
)

// FQL renders requests for a CrowdStrike-like API: a GET with an FQL-style filter (field:'value', field:>'v',
// field:['a','b'], '+' for and, ',' for or), a sort and a limit. The whole query string counts against the
// filter-length cap, as a URL does.
type FQL struct{}

func (FQL) Name() string { return "fql" }

func fqlLit(v column.Value) string {
	switch {
	case v.Null:
		return "null"
	case v.Type == column.String || v.Type == column.Dynamic:
		return quoteSingle(v.Str, `\'`)
	case v.Type == column.DateTime:
		return quoteSingle(column.FormatDateTime(v.Int), `\'`)
	}
	return expr.ToString(v)
}

var fqlOps = map[string]string{"==": "", "!=": "!", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

var fqlSyntax = &syntax{
	and: "+", or: ",", group: paren, trueText: "",
	not:     func(x string) string { return "!(" + x + ")" },
	compare: func(c, op string, v column.Value) string { return c + ":" + fqlOps[op] + fqlLit(v) },
	in: func(c string, vals []column.Value, negate bool) string {
		op := ":["
		if negate {
			op = ":!["
		}
		return c + op + strings.ReplaceAll(values(vals, fqlLit), ", ", ",") + "]"
	},
	notNull: func(c string) string { return c + ":!null" },
}

func (FQL) Render(req connector.Request) (string, error) {
	q := []string{}
	if req.Where != nil {
		if and, ok := req.Where.(connector.And); !ok || len(and) > 0 {
			w, err := fqlSyntax.walk(req.Where)
			if err != nil {
				return "", err
			}
			q = append(q, "filter="+w)
		}
	}
	if len(req.OrderBy) > 0 {
		keys := make([]string, len(req.OrderBy))
		for i, k := range req.OrderBy {
			keys[i] = k.Column + ".asc"
			if k.Desc {
				keys[i] = k.Column + ".desc"
			}
		}
		q = append(q, "sort="+strings.Join(keys, "|"))
	}
	if req.Limit > 0 {
		q = append(q, "limit="+strconv.Itoa(req.Limit))
	}
	if len(req.Columns) > 0 {
		q = append(q, "fields="+strings.Join(req.Columns, ","))
	}
	return "GET /" + url.PathEscape(strings.ToLower(req.Table)) + "/queries/v1?" + strings.Join(q, "&"), nil
}
