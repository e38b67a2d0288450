package source

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/joinlab/joinlab/engine/column"
)

// JSONL is a JSON-lines source: one JSON object per line. It keeps the raw lines and reads each requested
// column with a gjson path at scan time, so a query pays only for the fields it uses.
type JSONL struct {
	name  string
	lines [][]byte // raw objects; blank lines dropped
	top   column.Schema

	mu    sync.Mutex
	paths map[string]column.Type // nested paths typed on first request
}

// FromJSONL parses JSON-lines data. Every non-blank line must be a JSON object whose numbers are all within the
// range of a real; the first line that is not is reported as "line N: …" (the caller says which source). Top-level
// keys become columns in order of first appearance, typed from all their values (see kinds.columnType and
// specialReals).
func FromJSONL(name string, data []byte) (*JSONL, error) {
	part, err := parseJSONLChunk(chunk{data: data, line: 1})
	if err != nil {
		return nil, err
	}
	return newJSONL(name, []jsonlPart{part}), nil
}

// readJSONL reads JSON lines as FromJSONL does, a chunk at a time, parsing chunks in parallel.
func readJSONL(name string, c *chunker, workers int) (*JSONL, error) {
	parts, err := parseChunks(c, workers, parseJSONLChunk)
	if err != nil {
		return nil, err
	}
	return newJSONL(name, parts), nil
}

// jsonlPart is what one chunk holds: its lines, and its top-level keys in order of first appearance with the
// kinds of their values.
type jsonlPart struct {
	lines [][]byte // nil when the lines are not kept (jsonlFile)
	rows  int
	order []string
	saw   []kinds
}

// parseJSONLChunk validates and types the lines of one chunk; its errors name the line in the whole file.
func parseJSONLChunk(ch chunk) (jsonlPart, error) { return parseJSONLLines(ch, true) }

// parseJSONLLines is parseJSONLChunk, keeping the lines or only counting them.
func parseJSONLLines(ch chunk, keep bool) (jsonlPart, error) {
	var p jsonlPart
	seen := map[string]int{}
	data := ch.data
	lineNo := ch.line - 1
	for len(data) > 0 {
		lineNo++
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !gjson.ValidBytes(line) {
			return p, fmt.Errorf("line %d: malformed JSON", lineNo)
		}
		doc := gjson.ParseBytes(line)
		if !doc.IsObject() {
			return p, fmt.Errorf("line %d: expected a JSON object, found %s", lineNo, describe(doc))
		}
		if num := firstOutOfRange(line); num != "" {
			return p, fmt.Errorf("line %d: %w", lineNo, errOutOfRange(num))
		}
		doc.ForEach(func(k, v gjson.Result) bool {
			i, ok := seen[k.Str]
			if !ok {
				i = len(p.order)
				seen[k.Str] = i
				p.order = append(p.order, k.Str)
				p.saw = append(p.saw, 0)
			}
			p.saw[i] |= kindOf(v)
			return true
		})
		p.rows++
		if keep {
			p.lines = append(p.lines, line)
		}
	}
	return p, nil
}

// newJSONL joins the parts of a file in order.
func newJSONL(name string, parts []jsonlPart) *JSONL {
	s := &JSONL{name: name, paths: map[string]column.Type{}, top: topSchema(parts)}
	n := 0
	for _, p := range parts {
		n += len(p.lines)
	}
	s.lines = make([][]byte, 0, n)
	for _, p := range parts {
		s.lines = append(s.lines, p.lines...)
	}
	return s
}

// topSchema types the top-level keys of a file's parts. A key's place is its first appearance in the first part
// that has it, which is its first appearance in the file: keys new to a part come after every earlier part's.
func topSchema(parts []jsonlPart) column.Schema {
	var top column.Schema
	seen := map[string]int{}
	var saw []kinds
	for _, p := range parts {
		for j, k := range p.order {
			i, ok := seen[k]
			if !ok {
				i = len(top)
				seen[k] = i
				top = append(top, column.Field{Name: k})
				saw = append(saw, 0)
			}
			saw[i] |= p.saw[j]
		}
	}
	for i := range top {
		top[i].Type = saw[i].columnType()
	}
	return top
}

