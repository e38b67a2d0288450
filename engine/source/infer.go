package source

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/joinlab/joinlab/engine/column"
)

// kinds records which kinds of non-null value a column has shown, so that one pass over the data can pick the
// narrowest type that holds them all.
type kinds uint8

const (
	sawBool kinds = 1 << iota
	sawLong
	sawReal
	sawDateTime
	sawString
	sawNested // a JSON object or array
)

// columnType is the narrowest type that holds every kind seen: longs and reals widen to real, datetimes and other
// strings to string, and any other mix to string (each value as written), or dynamic once nested JSON appears.
// A column that held only nulls is dynamic: nothing fixes its type.
func (k kinds) columnType() column.Type {
	switch {
	case k == 0:
		return column.Dynamic
	case k&sawNested != 0:
		return column.Dynamic
	case k == sawBool:
		return column.Bool
	case k == sawLong:
		return column.Long
	case k&^(sawLong|sawReal) == 0:
		return column.Real
	case k == sawDateTime:
		return column.DateTime
	default:
		return column.String
	}
}

// The one mapping of empty and special values, shared by JSON lines and CSV so that the same table reads the
// same from either (README, "Types"):
//
//   - An empty value (a CSV field with nothing in it, or the JSON string "") fixes no type. In a string column
//     it is the empty string, which is not null, as in Kusto; in a column of any other type it is null, as
//     Kusto reads an empty field into a long or real column.
//   - A JSON null or a missing key is null in every column. (Kusto has no null string and would read "" there.)
//   - The words NaN, Infinity and -Infinity (a CSV field, or a JSON string, since JSON has no such numbers)
//     count as reals: in a real column they are the special values, in a string column the words. They are
//     what the engine writes for those values, so output reads back as it was.
//   - A number written beyond the range of a real (1e400) is an error with its line: no value would be right.
//     An integer beyond the range of a long (2^63) makes its column real, the nearest representable value.
var specialReals = map[string]float64{"NaN": math.NaN(), "Infinity": math.Inf(1), "-Infinity": math.Inf(-1)}

// textKind is the kind of a value written as text: a whole CSV field, or the contents of a JSON string when
// isJSONString (JSON strings are never numbers or booleans; their type is in the syntax). It fails only for a
// decimal number beyond the range of a real.
func textKind(s string, isJSONString bool) (kinds, error) {
	if s == "" {
		return 0, nil
	}
	// The first byte sorts the field: only one that starts like a number can be a number, -Infinity or a
	// datetime (whose shape starts with a digit), and only one that does not can be a word. Every field of a
	// sample is classed, so a string goes no further than its first letter.
	if isLetterStart(s[0]) {
		switch {
		case s == "NaN" || s == "Infinity": // specialReals, without hashing every value
			return sawReal, nil
		case !isJSONString && isBoolWord(s):
			return sawBool, nil
		}
		return sawString, nil
	}
	if !isJSONString {
		// Only integer syntax goes to ParseInt: a failed parse builds an error value, and most fields are not
		// integers. One beyond the range of a long fails there and is read below as a real; 18 digits or
		// fewer always fit.
		if isInteger(s) {
			if len(s) <= 18 {
				return sawLong, nil
			}
			if _, err := strconv.ParseInt(s, 10, 64); err == nil {
				return sawLong, nil
			}
		}
		if isDecimal(s) {
			if mayLeaveRealRange(s) {
				if _, err := strconv.ParseFloat(s, 64); err != nil {
					return 0, errOutOfRange(s) // decimal syntax, so the only failure is the range
				}
			}
			return sawReal, nil
		}
	}
	if s == "-Infinity" {
		return sawReal, nil
	}
	if _, ok := column.ParseDateTime(s); ok {
		return sawDateTime, nil
	}
	return sawString, nil
}

