package expr

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/keymap"
)

// stringKernel is a string predicate (=~, !~, has, contains, startswith, endswith and their negations) over two
// strings; nil when either operand is of another type. Nulls read as empty strings and the result is never
// null. The case-insensitive tests lower each value into one reused buffer (ASCII values byte by byte, others
// through strings.ToLower), and a constant needle is lowered once.
func stringKernel(op string, l, r Expr) Expr {
	if l.Type() != column.String || r.Type() != column.String {
		return nil
	}
	neg := strings.HasPrefix(op, "!")
	if op == "=~" || op == "!~" {
		// Case folding, not lowering: σ and ς are equal here though both are lower case.
		return newKernel(column.Bool, func(n int, in []*column.Vector) *column.Vector {
			out := newOut(column.Bool, n)
			ys := texts(in[1], n)
			for i, s := range texts(in[0], n) {
				out.Bools[i] = strings.EqualFold(s, ys[i]) != neg
			}
			return out
		}, l, r)
	}
	var test func(s, t []byte) bool
	switch strings.TrimPrefix(op, "!") {
	case "has":
		test = hasTermLower
	case "contains":
		test = bytes.Contains
	case "startswith":
		test = bytes.HasPrefix
	case "endswith":
		test = bytes.HasSuffix
	default:
		return nil
	}
	var needle []byte
	if k, ok := r.(*Const); ok {
		needle = lowerInto(nil, k.V.Str)
		if k := affixKernel(op, l, r, needle, neg); k != nil {
			return k
		}
	}
	return newKernel(column.Bool, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(column.Bool, n)
		xs, ys := texts(in[0], n), texts(in[1], n)
		var sb, tb []byte
		for i, s := range xs {
			sb = lowerInto(sb[:0], s)
			t := needle
			if t == nil {
				tb = lowerInto(tb[:0], ys[i])
				t = tb
			}
			out.Bools[i] = test(sb, t) != neg
		}
		return out
	}, l, r)
}

// affixKernel is startswith or endswith (or their negations) with a constant needle of ASCII text, which
// compares only the value's first or last len(needle) bytes, folded to lower case in place, instead of
// lowering the whole value into a buffer first. It is the same test: a window of ASCII bytes starts or ends at
// a rune boundary, so lowering the value lowers that window alone to itself byte for byte; and lowering turns
// a non-ASCII rune into one of no fewer bytes when the result is ASCII, so a value shorter than the needle
// cannot match. A row whose window holds a non-ASCII byte where the compare reaches it takes the lowering way
// (see affixEqual). nil for any other test or needle.
func affixKernel(op string, l, r Expr, needle []byte, neg bool) Expr {
	prefix := strings.TrimPrefix(op, "!") == "startswith"
	if !prefix && strings.TrimPrefix(op, "!") != "endswith" || !isASCII(needle) {
		return nil
	}
	m, lower := len(needle), string(needle)
	return newKernel(column.Bool, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(column.Bool, n)
		var sb []byte
		for i, s := range texts(in[0], n) {
			if len(s) < m {
				out.Bools[i] = neg
				continue
			}
			var ok, ascii bool
			if prefix {
				ok, ascii = prefixEqual(s[:m], lower)
			} else {
				ok, ascii = suffixEqual(s[len(s)-m:], lower)
			}
			if !ascii {
				sb = lowerInto(sb[:0], s)
				if prefix {
					ok = bytes.HasPrefix(sb, needle)
				} else {
					ok = bytes.HasSuffix(sb, needle)
				}
			}
			out.Bools[i] = ok != neg
		}
		return out
	}, l, r)
}

// prefixEqual and suffixEqual tell whether window w, its ASCII capitals lowered, equals lower (lower-case
// ASCII, as long as w), eight bytes at a time (lowerWord), from the front for a prefix and from the back for a
// suffix, stopping at the first word that differs. ascii is false, and equal meaningless, when they reach a
// non-ASCII byte first. Stopping early is exact: for a prefix, the ASCII bytes compared so far begin the
// lowered value too, whatever runes follow, so one that differs rules a match out; for a suffix the same holds
// of the ASCII bytes at the end. Most values differ from a needle in their first word, which is then the whole
// cost.
func prefixEqual(w, lower string) (equal, ascii bool) {
	j := 0
	for ; j+8 <= len(w); j += 8 {
		x := keymap.Word(w[j:])
		if x&asciiHigh != 0 {
			return false, false
		}
		if lowerWord(x) != keymap.Word(lower[j:]) {
			return false, true
		}
	}
	return bytesEqual(w[j:], lower[j:])
}

func suffixEqual(w, lower string) (equal, ascii bool) {
	j := len(w)
	for ; j >= 8; j -= 8 {
		x := keymap.Word(w[j-8:])
		if x&asciiHigh != 0 {
			return false, false
		}
		if lowerWord(x) != keymap.Word(lower[j-8:]) {
			return false, true
		}
	}
	return bytesEqual(w[:j], lower[:j])
}

