package plan

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/source"
)

// binder resolves a query's names against its sources and builds plan nodes, one pipeline operator at a time.
type binder struct {
	// ctx bounds what planning reads from the sources (strategies' statistics: JoinPlan.Context).
	ctx     context.Context
	sources map[string]source.Source
	// paths is every dotted name the query mentions: a JSON source extracts those it has at the scan.
	paths []string
	// names is, for each pipeline, the plain column names it mentions, so a source with no rows (whose columns
	// nothing reveals) can still offer them, as null columns of unknown type.
	names map[*kql.Query][]string
	// budget is the query's memory budget, which strategies plan against.
	budget int64
}

// dottedNames collects the dotted names a query mentions anywhere, including join conditions.
func dottedNames(q *kql.Query) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if strings.Contains(n, ".") && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	walkQuery(q, func(n string) { add(n) }, func(j *kql.Join) {
		for _, c := range j.On {
			add(c.Left)
			add(c.Right)
		}
	})
	return out
}

// collectNames records the names each pipeline uses: its own operators' and, for a join's right side, the
// join's right keys (extra), and for the outer pipeline its joins' left keys.
func (b *binder) collectNames(q *kql.Query, extra []string) {
	names := append([]string(nil), extra...)
	for _, op := range q.Ops {
		walkOp(op, func(n string) { names = append(names, n) }, nil)
		if j, ok := op.(*kql.Join); ok {
			var right []string
			for _, c := range j.On {
				names = append(names, c.Left)
				right = append(right, c.Right)
			}
			b.collectNames(j.Right, right)
		}
	}
	for i, n := range names {
		if dot := strings.IndexByte(n, '.'); dot > 0 {
			names[i] = n[:dot]
		}
	}
	b.names[q] = names
}

// walkQuery calls name for every identifier in q and its subqueries, and onJoin for every join.
func walkQuery(q *kql.Query, name func(string), onJoin func(*kql.Join)) {
	for _, op := range q.Ops {
		walkOp(op, name, onJoin)
		if j, ok := op.(*kql.Join); ok {
			walkQuery(j.Right, name, onJoin)
		}
	}
}

// walkOp calls name for every identifier in op's own expressions (not a join's subquery).
func walkOp(op kql.Op, name func(string), onJoin func(*kql.Join)) {
	var ex func(kql.Expr)
	ex = func(e kql.Expr) {
		switch e := e.(type) {
		case *kql.Ident:
			name(e.Name)
		case *kql.Unary:
			ex(e.X)
		case *kql.Binary:
			ex(e.L)
			ex(e.R)
		case *kql.In:
			ex(e.X)
			for _, x := range e.List {
				ex(x)
			}
		case *kql.Between:
			ex(e.X)
			ex(e.Lo)
			ex(e.Hi)
		case *kql.Call:
			for _, x := range e.Args {
				ex(x)
			}
		}
	}
	items := func(list []kql.NamedExpr) {
		for _, it := range list {
			ex(it.Expr)
		}
	}
	switch op := op.(type) {
	case *kql.Where:
		ex(op.Pred)
	case *kql.Project:
		items(op.Items)
	case *kql.Extend:
		items(op.Items)
	case *kql.Summarize:
		items(op.Aggs)
		items(op.By)
	case *kql.Sort:
		for _, k := range op.Keys {
			ex(k.Expr)
		}
	case *kql.Top:
		for _, k := range op.Keys {
			ex(k.Expr)
		}
	case *kql.ProjectAway:
		for _, id := range op.Columns {
			name(id.Name)
		}
	case *kql.Distinct:
		for _, id := range op.Columns {
			name(id.Name)
		}
	case *kql.MakeIntervals:
		name(op.Time.Name)
		for _, id := range op.By {
			name(id.Name)
		}
		if op.Until != nil {
			ex(op.Until)
		}
	case *kql.Join:
		if onJoin != nil {
			onJoin(op)
		}
	}
}

