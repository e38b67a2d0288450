package kql

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// tokKind classifies a token. Keywords are not kinds of their own: KQL lets most of them name columns too, so
// the parser recognises a keyword by its text where the grammar expects one.
type tokKind int

const (
	tEOF    tokKind = iota
	tIdent          // a bare identifier, including keywords and the hyphenated words project-away and make-intervals
	tName           // a bracketed name, ['x'] or ["x"]; never a keyword
	tSource         // @Name
	tSide           // $left or $right
	tLong           // 42
	tReal           // 1.5, 1e3
	tSpan           // 1h, 1.5h, 100ms
	tString         // "x", 'x', @"x" or @'x'
	tOp             // punctuation and operators, including the negated word operators such as !has
	tRaw            // the unquoted argument of datetime(…), read only when the parser asks for it
)

// token is one lexical unit. text is the token as written; val is the name (tIdent, tName, tSource, tSide) or
// the decoded contents (tString).
type token struct {
	kind tokKind
	pos  Pos
	text string
	val  string
}

// String describes the token for "found …" in error messages.
func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of query"
	case tString:
		return "string " + strconv.Quote(clip(t.val))
	case tName:
		return clip(t.text)
	}
	return "'" + clip(t.text) + "'"
}

// maxQuoted bounds how much of a token an error message repeats, so a huge literal does not make a huge message.
const maxQuoted = 24

// clip shortens s to at most maxQuoted bytes, cutting on a rune boundary.
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// operators are the punctuation tokens, each two-byte operator before its one-byte prefix so that the first
// match is the longest.
var operators = []string{
	"==", "!=", "<=", ">=", "=~", "!~", "..",
	"|", "(", ")", ",", ".", "=", "<", ">", "+", "-", "*", "/", "%", ";",
}

// negatedOps are the word operators that may be prefixed with '!' (no space between).
var negatedOps = map[string]bool{
	"!has": true, "!contains": true, "!startswith": true, "!endswith": true, "!in": true, "!between": true,
}

// spanUnits are the suffixes that turn a number into a timespan literal: Kusto's (d, h, m, s, ms,
// microsecond, tick, which is 100 ns) and Go's us and ns.
var spanUnits = map[string]bool{"d": true, "h": true, "m": true, "s": true, "ms": true, "us": true, "ns": true,
	"microsecond": true, "tick": true}

// lexer turns query text into tokens, one call to next at a time.
//
// Invariant: newlines are crossed only by skipSpace (strings, names and datetime arguments end at a newline), so
// line and lineStart are updated there alone and every other position is computed from the current line.
type lexer struct {
	src       string
	off       int // offset of the next unread byte
	line      int // 1-based line of src[off]
	lineStart int // offset of the first byte of that line
}

func newLexer(src string) *lexer { return &lexer{src: src, line: 1} }

// posAt is the position of src[off], which must be on the current line.
func (l *lexer) posAt(off int) Pos { return Pos{Line: l.line, Col: off - l.lineStart + 1} }

// at is src[i], or 0 past the end, so that lookahead needs no bounds checks.
func (l *lexer) at(i int) byte {
	if i < len(l.src) {
		return l.src[i]
	}
	return 0
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isIdentStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || isDigit(c) }

// identEnd is the offset just past the run of identifier bytes starting at off.
func (l *lexer) identEnd(off int) int {
	for off < len(l.src) && isIdentChar(l.src[off]) {
		off++
	}
	return off
}

// skipSpace skips whitespace and // comments.
func (l *lexer) skipSpace() {
	for l.off < len(l.src) {
		switch c := l.src[l.off]; {
		case c == '\n':
			l.off++
			l.line, l.lineStart = l.line+1, l.off
		case c == ' ' || c == '\t' || c == '\r':
			l.off++
		case c == '/' && l.at(l.off+1) == '/':
			if i := strings.IndexByte(l.src[l.off:], '\n'); i >= 0 {
				l.off += i
			} else {
				l.off = len(l.src)
			}
		default:
			return
		}
	}
}

