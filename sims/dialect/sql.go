package dialect

import (
	"strconv"
	"strings"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/expr"
)

// SQL renders requests for an S3/Athena-like store: SELECT … FROM … WHERE … ORDER BY … LIMIT. Nested paths
// are struct field accesses ("actor"."alternateId"); a keyset whose keys share one direction is a row-value
// comparison, ("a", "b") > ('x', 'y').
type SQL struct{}

func (SQL) Name() string { return "sql" }

func sqlLit(v column.Value) string {
	switch {
	case v.Null:
		return "NULL"
	case v.Type == column.String || v.Type == column.Dynamic:
		return quoteSingle(v.Str, "''")
	case v.Type == column.DateTime:
		return "TIMESTAMP '" + time.Unix(0, v.Int).UTC().Format("2006-01-02 15:04:05.000000000") + "'"
	case v.Type == column.Bool:
		return strings.ToUpper(strconv.FormatBool(v.Bool))
	}
	return expr.ToString(v)
}

func sqlIdent(c string) string {
	parts := strings.Split(c, ".")
	for i, p := range parts {
		parts[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	return strings.Join(parts, ".")
}

var sqlOps = map[string]string{"==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

var sqlSyntax = &syntax{
	and: " AND ", or: " OR ", group: paren, trueText: "TRUE",
	not: func(x string) string { return "NOT (" + x + ")" },
	compare: func(c, op string, v column.Value) string {
		if op == "!=" {
			// KQL's != keeps nulls; SQL's <> drops them.
			return "(" + sqlIdent(c) + " <> " + sqlLit(v) + " OR " + sqlIdent(c) + " IS NULL)"
		}
		return sqlIdent(c) + " " + sqlOps[op] + " " + sqlLit(v)
	},
	in: func(c string, vals []column.Value, negate bool) string {
		if negate {
			return "(" + sqlIdent(c) + " NOT IN (" + values(vals, sqlLit) + ") OR " + sqlIdent(c) + " IS NULL)"
		}
		return sqlIdent(c) + " IN (" + values(vals, sqlLit) + ")"
	},
	notNull: func(c string) string { return sqlIdent(c) + " IS NOT NULL" },
	keyset: func(p connector.Keyset) (string, bool) {
		for _, k := range p.Keys[1:] {
			if k.Desc != p.Keys[0].Desc {
				return "", false
			}
		}
		cols := make([]string, len(p.Keys))
		for i, k := range p.Keys {
			cols[i] = sqlIdent(k.Column)
		}
		op := map[connector.Bound]string{connector.After: ">", connector.AtOrAfter: ">=", connector.Before: "<", connector.AtOrBefore: "<="}[p.Bound]
		if p.Keys[0].Desc {
			op = strings.NewReplacer(">", "<", "<", ">").Replace(op)
		}
		return "(" + strings.Join(cols, ", ") + ") " + op + " (" + values(p.Values, sqlLit) + ")", true
	},
}

func (SQL) Render(req connector.Request) (string, error) {
	var b strings.Builder
	b.WriteString("SELECT ")
	if len(req.Columns) == 0 {
		b.WriteString("count(*)")
	} else {
		cols := make([]string, len(req.Columns))
		for i, c := range req.Columns {
			cols[i] = sqlIdent(c)
		}
		b.WriteString(strings.Join(cols, ", "))
	}
	b.WriteString(" FROM " + sqlIdent(strings.ToLower(req.Table)))
	if req.Where != nil {
		w, err := sqlSyntax.walk(req.Where)
		if err != nil {
			return "", err
		}
		b.WriteString(" WHERE " + w)
	}
	if len(req.OrderBy) > 0 {
		keys := make([]string, len(req.OrderBy))
		for i, k := range req.OrderBy {
			keys[i] = sqlIdent(k.Column) + " ASC NULLS LAST"
			if k.Desc {
				keys[i] = sqlIdent(k.Column) + " DESC NULLS LAST"
			}
		}
		b.WriteString(" ORDER BY " + strings.Join(keys, ", "))
	}
	if req.Limit > 0 {
		b.WriteString(" LIMIT " + strconv.Itoa(req.Limit))
	}
	return b.String(), nil
}
