package plan

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/kql"
)

// pushSideExpressions computes below a hash join the aggregate arguments that read one side's columns only, so
// that the summarize over the join folds into it (aggregateJoins), which folds plain columns only:
//
//	@P | join kind=leftouter (@B) on k | extend x = iff(isnull(v), 0, v * 2) | summarize n=count(), s=sum(x)
//
// computes x on B's rows, a column B carries into the join, and sums that column in the join. The pattern is
// a summarize directly over a hash join, or over one extend or project over it, whose keys are plain columns
// of the join and each of whose aggregates is count() or reads a plain column or an expression of one side's
// columns (through the extend, a column the extend computed from one side).
//
// The trap is the null-extended row. An outer join outputs a row of one side with the other side's columns
// all null; above the join, x is the expression over those nulls, which is not null for every expression
// (iff(isnull(v), 0, …) is 0). Below, that row never exists, so the column the side carries is null there. So
// each pushed expression is evaluated once over a row of nulls of its side:
//   - null (v * 2, say): the column below gives every row the value above gave it, and the aggregate is as is;
//   - c, not null: only an integer sum is taken (for min, max, a distinct count or a real sum it stays above).
//     The side also carries a column of 1s, m, and the summarize counts rows and sums m: the rows the side
//     was null-extended on number count() - sum(m), each of which added c above. A node over the summarize
//     (sideFixNode) adds c times that count to the sum — integer addition wraps the same in any order, so it is
//     exactly what adding c once per row gave — and the sum is null only when no row added a value.
//
// Inner, innerunique, semi and anti kinds null-extend neither side (semi and anti emit one side's rows
// alone), leftouter the right, rightouter the left, fullouter both. A
// side's expression is computed for each of its rows, matched or not: for a join that drops most rows that can
// cost more than computing it above, but it lets the join fold its output instead of materialising it. It runs
// once in Build, after the rewrites that move filters and before aggregateJoins, and only where the result
// then folds; it changes how the result is computed, never the result.
func pushSideExpressions(root Node) Node {
	if !sideExpressions {
		return root
	}
	return transform(root, pushSideExpression)
}

// sideExpressions turns pushSideExpressions on; a test knob, so that the differential test can compare each
// answer with the one the summarize above the join gives.
var sideExpressions = true

// sideArg is an aggregate argument resolved to the join's output: a plain output column, or an expression of
// one side's columns, compiled against that side's schema.
type sideArg struct {
	col   int       // the output column read as is, or -1
	left  bool      // the side of expr
	expr  expr.Expr // over the side's schema
	text  string
	fixed bool           // a null-extended row's value c is not null: the sum needs sideFixNode
	null  *column.Vector // c, one row
}

// pushSideExpression is pushSideExpressions at one node.
func pushSideExpression(n Node) Node {
	s, ok := n.(*summarizeNode)
	if !ok || len(s.args) != len(s.aggs) {
		return n
	}
	// The projects between the summarize and the join, top first (extend makes one a column).
	var projects []*projectNode
	in := s.in
	for {
		p, ok := in.(*projectNode)
		if !ok {
			break
		}
		projects, in = append(projects, p), p.in
	}
	j, _ := in.(*joinNode)
	if j == nil || j.def.Name != StrategyHash || j.jp.Interval != nil || j.jp.Where != nil || j.jp.Top != nil {
		return n
	}
	spec := j.jp.Spec
	leftExt, rightExt := false, false
	switch spec.Kind {
	case join.LeftOuter:
		rightExt = true
	case join.RightOuter:
		leftExt = true
	case join.FullOuter:
		leftExt, rightExt = true, true
	}
	// The keys: plain columns of the join, through the projects.
	var keys []int
	for _, k := range s.keys {
		ref, ok := k.(*expr.ColumnRef)
		if !ok {
			return n
		}
		col, ast, _ := throughProjects(projects, ref.Index)
		if ast != nil {
			return n
		}
		keys = append(keys, col)
	}
	args := make([]sideArg, len(s.aggs))
	pushed := false
	for i, a := range s.aggs {
		args[i] = sideArg{col: -1}
		if a.Func == "count" {
			continue
		}
		ast, level := s.args[i], 0 // over the summarize's input: the top project's output
		if ast == nil {
			return n
		}
		if ref, ok := a.Arg.(*expr.ColumnRef); ok {
			var col int
			if col, ast, level = throughProjects(projects, ref.Index); ast == nil {
				args[i].col = col
				continue
			}
		}
		if !sameColumns(ast, projects, level, spec.Schema) {
			return n
		}
		arg, ok := sideExpr(ast, j, leftExt, rightExt)
		if !ok || !sideFolds(a, arg) {
			return n
		}
		args[i], pushed = arg, true
	}
	if !pushed {
		return n
	}
	return rebuildOverSides(s, j, keys, args)
}