func describe(r gjson.Result) string {
	switch {
	case r.IsArray():
		return "an array"
	case r.Type == gjson.String:
		return "a string"
	case r.Type == gjson.Number:
		return "a number"
	case r.Type == gjson.Null:
		return "null"
	default:
		return "a boolean"
	}
}

func kindOf(v gjson.Result) kinds {
	switch v.Type {
	case gjson.Null:
		return 0
	case gjson.True, gjson.False:
		return sawBool
	case gjson.Number:
		if isIntegral(v.Raw) {
			return sawLong
		}
		return sawReal
	case gjson.String:
		k, _ := textKind(v.Str, true) // a JSON string's text is never a number, so never out of range
		return k
	default:
		return sawNested
	}
}

// maxFiniteMagnitude is the largest power of ten within the range of a real (about 1.8e308). A number whose
// integer digits plus exponent stay below it is surely in range, so only larger ones need parsing.
const maxFiniteMagnitude = 308

// firstOutOfRange returns the first number in a valid JSON text that is beyond the range of a real, or "" when
// there is none. It walks the bytes once, skipping strings, and parses only the numbers whose magnitude (integer
// digits plus exponent) could reach the limit, so the check costs a fraction of gjson's own validation.
func firstOutOfRange(doc []byte) string {
	for i := 0; i < len(doc); i++ {
		switch c := doc[i]; {
		case c == '"':
			i = stringEnd(doc, i)
		case c == '-' || isDigit(c):
			j := numberEnd(doc, i)
			if magnitude(doc[i:j]) >= maxFiniteMagnitude {
				if _, err := strconv.ParseFloat(string(doc[i:j]), 64); err != nil {
					return string(doc[i:j])
				}
			}
			i = j - 1
		}
	}
	return ""
}

// numberEnd is the offset just past the JSON number starting at doc[start].
func numberEnd(doc []byte, start int) int {
	j := start + 1
	for j < len(doc) && (isDigit(doc[j]) || strings.IndexByte(".eE+-", doc[j]) >= 0) {
		j++
	}
	return j
}

// magnitude bounds the decimal exponent of a JSON number: its integer digits after leading zeros, plus its
// exponent (saturated, so a huge exponent cannot wrap).
func magnitude(num []byte) int {
	digits, i := 0, 0
	if num[0] == '-' {
		i++
	}
	for ; i < len(num) && isDigit(num[i]); i++ {
		if digits > 0 || num[i] != '0' {
			digits++
		}
	}
	for i < len(num) && num[i] != 'e' && num[i] != 'E' {
		i++
	}
	if i == len(num) {
		return digits
	}
	i++
	sign := 1
	if num[i] == '+' || num[i] == '-' {
		if num[i] == '-' {
			sign = -1
		}
		i++
	}
	exp := 0
	for ; i < len(num) && exp < 1e6; i++ {
		exp = exp*10 + int(num[i]-'0')
	}
	return digits + sign*exp
}

// stringEnd is the offset of the quote that closes the JSON string opening at doc[open]: the next quote not
// escaped, that is, not after an odd run of backslashes.
func stringEnd(doc []byte, open int) int {
	i := open + 1
	for {
		k := bytes.IndexByte(doc[i:], '"')
		if k < 0 {
			return len(doc)
		}
		i += k
		slashes := 0
		for j := i - 1; j > open && doc[j] == '\\'; j-- {
			slashes++
		}
		if slashes%2 == 0 {
			return i
		}
		i++
	}
}

// isIntegral reports whether a JSON number is written as an integer that fits in int64.
func isIntegral(raw string) bool {
	if strings.ContainsAny(raw, ".eE") {
		return false
	}
	_, err := strconv.ParseInt(raw, 10, 64)
	return err == nil
}

func (s *JSONL) Name() string { return s.name }
func (s *JSONL) Rows() int    { return len(s.lines) }

// Schema returns the top-level columns, then a hidden column for each dotted path in paths that reaches into
// one of them (actor.alternateId when actor is a top-level key), typed from the values at that path.
func (s *JSONL) Schema(paths []string) column.Schema { return nestedSchema(s.top, paths, s.pathType) }