// bytesEqual is prefixEqual's test over the fewer than eight bytes words leave, a byte at a time.
func bytesEqual(w, lower string) (equal, ascii bool) {
	equal = true
	for j := 0; j < len(w); j++ {
		c := w[j]
		if c >= utf8.RuneSelf {
			return false, false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		equal = equal && c == lower[j]
	}
	return equal, true
}

// asciiHigh has the top bit of each byte of a word: a word of ASCII bytes has none of them set.
const asciiHigh = 0x8080808080808080

// lowerWord lowers the capitals of a word of eight ASCII bytes with no branch: a byte b gets 0x20 where
// b + 0x3f reaches 0x80 (b ≥ 'A') and b + 0x25 does not (b ≤ 'Z'). An ASCII byte plus either constant stays
// below 0x100, so no carry crosses into the next byte.
func lowerWord(x uint64) uint64 {
	ge := x + 0x3f3f3f3f3f3f3f3f
	gt := x + 0x2525252525252525
	return x | (ge&^gt&asciiHigh)>>2
}

// isASCII reports whether b holds only ASCII bytes.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// texts returns a string vector's first n values with null rows as empty strings.
func texts(v *column.Vector, n int) []string {
	s := v.Strs[:n]
	if nulls := nullWords(v, n); nulls != nil {
		s = append([]string(nil), s...)
		eachSet(nulls, func(i int) { s[i] = "" })
	}
	return s
}

// lowerInto appends s lowered as strings.ToLower lowers it: ASCII in one pass that folds each byte into place
// without a branch on it, other text (found on the way) through strings.ToLower.
func lowerInto(dst []byte, s string) []byte {
	n := len(dst)
	dst = slices.Grow(dst, len(s))[:n+len(s)]
	out := dst[n:]
	for i := range out {
		c := s[i]
		if c >= utf8.RuneSelf {
			return append(dst[:n], strings.ToLower(s)...)
		}
		out[i] = c + b2u('A' <= c && c <= 'Z')*('a'-'A')
	}
	return dst
}

// strlenKernel, caseKernel and strcatKernel cover strlen, tolower/toupper and strcat over string arguments.
func strlenKernel(x Expr) Expr {
	if x.Type() != column.String {
		return nil
	}
	return newKernel(column.Long, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(column.Long, n)
		for i, s := range in[0].Strs[:n] {
			out.Ints[i] = int64(runeCount(s))
		}
		setNulls(out, nullWords(in[0], n))
		return out
	}, x)
}

// runeCount is utf8.RuneCountInString(s), whose loop takes a byte at a time: a value of ASCII bytes alone,
// told eight bytes at a time, has as many runes as bytes.
func runeCount(s string) int {
	j := 0
	for ; j+8 <= len(s); j += 8 {
		if keymap.Word(s[j:])&asciiHigh != 0 {
			return utf8.RuneCountInString(s)
		}
	}
	for ; j < len(s); j++ {
		if s[j] >= utf8.RuneSelf {
			return utf8.RuneCountInString(s)
		}
	}
	return len(s)
}

// caseKernel is tolower, or toupper when upper. A value of ASCII bytes with no letter to change, told eight
// bytes at a time (inCase), is its own result, as strings.ToLower and ToUpper return it; any other value goes
// through them.
func caseKernel(x Expr, upper bool) Expr {
	if x.Type() != column.String {
		return nil
	}
	f := strings.ToLower
	if upper {
		f = strings.ToUpper
	}
	return newKernel(column.String, func(n int, in []*column.Vector) *column.Vector {
		out := newOut(column.String, n)
		for i, s := range in[0].Strs[:n] {
			if inCase(s, upper) {
				out.Strs[i] = s
			} else {
				out.Strs[i] = f(s)
			}
		}
		setNulls(out, nullWords(in[0], n))
		return out
	}, x)
}

// inCase reports whether s is ASCII with no capital (or, when upper, no small letter).
func inCase(s string, upper bool) bool {
	lo, span := byte('A'), uint64(0x3f3f3f3f3f3f3f3f) // span: b + it reaches 0x80 when b >= lo
	past := uint64(0x2525252525252525)                // b + it reaches 0x80 when b > lo + 25
	if upper {
		lo, span, past = 'a', 0x1f1f1f1f1f1f1f1f, 0x0505050505050505
	}
	j := 0
	for ; j+8 <= len(s); j += 8 {
		x := keymap.Word(s[j:])
		if x&asciiHigh != 0 || (x+span)&^(x+past)&asciiHigh != 0 {
			return false
		}
	}
	for ; j < len(s); j++ {
		if c := s[j]; c >= utf8.RuneSelf || c-lo < 26 {
			return false
		}
	}
	return true
}

func strcatKernel(args []Expr) Expr {
	for _, a := range args {
		if a.Type() != column.String {
			return nil
		}
	}
	return &kernel{args: args, t: column.String, run: func(n int, in []*column.Vector) *column.Vector {
		out := newOut(column.String, n)
		parts := make([][]string, len(in))
		for j, v := range in {
			parts[j] = texts(v, n)
		}
		var b []byte
		for i := range out.Strs {
			b = b[:0]
			for _, p := range parts {
				b = append(b, p[i]...)
			}
			out.Strs[i] = string(b)
		}
		return out
	}}
}
