package expr

import (
	"github.com/tidwall/gjson"

	"github.com/joinlab/joinlab/engine/column"
)

// pathExpr reads a nested field from a dynamic column's JSON text, for paths the scan did not extract (the
// column was renamed or computed before the path was used). Its values stay dynamic: raw JSON, except that a
// JSON string becomes its text so comparisons with string constants work.
type pathExpr struct {
	col  *ColumnRef
	path string
}

func newPath(col *ColumnRef, path string) Expr { return &pathExpr{col: col, path: path} }

func (p *pathExpr) Type() column.Type    { return column.Dynamic }
func (p *pathExpr) Refs(dst []int) []int { return append(dst, p.col.Index) }

func (p *pathExpr) Eval(b *column.Batch) *column.Vector { return p.evalSel(batchInput{b}, nil) }

func (p *pathExpr) evalSel(src Input, sel []int32) *column.Vector {
	n := rows(src, sel)
	in := p.col.evalSel(src, sel)
	out := column.NewVector(column.Dynamic, n)
	for i := 0; i < n; i++ {
		if in.IsNull(i) {
			out.AppendNull()
			continue
		}
		r := gjson.Get(in.Strs[i], p.path)
		switch {
		case !r.Exists() || r.Type == gjson.Null:
			out.AppendNull()
		case r.Type == gjson.String:
			out.AppendString(r.Str)
		default:
			out.AppendString(r.Raw)
		}
	}
	return out
}
