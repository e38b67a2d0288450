package connector

import (
	"fmt"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
)

// Predicate is a row condition a connector evaluates at the source. Its concrete type is one of And, Or, Not,
// Compare, In, NotNull and Keyset. Semantics are KQL's where: a comparison with null is not true (== and !=
// are two-valued against a non-null constant: null == 5 is false, null != 5 is true), and a row is kept only
// when the whole predicate is true.
type Predicate interface {
	predicate()
	// String is the predicate in the engine's own notation, for explain and errors.
	String() string
}

// And holds when every one of its terms holds (an empty And is true).
type And []Predicate

// Or holds when any of its terms holds (an empty Or is false).
type Or []Predicate

// Not holds when X does not hold.
type Not struct{ X Predicate }

// Compare is `Column Op Value`, Op one of == != < <= > >=.
type Compare struct {
	Column string
	Op     string
	Value  column.Value
}

// In is `Column in (Values…)`, or `!in` when Negate. Caps.MaxInValues bounds len(Values).
type In struct {
	Column string
	Values []column.Value
	Negate bool
}

// NotNull holds when Column is not null.
type NotNull struct{ Column string }

// Bound says which side of a keyset cursor a Keyset predicate keeps.
type Bound uint8

const (
	// After keeps rows strictly after the cursor in the order: the seek of the next keyset page.
	After Bound = iota
	// AtOrAfter keeps the cursor row and the rows after it.
	AtOrAfter
	// Before keeps rows strictly before the cursor.
	Before
	// AtOrBefore keeps rows up to and including the cursor: the inclusive upper edge of a re-fetch window.
	AtOrBefore
)

var boundOps = [...]string{">", ">=", "<", "<="}

// Keyset is a tuple comparison in an order: for Keys (published desc, actor.alternateId asc) and After it is
// `published < x or (published == x and actor.alternateId > y)`, which SQL writes `(a, b) > (x, y)` when every
// key is ascending. Values holds the cursor, one per key. Rows with a null key never match.
type Keyset struct {
	Keys   []OrderKey
	Values []column.Value
	Bound  Bound
}

func (And) predicate()     {}
func (Or) predicate()      {}
func (Not) predicate()     {}
func (Compare) predicate() {}
func (In) predicate()      {}
func (NotNull) predicate() {}
func (Keyset) predicate()  {}

func (p And) String() string { return joinPreds([]Predicate(p), " and ", "true") }
func (p Or) String() string  { return joinPreds([]Predicate(p), " or ", "false") }
func (p Not) String() string { return "not(" + p.X.String() + ")" }
func (p Compare) String() string {
	return fmt.Sprintf("%s %s %s", p.Column, p.Op, Literal(p.Value))
}
func (p In) String() string {
	op := " in ("
	if p.Negate {
		op = " !in ("
	}
	vals := make([]string, len(p.Values))
	for i, v := range p.Values {
		vals[i] = Literal(v)
	}
	return p.Column + op + strings.Join(vals, ", ") + ")"
}
func (p NotNull) String() string { return "isnotnull(" + p.Column + ")" }
func (p Keyset) String() string {
	keys := make([]string, len(p.Keys))
	vals := make([]string, len(p.Values))
	for i, k := range p.Keys {
		keys[i] = k.Column
		if k.Desc {
			keys[i] += " desc"
		}
		vals[i] = Literal(p.Values[i])
	}
	return fmt.Sprintf("(%s) %s (%s)", strings.Join(keys, ", "), boundOps[p.Bound], strings.Join(vals, ", "))
}

func joinPreds(ps []Predicate, sep, empty string) string {
	if len(ps) == 0 {
		return empty
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = "(" + p.String() + ")"
	}
	return strings.Join(parts, sep)
}

// Literal writes a value as a KQL literal.
func Literal(v column.Value) string {
	if v.Null {
		return "null"
	}
	switch v.Type {
	case column.String, column.Dynamic:
		return fmt.Sprintf("%q", v.Str)
	case column.DateTime:
		return "datetime(" + column.FormatDateTime(v.Int) + ")"
	}
	return expr.ToString(v)
}

// Expand rewrites a Keyset as the ors and ands of plain comparisons it stands for, for dialects with no tuple
// comparison or with mixed directions.
func (p Keyset) Expand() Predicate {
	var or Or
	for i := range p.Keys {
		var and And
		for j := 0; j < i; j++ {
			and = append(and, Compare{Column: p.Keys[j].Column, Op: "==", Value: p.Values[j]})
		}
		op := p.keyOp(i)
		and = append(and, Compare{Column: p.Keys[i].Column, Op: op, Value: p.Values[i]})
		if len(and) == 1 {
			or = append(or, and[0])
		} else {
			or = append(or, and)
		}
	}
	if len(or) == 1 {
		return or[0]
	}
	return or
}

// keyOp is the comparison key i makes: strict for every key but the last, whose strictness is the bound's.
func (p Keyset) keyOp(i int) string {
	forward := p.Bound == After || p.Bound == AtOrAfter
	if p.Keys[i].Desc {
		forward = !forward
	}
	inclusive := i == len(p.Keys)-1 && (p.Bound == AtOrAfter || p.Bound == AtOrBefore)
	op := "<"
	if forward {
		op = ">"
	}
	if inclusive {
		op += "="
	}
	return op
}