// nestedSchema is top, then a hidden column, typed by pathType, for each dotted path that reaches into a
// dynamic top-level column.
func nestedSchema(top column.Schema, paths []string, pathType func(string) column.Type) column.Schema {
	out := append(column.Schema(nil), top...)
	for _, p := range paths {
		dot := strings.IndexByte(p, '.')
		if dot <= 0 || out.Index(p) >= 0 {
			continue
		}
		if i := top.Index(p[:dot]); i < 0 || top[i].Type != column.Dynamic {
			continue
		}
		out = append(out, column.Field{Name: p, Type: pathType(p), Hidden: true})
	}
	return out
}

func (s *JSONL) pathType(p string) column.Type {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.paths[p]; ok {
		return t
	}
	var k kinds
	gp := gjsonPath(p)
	for _, line := range s.lines {
		k |= kindOf(gjson.GetBytes(line, gp))
	}
	t := k.columnType()
	s.paths[p] = t
	return t
}

// gjsonPath escapes the characters gjson treats as syntax, leaving dots as separators.
func gjsonPath(p string) string {
	if !strings.ContainsAny(p, `*?|#@\!=<>%`) {
		return p
	}
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?|#@\!=<>%`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Scan reads the requested columns. A top-level column is read by its escaped name (dots in a key are not
// separators there); a hidden column by its path.
func (s *JSONL) Scan(_ context.Context, cols []column.Field) Iterator {
	return &jsonlIter{s: s, cols: cols, paths: scanPaths(s.top, cols)}
}

// scanPaths is the gjson path of each column.
func scanPaths(top column.Schema, cols []column.Field) []string {
	paths := make([]string, len(cols))
	for i, f := range cols {
		if top.Index(f.Name) >= 0 {
			paths[i] = gjsonPath(strings.ReplaceAll(f.Name, ".", `\.`))
		} else {
			paths[i] = gjsonPath(f.Name)
		}
	}
	return paths
}

type jsonlIter struct {
	s     *JSONL
	cols  []column.Field
	paths []string
	pos   int
}

func (it *jsonlIter) Next(ctx context.Context) (*column.Batch, error) {
	lines := it.s.lines
	if it.pos >= len(lines) {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hi := min(it.pos+BatchRows, len(lines))
	b := jsonlBatch(lines[it.pos:hi], it.cols, it.paths)
	it.pos = hi
	return b, nil
}

// jsonlBatch reads the columns at paths from each line into a batch.
func jsonlBatch(lines [][]byte, cols []column.Field, paths []string) *column.Batch {
	vecs := make([]*column.Vector, len(cols))
	for c, f := range cols {
		v := column.NewVector(f.Type, len(lines))
		for _, line := range lines {
			appendJSON(v, gjson.GetBytes(line, paths[c]))
		}
		vecs[c] = v
	}
	return column.NewBatch(vecs, len(lines))
}

// appendJSON converts one JSON value to the vector's type, by the mapping described at specialReals. The type
// came from inference over the same data, so every value fits; a value of another kind (only possible in a
// widened string or dynamic column) is kept as written.
func appendJSON(v *column.Vector, r gjson.Result) {
	empty := r.Type == gjson.String && r.Str == "" && v.Type != column.String
	if r.Type == gjson.Null || !r.Exists() || empty {
		v.AppendNull()
		return
	}
	switch v.Type {
	case column.Bool:
		v.AppendBool(r.Type == gjson.True)
	case column.Long:
		n, err := strconv.ParseInt(r.Raw, 10, 64)
		if err != nil {
			v.AppendNull()
			return
		}
		v.AppendInt(n)
	case column.Real:
		if r.Type == gjson.String {
			v.AppendReal(parseReal(r.Str))
		} else {
			v.AppendReal(parseReal(r.Raw))
		}
	case column.DateTime:
		ns, ok := column.ParseDateTime(r.Str)
		if !ok {
			v.AppendNull()
			return
		}
		v.AppendInt(ns)
	case column.String:
		if r.Type == gjson.String {
			v.AppendString(r.Str)
		} else {
			v.AppendString(r.Raw)
		}
	default:
		v.AppendString(r.Raw)
	}
}