// throughProjects follows column col of the top project's output (or of the join, with no project) down to
// the join: the join's column when every project keeps it as it is; else the expression a project computed
// it with and the level that expression is over (see sameColumns): projects[i]'s is over its input, the
// output of projects[i+1].
func throughProjects(projects []*projectNode, col int) (int, kql.Expr, int) {
	for i, p := range projects {
		o := p.outs[col]
		if o.Input < 0 {
			if p.asts == nil {
				return -1, nil, -1
			}
			return -1, p.asts[col], i + 1
		}
		col = o.Input
	}
	return col, nil, 0
}

// sameColumns reports whether ast, written over the output of projects[level] (the join's output at
// len(projects)), reads by its names the same columns when compiled over the join's output schema: the
// projects from level down keep every column it reads as it is, and none renamed or redefined one.
func sameColumns(ast kql.Expr, projects []*projectNode, level int, schema column.Schema) bool {
	if level >= len(projects) {
		return true
	}
	here, err := expr.Compile(ast, projects[level].Schema())
	if err != nil {
		return false
	}
	there, err := expr.Compile(ast, schema)
	if err != nil {
		return false
	}
	var down []int
	for _, c := range here.Refs(nil) {
		for _, p := range projects[level:] {
			if c = p.outs[c].Input; c < 0 {
				return false
			}
		}
		down = append(down, c)
	}
	slices.Sort(down)
	up := slices.Sorted(slices.Values(there.Refs(nil)))
	return slices.Equal(slices.Compact(down), slices.Compact(up))
}

// sideExpr resolves ast, an expression over join j's output, to one side's expression, with its value on a
// row that side is null-extended on; false when it reads both sides (or neither) or does not compile there.
func sideExpr(ast kql.Expr, j *joinNode, leftExt, rightExt bool) (sideArg, bool) {
	spec := j.jp.Spec
	above, err := expr.Compile(ast, spec.Schema)
	if err != nil {
		return sideArg{}, false
	}
	if len(above.Refs(nil)) == 0 {
		return sideArg{}, false
	}
	for _, left := range []bool{true, false} {
		side, out, ext := j.right, spec.RightOut, rightExt
		if left {
			side, out, ext = j.left, spec.LeftOut, leftExt
		}
		// The side's columns under their names in the join's output (a right column may be renamed there,
		// v1 for v), which are the names ast reads.
		named := append(column.Schema(nil), side.Schema()...)
		for c, o := range out {
			if o >= 0 {
				named[c].Name = spec.Schema[o].Name
			}
		}
		below, err := expr.Compile(ast, named)
		if err != nil || below.Type() != above.Type() || !readsSame(above, below, out) {
			continue
		}
		arg := sideArg{col: -1, left: left, expr: below, text: kql.String(ast)}
		if ext {
			nulls := make([]*column.Vector, len(side.Schema()))
			for c, f := range side.Schema() {
				nulls[c] = column.NullVector(f.Type, 1)
			}
			arg.null = below.Eval(column.NewBatch(nulls, 1))
			arg.fixed = !arg.null.IsNull(0)
		}
		return arg, true
	}
	return sideArg{}, false
}

// sideFolds reports whether aggregate a over the pushed argument arg gives the answer above: any aggregate when
// a null-extended row's value is null (or no row is null-extended), an integer sum otherwise.
func sideFolds(a exec.Agg, arg sideArg) bool {
	if !arg.fixed {
		return true
	}
	t := arg.expr.Type()
	return a.Func == "sum" && (t == column.Long || t == column.Timespan) && a.Type == t
}