// hyphenated are the operator names that contain a '-': the lexer reads each as one identifier.
var hyphenated = []struct{ head, tail string }{{"project", "-away"}, {"make", "-intervals"}}

// next scans the next token. At the end of the text it returns tEOF, again on every call.
func (l *lexer) next() (token, *Error) {
	l.skipSpace()
	start, pos := l.off, l.posAt(l.off)
	if l.off >= len(l.src) {
		return token{kind: tEOF, pos: pos}, nil
	}
	emit := func(kind tokKind, val string) (token, *Error) {
		return token{kind: kind, pos: pos, text: l.src[start:l.off], val: val}, nil
	}
	switch c := l.src[l.off]; {
	case isIdentStart(c):
		l.off = l.identEnd(l.off)
		// project-away and make-intervals are the hyphenated words; anywhere else a '-' between words is a minus.
		for _, w := range hyphenated {
			if l.src[start:l.off] == w.head && strings.HasPrefix(l.src[l.off:], w.tail) && !isIdentChar(l.at(l.off+len(w.tail))) {
				l.off += len(w.tail)
				break
			}
		}
		return emit(tIdent, l.src[start:l.off])
	case isDigit(c):
		return l.number()
	case c == '"' || c == '\'':
		s, err := l.quoted(true)
		if err != nil {
			return token{}, err
		}
		return emit(tString, s)
	case c == '@':
		switch q := l.at(l.off + 1); {
		case q == '"' || q == '\'':
			l.off++
			s, err := l.quoted(false)
			if err != nil {
				return token{}, err
			}
			return emit(tString, s)
		case isIdentStart(q):
			l.off = l.identEnd(l.off + 1)
			return emit(tSource, l.src[start+1:l.off])
		}
		return token{}, Errorf(pos, "expected source name after '@'")
	case c == '[':
		if q := l.at(l.off + 1); q != '"' && q != '\'' {
			return token{}, Errorf(pos, "expected quoted name after '['")
		}
		l.off++
		name, err := l.quoted(true)
		if err != nil {
			return token{}, err
		}
		if l.at(l.off) != ']' {
			return token{}, Errorf(l.posAt(l.off), "expected ']' after bracketed name")
		}
		l.off++
		if name == "" {
			return token{}, Errorf(pos, "empty bracketed name")
		}
		return emit(tName, name)
	case c == '$':
		l.off = l.identEnd(l.off + 1)
		if side := l.src[start+1 : l.off]; side == "left" || side == "right" {
			return emit(tSide, side)
		}
		return token{}, Errorf(pos, "expected $left or $right, found '%s'", clip(l.src[start:l.off]))
	case c == '!' && isIdentStart(l.at(l.off+1)):
		l.off = l.identEnd(l.off + 1)
		if op := l.src[start:l.off]; negatedOps[op] {
			return emit(tOp, op)
		}
		return token{}, Errorf(pos, "unknown operator '%s'", clip(l.src[start:l.off]))
	}
	for _, op := range operators {
		if strings.HasPrefix(l.src[l.off:], op) {
			l.off += len(op)
			return emit(tOp, op)
		}
	}
	r, _ := utf8.DecodeRuneInString(l.src[l.off:])
	return token{}, Errorf(pos, "unexpected character %q", r)
}