// mayLeaveRealRange reports whether a decimal number s could be beyond the range of a real. Without an
// exponent and within 300 characters it lies between 10^-300 and 10^300, well inside, so only a longer one or
// one with an exponent needs parsing to be classed.
func mayLeaveRealRange(s string) bool {
	if len(s) > 300 {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i]|0x20 == 'e' {
			return true
		}
	}
	return false
}

// isBoolWord reports whether s is true or false in any case. Its first byte rules out most fields before
// strings.EqualFold's Unicode folding is paid: numbers of four or five digits are common.
func isBoolWord(s string) bool {
	switch len(s) {
	case 4:
		return s[0]|0x20 == 't' && strings.EqualFold(s, "true")
	case 5:
		return s[0]|0x20 == 'f' && strings.EqualFold(s, "false")
	}
	return false
}

// addTextKind is saw, the kinds a CSV column has seen, with field s's added: textKind's kind and error. A
// column that has seen a string is a string whatever else it holds, so its later fields are only checked for
// the one error a field can be, a number beyond a real's range, instead of being classed.
func addTextKind(saw kinds, s string) (kinds, error) {
	if saw&sawString != 0 {
		if isDecimal(s) && mayLeaveRealRange(s) {
			if _, err := strconv.ParseFloat(s, 64); err != nil {
				return saw, errOutOfRange(s)
			}
		}
		return saw, nil
	}
	k, err := textKind(s, false)
	return saw | k, err
}

// isDecimal reports whether s is a decimal number: an optional sign, digits with an optional fraction, an
// optional exponent. strconv.ParseFloat also reads hexadecimal, "inf" and "nan" in any case; a CSV field
// written so is a string here, so that only the spellings above mean special values.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && isDigit(s[i]); i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := i
		for ; i < len(s) && isDigit(s[i]); i++ {
		}
		if i == exp {
			return false
		}
	}
	return i == len(s)
}

// isInteger reports whether s is an optional sign and one or more decimal digits, the syntax ParseInt reads.
func isInteger(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isLetterStart reports whether a field starting with c cannot be a number, -Infinity or a datetime: it is
// neither a digit, a sign nor a decimal point.
func isLetterStart(c byte) bool { return !isDigit(c) && c != '-' && c != '+' && c != '.' }

// shortDigits reads s when it is one to 18 decimal digits, with no sign: the common long, which always fits.
// It is small enough for the compiler to inline into a scan's loop over fields.
func shortDigits(s string) (x int64, ok bool) {
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		x = x*10 + int64(d)
	}
	return x, true
}

// parseLong is strconv.ParseInt(s, 10, 64). Its common case, an optional sign and at most 18 digits (below
// 10^18, so always in range), is read in one loop; anything else goes to ParseInt, for its value or its error.
// Every long a scan reads goes through it, and ParseInt's general checks were a sixth of a CSV join's time.
func parseLong(s string) (int64, error) {
	d := s
	if d != "" && (d[0] == '+' || d[0] == '-') {
		d = d[1:]
	}
	if d == "" || len(d) > 18 {
		return strconv.ParseInt(s, 10, 64)
	}
	var n int64
	for i := 0; i < len(d); i++ {
		c := d[i] - '0'
		if c > 9 {
			return strconv.ParseInt(s, 10, 64)
		}
		n = n*10 + int64(c)
	}
	if s[0] == '-' {
		n = -n
	}
	return n, nil
}

// parseReal reads a value that textKind or kindOf classed as a real or a long.
func parseReal(s string) float64 {
	if f, ok := specialReals[s]; ok {
		return f
	}
	f, _ := strconv.ParseFloat(s, 64) // classed as a number, so it parses and is in range
	return f
}

// maxQuotedNumber bounds how much of a number an error repeats: a 400-digit number is cut.
const maxQuotedNumber = 32

func errOutOfRange(num string) error {
	if len(num) > maxQuotedNumber {
		n := maxQuotedNumber
		for n > 0 && !utf8.RuneStart(num[n]) {
			n--
		}
		num = num[:n] + "..."
	}
	return fmt.Errorf("number %s is out of range", num)
}