// rebuildOverSides makes the summarize over a join whose sides carry the pushed arguments (and, for a fixed
// sum, a column of 1s), with sideFixNode over it when a sum needs fixing; s itself when the new summarize
// would not fold into the join (aggregateJoins), where computing below would gain nothing.
func rebuildOverSides(s *summarizeNode, j *joinNode, keys []int, args []sideArg) Node {
	spec := j.jp.Spec
	type side struct {
		node   Node
		schema column.Schema
		outs   []exec.Output
		texts  []string
		marker int // the column of 1s, -1 until made
	}
	sides := [2]*side{{node: j.left, marker: -1}, {node: j.right, marker: -1}}
	for _, sd := range sides {
		sd.schema = append(column.Schema(nil), sd.node.Schema()...)
		for c := range sd.schema {
			sd.outs = append(sd.outs, exec.Output{Input: c})
		}
	}
	at := func(left bool) *side {
		if left {
			return sides[0]
		}
		return sides[1]
	}
	// Each pushed argument becomes a hidden column at the end of its side; where it refers to which column.
	type place struct {
		left bool
		col  int
	}
	places := make([]place, len(args))
	fixed := false
	for i, a := range args {
		if a.expr == nil {
			continue
		}
		sd := at(a.left)
		places[i] = place{a.left, len(sd.schema)}
		sd.schema = append(sd.schema, column.Field{Name: fmt.Sprintf(" pushed %d", i), Type: a.expr.Type(), Hidden: true})
		sd.outs = append(sd.outs, exec.Output{Input: -1, Expr: a.expr})
		sd.texts = append(sd.texts, fmt.Sprintf("%s = %s", s.schema[len(s.keys)+i].Name, a.text))
		if a.fixed && sd.marker < 0 {
			fixed = true
			sd.marker = len(sd.schema)
			sd.schema = append(sd.schema, column.Field{Name: fmt.Sprintf(" rows %d", i), Type: column.Long, Hidden: true})
			sd.outs = append(sd.outs, exec.Output{Input: -1, Expr: &expr.Const{V: column.Value{Type: column.Long, Int: 1}}})
			sd.texts = append(sd.texts, "1 on each row, to count the rows null-extended above")
		}
	}
	children := [2]Node{j.left, j.right}
	for i, sd := range sides {
		if len(sd.texts) > 0 {
			children[i] = &projectNode{base: base{schema: sd.schema}, in: sd.node, outs: sd.outs,
				text: "extend (computed below the join) " + strings.Join(sd.texts, ", ")}
		}
	}
	nspec, err := join.NewSpec(spec.Kind, children[0].Schema(), children[1].Schema(), spec.LeftKeys, spec.RightKeys)
	if err != nil {
		return s
	}
	jp := *j.jp
	jp.Spec, jp.left, jp.right = nspec, children[0], children[1]
	nj := *j
	nj.base, nj.left, nj.right, nj.jp = base{schema: nspec.Schema}, children[0], children[1], &jp
	// An output column of the old join is the same input column in the new one.
	remap := func(o int) int {
		if i := slices.Index(spec.LeftOut, o); i >= 0 {
			return nspec.LeftOut[i]
		}
		return nspec.RightOut[slices.Index(spec.RightOut, o)]
	}
	var nkeys []expr.Expr
	var schema column.Schema
	for i, k := range keys {
		c := remap(k)
		nkeys = append(nkeys, &expr.ColumnRef{Index: c, T: nspec.Schema[c].Type})
		schema = append(schema, s.schema[i])
	}
	var aggs []exec.Agg
	for i, a := range s.aggs {
		switch {
		case a.Func == "count":
		case args[i].expr != nil:
			out := nspec.RightOut
			if places[i].left {
				out = nspec.LeftOut
			}
			c := out[places[i].col]
			a.Arg = &expr.ColumnRef{Index: c, T: nspec.Schema[c].Type}
		default:
			c := remap(args[i].col)
			a.Arg = &expr.ColumnRef{Index: c, T: nspec.Schema[c].Type}
		}
		aggs = append(aggs, a)
		schema = append(schema, s.schema[len(s.keys)+i])
	}
	// A fixed sum needs the rows (count()) and, per side, the sum of its 1s.
	var fix *sideFix
	if fixed {
		fix = &sideFix{width: len(schema), count: len(schema), marks: [2]int{-1, -1}}
		aggs = append(aggs, exec.Agg{Func: "count", Type: column.Long})
		schema = append(schema, column.Field{Name: " rows", Type: column.Long, Hidden: true})
		for i, sd := range sides {
			if sd.marker < 0 {
				continue
			}
			out := nspec.LeftOut
			if i == 1 {
				out = nspec.RightOut
			}
			c := out[sd.marker]
			fix.marks[i] = len(schema)
			aggs = append(aggs, exec.Agg{Func: "sum", Arg: &expr.ColumnRef{Index: c, T: column.Long}, Type: column.Long})
			schema = append(schema, column.Field{Name: fmt.Sprintf(" side %d rows", i), Type: column.Long, Hidden: true})
		}
		for i, a := range args {
			if a.fixed {
				side := 1
				if a.left {
					side = 0
				}
				fix.sums = append(fix.sums, fixedSum{col: len(keys) + i, side: side, c: a.null.Ints[0]})
			}
		}
	}
	ns := &summarizeNode{base: base{schema: schema}, in: &nj, keys: nkeys, aggs: aggs, text: s.text}
	if len(nkeys) > 0 {
		if _, _, ok := groupAggs(nkeys, aggs, &jp); !ok {
			return s
		}
	} else if _, ok := pairAggs(aggs, nspec.Schema); !ok {
		return s
	}
	if fix == nil {
		return ns
	}
	return &sideFixNode{base: s.base, in: ns, fix: fix}
}