// number scans an integer, real or timespan literal. The whole run of identifier bytes after the digits belongs
// to the token, so 1abc is one bad literal rather than 1 followed by abc.
func (l *lexer) number() (token, *Error) {
	start, pos := l.off, l.posAt(l.off)
	digits := func() {
		for isDigit(l.at(l.off)) {
			l.off++
		}
	}
	digits()
	kind := tLong
	// A '.' not followed by a digit is not part of the number: 1..5 is a range.
	if l.at(l.off) == '.' && isDigit(l.at(l.off+1)) {
		l.off++
		digits()
		kind = tReal
	}
	exponent := false
	if c := l.at(l.off); c == 'e' || c == 'E' {
		i := l.off + 1
		if s := l.at(i); s == '+' || s == '-' {
			i++
		}
		if isDigit(l.at(i)) {
			l.off = i
			digits()
			kind, exponent = tReal, true
		}
	}
	unitStart := l.off
	l.off = l.identEnd(l.off)
	if unit := l.src[unitStart:l.off]; unit != "" {
		if exponent || !spanUnits[unit] {
			return token{}, Errorf(pos, "invalid number '%s'", clip(l.src[start:l.off]))
		}
		kind = tSpan
	}
	return token{kind: kind, pos: pos, text: l.src[start:l.off]}, nil
}

// quoted scans a string literal whose opening quote is at src[off]. With escapes false it is verbatim: a
// backslash is an ordinary byte.
func (l *lexer) quoted(escapes bool) (string, *Error) {
	start := l.off
	q := l.src[l.off]
	l.off++
	var b strings.Builder
	for {
		if l.off >= len(l.src) || l.src[l.off] == '\n' {
			return "", Errorf(l.posAt(start), "string literal not terminated")
		}
		c := l.src[l.off]
		switch {
		case c == q:
			l.off++
			return b.String(), nil
		case c == '\\' && escapes:
			if l.off+1 >= len(l.src) || l.src[l.off+1] == '\n' {
				return "", Errorf(l.posAt(start), "string literal not terminated")
			}
			switch e := l.src[l.off+1]; e {
			case '"', '\'', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				return "", Errorf(l.posAt(l.off), "unknown escape sequence")
			}
			l.off += 2
		default:
			b.WriteByte(c)
			l.off++
		}
	}
}

// datetimeText scans the argument of datetime(…), with the lexer just past the '('. The argument is not made of
// tokens (2024-01-02 03:04 would lex as arithmetic), so it is taken raw up to the ')' or the end of the line. A
// quoted or empty argument is lexed as usual instead.
func (l *lexer) datetimeText() (token, *Error) {
	l.skipSpace()
	end := l.off
	for end < len(l.src) && l.src[end] != ')' && l.src[end] != '\n' {
		end++
	}
	text := strings.TrimRight(l.src[l.off:end], " \t\r")
	if text == "" || text[0] == '"' || text[0] == '\'' {
		return l.next()
	}
	pos := l.posAt(l.off)
	l.off += len(text)
	return token{kind: tRaw, pos: pos, text: text, val: text}, nil
}

// dateTimeLayouts are the accepted forms of a datetime literal. time.Parse accepts a fractional second after the
// seconds field even where a layout does not show one.
var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
}

// parseDateTime reads a datetime literal's text, in UTC.
func parseDateTime(s string) (time.Time, bool) {
	for _, layout := range dateTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// parseTimespan reads a tSpan token's text. Every unit but d and tick is one time.ParseDuration knows (as us,
// for microsecond); days are read as hours and ticks as nanoseconds, then scaled, which can lose a few
// nanoseconds only when the fraction has more than a dozen digits.
func parseTimespan(s string) (time.Duration, error) {
	if num, ok := strings.CutSuffix(s, "microsecond"); ok {
		return time.ParseDuration(num + "us")
	}
	for _, u := range []struct {
		suffix, as string
		scale      time.Duration
	}{{"d", "h", 24}, {"tick", "ns", 100}} {
		num, ok := strings.CutSuffix(s, u.suffix)
		if !ok {
			continue
		}
		d, err := time.ParseDuration(num + u.as)
		if err != nil {
			return 0, err
		}
		if d > math.MaxInt64/u.scale || d < math.MinInt64/u.scale {
			return 0, strconv.ErrRange
		}
		return u.scale * d, nil
	}
	return time.ParseDuration(s)
}