func (b *binder) query(q *kql.Query) (Node, error) {
	src, ok := b.sources[q.Source]
	if !ok {
		return nil, kql.Errorf(q.Pos, "unknown source @%s%s", q.Source, b.known())
	}
	schema := src.Schema(b.paths)
	if len(schema) == 0 && src.Rows() == 0 {
		schema = openSchema(b.names[q])
	}
	var n Node = &scanNode{base: base{schema: schema}, src: src}
	for _, op := range q.Ops {
		var err error
		if n, err = b.op(n, op); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (b *binder) known() string {
	if len(b.sources) == 0 {
		return " (no sources are defined)"
	}
	var names []string
	for n := range b.sources {
		names = append(names, "@"+n)
	}
	sort.Strings(names)
	return " (sources: " + strings.Join(names, ", ") + ")"
}

// openSchema is the schema of a source with no rows: the names the pipeline uses, as dynamic columns.
func openSchema(names []string) column.Schema {
	var s column.Schema
	for _, n := range names {
		if s.Index(n) < 0 {
			s = append(s, column.Field{Name: n, Type: column.Dynamic})
		}
	}
	return s
}

func (b *binder) op(in Node, op kql.Op) (Node, error) {
	schema := in.Schema()
	switch op := op.(type) {
	case *kql.Where:
		pred, err := expr.Compile(op.Pred, schema)
		if err != nil {
			return nil, err
		}
		if t := pred.Type(); t != column.Bool && t != column.Dynamic {
			return nil, kql.Errorf(op.Pred.Position(), "where needs a bool condition, found %s", t)
		}
		in = pruneByTime(in, op.Pred) // a time-partitioned scan reads only the partitions the filter can keep
		return &whereNode{base: base{schema: schema}, in: in, cond: op.Pred, pred: pred, text: kql.String(op.Pred)}, nil
	case *kql.Project:
		return b.project(in, op.Items, false, "project")
	case *kql.Extend:
		n := in
		for _, it := range op.Items {
			var err error
			if n, err = b.project(n, []kql.NamedExpr{it}, true, "extend"); err != nil {
				return nil, err
			}
		}
		return n, nil
	case *kql.ProjectAway:
		drop := map[int]bool{}
		for _, id := range op.Columns {
			i := schema.Index(id.Name)
			if i < 0 {
				return nil, kql.Errorf(id.Pos, "project-away: unknown column %q", id.Name)
			}
			drop[i] = true
		}
		var outSchema column.Schema
		var outs []exec.Output
		for i, f := range schema {
			if !drop[i] {
				outSchema = append(outSchema, f)
				outs = append(outs, exec.Output{Input: i})
			}
		}
		return &projectNode{base: base{schema: outSchema}, in: in, outs: outs, text: "project-away " + identList(op.Columns)}, nil
	case *kql.Summarize:
		return b.summarize(in, op)
	case *kql.Sort:
		return b.sort(in, op.Keys, -1)
	case *kql.Top:
		return b.sort(in, op.Keys, op.N)
	case *kql.Take:
		if s, ok := in.(*sortNode); ok {
			return fuseTake(s, op.N), nil
		}
		return &takeNode{base: base{schema: schema}, in: in, n: op.N}, nil
	case *kql.Distinct:
		var items []kql.NamedExpr
		if op.Star {
			for _, f := range schema.Visible() {
				items = append(items, kql.NamedExpr{Pos: op.Pos, Expr: &kql.Ident{Pos: op.Pos, Name: f.Name}})
			}
		} else {
			for _, id := range op.Columns {
				items = append(items, kql.NamedExpr{Pos: id.Pos, Expr: id})
			}
		}
		cols, err := b.project(in, items, false, "columns")
		if err != nil {
			return nil, err
		}
		return &distinctNode{base: base{schema: cols.Schema()}, in: cols}, nil
	case *kql.Count:
		return &countNode{base: base{schema: exec.CountSchema}, in: in}, nil
	case *kql.Join:
		return b.join(in, op)
	case *kql.MakeIntervals:
		return b.makeIntervals(in, op)
	}
	return nil, kql.Errorf(op.Position(), "unsupported operator")
}

func identList(ids []*kql.Ident) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = id.Name
	}
	return strings.Join(names, ", ")
}

