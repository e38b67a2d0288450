package kql

import (
	"slices"
	"strconv"
	"strings"
)

// Parse parses one query. The grammar, by recursive descent with one token of lookahead:
//
//	query     = source { "|" operator } [ ";" ] .            (nested in a join: no ";")
//	operator  = "where" expr | "project" items | "project-away" columns | "extend" items
//	          | "summarize" [ items ] [ "by" items ]          (at least one of the two)
//	          | ( "sort" | "order" ) "by" keys | ( "take" | "limit" ) count | "top" count "by" keys
//	          | "distinct" ( "*" | columns ) | "count" | "join" { param } "(" query ")" "on" conds
//	          | "lookup" [ "kind" "=" ( "leftouter" | "inner" ) ] "(" query ")" "on" conds
//	          | "make-intervals" column "by" columns [ "until" expr ] .   (an extension: see MakeIntervals)
//	items     = [ column "=" ] expr { "," [ column "=" ] expr } .
//	keys      = expr [ "asc" | "desc" ] [ "nulls" ( "first" | "last" ) ] { "," … } .
//	param     = name { "." name } "=" ( name | string | integer ) .   (name "kind" must name a join kind)
//	conds     = cond { ( "," | "and" ) cond } .
//	cond      = column | side "." column condop side "." column .   (one $left, one $right)
//	condop    = "==" | "<" | "<=" | ">" | ">=" .   (all but "==" are an extension: see JoinCond)
//	expr      = conj { "or" conj } .
//	conj      = cmp { "and" cmp } .
//	cmp       = sum { cmpop sum | [ "!" ] "in" "(" exprs ")" | [ "!" ] "between" "(" expr ".." expr ")" } .
//	sum       = product { ( "+" | "-" ) product } .
//	product   = unary { ( "*" | "/" | "%" ) unary } .
//	unary     = ( "-" | "+" ) unary | primary .
//	primary   = literal | column | name "(" [ exprs ] ")" | "(" expr ")" .
//	column    = name { "." name } .
//
// Binary operators are left-associative. On error Parse returns nil and an ErrorList; it stops at the first
// error, so the list holds exactly one. Text longer than maxQueryBytes is refused before it is read, an
// expression of more than maxExpressionTerms terms as soon as the parser reaches the term past the limit, and
// nesting deeper than maxNesting where it goes past: so parsing hostile text costs time and memory bounded by
// the limits, never by the text.
func Parse(src string) (q *Query, err error) {
	if len(src) > maxQueryBytes {
		return nil, ErrorList{Errorf(posOf(src, maxQueryBytes), "query text is longer than %d bytes", maxQueryBytes)}
	}
	p := &parser{lex: newLexer(src)}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r) // a bug in the parser, not an error in the query
			}
			q, err = nil, ErrorList{b.err}
		}
	}()
	p.next()
	return p.query(false), nil
}

// bailout carries the first error from wherever it is found up to Parse, so that no parsing function has to
// return an error or cope with a half-built node.
type bailout struct{ err *Error }

// maxNesting bounds how deeply expressions and joined queries nest. No real query comes close; the bound keeps
// recursion, and so the goroutine's stack, small however hostile the input.
const maxNesting = 500

// maxQueryBytes bounds the query text. A query is written or pasted by a person: 1 MiB holds an in-list of
// some 50,000 keys, yet stops a generated text of millions of terms before any of it is read.
const maxQueryBytes = 1 << 20

// maxExpressionTerms bounds the terms (literals, columns, calls) of one expression, in-list values included.
// A chain such as a or b or c … is parsed without recursion but becomes a tree as deep as it is long, which
// every later pass (binding, pushdown, compiling kernels) walks recursively: at a million terms that took
// 1.36 GB and 32 s. A where of 100,000 terms runs from the command line in about 0.4 s and 85 MB here, and
// no query a person writes comes near it (README, "Limits").
const maxExpressionTerms = 100_000

type parser struct {
	lex   *lexer
	tok   token // the current token, not yet consumed
	depth int   // current nesting, bounded by maxNesting

	inExpr  int // how many expr calls are open: 0 between expressions
	exprPos Pos // where the outermost open expression starts
	terms   int // terms read in that expression, bounded by maxExpressionTerms
}

