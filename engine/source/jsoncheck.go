package source

import (
	"encoding/binary"
	"math/bits"
	"strconv"

	"github.com/tidwall/gjson"
)

// checkJSON validates data as one JSON value with optional whitespace around it, exactly as gjson.ValidBytes
// does (the same grammar), and in the same walk finds the first number beyond the range of a real, as
// firstOutOfRange would: one pass over a line where the two took one each. big is that number's text, "" when
// there is none; it means nothing when ok is false.
func checkJSON(data []byte) (ok bool, big string) {
	i := skipSpace(data, 0)
	if i == len(data) {
		return false, ""
	}
	i, ok = checkValue(data, i, &big)
	return ok && skipSpace(data, i) == len(data), big
}

// spaceByte marks JSON's whitespace. skipSpace tests a byte above the space first, so that a byte that is not
// whitespace (nearly all of them) costs one comparison.
var spaceByte = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// skipSpace returns the offset of the first byte at or after i that is not whitespace.
func skipSpace(d []byte, i int) int {
	for i < len(d) && d[i] <= ' ' && spaceByte[d[i]] {
		i++
	}
	return i
}

// The states of checkValue's walk: a value is due, an object's key is due, or a value has ended.
const (
	wantValue = iota
	wantKey
	ended
)

// checkValue validates the JSON value that starts at d[i] (not whitespace) and returns the offset after it. It
// keeps in *big the first number beyond the range of a real, when *big is still "".
//
// The walk is one loop over the text with the open objects and arrays on a stack of their own, not a call per
// value: under js/wasm a call costs more than the few comparisons of a typical member, and JSON-lines scans
// check every line they read once. Strings, numbers and literals are read inline; only a string's plain run
// (plainRun) and a number out of range are calls.
func checkValue(d []byte, i int, big *string) (int, bool) {
	var buf [32]bool
	open := buf[:0] // per open container, innermost last: true for an object, false for an array
	state := wantValue
	for {
		switch state {
		case wantKey:
			i = skipSpace(d, i)
			if i == len(d) || d[i] != '"' {
				return i, false
			}
			var ok bool
			if i, _, ok = checkString(d, i+1); !ok {
				return i, false
			}
			if i = skipSpace(d, i); i == len(d) || d[i] != ':' {
				return i, false
			}
			i = skipSpace(d, i+1)
			state = wantValue
		case wantValue:
			if i == len(d) {
				return i, false
			}
			switch b := d[i]; {
			case b == '"':
				var ok bool
				if i, _, ok = checkString(d, i+1); !ok {
					return i, false
				}
				state = ended
			case b == '-' || isDigit(b):
				start, exp := i, false
				if b == '-' {
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
				if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
					exp = true
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
				// Without an exponent a number's magnitude is at most its length, so only a long one needs
				// measuring.
				if *big == "" && (exp || i-start >= maxFiniteMagnitude) {
					*big = outOfRange(d[start:i])
				}
				state = ended
			case b == '{' || b == '[':
				obj, closing := b == '{', byte(']')
				if obj {
					closing = '}'
				}
				if i = skipSpace(d, i+1); i < len(d) && d[i] == closing {
					i++
					state = ended
					break
				}
				open = append(open, obj)
				if obj {
					state = wantKey
				}
			case b == 't' || b == 'f' || b == 'n':
				word := "null"
				switch b {
				case 't':
					word = "true"
				case 'f':
					word = "false"
				}
				if len(d)-i < len(word) || string(d[i:i+len(word)]) != word {
					return i, false
				}
				i += len(word)
				state = ended
			default:
				return i, false
			}
		default: // ended
			top := len(open) - 1
			if top < 0 {
				return i, true
			}
			if i = skipSpace(d, i); i == len(d) {
				return i, false
			}
			switch d[i] {
			case ',':
				i = skipSpace(d, i+1)
				state = wantValue
				if open[top] {
					state = wantKey
				}
			case '}', ']':
				if open[top] != (d[i] == '}') {
					return i, false
				}
				open = open[:top]
				i++
			default:
				return i, false
			}
		}
	}
}

// outOfRange returns num's text when it is beyond the range of a real, else "".
func outOfRange(num []byte) string {
	if magnitude(num) < maxFiniteMagnitude {
		return ""
	}
	if _, err := strconv.ParseFloat(string(num), 64); err != nil {
		return string(num)
	}
	return ""
}

// checkString reads a string's contents after its opening quote, and the closing one: no control characters,
// and only JSON's escapes. It returns the offset after the closing quote and whether the contents hold a
// backslash, so a caller that needs the string unescaped knows without looking again.
func checkString(d []byte, i int) (end int, escaped, ok bool) {
	for {
		i = plainRun(d, i)
		for i < len(d) && !strStop[d[i]] {
			i++
		}
		if i == len(d) || d[i] < ' ' {
			return i, escaped, false
		}
		if d[i] == '"' {
			return i + 1, escaped, true
		}
		escaped = true
		i++ // past the backslash
		if i == len(d) {
			return i, escaped, false
		}
		switch d[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			for range 4 {
				i++
				if i >= len(d) || !isHex(d[i]) {
					return i, escaped, false
				}
			}
		default:
			return i, escaped, false
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

// checkMembers is checkJSON for a line that must hold one JSON object, walking it once for both jobs: it calls
// fn with each top-level member, as eachMember does (the key unescaped, the value's raw text), until fn returns
// false, and validates the whole line all the same. ok is false for a line that is not valid JSON or not an
// object; fn may then have seen the members before the fault.
func checkMembers(line []byte, fn func(key, val []byte) bool) (ok bool, big string) {
	d := line
	i := skipSpace(d, 0)
	if i == len(d) || d[i] != '{' {
		return false, ""
	}
	calling := true
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return skipSpace(d, i+1) == len(d), big
	}
	for {
		if i == len(d) || d[i] != '"' {
			return false, big
		}
		end, escaped, ok := checkString(d, i+1)
		if !ok {
			return false, big
		}
		key := d[i+1 : end-1]
		if calling && escaped {
			key = []byte(gjson.ParseBytes(d[i:end]).Str)
		}
		if i = skipSpace(d, end); i == len(d) || d[i] != ':' {
			return false, big
		}
		vs := skipSpace(d, i+1)
		ve, ok := checkValue(d, vs, &big)
		if !ok {
			return false, big
		}
		if calling {
			calling = fn(key, d[vs:ve])
		}
		if i = skipSpace(d, ve); i == len(d) {
			return false, big
		}
		switch d[i] {
		case '}':
			return skipSpace(d, i+1) == len(d), big
		case ',':
			i = skipSpace(d, i+1)
		default:
			return false, big
		}
	}
}