// columnName is the name KQL gives an unnamed expression: a column keeps its name (a nested path with '_' for
// '.', so actor.alternateId becomes actor_alternateId), bin(col, …) keeps its column's name, and anything else
// is Column1, Column2, ….
func columnName(e kql.Expr, unnamed *int) string {
	switch e := e.(type) {
	case *kql.Ident:
		return strings.ReplaceAll(e.Name, ".", "_")
	case *kql.Call:
		if (e.Name == "bin" || e.Name == "floor") && len(e.Args) > 0 {
			if id, ok := e.Args[0].(*kql.Ident); ok {
				return strings.ReplaceAll(id.Name, ".", "_")
			}
		}
	}
	*unnamed++
	return fmt.Sprintf("Column%d", *unnamed)
}

// project binds project (keep only the items) and extend (keep the input and add or replace the items).
func (b *binder) project(in Node, items []kql.NamedExpr, extend bool, verb string) (Node, error) {
	schema := in.Schema()
	var outSchema column.Schema
	var outs []exec.Output
	var asts []kql.Expr
	if extend {
		outSchema = append(outSchema, schema...)
		for i := range schema {
			outs = append(outs, exec.Output{Input: i})
		}
		asts = make([]kql.Expr, len(schema))
	}
	unnamed := 0
	var texts []string
	for _, it := range items {
		e, err := expr.Compile(it.Expr, schema)
		if err != nil {
			return nil, err
		}
		name := it.Name
		if name == "" {
			name = columnName(it.Expr, &unnamed)
		}
		out := exec.Output{Input: -1, Expr: e}
		if ref, ok := e.(*expr.ColumnRef); ok {
			out = exec.Output{Input: ref.Index}
		}
		f := column.Field{Name: name, Type: e.Type()}
		text := kql.String(it.Expr)
		if it.Name != "" {
			text = it.Name + " = " + text
		}
		texts = append(texts, text)
		if i := outSchema.Index(name); i >= 0 {
			if !extend {
				return nil, kql.Errorf(it.Pos, "%s: duplicate column name %q", verb, name)
			}
			// KQL's extend removes a column it redefines and appends the new one.
			outSchema = append(outSchema[:i:i], outSchema[i+1:]...)
			outs = append(outs[:i:i], outs[i+1:]...)
			asts = append(asts[:i:i], asts[i+1:]...)
		}
		outSchema = append(outSchema, f)
		outs = append(outs, out)
		asts = append(asts, it.Expr)
	}
	return &projectNode{base: base{schema: outSchema}, in: in, outs: outs, asts: asts, text: verb + " " + strings.Join(texts, ", ")}, nil
}

func (b *binder) sort(in Node, keys []kql.SortKey, limit int64) (Node, error) {
	var sk []exec.SortKey
	var texts []string
	for _, k := range keys {
		e, err := expr.Compile(k.Expr, in.Schema())
		if err != nil {
			return nil, err
		}
		nullsFirst := k.Asc
		switch k.Nulls {
		case "first":
			nullsFirst = true
		case "last":
			nullsFirst = false
		}
		dir := "desc"
		if k.Asc {
			dir = "asc"
		}
		nulls := "nulls last"
		if nullsFirst {
			nulls = "nulls first"
		}
		sk = append(sk, exec.SortKey{Expr: e, Asc: k.Asc, NullsFirst: nullsFirst})
		texts = append(texts, fmt.Sprintf("%s %s %s", kql.String(k.Expr), dir, nulls))
	}
	return &sortNode{base: base{schema: in.Schema()}, in: in, keys: sk, limit: limit, text: strings.Join(texts, ", ")}, nil
}

// fuseTake turns `sort by … | take n` (or `top m by … | take n`) into one top node keeping the first n (or
// min(m, n)) rows, so no full sort runs: exec.Sort with a limit holds at most limit + topCompactRows rows and,
// once full, drops a row that cannot enter the top with one compare. The result is exactly the unfused one:
// the sort is stable and the top keeps the first rows of that same stable order, ties in input order.
func fuseTake(s *sortNode, n int64) *sortNode {
	limit := n
	if s.limit >= 0 {
		limit = min(s.limit, n)
	}
	return &sortNode{base: s.base, in: s.in, keys: s.keys, limit: limit, text: s.text}
}