// posOf is the position of src[off].
func posOf(src string, off int) Pos {
	head := src[:off]
	line := 1 + strings.Count(head, "\n")
	return Pos{Line: line, Col: off - (strings.LastIndexByte(head, '\n') + 1) + 1}
}

func (p *parser) errorf(pos Pos, format string, args ...any) {
	panic(bailout{Errorf(pos, format, args...)})
}

func (p *parser) next() {
	t, err := p.lex.next()
	if err != nil {
		panic(bailout{err})
	}
	p.tok = t
}

// enter records one more level of nesting; the caller defers leave.
func (p *parser) enter() {
	if p.depth++; p.depth > maxNesting {
		p.errorf(p.tok.pos, "query nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

func (p *parser) isOp(op string) bool      { return p.tok.kind == tOp && p.tok.text == op }
func (p *parser) isKeyword(kw string) bool { return p.tok.kind == tIdent && p.tok.text == kw }

// isAnyOp reports whether the current token is one of ops, which may mix punctuation and word operators.
func (p *parser) isAnyOp(ops ...string) bool {
	return (p.tok.kind == tOp || p.tok.kind == tIdent) && slices.Contains(ops, p.tok.text)
}

func (p *parser) expect(op string) {
	if !p.isOp(op) {
		p.errorf(p.tok.pos, "expected '%s', found %s", op, p.tok)
	}
	p.next()
}

func (p *parser) expectKeyword(kw string) {
	if !p.isKeyword(kw) {
		p.errorf(p.tok.pos, "expected '%s', found %s", kw, p.tok)
	}
	p.next()
}

// query parses a pipeline. A nested one, a join's right side, must end at the ')' that the caller consumes.
func (p *parser) query(nested bool) *Query {
	p.enter()
	defer p.leave()
	if p.tok.kind != tSource {
		p.errorf(p.tok.pos, "expected source such as @Users, found %s", p.tok)
	}
	q := &Query{Pos: p.tok.pos, Source: p.tok.val}
	p.next()
	for p.isOp("|") {
		p.next()
		q.Ops = append(q.Ops, p.operator())
	}
	if nested {
		if !p.isOp(")") {
			p.errorf(p.tok.pos, "expected '|' or ')', found %s", p.tok)
		}
		return q
	}
	want := "'|' or end of query"
	if p.isOp(";") {
		p.next()
		want = "end of query after ';'"
	}
	if p.tok.kind != tEOF {
		p.errorf(p.tok.pos, "expected %s, found %s", want, p.tok)
	}
	return q
}

func (p *parser) operator() Op {
	t := p.tok
	if t.kind == tIdent {
		switch t.text {
		case "where":
			p.next()
			return &Where{Pos: t.pos, Pred: p.expr()}
		case "project":
			p.next()
			return &Project{Pos: t.pos, Items: p.items()}
		case "project-away":
			p.next()
			return &ProjectAway{Pos: t.pos, Columns: p.columns()}
		case "extend":
			p.next()
			return &Extend{Pos: t.pos, Items: p.items()}
		case "summarize":
			p.next()
			s := &Summarize{Pos: t.pos}
			if !p.isKeyword("by") {
				s.Aggs = p.items()
			}
			if p.isKeyword("by") {
				p.next()
				s.By = p.items()
			}
			return s
		case "sort", "order":
			p.next()
			p.expectKeyword("by")
			return &Sort{Pos: t.pos, Keys: p.sortKeys()}
		case "take", "limit":
			p.next()
			return &Take{Pos: t.pos, N: p.rowCount()}
		case "top":
			p.next()
			n := p.rowCount()
			p.expectKeyword("by")
			return &Top{Pos: t.pos, N: n, Keys: p.sortKeys()}
		case "distinct":
			p.next()
			if p.isOp("*") {
				p.next()
				return &Distinct{Pos: t.pos, Star: true}
			}
			return &Distinct{Pos: t.pos, Columns: p.columns()}
		case "count":
			p.next()
			return &Count{Pos: t.pos}
		case "join":
			return p.join()
		case "lookup":
			return p.lookup()
		case "make-intervals":
			p.next()
			m := &MakeIntervals{Pos: t.pos}
			pos := p.tok.pos
			m.Time = &Ident{Pos: pos, Name: p.column()}
			p.expectKeyword("by")
			m.By = p.columns()
			if p.isKeyword("until") {
				p.next()
				m.Until = p.expr()
			}
			return m
		}
	}
	p.errorf(t.pos, "expected operator after '|', found %s", t)
	return nil
}

// items parses `[name =] expr, …`. The name is recognised after the fact: '=' is no expression operator, so an
// expression that is a lone column and is followed by '=' was the name.
func (p *parser) items() []NamedExpr {
	var items []NamedExpr
	for {
		pos := p.tok.pos
		item := NamedExpr{Pos: pos, Expr: p.expr()}
		if p.isOp("=") {
			// id.Pos == pos rejects a parenthesised column, (a) = 1.
			id, ok := item.Expr.(*Ident)
			if !ok || id.Pos != pos {
				p.errorf(p.tok.pos, "expected column name before '='")
			}
			p.next()
			item.Name, item.Expr = id.Name, p.expr()
		}
		items = append(items, item)
		if !p.isOp(",") {
			return items
		}
		p.next()
	}
}

func (p *parser) columns() []*Ident {
	var cols []*Ident
	for {
		pos := p.tok.pos
		cols = append(cols, &Ident{Pos: pos, Name: p.column()})
		if !p.isOp(",") {
			return cols
		}
		p.next()
	}
}

// column parses a column name, possibly a dotted path.
func (p *parser) column() string {
	if p.tok.kind != tIdent && p.tok.kind != tName {
		p.errorf(p.tok.pos, "expected column name, found %s", p.tok)
	}
	first := p.tok.val
	p.next()
	return p.pathRest(first)
}

// pathRest parses the `.name` segments that follow the first name of a path.
func (p *parser) pathRest(first string) string {
	if !p.isOp(".") {
		return first
	}
	var b strings.Builder
	b.WriteString(first)
	for p.isOp(".") {
		p.next()
		if p.tok.kind != tIdent && p.tok.kind != tName {
			p.errorf(p.tok.pos, "expected name after '.', found %s", p.tok)
		}
		b.WriteString(".")
		b.WriteString(p.tok.val)
		p.next()
	}
	return b.String()
}

func (p *parser) sortKeys() []SortKey {
	var keys []SortKey
	for {
		k := SortKey{Expr: p.expr()}
		if p.isKeyword("asc") {
			k.Asc = true
			p.next()
		} else if p.isKeyword("desc") {
			p.next()
		}
		if p.isKeyword("nulls") {
			p.next()
			if !p.isKeyword("first") && !p.isKeyword("last") {
				p.errorf(p.tok.pos, "expected 'first' or 'last' after 'nulls', found %s", p.tok)
			}
			k.Nulls = p.tok.text
			p.next()
		}
		keys = append(keys, k)
		if !p.isOp(",") {
			return keys
		}
		p.next()
	}
}

// rowCount parses the N of take and top: an integer literal, so never negative.
func (p *parser) rowCount() int64 {
	t := p.tok
	if t.kind != tLong {
		p.errorf(t.pos, "expected non-negative integer, found %s", t)
	}
	p.next()
	return p.literal(t).Long
}

// joinKinds are the values kind= accepts.
var joinKinds = map[string]bool{
	"innerunique": true, "inner": true, "leftouter": true, "rightouter": true, "fullouter": true,
	"leftsemi": true, "leftanti": true, "rightsemi": true, "rightanti": true,
}

func (p *parser) join() *Join {
	j := &Join{Pos: p.tok.pos}
	p.next()
	var kindPos Pos // where kind= was given, so that a second one is refused
	for p.tok.kind == tIdent {
		pos := p.tok.pos
		name := p.column()
		p.expect("=")
		v := p.tok
		value := v.val
		switch v.kind {
		case tIdent, tString:
		case tLong:
			value = v.text
		default:
			p.errorf(v.pos, "expected value of join parameter %s, found %s", name, v)
		}
		p.next()
		if name != "kind" {
			j.Params = append(j.Params, Param{Pos: pos, Name: name, Value: value})
			continue
		}
		if kindPos.IsValid() {
			p.errorf(pos, "duplicate join kind (first given at %s)", kindPos)
		}
		kindPos = pos
		if j.Kind = strings.ToLower(value); !joinKinds[j.Kind] {
			p.errorf(v.pos, "unknown join kind %q", value)
		}
	}
	p.expect("(")
	j.Right = p.query(true)
	p.expect(")")
	p.expectKeyword("on")
	for {
		j.On = append(j.On, p.joinCond())
		if !p.isOp(",") && !p.isKeyword("and") {
			return j
		}
		p.next()
	}
}

// lookupKinds are the kinds a lookup accepts (Kusto serves only these two).
var lookupKinds = map[string]bool{"leftouter": true, "inner": true}

// lookup parses `lookup [kind=K] (query) on conds` as a join: parameters other than kind are kept for the
// binder to refuse at their position, as it does a join's unknown ones.
func (p *parser) lookup() *Join {
	j := p.join()
	j.Lookup = true
	if j.Kind != "" && joinKinds[j.Kind] && !lookupKinds[j.Kind] {
		p.errorf(j.Pos, "lookup kind=%s: lookup serves only kind=leftouter (the default) and kind=inner", j.Kind)
	}
	return j
}

// condOps are the comparisons a join condition may make, each with its mirror image: the operator that reads
// the same with its operands swapped, used to put the $left column first.
var condOps = map[string]string{"==": "==", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

func (p *parser) joinCond() JoinCond {
	pos := p.tok.pos
	side, name := p.joinSide()
	op := p.tok.text
	if _, ok := condOps[op]; !ok || p.tok.kind != tOp {
		if side != "" {
			p.errorf(pos, "expected $left.column == $right.column")
		}
		return JoinCond{Pos: pos, Left: name, Right: name}
	}
	p.next()
	side2, name2 := p.joinSide()
	stored := op
	if op == "==" {
		stored = ""
	}
	switch {
	case side == "left" && side2 == "right":
		return JoinCond{Pos: pos, Left: name, Right: name2, Op: stored}
	case side == "right" && side2 == "left":
		if stored != "" {
			stored = condOps[op]
		}
		return JoinCond{Pos: pos, Left: name2, Right: name, Op: stored}
	}
	p.errorf(pos, "expected $left.column %s $right.column", op)
	return JoinCond{}
}

// joinSide parses one side of a join condition: `$left.path`, `$right.path`, or a bare path (side "").
func (p *parser) joinSide() (side, name string) {
	switch p.tok.kind {
	case tSide:
		side = p.tok.val
		p.next()
		p.expect(".")
		return side, p.column()
	case tIdent, tName:
		return "", p.column()
	}
	p.errorf(p.tok.pos, "expected column or $left.column == $right.column, found %s", p.tok)
	return "", ""
}

func (p *parser) expr() Expr {
	p.enter()
	defer p.leave()
	if p.inExpr == 0 {
		p.exprPos, p.terms = p.tok.pos, 0
	}
	p.inExpr++
	defer func() { p.inExpr-- }()
	return p.leftAssoc(p.conjunction, "or")
}

func (p *parser) conjunction() Expr { return p.leftAssoc(p.comparison, "and") }
func (p *parser) sum() Expr         { return p.leftAssoc(p.product, "+", "-") }
func (p *parser) product() Expr     { return p.leftAssoc(p.unary, "*", "/", "%") }

// leftAssoc parses operand { op operand } for one precedence level.
func (p *parser) leftAssoc(operand func() Expr, ops ...string) Expr {
	x := operand()
	for p.isAnyOp(ops...) {
		pos, op := p.tok.pos, p.tok.text
		p.next()
		x = &Binary{Pos: pos, Op: op, L: x, R: operand()}
	}
	return x
}

// compareOps share one precedence level with in and between.
var compareOps = []string{
	"==", "!=", "<", "<=", ">", ">=", "=~", "!~",
	"has", "!has", "contains", "!contains", "startswith", "!startswith", "endswith", "!endswith",
}

func (p *parser) comparison() Expr {
	x := p.sum()
	for {
		pos, op := p.tok.pos, p.tok.text
		switch {
		case p.isAnyOp(compareOps...):
			p.next()
			x = &Binary{Pos: pos, Op: op, L: x, R: p.sum()}
		case p.isAnyOp("in", "!in"):
			p.next()
			p.expect("(")
			list := p.exprs()
			p.expect(")")
			x = &In{Pos: pos, X: x, List: list, Not: op == "!in"}
		case p.isAnyOp("between", "!between"):
			p.next()
			p.expect("(")
			lo := p.expr()
			p.expect("..")
			hi := p.expr()
			p.expect(")")
			x = &Between{Pos: pos, X: x, Lo: lo, Hi: hi, Not: op == "!between"}
		default:
			return x
		}
	}
}

func (p *parser) exprs() []Expr {
	list := []Expr{p.expr()}
	for p.isOp(",") {
		p.next()
		list = append(list, p.expr())
	}
	return list
}

func (p *parser) unary() Expr {
	if p.isAnyOp("-", "+") {
		p.enter()
		defer p.leave()
		pos, op := p.tok.pos, p.tok.text
		p.next()
		return &Unary{Pos: pos, Op: op, X: p.unary()}
	}
	return p.primary()
}

func (p *parser) primary() Expr {
	if p.terms++; p.terms > maxExpressionTerms {
		p.errorf(p.exprPos, "expression has more than %d terms", maxExpressionTerms)
	}
	t := p.tok
	switch t.kind {
	case tLong, tReal, tSpan, tString:
		p.next()
		return p.literal(t)
	case tName:
		p.next()
		return &Ident{Pos: t.pos, Name: p.pathRest(t.val)}
	case tIdent:
		p.next()
		switch {
		case t.text == "true" || t.text == "false":
			return &Literal{Pos: t.pos, Kind: LitBool, Bool: t.text == "true"}
		case p.isOp("("):
			return p.call(t)
		}
		return &Ident{Pos: t.pos, Name: p.pathRest(t.val)}
	case tOp:
		if t.text == "(" {
			p.next()
			x := p.expr()
			p.expect(")")
			return x
		}
	}
	p.errorf(t.pos, "expected expression, found %s", t)
	return nil
}

// call parses a call whose name is fn, with the current token its '('. datetime(…) and timespan(…) are
// literals, not calls.
func (p *parser) call(fn token) Expr {
	name := strings.ToLower(fn.text)
	switch name {
	case "datetime":
		t, err := p.lex.datetimeText()
		if err != nil {
			panic(bailout{err})
		}
		p.tok = t
		text := t.val
		if t.kind != tRaw && t.kind != tString {
			p.errorf(t.pos, "expected date and time such as 2024-01-02, found %s", t)
		}
		tm, ok := parseDateTime(text)
		if !ok {
			p.errorf(t.pos, "invalid datetime %q", clip(text))
		}
		p.next()
		p.expect(")")
		return &Literal{Pos: fn.pos, Kind: LitDateTime, Time: tm}
	case "timespan":
		p.next()
		t := p.tok
		if t.kind != tSpan {
			p.errorf(t.pos, "expected timespan such as 1h, found %s", t)
		}
		p.next()
		p.expect(")")
		lit := p.literal(t)
		lit.Pos = fn.pos
		return lit
	}
	p.next()
	c := &Call{Pos: fn.pos, Name: name}
	if !p.isOp(")") {
		c.Args = p.exprs()
	}
	p.expect(")")
	return c
}

// literal converts a number or string token. The lexer has checked the syntax; only the range can be wrong.
func (p *parser) literal(t token) *Literal {
	lit := &Literal{Pos: t.pos}
	var err error
	var what string
	switch t.kind {
	case tLong:
		lit.Kind, what = LitLong, "integer"
		lit.Long, err = strconv.ParseInt(t.text, 10, 64)
	case tReal:
		lit.Kind, what = LitReal, "real number"
		lit.Real, err = strconv.ParseFloat(t.text, 64)
	case tSpan:
		lit.Kind, what = LitTimespan, "timespan"
		lit.Span, err = parseTimespan(t.text)
	case tString:
		lit.Kind, lit.Str = LitString, t.val
	}
	if err != nil {
		p.errorf(t.pos, "%s %s out of range", what, clip(t.text))
	}
	return lit
}
