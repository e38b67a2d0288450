package exec

import (
	"context"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
)

// Output is one column a Project produces: input column Input passed through, or Expr computed. A column
// nothing downstream reads has neither, and comes out dead.
type Output struct {
	Input int // -1 when computed or dead
	Expr  expr.Expr
}

// Project computes its output columns from each input batch: project, project-away and extend are all this.
type Project struct {
	in     Operator
	schema column.Schema
	outs   []Output
}

func NewProject(in Operator, schema column.Schema, outs []Output) *Project {
	return &Project{in: in, schema: schema, outs: outs}
}

func (p *Project) Schema() column.Schema { return p.schema }

func (p *Project) Next(ctx context.Context) (*column.Batch, error) {
	b, err := p.in.Next(ctx)
	if b == nil || err != nil {
		return nil, err
	}
	cols := make([]*column.Vector, len(p.outs))
	for i, o := range p.outs {
		switch {
		case o.Expr != nil:
			cols[i] = o.Expr.Eval(b)
		case o.Input >= 0:
			cols[i] = b.Cols[o.Input]
		}
	}
	return column.NewBatch(cols, b.N), nil
}
