// Package kql holds the syntax of joinlab's KQL subset: the abstract syntax tree, a hand-written lexer and
// parser, and positioned errors in the style of go/scanner.
//
// A query is one pipeline: a source (`@Name`) followed by operators separated by `|`. A join's right side is a
// nested pipeline in parentheses. The tree is purely syntactic: names are not resolved and types are not checked
// here; the planner (engine/plan) does that against the sources' schemas.
package kql

import (
	"fmt"
	"time"
)

// Pos is a position in the query text: 1-based line and column (in bytes).
type Pos struct {
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// IsValid reports whether the position was set.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Query is a pipeline: rows from Source flow through Ops in order.
type Query struct {
	Pos    Pos
	Source string // the name after '@', without the '@'
	Ops    []Op
}

// Op is one pipeline operator. Its concrete type is one of the types below.
type Op interface {
	Position() Pos
	op()
}

// Where keeps the rows for which Pred is true.
type Where struct {
	Pos  Pos
	Pred Expr
}

// Project keeps and computes the listed columns, in order.
type Project struct {
	Pos   Pos
	Items []NamedExpr
}

// ProjectAway drops the named columns.
type ProjectAway struct {
	Pos     Pos
	Columns []*Ident
}

// Extend adds (or replaces) computed columns.
type Extend struct {
	Pos   Pos
	Items []NamedExpr
}

// Summarize groups by By and computes Aggs; each Aggs expression is an aggregate call such as count() or sum(x).
type Summarize struct {
	Pos  Pos
	Aggs []NamedExpr
	By   []NamedExpr
}

// Sort is `sort by` and its synonym `order by`.
type Sort struct {
	Pos  Pos
	Keys []SortKey
}

// Take is `take N` and its synonym `limit N`.
type Take struct {
	Pos Pos
	N   int64
}

// Top is `top N by key [asc|desc]`.
type Top struct {
	Pos  Pos
	N    int64
	Keys []SortKey
}

// Distinct keeps one row per distinct combination of Columns; Star means every column (`distinct *`).
type Distinct struct {
	Pos     Pos
	Star    bool
	Columns []*Ident
}

// Count replaces the input with one row holding its row count, in a column named Count.
type Count struct {
	Pos Pos
}

// Join joins the pipeline so far (the left side) with Right. It also holds a lookup (Lookup set): KQL's
// `lookup [kind=leftouter|inner] (Dim) on …`, the join of a fact table with a small dimension table, whose
// kind defaults to leftouter and whose output does not repeat the right side's key columns that have the
// left key's name.
type Join struct {
	Pos Pos
	// Lookup marks a lookup operator rather than a join.
	Lookup bool
	// Kind is the join kind as written (lower case), or "" when omitted (KQL's default, innerunique; leftouter
	// for a lookup).
	Kind string
	// Params are the other name=value parameters, such as hint.strategy=hash, in source order.
	Params []Param
	Right  *Query
	On     []JoinCond
}

// Param is a join parameter `name=value`, such as `hint.strategy=grace`.
type Param struct {
	Pos   Pos
	Name  string
	Value string
}

// JoinCond is one condition of the join's on clause. `on a` gives Left and Right both "a";
// `$left.a == $right.b` gives Left "a", Right "b" (written the other way round, it is normalised).
// Names may be dotted paths such as actor.alternateId.
//
// Op is "" for an equality. A documented extension of KQL also accepts the comparisons <, <=, > and >= between
// a $left and a $right column, so that an on clause can state an interval overlap:
// `$left.start < $right.end and $right.start < $left.end`. Op is then normalised to read with the $left column
// first: `$right.start < $left.end` is stored as Left "end", Op ">", Right "start".
type JoinCond struct {
	Pos         Pos
	Left, Right string
	Op          string
}

// MakeIntervals turns state events into intervals, a documented extension of KQL (which would write it with
// serialize and next()): the rows are ordered by By, then by Time ascending, and each row gains a column start
// (its Time) and a column end (the Time of the next row with the same By values). The last row of each group
// ends at Until, or has a null end when Until is nil. Written
//
//	make-intervals Time by Key, … [until Expr]
type MakeIntervals struct {
	Pos   Pos
	Time  *Ident
	By    []*Ident
	Until Expr
}

// SortKey is one key of sort, order or top.
type SortKey struct {
	Expr Expr
	// Asc is true for `asc`; KQL sorts descending unless asked otherwise.
	Asc bool
	// Nulls is "first", "last" or "" (the default: first when ascending, last when descending).
	Nulls string
}

// NamedExpr is `Name = Expr`, or a bare Expr when Name is "" (the planner derives the column name).
type NamedExpr struct {
	Pos  Pos
	Name string
	Expr Expr
}

func (o *Where) Position() Pos         { return o.Pos }
func (o *Project) Position() Pos       { return o.Pos }
func (o *ProjectAway) Position() Pos   { return o.Pos }
func (o *Extend) Position() Pos        { return o.Pos }
func (o *Summarize) Position() Pos     { return o.Pos }
func (o *Sort) Position() Pos          { return o.Pos }
func (o *Take) Position() Pos          { return o.Pos }
func (o *Top) Position() Pos           { return o.Pos }
func (o *Distinct) Position() Pos      { return o.Pos }
func (o *Count) Position() Pos         { return o.Pos }
func (o *Join) Position() Pos          { return o.Pos }
func (o *MakeIntervals) Position() Pos { return o.Pos }

func (*Where) op()         {}
func (*Project) op()       {}
func (*ProjectAway) op()   {}
func (*Extend) op()        {}
func (*Summarize) op()     {}
func (*Sort) op()          {}
func (*Take) op()          {}
func (*Top) op()           {}
func (*Distinct) op()      {}
func (*Count) op()         {}
func (*Join) op()          {}
func (*MakeIntervals) op() {}

// Expr is a scalar expression. Its concrete type is one of the types below.
type Expr interface {
	Position() Pos
	expr()
}

// Ident names a column. Name may be a dotted path (actor.alternateId), a documented extension of KQL that reads
// a nested JSON field; a bracketed name (['two words']) arrives here unquoted.
type Ident struct {
	Pos  Pos
	Name string
}

// LitKind is the type of a literal.
type LitKind int

const (
	LitBool LitKind = iota
	LitLong
	LitReal
	LitString
	LitDateTime
	LitTimespan
)

// Literal is a constant. Exactly one value field is meaningful, chosen by Kind.
type Literal struct {
	Pos  Pos
	Kind LitKind
	Bool bool
	Long int64 // LitLong
	Real float64
	Str  string
	Time time.Time     // LitDateTime, in UTC
	Span time.Duration // LitTimespan
}

// Unary is `-X` (Op "-") or `+X` (Op "+").
type Unary struct {
	Pos Pos
	Op  string
	X   Expr
}

// Binary is `L Op R`. Op is one of
//
//	== != < <= > >=   =~ !~   + - * / %   and or
//	has !has contains !contains startswith !startswith endswith !endswith
//
// written in lower case. (not(x) is a Call.)
type Binary struct {
	Pos  Pos
	Op   string
	L, R Expr
}

// In is `X in (List…)`, or `X !in (List…)` when Not.
type In struct {
	Pos  Pos
	X    Expr
	List []Expr
	Not  bool
}

// Between is `X between (Lo .. Hi)`, or `X !between (Lo .. Hi)` when Not; both bounds are inclusive.
type Between struct {
	Pos       Pos
	X, Lo, Hi Expr
	Not       bool
}

// Call is a function call: a scalar function (tolower, bin, not, datetime…) or, inside summarize, an aggregate
// (count, sum, min, max, avg, dcount). Name is as written, lower-cased.
type Call struct {
	Pos  Pos
	Name string
	Args []Expr
}

func (e *Ident) Position() Pos   { return e.Pos }
func (e *Literal) Position() Pos { return e.Pos }
func (e *Unary) Position() Pos   { return e.Pos }
func (e *Binary) Position() Pos  { return e.Pos }
func (e *In) Position() Pos      { return e.Pos }
func (e *Between) Position() Pos { return e.Pos }
func (e *Call) Position() Pos    { return e.Pos }

func (*Ident) expr()   {}
func (*Literal) expr() {}
func (*Unary) expr()   {}
func (*Binary) expr()  {}
func (*In) expr()      {}
func (*Between) expr() {}
func (*Call) expr()    {}