// Columns appends the columns p reads.
func Columns(p Predicate, dst []string) []string {
	add := func(c string) {
		for _, d := range dst {
			if d == c {
				return
			}
		}
		dst = append(dst, c)
	}
	switch p := p.(type) {
	case And:
		for _, x := range p {
			dst = Columns(x, dst)
		}
	case Or:
		for _, x := range p {
			dst = Columns(x, dst)
		}
	case Not:
		dst = Columns(p.X, dst)
	case Compare:
		add(p.Column)
	case In:
		add(p.Column)
	case NotNull:
		add(p.Column)
	case Keyset:
		for _, k := range p.Keys {
			add(k.Column)
		}
	}
	return dst
}

// InValues is the largest IN list in p: what Caps.MaxInValues bounds.
func InValues(p Predicate) int {
	n := 0
	switch p := p.(type) {
	case And:
		for _, x := range p {
			n = max(n, InValues(x))
		}
	case Or:
		for _, x := range p {
			n = max(n, InValues(x))
		}
	case Not:
		n = InValues(p.X)
	case In:
		n = len(p.Values)
	}
	return n
}

// Eval evaluates p over b, whose columns are named by names, and reports which rows it keeps. It is the
// reference semantics every simulated source uses; cost is one pass over b per predicate node.
func Eval(p Predicate, names []string, b *column.Batch) ([]bool, error) {
	out := make([]bool, b.N)
	if p == nil {
		for i := range out {
			out[i] = true
		}
		return out, nil
	}
	col := func(name string) (*column.Vector, error) {
		for i, n := range names {
			if n == name && b.Cols[i] != nil {
				return b.Cols[i], nil
			}
		}
		return nil, &InvalidRequestError{Reason: fmt.Sprintf("predicate reads unknown column %q", name)}
	}
	switch p := p.(type) {
	case And:
		for i := range out {
			out[i] = true
		}
		for _, x := range p {
			m, err := Eval(x, names, b)
			if err != nil {
				return nil, err
			}
			for i := range out {
				out[i] = out[i] && m[i]
			}
		}
	case Or:
		for _, x := range p {
			m, err := Eval(x, names, b)
			if err != nil {
				return nil, err
			}
			for i := range out {
				out[i] = out[i] || m[i]
			}
		}
	case Not:
		// not() of a comparison with null stays not true only for the ordering operators; for the
		// two-valued == and != (and in) negation is exact, which is what the engine pushes.
		m, err := Eval(p.X, names, b)
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i] = !m[i]
		}
	case Compare:
		v, err := col(p.Column)
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i] = compareValue(v.Value(i), p.Op, p.Value)
		}
	case In:
		v, err := col(p.Column)
		if err != nil {
			return nil, err
		}
		set := map[string]bool{}
		for _, x := range p.Values {
			set[valueKey(x)] = true
		}
		for i := range out {
			x := v.Value(i)
			hit := !x.Null && set[valueKey(x)]
			out[i] = hit != p.Negate
		}
	case NotNull:
		v, err := col(p.Column)
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i] = !v.IsNull(i)
		}
	case Keyset:
		if len(p.Keys) != len(p.Values) || len(p.Keys) == 0 {
			return nil, &InvalidRequestError{Reason: fmt.Sprintf("keyset has %d keys and %d values", len(p.Keys), len(p.Values))}
		}
		vecs := make([]*column.Vector, len(p.Keys))
		for k, key := range p.Keys {
			v, err := col(key.Column)
			if err != nil {
				return nil, err
			}
			vecs[k] = v
		}
		for i := range out {
			out[i] = p.holds(func(k int) column.Value { return vecs[k].Value(i) })
		}
	default:
		return nil, &InvalidRequestError{Reason: fmt.Sprintf("unsupported predicate %T", p)}
	}
	return out, nil
}

// holds reports whether the row whose key k is key(k) is on the kept side of the cursor.
func (p Keyset) holds(key func(k int) column.Value) bool {
	c, ok := p.CompareRow(key)
	if !ok {
		return false
	}
	switch p.Bound {
	case After:
		return c > 0
	case AtOrAfter:
		return c >= 0
	case Before:
		return c < 0
	}
	return c <= 0
}

// CompareRow orders a row against the cursor in the keyset's order: -1 before, 0 at, 1 after; false when a key
// is null.
func (p Keyset) CompareRow(key func(k int) column.Value) (int, bool) {
	for k, ok := range p.Keys {
		c, fine := expr.Compare(key(k), p.Values[k])
		if !fine {
			return 0, false
		}
		if ok.Desc {
			c = -c
		}
		if c != 0 {
			return c, true
		}
	}
	return 0, true
}

func compareValue(x column.Value, op string, k column.Value) bool {
	c, ok := expr.Compare(x, k)
	if !ok {
		// KQL: == and != against null are two-valued; ordering operators are null (not true).
		if x.Null != k.Null {
			return op == "!="
		}
		return false
	}
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

// valueKey encodes a value for set membership, numbers compared numerically.
func valueKey(v column.Value) string {
	switch v.Type {
	case column.Long, column.Real:
		return "n" + expr.FormatReal(v.Float())
	case column.String, column.Dynamic:
		return "s" + v.Str
	}
	return fmt.Sprintf("%d:%d:%t", v.Type, v.Int, v.Bool)
}
