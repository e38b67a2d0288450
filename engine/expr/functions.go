package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/kql"
)

// Aggregates are the function names that only summarize may call.
var Aggregates = map[string]bool{"count": true, "sum": true, "min": true, "max": true, "avg": true, "dcount": true}

// scalar describes one scalar function: its arity and how its result type follows from its arguments'.
type scalar struct {
	minArgs, maxArgs int
	// result checks the argument types and returns the result type, or an error message.
	result func(args []column.Type) (column.Type, string)
	fn     func(args []column.Value) column.Value
}

var scalars map[string]scalar

func init() {
	anyToBool := func([]column.Type) (column.Type, string) { return column.Bool, "" }
	stringTo := func(t column.Type) func([]column.Type) (column.Type, string) {
		return func([]column.Type) (column.Type, string) { return t, "" }
	}
	numeric := func(args []column.Type) (column.Type, string) {
		if !args[0].IsNumeric() && args[0] != column.Dynamic {
			return 0, "needs a number, found " + args[0].String()
		}
		return args[0], ""
	}
	scalars = map[string]scalar{
		"not": {1, 1, func(a []column.Type) (column.Type, string) {
			if a[0] != column.Bool && a[0] != column.Dynamic {
				return 0, "needs a bool, found " + a[0].String()
			}
			return column.Bool, ""
		}, func(a []column.Value) column.Value {
			b, ok := Truth(a[0])
			if !ok {
				return null(column.Bool)
			}
			return boolValue(!b)
		}},
		"isnull":    {1, 1, anyToBool, func(a []column.Value) column.Value { return boolValue(a[0].Null) }},
		"isnotnull": {1, 1, anyToBool, func(a []column.Value) column.Value { return boolValue(!a[0].Null) }},
		"isempty": {1, 1, anyToBool, func(a []column.Value) column.Value {
			return boolValue(a[0].Null || (isText(a[0].Type) && a[0].Str == ""))
		}},
		"isnotempty": {1, 1, anyToBool, func(a []column.Value) column.Value {
			return boolValue(!(a[0].Null || (isText(a[0].Type) && a[0].Str == "")))
		}},
		"tolower": {1, 1, stringTo(column.String), func(a []column.Value) column.Value {
			return textValue(a[0], strings.ToLower)
		}},
		"toupper": {1, 1, stringTo(column.String), func(a []column.Value) column.Value {
			return textValue(a[0], strings.ToUpper)
		}},
		"strlen": {1, 1, stringTo(column.Long), func(a []column.Value) column.Value {
			if a[0].Null {
				return null(column.Long)
			}
			return column.Value{Type: column.Long, Int: int64(utf8.RuneCountInString(ToString(a[0])))}
		}},
		"tostring": {1, 1, stringTo(column.String), func(a []column.Value) column.Value {
			if a[0].Null {
				return null(column.String)
			}
			return column.Value{Type: column.String, Str: ToString(a[0])}
		}},
		"toint":    {1, 1, stringTo(column.Long), func(a []column.Value) column.Value { return toLong(a[0]) }},
		"tolong":   {1, 1, stringTo(column.Long), func(a []column.Value) column.Value { return toLong(a[0]) }},
		"todouble": {1, 1, stringTo(column.Real), func(a []column.Value) column.Value { return toReal(a[0]) }},
		"toreal":   {1, 1, stringTo(column.Real), func(a []column.Value) column.Value { return toReal(a[0]) }},
		"todatetime": {1, 1, stringTo(column.DateTime), func(a []column.Value) column.Value {
			v := a[0]
			if v.Null {
				return null(column.DateTime)
			}
			if v.Type == column.DateTime {
				return v
			}
			if ns, ok := column.ParseDateTime(ToString(v)); ok {
				return column.Value{Type: column.DateTime, Int: ns}
			}
			return null(column.DateTime)
		}},
		"abs": {1, 1, numeric, func(a []column.Value) column.Value {
			v := a[0]
			if v.Int < 0 {
				v.Int = -v.Int
			}
			v.Real = math.Abs(v.Real)
			return v
		}},
		"round": {1, 2, func(a []column.Type) (column.Type, string) {
			if len(a) == 2 && a[1] != column.Long {
				return 0, "precision must be a long, found " + a[1].String()
			}
			return numeric(a)
		}, roundValue},
		"bin":   {2, 2, binType, binValue},
		"floor": {2, 2, binType, binValue},
		"iff":   {3, 3, iffType, iffValue},
		"iif":   {3, 3, iffType, iffValue},
		"case":  {3, 63, caseType, caseValue},
		"strcat": {1, 64, stringTo(column.String), func(a []column.Value) column.Value {
			var b strings.Builder
			for _, v := range a {
				b.WriteString(textOf(v))
			}
			return column.Value{Type: column.String, Str: b.String()}
		}},
		"coalesce": {1, 64, func(a []column.Type) (column.Type, string) {
			for _, t := range a[1:] {
				if t != a[0] && !(t.IsNumeric() && a[0].IsNumeric()) {
					return 0, "arguments must share a type, found " + a[0].String() + " and " + t.String()
				}
			}
			return a[0], ""
		}, func(a []column.Value) column.Value {
			for _, v := range a {
				if !v.Null && !(isText(v.Type) && v.Str == "") {
					return v
				}
			}
			return a[0]
		}},
	}
}

