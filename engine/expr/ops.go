package expr

import (
	"bytes"
	"math"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/kql"
)

// comparable reports whether values of types a and b can be ordered against each other. Dynamic compares with
// anything (by text), since nothing fixed its type.
func comparable(a, b column.Type) bool {
	return a == b || (a.IsNumeric() && b.IsNumeric()) || a == column.Dynamic || b == column.Dynamic
}

// Compare orders two values: -1, 0 or 1, and false when either is null (a null compares as nothing, so
// comparisons with it are null and where drops the row).
func Compare(x, y column.Value) (int, bool) {
	if x.Null || y.Null {
		return 0, false
	}
	if x.Type == column.Dynamic || y.Type == column.Dynamic {
		// A dynamic number compares as a number with another number, else as text.
		if nx, ok := Numeric(x); ok {
			if ny, ok := Numeric(y); ok {
				x, y = nx, ny
			}
		}
	}
	if x.Type != y.Type {
		if x.Type.IsNumeric() && y.Type.IsNumeric() {
			return cmpFloat(x.Float(), y.Float()), true
		}
		return strings.Compare(ToString(x), ToString(y)), true
	}
	switch x.Type {
	case column.Long, column.DateTime, column.Timespan:
		switch {
		case x.Int < y.Int:
			return -1, true
		case x.Int > y.Int:
			return 1, true
		}
		return 0, true
	case column.Real:
		return cmpFloat(x.Real, y.Real), true
	case column.Bool:
		switch {
		case x.Bool == y.Bool:
			return 0, true
		case !x.Bool:
			return -1, true
		}
		return 1, true
	default:
		return strings.Compare(x.Str, y.Str), true
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	case math.IsNaN(a) && !math.IsNaN(b):
		return -1
	case !math.IsNaN(a) && math.IsNaN(b):
		return 1
	}
	return 0
}

func unary(e *kql.Unary, x Expr) (Expr, error) {
	t := x.Type()
	if !t.IsNumeric() && t != column.Timespan && t != column.Dynamic {
		return nil, kql.Errorf(e.Pos, "operator %s needs a number, found %s", e.Op, t)
	}
	if e.Op == "+" {
		return x, nil
	}
	return &rowFunc{args: []Expr{x}, t: t, fn: func(a []column.Value) column.Value {
		v := a[0]
		if v.Null {
			return v
		}
		v.Int, v.Real = -v.Int, -v.Real
		return v
	}}, nil
}

func binary(e *kql.Binary, l, r Expr) (Expr, error) {
	switch e.Op {
	case "and", "or":
		return logical(e, l, r)
	case "+", "-", "*", "/", "%":
		return arithmetic(e, l, r)
	case "==", "!=", "<", "<=", ">", ">=":
		return comparison(e, l, r)
	case "=~", "!~":
		return stringOp(e.Op, l, r, func(s, t string) bool { return strings.EqualFold(s, t) })
	case "has", "!has":
		return stringOp(e.Op, l, r, hasTerm)
	case "contains", "!contains":
		return stringOp(e.Op, l, r, func(s, t string) bool { return strings.Contains(strings.ToLower(s), strings.ToLower(t)) })
	case "startswith", "!startswith":
		return stringOp(e.Op, l, r, func(s, t string) bool { return strings.HasPrefix(strings.ToLower(s), strings.ToLower(t)) })
	case "endswith", "!endswith":
		return stringOp(e.Op, l, r, func(s, t string) bool { return strings.HasSuffix(strings.ToLower(s), strings.ToLower(t)) })
	}
	return nil, kql.Errorf(e.Pos, "unknown operator %s", e.Op)
}

