package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// Distinct streams the first row of each distinct combination of its input's columns (the planner projects
// the listed columns first), in input order.
//
// It numbers its rows' keys with the summarize's group table (summarize_groups.go): a batch is looked up at
// once, one int64 key as itself and any other key by a hash of its values confirmed by a typed compare, and the
// rows that made a new group are the batch's first rows. Keys are equal as summarize's are: nulls equal each
// other, -0 equals 0. Cost per row: one hash, about one slot visited, and a copy of its values when it is a
// first row.
//
// Memory: each distinct row's values and its slot, grown on the budget before the row is kept. When the budget
// refuses one, the rows seen so far have been streamed, and the rest of the distinct is a summarize by every
// column, which spills past the budget (summarize_spill.go): its input is the distinct rows so far, in their
// order, then every row not yet taken. Its groups come out in order of first appearance, so the first ones are
// the rows already streamed, which are skipped, and the rest are exactly the first rows still to come.
type Distinct struct {
	in      Operator
	schema  column.Schema
	budget  *memory.Budget
	details *trace.Details
	groups  *groupTable
	gids    []int32
	rest    *skipRows // after a refusal: the spilling summarize, past the rows already streamed
}

func NewDistinct(in Operator, budget *memory.Budget) *Distinct {
	schema := in.Schema()
	return &Distinct{in: in, schema: schema, budget: budget, groups: newGroupTable("distinct", schemaTypes(schema), 0, budget)}
}

// ReportTo makes the distinct's summarize, once it spills, add its figures to d.
func (d *Distinct) ReportTo(details *trace.Details) { d.details = details }

func (d *Distinct) Schema() column.Schema { return d.schema }

func (d *Distinct) Next(ctx context.Context) (*column.Batch, error) {
	for d.rest == nil {
		b, err := d.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			d.groups.release()
			return nil, nil
		}
		for i, c := range b.Cols {
			if c == nil { // the plan reads every column into a distinct (distinctNode.need)
				return nil, fmt.Errorf("distinct: column %q of the input was not computed", d.schema[i].Name)
			}
		}
		var m int
		d.gids, m, err = d.groups.assign(b.Cols, b.N, d.gids)
		if err != nil {
			if !errors.As(err, new(*memory.ExceededError)) {
				return nil, err
			}
			d.overflow(b, m)
		}
		if first := d.groups.created; len(first) == b.N && b.N > 0 {
			return b, nil
		} else if len(first) > 0 {
			return b.Gather(first), nil
		}
	}
	return d.rest.Next(ctx)
}

// overflow hands the rest of the distinct to a summarize by every column, once the budget refused the row m of
// batch b: its input is the distinct rows so far, then b's rows from m, then the rest of the input.
func (d *Distinct) overflow(b *column.Batch, m int) {
	seen := column.NewBatch(d.groups.keyCols, d.groups.n)
	d.groups.release()
	keys := make([]expr.Expr, len(d.schema))
	for i, f := range d.schema {
		keys[i] = &expr.ColumnRef{Index: i, T: f.Type}
	}
	in := &prefixed{batches: []*column.Batch{seen, b.Slice(m, b.N)}, in: d.in, schema: d.schema}
	s := NewSummarize(in, d.schema, keys, nil, d.budget)
	s.ReportTo(d.details)
	d.rest = &skipRows{in: s, n: seen.N}
}

// schemaTypes lists the types of a schema's fields.
func schemaTypes(s column.Schema) []column.Type {
	types := make([]column.Type, len(s))
	for i, f := range s {
		types[i] = f.Type
	}
	return types
}

// prefixed streams its batches, then in's.
type prefixed struct {
	batches []*column.Batch
	in      Operator
	schema  column.Schema
}

func (p *prefixed) Schema() column.Schema { return p.schema }

func (p *prefixed) Next(ctx context.Context) (*column.Batch, error) {
	if len(p.batches) > 0 {
		b := p.batches[0]
		p.batches[0], p.batches = nil, p.batches[1:]
		return b, nil
	}
	return p.in.Next(ctx)
}

// skipRows streams in's rows after its first n.
type skipRows struct {
	in Operator
	n  int
}

func (s *skipRows) Next(ctx context.Context) (*column.Batch, error) {
	for {
		b, err := s.in.Next(ctx)
		if err != nil || b == nil || s.n == 0 {
			return b, err
		}
		if b.N <= s.n {
			s.n -= b.N
			continue
		}
		b, s.n = b.Slice(s.n, b.N), 0
		return b, nil
	}
}
