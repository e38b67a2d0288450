package source

import (
	"encoding/binary"
	"math/bits"
	"strconv"

	"github.com/tidwall/gjson"
)

// checkJSON validates data as one JSON value with optional whitespace around it, exactly as gjson.ValidBytes
// does (the same grammar, walked the same way), and in the same walk finds the first number beyond the range
// of a real, as firstOutOfRange would: one pass over a line where the two took one each. big is that number's
// text, "" when there is none; it means nothing when ok is false.
func checkJSON(data []byte) (ok bool, big string) {
	c := jsonChecker{data: data}
	return c.payload(), c.big
}

// jsonChecker walks one document; each method takes the offset to start at and returns the offset after what
// it read, and whether that was valid.
type jsonChecker struct {
	data []byte
	big  string
	// escaped is set by str when the string it read holds a backslash, so a caller that needs the string
	// unescaped knows without looking again; str never clears it.
	escaped bool
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// skip returns the offset of the first byte at or after i that is not whitespace.
func (c *jsonChecker) skip(i int) int {
	for i < len(c.data) && isSpace(c.data[i]) {
		i++
	}
	return i
}

func (c *jsonChecker) payload() bool {
	i := c.skip(0)
	if i == len(c.data) {
		return false
	}
	i, ok := c.value(i)
	return ok && c.skip(i) == len(c.data)
}

func (c *jsonChecker) value(i int) (int, bool) {
	i = c.skip(i)
	if i == len(c.data) {
		return i, false
	}
	switch b := c.data[i]; {
	case b == '{':
		return c.object(i + 1)
	case b == '[':
		return c.array(i + 1)
	case b == '"':
		return c.str(i + 1)
	case b == '-' || isDigit(b):
		return c.number(i)
	case b == 't':
		return c.word(i+1, "rue")
	case b == 'f':
		return c.word(i+1, "alse")
	case b == 'n':
		return c.word(i+1, "ull")
	}
	return i, false
}

func (c *jsonChecker) word(i int, rest string) (int, bool) {
	if i+len(rest) <= len(c.data) && string(c.data[i:i+len(rest)]) == rest {
		return i + len(rest), true
	}
	return i, false
}

// object reads the members after an opening brace, and the closing one.
func (c *jsonChecker) object(i int) (int, bool) {
	i = c.skip(i)
	if i < len(c.data) && c.data[i] == '}' {
		return i + 1, true
	}
	for {
		if i == len(c.data) || c.data[i] != '"' {
			return i, false
		}
		var ok bool
		if i, ok = c.str(i + 1); !ok {
			return i, false
		}
		if i = c.skip(i); i == len(c.data) || c.data[i] != ':' {
			return i, false
		}
		if i, ok = c.value(i + 1); !ok {
			return i, false
		}
		if i = c.skip(i); i == len(c.data) {
			return i, false
		}
		switch c.data[i] {
		case '}':
			return i + 1, true
		case ',':
			i = c.skip(i + 1)
		default:
			return i, false
		}
	}
}

// array reads the elements after an opening bracket, and the closing one.
func (c *jsonChecker) array(i int) (int, bool) {
	i = c.skip(i)
	if i < len(c.data) && c.data[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = c.value(i); !ok {
			return i, false
		}
		if i = c.skip(i); i == len(c.data) {
			return i, false
		}
		switch c.data[i] {
		case ']':
			return i + 1, true
		case ',':
			i++
		default:
			return i, false
		}
	}
}

// str reads a string's contents after its opening quote, and the closing one: no control characters, and
// only JSON's escapes. The bytes that need a look (strStop) are skipped a table lookup each.
func (c *jsonChecker) str(i int) (int, bool) {
	d := c.data
	for {
		i = plainRun(d, i)
		for i < len(d) && !strStop[d[i]] {
			i++
		}
		if i == len(d) || d[i] < ' ' {
			return i, false
		}
		if d[i] == '"' {
			return i + 1, true
		}
		c.escaped = true
		i++ // past the backslash
		if i == len(d) {
			return i, false
		}
		switch d[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			for range 4 {
				i++
				if i >= len(d) || !isHex(d[i]) {
					return i, false
				}
			}
		default:
			return i, false
		}
		i++
	}
}

// plainRun returns the offset of the first byte at or after i that may be a strStop byte, looking at eight
// bytes at a time while eight remain (the bytes after it are left to the caller's byte loop). Each test flags a
// byte's top bit: x^q has a zero byte where x holds a quote, and a zero or a byte below 0x20 shows as a borrow
// out of its subtraction with the top bit clear in x. A borrow may also flag bytes above a true one, never
// below it, so the lowest flagged byte is exactly the first stop.
func plainRun(d []byte, i int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for i+8 <= len(d) {
		x := binary.LittleEndian.Uint64(d[i:])
		q := x ^ ('"' * ones)
		b := x ^ ('\\' * ones)
		stop := ((q - ones) &^ q) | ((b - ones) &^ b) | ((x - ' '*ones) &^ x)
		if stop &= highs; stop != 0 {
			return i + bits.TrailingZeros64(stop)/8
		}
		i += 8
	}
	return i
}

// strStop marks the bytes that end a run of plain string contents: the quote, the backslash and the control
// characters.
var strStop = func() (t [256]bool) {
	for b := range ' ' {
		t[b] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func isHex(b byte) bool { return isDigit(b) || ('a' <= b && b <= 'f') || ('A' <= b && b <= 'F') }

// number reads a number (a sign, integer digits with no leading zero, a fraction, an exponent) and keeps it
// in big if it is the first beyond the range of a real.
func (c *jsonChecker) number(start int) (int, bool) {
	d, i := c.data, start
	if d[i] == '-' {
		i++
		if i == len(d) || !isDigit(d[i]) {
			return i, false
		}
	}
	if d[i] == '0' {
		i++
	} else {
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i == len(d) || !isDigit(d[i]) {
			return i, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	exp := i < len(d) && (d[i] == 'e' || d[i] == 'E')
	if exp {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i == len(d) || !isDigit(d[i]) {
			return i, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	// Without an exponent a number's magnitude is at most its length, so only a long one needs measuring.
	if c.big == "" && (exp || i-start >= maxFiniteMagnitude) && magnitude(d[start:i]) >= maxFiniteMagnitude {
		if _, err := strconv.ParseFloat(string(d[start:i]), 64); err != nil {
			c.big = string(d[start:i])
		}
	}
	return i, true
}

// checkMembers is checkJSON for a line that must hold one JSON object, walking it once for both jobs: it calls
// fn with each top-level member, as eachMember does (the key unescaped, the value's raw text), until fn returns
// false, and validates the whole line all the same. ok is false for a line that is not valid JSON or not an
// object; fn may then have seen the members before the fault.
func checkMembers(line []byte, fn func(key, val []byte) bool) (ok bool, big string) {
	c := jsonChecker{data: line}
	d := line
	i := c.skip(0)
	if i == len(d) || d[i] != '{' {
		return false, ""
	}
	calling := true
	i = c.skip(i + 1)
	if i < len(d) && d[i] == '}' {
		return c.skip(i+1) == len(d), c.big
	}
	for {
		if i == len(d) || d[i] != '"' {
			return false, c.big
		}
		c.escaped = false
		end, ok := c.str(i + 1)
		if !ok {
			return false, c.big
		}
		key := d[i+1 : end-1]
		if calling && c.escaped {
			key = []byte(gjson.ParseBytes(d[i:end]).Str)
		}
		if i = c.skip(end); i == len(d) || d[i] != ':' {
			return false, c.big
		}
		vs := c.skip(i + 1)
		ve, ok := c.value(vs)
		if !ok {
			return false, c.big
		}
		if calling {
			calling = fn(key, d[vs:ve])
		}
		if i = c.skip(ve); i == len(d) {
			return false, c.big
		}
		switch d[i] {
		case '}':
			return c.skip(i+1) == len(d), c.big
		case ',':
			i = c.skip(i + 1)
		default:
			return false, c.big
		}
	}
}