func (b *binder) summarize(in Node, op *kql.Summarize) (Node, error) {
	schema := in.Schema()
	var outSchema column.Schema
	var keys []expr.Expr
	var texts []string
	unnamed := 0
	add := func(pos kql.Pos, name string, t column.Type) error {
		if outSchema.Index(name) >= 0 {
			return kql.Errorf(pos, "summarize: duplicate column name %q", name)
		}
		outSchema = append(outSchema, column.Field{Name: name, Type: t})
		return nil
	}
	for _, it := range op.By {
		e, err := expr.Compile(it.Expr, schema)
		if err != nil {
			return nil, err
		}
		name := it.Name
		if name == "" {
			name = columnName(it.Expr, &unnamed)
		}
		if err := add(it.Pos, name, e.Type()); err != nil {
			return nil, err
		}
		keys = append(keys, e)
	}
	var aggs []exec.Agg
	var args []kql.Expr
	var aggSchema column.Schema
	for _, it := range op.Aggs {
		call, ok := it.Expr.(*kql.Call)
		if !ok || !expr.Aggregates[call.Name] {
			return nil, kql.Errorf(it.Expr.Position(), "summarize: expected an aggregate such as count() or sum(x), found %s", kql.String(it.Expr))
		}
		a, err := aggregate(call, schema)
		if err != nil {
			return nil, err
		}
		name := it.Name
		if name == "" {
			name = call.Name + "_"
			if len(call.Args) == 1 {
				if id, ok := call.Args[0].(*kql.Ident); ok {
					name += strings.ReplaceAll(id.Name, ".", "_")
				}
			}
		}
		aggs = append(aggs, a)
		var arg kql.Expr
		if len(call.Args) == 1 {
			arg = call.Args[0]
		}
		args = append(args, arg)
		aggSchema = append(aggSchema, column.Field{Name: name, Type: a.Type})
		texts = append(texts, name+" = "+kql.String(call))
	}
	for i, f := range aggSchema {
		if err := add(op.Aggs[i].Pos, f.Name, f.Type); err != nil {
			return nil, err
		}
	}
	text := strings.Join(texts, ", ")
	if len(op.By) > 0 {
		var by []string
		for _, it := range op.By {
			by = append(by, kql.String(it.Expr))
		}
		text += " by " + strings.Join(by, ", ")
	}
	return &summarizeNode{base: base{schema: outSchema}, in: in, keys: keys, aggs: aggs, args: args, text: text}, nil
}

// aggregate checks one aggregate call and fixes its result type.
func aggregate(call *kql.Call, schema column.Schema) (exec.Agg, error) {
	if call.Name == "count" {
		if len(call.Args) != 0 {
			return exec.Agg{}, kql.Errorf(call.Pos, "count() takes no arguments (dcount(x) counts distinct values)")
		}
		return exec.Agg{Func: "count", Type: column.Long}, nil
	}
	if len(call.Args) != 1 {
		return exec.Agg{}, kql.Errorf(call.Pos, "%s() takes 1 argument, found %d", call.Name, len(call.Args))
	}
	arg, err := expr.Compile(call.Args[0], schema)
	if err != nil {
		return exec.Agg{}, err
	}
	t := arg.Type()
	switch call.Name {
	case "sum":
		if !t.IsNumeric() && t != column.Timespan && t != column.Dynamic {
			return exec.Agg{}, kql.Errorf(call.Pos, "sum() needs a number, found %s", t)
		}
		if t == column.Dynamic {
			t = column.Real
		}
	case "avg":
		if !t.IsNumeric() && t != column.Dynamic {
			return exec.Agg{}, kql.Errorf(call.Pos, "avg() needs a number, found %s", t)
		}
		t = column.Real
	case "dcount":
		t = column.Long
	}
	return exec.Agg{Func: call.Name, Arg: arg, Type: t}, nil
}

// remoteHint is Kusto's hint.remote=left|right|local|auto, which picks the cluster that runs a cross-cluster
// join. joinlab runs every join in its own engine and asks connectors only for rows, so there is no other place
// to run it: the hint is refused rather than accepted and ignored.
const remoteHint = "hint.remote"

// lookupKind is a lookup's kind when none is written, as in Kusto.
const lookupKind = "leftouter"