func isText(t column.Type) bool { return t == column.String || t == column.Dynamic }

func textValue(v column.Value, f func(string) string) column.Value {
	if v.Null {
		return null(column.String)
	}
	return column.Value{Type: column.String, Str: f(ToString(v))}
}

// roundValue rounds half away from zero to the given number of decimals (default 0).
func roundValue(a []column.Value) column.Value {
	v := a[0]
	if v.Null || v.Type != column.Real {
		return v
	}
	digits := int64(0)
	if len(a) == 2 {
		if a[1].Null {
			return null(column.Real)
		}
		digits = a[1].Int
	}
	p := math.Pow(10, float64(digits))
	v.Real = math.Round(v.Real*p) / p
	return v
}

func binType(a []column.Type) (column.Type, string) {
	switch {
	case a[0] == column.Long && a[1] == column.Long:
		return column.Long, ""
	case a[0].IsNumeric() && a[1].IsNumeric():
		return column.Real, ""
	case (a[0] == column.DateTime || a[0] == column.Timespan) && a[1] == column.Timespan:
		return a[0], ""
	case a[0] == column.Dynamic:
		return column.Dynamic, ""
	}
	return 0, "cannot bin " + a[0].String() + " by " + a[1].String()
}

// binValue rounds down to a multiple of the bin size: bin(7, 5) is 5, bin(-1, 5) is -5, and a datetime bins to
// a multiple of the timespan since the Unix epoch. A size of zero or less gives null.
func binValue(a []column.Value) column.Value {
	v, size := a[0], a[1]
	if v.Null || size.Null {
		return null(v.Type)
	}
	if v.Type == column.Real || size.Type == column.Real {
		s := size.Float()
		if s <= 0 {
			return null(column.Real)
		}
		return column.Value{Type: column.Real, Real: math.Floor(v.Float()/s) * s}
	}
	if size.Int <= 0 {
		return null(v.Type)
	}
	q := v.Int / size.Int
	if v.Int%size.Int != 0 && v.Int < 0 {
		q--
	}
	v.Int = q * size.Int
	return v
}

func iffType(a []column.Type) (column.Type, string) {
	if a[0] != column.Bool && a[0] != column.Dynamic {
		return 0, "condition must be a bool, found " + a[0].String()
	}
	switch {
	case a[1] == a[2]:
		return a[1], ""
	case a[1].IsNumeric() && a[2].IsNumeric():
		return column.Real, ""
	}
	return 0, "branches must share a type, found " + a[1].String() + " and " + a[2].String()
}

func iffValue(a []column.Value) column.Value {
	if b, ok := Truth(a[0]); ok && b {
		return a[1]
	}
	return a[2]
}

// caseType is case()'s type: case(p1, v1, p2, v2, …, else) takes predicate and value pairs, then the value
// when no predicate holds; the values share a type as iff's branches do (longs and reals make a real).
func caseType(a []column.Type) (column.Type, string) {
	if len(a)%2 == 0 {
		return 0, "takes predicate and value pairs, then an else value: an odd count of arguments"
	}
	t := a[len(a)-1]
	for i := 0; i < len(a)-1; i += 2 {
		u, msg := iffType([]column.Type{a[i], a[i+1], t})
		if msg != "" {
			return 0, fmt.Sprintf("argument %d: %s", i+1, msg)
		}
		t = u
	}
	return t, ""
}

// caseValue is the value of the first pair whose predicate is true (a null predicate is not), else the last
// argument: iff nested from the right.
func caseValue(a []column.Value) column.Value {
	for i := 0; i < len(a)-1; i += 2 {
		if b, ok := Truth(a[i]); ok && b {
			return a[i+1]
		}
	}
	return a[len(a)-1]
}

func call(e *kql.Call, args []Expr) (Expr, error) {
	if Aggregates[e.Name] {
		return nil, kql.Errorf(e.Pos, "aggregate %s() is allowed only in summarize", e.Name)
	}
	f, ok := scalars[e.Name]
	if !ok {
		return nil, kql.Errorf(e.Pos, "unknown function %s()", e.Name)
	}
	if len(args) < f.minArgs || len(args) > f.maxArgs {
		return nil, kql.Errorf(e.Pos, "%s() takes %s, found %d", e.Name, arity(f.minArgs, f.maxArgs), len(args))
	}
	types := make([]column.Type, len(args))
	for i, a := range args {
		types[i] = a.Type()
	}
	t, msg := f.result(types)
	if msg != "" {
		return nil, kql.Errorf(e.Pos, "%s(): %s", e.Name, msg)
	}
	return &rowFunc{args: args, t: t, fn: f.fn}, nil
}

func arity(lo, hi int) string {
	switch {
	case lo == hi && lo == 1:
		return "1 argument"
	case lo == hi:
		return strconv.Itoa(lo) + " arguments"
	case hi >= 64:
		return "at least " + strconv.Itoa(lo) + " argument(s)"
	}
	return strconv.Itoa(lo) + " to " + strconv.Itoa(hi) + " arguments"
}