// logical is three-valued: false and null is false, true or null is true, otherwise null spreads.
func logical(e *kql.Binary, l, r Expr) (Expr, error) {
	for _, x := range []Expr{l, r} {
		if t := x.Type(); t != column.Bool && t != column.Dynamic {
			return nil, kql.Errorf(e.Pos, "operator %s needs bool operands, found %s", e.Op, t)
		}
	}
	and := e.Op == "and"
	return &rowFunc{args: []Expr{l, r}, t: column.Bool, fn: func(a []column.Value) column.Value {
		x, y := truthValue(a[0]), truthValue(a[1])
		if and {
			if (!x.Null && !x.Bool) || (!y.Null && !y.Bool) {
				return boolValue(false)
			}
			if x.Null || y.Null {
				return null(column.Bool)
			}
			return boolValue(true)
		}
		if (!x.Null && x.Bool) || (!y.Null && y.Bool) {
			return boolValue(true)
		}
		if x.Null || y.Null {
			return null(column.Bool)
		}
		return boolValue(false)
	}}, nil
}

// truthValue turns a dynamic true or false into a bool, and any other dynamic value into null.
func truthValue(v column.Value) column.Value {
	if v.Type != column.Dynamic {
		return v
	}
	b, ok := Truth(v)
	if !ok {
		return null(column.Bool)
	}
	return boolValue(b)
}

func comparison(e *kql.Binary, l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	if !comparable(lt, rt) {
		return nil, kql.Errorf(e.Pos, "type mismatch: cannot compare %s with %s using %s", lt, rt, e.Op)
	}
	if lt == column.Bool && rt == column.Bool && e.Op != "==" && e.Op != "!=" {
		return nil, kql.Errorf(e.Pos, "operator %s cannot order bool values", e.Op)
	}
	test := comparisonTest(e.Op)
	nullVsValue, equality := nullComparison(e.Op)
	return &rowFunc{args: []Expr{l, r}, t: column.Bool, fn: func(a []column.Value) column.Value {
		c, ok := Compare(a[0], a[1])
		if !ok {
			if equality && a[0].Null != a[1].Null {
				return boolValue(nullVsValue)
			}
			return null(column.Bool)
		}
		return boolValue(test(c))
	}}, nil
}

// nullComparison says what op gives for a null against a non-null value. KQL's == and != are two-valued there
// (null == 5 is false, null != 5 is true) and null only when both sides are null; the ordering operators give
// null whenever either side is. equality is false for the ordering operators.
func nullComparison(op string) (nullVsValue, equality bool) {
	switch op {
	case "==":
		return false, true
	case "!=":
		return true, true
	}
	return false, false
}

func comparisonTest(op string) func(int) bool {
	switch op {
	case "==":
		return func(c int) bool { return c == 0 }
	case "!=":
		return func(c int) bool { return c != 0 }
	case "<":
		return func(c int) bool { return c < 0 }
	case "<=":
		return func(c int) bool { return c <= 0 }
	case ">":
		return func(c int) bool { return c > 0 }
	default:
		return func(c int) bool { return c >= 0 }
	}
}

// stringOp applies a string test to both operands' text; ops starting with '!' negate it. A null operand reads
// as the empty string, as KQL's strings do.
func stringOp(op string, l, r Expr, test func(s, t string) bool) (Expr, error) {
	neg := strings.HasPrefix(op, "!")
	return &rowFunc{args: []Expr{l, r}, t: column.Bool, fn: func(a []column.Value) column.Value {
		return boolValue(test(textOf(a[0]), textOf(a[1])) != neg)
	}}, nil
}

func textOf(v column.Value) string {
	if v.Null {
		return ""
	}
	return ToString(v)
}

// hasTerm reports whether needle occurs in s as a whole term (case-insensitive): the characters either side of
// the match are not letters or digits. KQL indexes text as runs of alphanumerics, and has looks up those terms.
func hasTerm(s, needle string) bool {
	return hasTermLower([]byte(strings.ToLower(s)), []byte(strings.ToLower(needle)))
}