func (b *binder) join(left Node, op *kql.Join) (Node, error) {
	kindName := op.Kind
	if op.Lookup {
		if kindName == "" {
			kindName = lookupKind
		}
		if kindName != "leftouter" && kindName != "inner" {
			return nil, kql.Errorf(op.Pos, "lookup kind=%s: lookup serves only kind=leftouter (the default) and kind=inner", kindName)
		}
		if len(op.Params) > 0 {
			p := op.Params[0]
			return nil, kql.Errorf(p.Pos, "lookup takes no %s: it always runs as a hash join that builds its right side, the dimension table (use join to choose a strategy)", p.Name)
		}
	}
	kind, ok := join.ParseKind(kindName)
	if !ok {
		return nil, kql.Errorf(op.Pos, "unknown join kind %q", op.Kind)
	}
	var forced string
	var shuffleKey *kql.Param
	params := map[string]string{}
	for i, p := range op.Params {
		switch {
		case p.Name == "hint.strategy":
			forced = p.Value
		case p.Name == remoteHint:
			return nil, kql.Errorf(p.Pos, "%s=%s chooses the cluster that runs a cross-cluster join; joinlab runs every join in its engine and asks the sources only for rows, so it is not supported: remove it", p.Name, p.Value)
		case len(declaredBy(p.Name)) > 0: // a strategy's own setting, checked once the strategy is known
			if p.Name == shuffleParamKey {
				shuffleKey = &op.Params[i]
			}
		default:
			return nil, kql.Errorf(p.Pos, "unknown join parameter %q (join parameters: hint.strategy=NAME and each strategy's settings, %s)", p.Name, strings.Join(declaredParams(), ", "))
		}
		params[p.Name] = p.Value
	}
	implied := false
	if forced == "" && shuffleKey != nil { // Kusto: hint.shufflekey alone selects the shuffle strategy
		forced, implied = string(StrategyShuffle), true
	}
	right, err := b.query(op.Right)
	if err != nil {
		return nil, err
	}
	var lk, rk []int
	var on []string
	var ranges []kql.JoinCond // comparisons other than ==: an overlap condition (sweep.go)
	for _, c := range op.On {
		if c.Op != "" {
			ranges = append(ranges, c)
			continue
		}
		var li, ri int
		if left, li, err = keyColumn(left, c.Left, c.Pos, "$left"); err != nil {
			return nil, err
		}
		if right, ri, err = keyColumn(right, c.Right, c.Pos, "$right"); err != nil {
			return nil, err
		}
		lk, rk = append(lk, li), append(rk, ri)
		on = append(on, fmt.Sprintf("$left.%s == $right.%s", c.Left, c.Right))
	}
	var overlap join.Overlap
	if len(ranges) > 0 {
		var texts []string
		if left, right, overlap, texts, err = bindOverlap(left, right, ranges, op.Pos); err != nil {
			return nil, err
		}
		if len(lk) == 0 {
			return nil, kql.Errorf(op.Pos, "an interval join needs an equality key besides its overlap condition (such as on device_id, …)")
		}
		on = append(on, texts...)
	}
	spec, err := join.NewSpec(kind, left.Schema(), right.Schema(), lk, rk)
	if err != nil {
		return nil, kql.Errorf(op.Pos, "%v", err)
	}
	var interval *join.SweepSpec
	if len(ranges) > 0 {
		if interval, err = join.NewSweepSpec(spec, overlap); err != nil {
			return nil, kql.Errorf(op.Pos, "%v", err)
		}
	}
	jp := &JoinPlan{
		ctx:      b.ctx,
		Spec:     spec,
		Left:     Estimate{Rows: left.rows(), Bytes: left.rows() * rowBytes(left.Schema())},
		Right:    Estimate{Rows: right.rows(), Bytes: right.rows() * rowBytes(right.Schema())},
		Budget:   b.budget,
		Params:   params,
		left:     left,
		right:    right,
		Interval: interval,
	}
	jp.BuildLeft = jp.Left.Rows < jp.Right.Rows
	choose := chooseStrategy
	switch {
	case interval != nil:
		choose = chooseSweep
	case op.Lookup:
		choose = chooseLookup
	}
	def, reason, err := choose(jp, forced)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("plan: %w", err) // stopped, not a problem of the query's
	}
	if err == nil && implied {
		reason = fmt.Sprintf("%s=%s selects the shuffle strategy, as in Kusto (left est. %.0f rows, right est. %.0f rows)",
			shuffleKey.Name, shuffleKey.Value, jp.Left.Rows, jp.Right.Rows)
	}
	if err != nil {
		pos := op.Pos
		if implied {
			pos = shuffleKey.Pos
		}
		for _, p := range op.Params {
			if p.Name == "hint.strategy" {
				pos = p.Pos
			}
		}
		if pe := (*ParamError)(nil); errors.As(err, &pe) { // a bad setting: point at it
			for _, p := range op.Params {
				if p.Name == pe.Name {
					pos = p.Pos
				}
			}
		}
		return nil, kql.Errorf(pos, "%v", err)
	}
	for _, p := range op.Params {
		if by := declaredBy(p.Name); len(by) > 0 && !slices.Contains(def.Params, p.Name) {
			hint := ""
			if def.Name == StrategyBroadcast && slices.Contains(by, string(StrategyFetchAll)) {
				hint = fetchAllPointer
			}
			return nil, kql.Errorf(p.Pos, "%s is a setting of the %s strategy; this join runs %s%s",
				p.Name, strings.Join(by, ", "), def.Name, hint)
		}
	}
	n := &joinNode{base: base{schema: spec.Schema}, left: left, right: right, jp: jp, def: def, reason: reason,
		on: strings.Join(on, " and ")}
	if interval != nil {
		n.schema = interval.Schema
		return &intervalJoinNode{n}, nil
	}
	if op.Lookup {
		return lookupColumns(n, op.On, rk), nil
	}
	return n, nil
}

