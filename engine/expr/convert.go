package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
)

// ToString renders a value as KQL's tostring does: datetimes in ISO-8601 UTC, timespans as [d.]hh:mm:ss[.f].
func ToString(v column.Value) string {
	if v.Null {
		return ""
	}
	switch v.Type {
	case column.Bool:
		return strconv.FormatBool(v.Bool)
	case column.Long:
		return strconv.FormatInt(v.Int, 10)
	case column.Real:
		return FormatReal(v.Real)
	case column.DateTime:
		return column.FormatDateTime(v.Int)
	case column.Timespan:
		return FormatTimespan(v.Int)
	}
	return v.Str
}

// FormatReal writes a real in the shortest form that reads back exactly.
func FormatReal(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	// Like .NET's shortest round-trip form, which KQL prints: plain digits from 1e-5 up to 1e15 (1000000, not
	// 1e+06), an exponent outside that range.
	if a := math.Abs(f); a == 0 || (a >= 1e-5 && a < 1e15) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// FormatTimespan writes nanoseconds as KQL does: [-][d.]hh:mm:ss[.fffffff].
func FormatTimespan(ns int64) string {
	var b strings.Builder
	if ns < 0 {
		b.WriteByte('-')
		ns = -ns
	}
	const day = 24 * 3600 * 1e9
	if d := ns / day; d > 0 {
		fmt.Fprintf(&b, "%d.", d)
		ns %= day
	}
	secs := ns / 1e9
	fmt.Fprintf(&b, "%02d:%02d:%02d", secs/3600, secs/60%60, secs%60)
	if frac := ns % 1e9; frac != 0 {
		fmt.Fprintf(&b, ".%07d", frac/100)
	}
	return b.String()
}

// convert changes a non-null value to type t where a function's declared result type is wider than what it
// computed (a long where the function returns real); other combinations give null.
func convert(v column.Value, t column.Type) column.Value {
	switch {
	case v.Type == t:
		return v
	case t == column.Real && v.Type.IsNumeric():
		return column.Value{Type: t, Real: v.Float()}
	case t == column.Long && v.Type == column.Real:
		return column.Value{Type: t, Int: int64(v.Real)}
	case t == column.String || t == column.Dynamic:
		return column.Value{Type: t, Str: ToString(v)}
	case (t == column.Long || t == column.DateTime || t == column.Timespan) &&
		(v.Type == column.Long || v.Type == column.DateTime || v.Type == column.Timespan):
		return column.Value{Type: t, Int: v.Int}
	}
	return null(t)
}

// toLong is tolong/toint: numbers truncate, bools are 0 or 1, strings parse (as integers, or as reals then
// truncate); anything else is null.
func toLong(v column.Value) column.Value {
	if v.Null {
		return null(column.Long)
	}
	switch v.Type {
	case column.Long:
		return v
	case column.Real:
		if math.IsNaN(v.Real) || math.IsInf(v.Real, 0) {
			return null(column.Long)
		}
		return column.Value{Type: column.Long, Int: int64(v.Real)}
	case column.Bool:
		if v.Bool {
			return column.Value{Type: column.Long, Int: 1}
		}
		return column.Value{Type: column.Long}
	case column.DateTime, column.Timespan:
		return column.Value{Type: column.Long, Int: v.Int}
	}
	s := strings.TrimSpace(v.Str)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return column.Value{Type: column.Long, Int: n}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return column.Value{Type: column.Long, Int: int64(f)}
	}
	return null(column.Long)
}

// toReal is todouble/toreal.
func toReal(v column.Value) column.Value {
	if v.Null {
		return null(column.Real)
	}
	switch v.Type {
	case column.Real:
		return v
	case column.Long, column.DateTime, column.Timespan:
		return column.Value{Type: column.Real, Real: float64(v.Int)}
	case column.Bool:
		if v.Bool {
			return column.Value{Type: column.Real, Real: 1}
		}
		return column.Value{Type: column.Real}
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(v.Str), 64); err == nil {
		return column.Value{Type: column.Real, Real: f}
	}
	return null(column.Real)
}

// Numeric returns a number as is and a dynamic value holding a JSON number as a long or a real, reporting
// false for anything else. Nested paths read at evaluation time are dynamic, and KQL compares and computes
// with the numbers they hold, not with their text.
func Numeric(v column.Value) (column.Value, bool) {
	if v.Null {
		return v, false
	}
	if v.Type.IsNumeric() {
		return v, true
	}
	if v.Type != column.Dynamic || v.Str == "" || !(v.Str[0] == '-' || (v.Str[0] >= '0' && v.Str[0] <= '9')) {
		return v, false
	}
	if n, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
		return column.Value{Type: column.Long, Int: n}, true
	}
	if f, err := strconv.ParseFloat(v.Str, 64); err == nil {
		return column.Value{Type: column.Real, Real: f}, true
	}
	return v, false
}

// Truth reads a bool, or a dynamic value holding JSON true or false; anything else is null.
func Truth(v column.Value) (value, ok bool) {
	switch {
	case v.Null:
		return false, false
	case v.Type == column.Bool:
		return v.Bool, true
	case v.Type == column.Dynamic && (v.Str == "true" || v.Str == "false"):
		return v.Str == "true", true
	}
	return false, false
}