// sideFix says how sideFixNode turns the summarize's rows into the ones above the join would give: the first
// width columns are the result, count the rows, marks[side] the sum of that side's 1s (-1: none carried).
type sideFix struct {
	width int
	count int
	marks [2]int
	sums  []fixedSum
}

// fixedSum is a sum whose null-extended rows of side each added c.
type fixedSum struct {
	col  int
	side int
	c    int64
}

// sideFixNode adds to each fixed sum of the summarize below it what the null-extended rows added above the
// join (see pushSideExpressions), and drops the counting columns.
type sideFixNode struct {
	base
	in  Node
	fix *sideFix
}

func (n *sideFixNode) Children() []Node { return []Node{n.in} }
func (n *sideFixNode) need([]bool) [][]bool {
	all := make([]bool, len(n.in.Schema()))
	for i := range all {
		all[i] = true
	}
	return [][]bool{all}
}
func (n *sideFixNode) rows() float64   { return n.in.rows() }
func (n *sideFixNode) logical() string { return "fix the sums of null-extended rows" }
func (n *sideFixNode) physical() string {
	return "add to each sum computed below the join what its null-extended rows add: the expression over nulls, once a row"
}
func (n *sideFixNode) open(_ context.Context, _ *exec.Env, c []exec.Operator) (exec.Operator, error) {
	return &sideFixOp{in: c[0], schema: n.schema, fix: n.fix}, nil
}

// sideFixOp is sideFixNode's operator.
type sideFixOp struct {
	in     exec.Operator
	schema column.Schema
	fix    *sideFix
}

func (o *sideFixOp) Schema() column.Schema { return o.schema }

func (o *sideFixOp) Next(ctx context.Context) (*column.Batch, error) {
	b, err := o.in.Next(ctx)
	if err != nil || b == nil {
		return b, err
	}
	f := o.fix
	cols := append([]*column.Vector(nil), b.Cols[:f.width]...)
	count := b.Cols[f.count]
	for _, s := range f.sums {
		in := b.Cols[s.col]
		out := column.NewVector(in.Type, b.N)
		marks := b.Cols[f.marks[s.side]]
		for r := range b.N {
			own := int64(0) // the rows carrying this side's values
			if !marks.IsNull(r) {
				own = marks.Ints[r]
			}
			ext := count.Ints[r] - own // the rows this side was null-extended on
			switch {
			case ext > 0 && in.IsNull(r):
				out.AppendInt(s.c * ext)
			case ext > 0:
				out.AppendInt(in.Ints[r] + s.c*ext)
			case in.IsNull(r):
				out.AppendNull()
			default:
				out.AppendInt(in.Ints[r])
			}
		}
		cols[s.col] = out
	}
	return column.NewBatch(cols, b.N), nil
}