// chooseLookup runs a lookup as Kusto does: the right side is the dimension table, so the hash join builds
// it (the opposite of a join's default assumption) and streams the left side, the facts.
func chooseLookup(jp *JoinPlan, _ string) (StrategyDef, string, error) {
	jp.BuildLeft = false
	return strategies[StrategyHash], fmt.Sprintf("lookup: the right side is the dimension table, built in memory; the left side streams (left est. %.0f rows, right est. %.0f rows)",
		jp.Left.Rows, jp.Right.Rows), nil
}

// lookupColumns drops from a lookup's output the right side's key columns that have the name of the left
// key they equal (`on id`, `$left.id == $right.id`): Kusto does not repeat them. A right key with another name
// (`$left.a == $right.b`) stays.
func lookupColumns(n *joinNode, on []kql.JoinCond, rk []int) Node {
	nLeft := len(n.left.Schema())
	drop := map[int]bool{}
	eq := 0
	for _, c := range on {
		if c.Op != "" {
			continue
		}
		if c.Left == c.Right {
			drop[nLeft+rk[eq]] = true
		}
		eq++
	}
	schema := n.Schema()
	var out column.Schema
	var outs []exec.Output
	var dropped []string
	for i, f := range schema {
		if drop[i] {
			dropped = append(dropped, f.Name)
			continue
		}
		out = append(out, f)
		outs = append(outs, exec.Output{Input: i})
	}
	if len(dropped) == 0 {
		return n
	}
	return &projectNode{base: base{schema: out}, in: n, outs: outs, text: "lookup: drop the right key " + strings.Join(dropped, ", ")}
}

// keyColumn finds a join key on one side. A key that is not a column as such (a path into a dynamic column
// that the scan did not extract) is computed into a hidden column first.
func keyColumn(n Node, name string, pos kql.Pos, side string) (Node, int, error) {
	e, err := expr.Resolve(n.Schema(), name, pos)
	if err != nil {
		return nil, 0, kql.Errorf(pos, "%s: %s", side, err.(*kql.Error).Msg)
	}
	if ref, ok := e.(*expr.ColumnRef); ok {
		return n, ref.Index, nil
	}
	schema := append(append(column.Schema(nil), n.Schema()...), column.Field{Name: name, Type: e.Type(), Hidden: true})
	outs := make([]exec.Output, 0, len(schema))
	for i := range n.Schema() {
		outs = append(outs, exec.Output{Input: i})
	}
	outs = append(outs, exec.Output{Input: -1, Expr: e})
	return &projectNode{base: base{schema: schema}, in: n, outs: outs, text: "extend key " + name}, len(schema) - 1, nil
}