// hasTermLower is hasTerm over text and needle already lowered.
func hasTermLower(ls, ln []byte) bool {
	if len(ln) == 0 {
		return true
	}
	for from := 0; from <= len(ls)-len(ln); {
		i := bytes.Index(ls[from:], ln)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(ln)
		leftOK := i == 0 || !isAlnum(ls[i-1]) || !isAlnum(ln[0])
		rightOK := j == len(ls) || !isAlnum(ls[j]) || !isAlnum(ln[len(ln)-1])
		if leftOK && rightOK {
			return true
		}
		from = i + 1
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func arithmetic(e *kql.Binary, l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	t, ok := arithmeticType(e.Op, lt, rt)
	if !ok {
		return nil, kql.Errorf(e.Pos, "type mismatch: %s %s %s is not defined", lt, e.Op, rt)
	}
	op := e.Op
	return &rowFunc{args: []Expr{l, r}, t: t, fn: func(a []column.Value) column.Value {
		x, y := a[0], a[1]
		if x.Null || y.Null {
			return null(t)
		}
		if t == column.Real {
			return realArith(op, x.Float(), y.Float())
		}
		if t == column.Dynamic {
			// Only numbers compute here; the result stays dynamic.
			nx, okx := Numeric(x)
			ny, oky := Numeric(y)
			if !okx || !oky {
				return null(t)
			}
			if nx.Type == column.Real || ny.Type == column.Real {
				return realArith(op, nx.Float(), ny.Float())
			}
			v, ok := intArith(op, nx.Int, ny.Int)
			if !ok {
				return null(t)
			}
			return column.Value{Type: column.Long, Int: v}
		}
		if x.Type == column.Real || y.Type == column.Real { // timespan * real
			v := realArith(op, x.Float(), y.Float())
			return column.Value{Type: t, Int: int64(v.Real)}
		}
		v, ok := intArith(op, x.Int, y.Int)
		if !ok {
			return null(t)
		}
		return column.Value{Type: t, Int: v}
	}}, nil
}

// arithmeticType is KQL's result type for l op r: numbers widen to real; datetime minus datetime is a
// timespan; a datetime moves by a timespan; timespans add and scale.
func arithmeticType(op string, l, r column.Type) (column.Type, bool) {
	if l == column.Dynamic || r == column.Dynamic {
		return column.Dynamic, true
	}
	switch {
	case l == column.Long && r == column.Long:
		return column.Long, true
	case l.IsNumeric() && r.IsNumeric():
		return column.Real, true
	case l == column.DateTime && r == column.DateTime && op == "-":
		return column.Timespan, true
	case l == column.DateTime && r == column.Timespan && (op == "+" || op == "-"):
		return column.DateTime, true
	case l == column.Timespan && r == column.DateTime && op == "+":
		return column.DateTime, true
	case l == column.Timespan && r == column.Timespan && (op == "+" || op == "-"):
		return column.Timespan, true
	case l == column.Timespan && r == column.Timespan && op == "/":
		return column.Real, true
	case l == column.Timespan && r.IsNumeric() && (op == "*" || op == "/"):
		return column.Timespan, true
	case l.IsNumeric() && r == column.Timespan && op == "*":
		return column.Timespan, true
	}
	return 0, false
}

func realArith(op string, x, y float64) column.Value {
	var v float64
	switch op {
	case "+":
		v = x + y
	case "-":
		v = x - y
	case "*":
		v = x * y
	case "/":
		v = x / y
	case "%":
		v = math.Mod(x, y)
	}
	return column.Value{Type: column.Real, Real: v}
}

// intArith is integer arithmetic; division and modulo by zero give null, as KQL does for long.
func intArith(op string, x, y int64) (int64, bool) {
	switch op {
	case "+":
		return x + y, true
	case "-":
		return x - y, true
	case "*":
		return x * y, true
	case "/":
		if y == 0 {
			return 0, false
		}
		return x / y, true
	default:
		if y == 0 {
			return 0, false
		}
		return x % y, true
	}
}

// Mirror is the comparison that holds with the operands swapped: `k op col` is `col Mirror(op) k`.
func Mirror(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}
