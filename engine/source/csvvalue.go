package source

import (
	"math"
	"strconv"

	"github.com/joinlab/joinlab/engine/column"
)

// textValue is textKind for a CSV field that is also kept parsed: with its kind it returns the value the
// field's own type reads it as (a long's int64, a real's float64 bits, a datetime's nanoseconds; 0 for the
// other kinds), so a column whose type turns out to be the field's kind takes the value without parsing the
// text again. Its kind and error are textKind(s, false)'s, which TestTextValueMatchesTextKind checks on
// random fields; the value is what appendCSV would append for a column of that kind.
func textValue(s string) (kinds, int64, error) {
	if s == "" {
		return 0, 0, nil
	}
	switch s {
	case "NaN", "Infinity", "-Infinity":
		return sawReal, int64(math.Float64bits(specialReals[s])), nil
	}
	if isBoolWord(s) {
		return sawBool, 0, nil
	}
	if isInteger(s) {
		if n, err := parseLong(s); err == nil {
			return sawLong, n, nil
		}
	}
	if isDecimal(s) {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, 0, errOutOfRange(s)
		}
		return sawReal, int64(math.Float64bits(f)), nil
	}
	if ns, ok := column.ParseDateTime(s); ok {
		return sawDateTime, ns, nil
	}
	return sawString, 0, nil
}

// appendParsed appends a field textValue parsed as kind k with value x to v, a vector of type t: the value
// itself when the column's type is the field's own kind, else the text converted as appendCSV does (a long
// into a real column is parsed again from its text, so -0 stays negative).
func appendParsed(v *column.Vector, t column.Type, s string, k kinds, x int64) {
	switch {
	case k == sawLong && t == column.Long, k == sawDateTime && t == column.DateTime:
		v.AppendInt(x)
	case k == sawReal && t == column.Real:
		v.AppendReal(math.Float64frombits(uint64(x)))
	default:
		appendCSV(v, t, s)
	}
}
