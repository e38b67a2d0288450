package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
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
	paths map[string]kinds // nested paths typed on first request
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
	var cache keyCache
	data := ch.data
	lineNo := ch.line - 1
	for len(data) > 0 {
		lineNo++
		var line []byte
		if i := indexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		pos := 0
		visit := func(k, v []byte) bool {
			i, ok := cache.hit(pos, k)
			if !ok {
				if i, ok = seen[string(k)]; !ok {
					i = len(p.order)
					seen[string(k)] = i
					p.order = append(p.order, string(k))
					p.saw = append(p.saw, 0)
				}
				cache.put(pos, k, i)
			}
			pos++
			// A key whose values already made it a string only widens further on a nested value (to
			// dynamic), and a dynamic one never: the text of its strings need not be classed again.
			switch k := p.saw[i]; {
			case k&sawNested != 0:
			case k&sawString != 0:
				if v[0] == '{' || v[0] == '[' {
					p.saw[i] |= sawNested
				}
			default:
				p.saw[i] |= kindOfRaw(v)
			}
			return true
		}
		// One walk checks the line and types its members (checkMembers); a fault is worded by checkJSONLine.
		if ok, big := checkMembers(line, visit); !ok || big != "" {
			return p, fmt.Errorf("line %d: %w", lineNo, lineFault(line))
		}
		p.rows++
		if keep {
			p.lines = append(p.lines, line)
		}
	}
	return p, nil
}

// newJSONL joins the parts of a file in order.
func newJSONL(name string, parts []jsonlPart) *JSONL {
	s := &JSONL{name: name, paths: map[string]kinds{}}
	s.top, _ = topSchema(parts)
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

// topSchema types the top-level keys of a file's parts, and returns the kinds each showed. A key's place is its
// first appearance in the first part that has it, which is its first appearance in the file: keys new to a part
// come after every earlier part's.
func topSchema(parts []jsonlPart) (column.Schema, []kinds) {
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
	return top, saw
}

// checkJSONLine says what is wrong with a non-blank line of JSON lines, if anything: it must be a JSON object
// whose numbers are all within the range of a real.
func checkJSONLine(line []byte) error {
	ok, big := checkJSON(line)
	if !ok {
		return errors.New("malformed JSON")
	}
	if line[0] != '{' {
		return fmt.Errorf("expected a JSON object, found %s", describe(gjson.ParseBytes(line)))
	}
	if big != "" {
		return errOutOfRange(big)
	}
	return nil
}

// lineFault is what checkMembers found wrong with line, worded by checkJSONLine (which finds the same fault:
// TestCheckMembersMatchesTwoWalks).
func lineFault(line []byte) error {
	if err := checkJSONLine(line); err != nil {
		return err
	}
	return errors.New("malformed JSON")
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

// stringEnd is the offset of the quote that closes the JSON string opening at doc[open] (len(doc) when none
// does): the next quote not escaped.
func stringEnd(doc []byte, open int) int {
	end, _ := stringEndEscaped(doc, open)
	return end
}

// stringEndEscaped is stringEnd, and whether the string holds an escape. It skips the bytes that are neither a
// quote nor a backslash a table lookup each, and the byte after each backslash: JSON strings are short, and a
// search call per string costs more than the scan.
func stringEndEscaped(doc []byte, open int) (end int, escaped bool) {
	i := open + 1
	for {
		for i < len(doc) && !quoteOrEscape[doc[i]] {
			i++
		}
		switch {
		case i >= len(doc):
			return len(doc), escaped
		case doc[i] == '"':
			return i, escaped
		}
		i += 2 // a backslash and the byte it escapes
		escaped = true
	}
}

// quoteOrEscape marks the two bytes a string's end is looked for at.
var quoteOrEscape = [256]bool{'"': true, '\\': true}

// isIntegral reports whether a JSON number is written as an integer that fits in int64.
func isIntegral(raw string) bool {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return false
		}
	}
	if len(digits) <= 18 { // below 10^18, surely within int64
		return true
	}
	_, err := strconv.ParseInt(raw, 10, 64)
	return err == nil
}

func (s *JSONL) Name() string { return s.name }
func (s *JSONL) Rows() int    { return len(s.lines) }

// Schema returns the top-level columns, then a hidden column for each dotted path in paths that reaches into
// one of them (actor.alternateId when actor is a top-level key), typed from the values at that path.
func (s *JSONL) Schema(paths []string) column.Schema { return nestedSchema(s.top, paths, s.pathTypes) }

// nestedSchema is top, then a hidden column, typed by pathTypes (asked once for all of them), for each dotted
// path that reaches into a dynamic top-level column.
func nestedSchema(top column.Schema, paths []string, pathTypes func([]string) []column.Type) column.Schema {
	out := append(column.Schema(nil), top...)
	var nested []string
	for _, p := range paths {
		dot := strings.IndexByte(p, '.')
		if dot <= 0 || out.Index(p) >= 0 || slices.Contains(nested, p) {
			continue
		}
		if i := top.Index(p[:dot]); i < 0 || top[i].Type != column.Dynamic {
			continue
		}
		nested = append(nested, p)
	}
	if len(nested) == 0 {
		return out
	}
	for i, t := range pathTypes(nested) {
		out = append(out, column.Field{Name: nested[i], Type: t, Hidden: true})
	}
	return out
}

func (s *JSONL) pathTypes(paths []string) []column.Type {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cachedPathTypes(s.paths, s.top, paths, func(t *pathTyper) error {
		for _, line := range s.lines {
			t.line(line)
		}
		return nil
	})
}

// cachedPathTypes returns the types of paths, typing those not in cache from every line read gives, in one
// pass for all of them, and adding the kinds they showed to cache. When read fails the new paths are typed
// dynamic (the values as written, as a nested value makes them); the scan then reports the read's error.
func cachedPathTypes(cache map[string]kinds, top column.Schema, paths []string, read func(*pathTyper) error) []column.Type {
	var missing []column.Field
	for _, p := range paths {
		if _, ok := cache[p]; !ok {
			missing = append(missing, column.Field{Name: p})
		}
	}
	if len(missing) > 0 {
		t := &pathTyper{plan: newScanPlan(top, missing), kinds: make([]kinds, len(missing))}
		err := read(t)
		for i, f := range missing {
			cache[f.Name] = sawNested
			if err == nil {
				cache[f.Name] = t.kinds[i]
			}
		}
	}
	out := make([]column.Type, len(paths))
	for i, p := range paths {
		out[i] = cache[p].columnType()
	}
	return out
}

// pathTyper gathers the kinds of value at several nested paths, walking each line once (eachMember) and
// reading each path inside the member its first segment names (the first such member, as a gjson path does).
type pathTyper struct {
	plan  *scanPlan
	kinds []kinds
	cache keyCache
	seen  []bool
}

func (t *pathTyper) line(line []byte) {
	if t.seen == nil {
		t.seen = make([]bool, len(t.plan.reads))
	}
	clear(t.seen)
	pos := 0
	eachMember(line, func(key, val []byte) bool {
		e, ok := t.cache.hit(pos, key)
		if !ok {
			e = t.plan.entry(key)
			t.cache.put(pos, key, e)
		}
		pos++
		if e >= 0 && !t.seen[e] {
			t.seen[e] = true
			for _, m := range t.plan.reads[e] {
				if raw, ok := pathRaw(val, m.path); ok {
					t.kinds[m.col] |= kindOfRaw(raw)
				} else {
					t.kinds[m.col] |= kindOf(gjson.GetBytes(val, m.path))
				}
			}
		}
		return true
	})
}

// merge adds another typer's kinds (of the same paths) to t's.
func (t *pathTyper) merge(o *pathTyper) {
	for i, k := range o.kinds {
		t.kinds[i] |= k
	}
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

// Scan reads the requested columns. A top-level column is read by its exact key (dots in a key are not
// separators there); a hidden column by its path, inside the member its first segment names.
func (s *JSONL) Scan(_ context.Context, cols []column.Field) Iterator {
	return &jsonlIter{s: s, cols: cols, plan: newScanPlan(s.top, cols)}
}

// scanPlan says which columns of a scan each top-level key feeds: the member itself, or a path inside it.
type scanPlan struct {
	keys  map[string]int // a read key's entry in reads
	reads [][]memberRead
}

// entry is key's entry in reads, or -1 for a key the scan does not read.
func (p *scanPlan) entry(key []byte) int {
	if e, ok := p.keys[string(key)]; ok {
		return e
	}
	return -1
}

type memberRead struct {
	col  int
	path string // the gjson path inside the member, "" for the member itself
}

func newScanPlan(top column.Schema, cols []column.Field) *scanPlan {
	plan := &scanPlan{keys: map[string]int{}}
	for i, f := range cols {
		key, path := f.Name, ""
		if dot := strings.IndexByte(f.Name, '.'); top.Index(f.Name) < 0 && dot > 0 {
			key, path = f.Name[:dot], gjsonPath(f.Name[dot+1:])
		}
		e, ok := plan.keys[key]
		if !ok {
			e = len(plan.reads)
			plan.keys[key] = e
			plan.reads = append(plan.reads, nil)
		}
		plan.reads[e] = append(plan.reads[e], memberRead{col: i, path: path})
	}
	return plan
}

type jsonlIter struct {
	s    *JSONL
	cols []column.Field
	plan *scanPlan
	pos  int
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
	// Typed from every line: nothing to check. The lines are held by the source and never written, so a string
	// value may view them.
	b, _, _ := jsonlBatch(lines[it.pos:hi], it.cols, it.plan, nil, true)
	it.pos = hi
	return b, nil
}

// jsonlBatch reads the planned columns from each line into a batch, walking each line once (eachMember). A key
// that appears twice counts the first time, as a gjson path reads it; a column whose key is missing is null.
// held says the lines outlive the batch unchanged (a source holding them), so a string value without escapes
// is a view of its line instead of a copy; a scan of a file, whose chunks are read again, copies.
//
// With check (a file typed from a sample) each line is also validated in the same walk (checkMembers), unless
// an earlier scan validated them all (check.linesValid): the first line that is malformed, or holds what the
// sample's types do not (*RetypeError), ends the batch, and row says which line it was.
func jsonlBatch(lines [][]byte, cols []column.Field, plan *scanPlan, check *scanCheck, held bool) (_ *column.Batch, row int, _ error) {
	vecs := make([]*column.Vector, len(cols))
	for c, f := range cols {
		vecs[c] = column.NewVector(f.Type, len(lines))
	}
	var cache keyCache
	var bad *RetypeError
	// A line's walk stops once every read key has been met (later duplicates count for nothing), so a scan of
	// a few columns skips the members after them, nested ones included; unless every key must be checked
	// against the sample's (check.all), when the walk reads the whole line.
	stopEarly := check == nil || !check.all
	met := make([]int, len(plan.reads)) // the row+1 an entry's key was last met in
	for r, line := range lines {
		pos, left := 0, len(plan.reads)
		visit := func(key, val []byte) bool {
			e, ok := cache.hit(pos, key)
			if !ok {
				e = plan.entry(key)
				cache.put(pos, key, e)
			}
			pos++
			if e < 0 {
				if check != nil && check.all {
					bad = &RetypeError{Line: r, Column: string(key), NewKey: true}
					return false
				}
				return true
			}
			if met[e] == r+1 {
				return true // a duplicate key: its first value was read
			}
			met[e] = r + 1
			left--
			for _, m := range plan.reads[e] {
				v := vecs[m.col]
				switch {
				case m.path == "":
					if check != nil && !check.fits(m.col, kindOfRaw(val)) {
						bad = check.retype(r, cols[m.col], kindOfRaw(val))
						return false
					}
					appendRaw(v, val, held)
				default:
					if raw, ok := pathRaw(val, m.path); ok {
						if check != nil && !check.fits(m.col, kindOfRaw(raw)) {
							bad = check.retype(r, cols[m.col], kindOfRaw(raw))
							return false
						}
						appendRaw(v, raw, held)
						break
					}
					got := gjson.GetBytes(val, m.path)
					if check != nil && !check.fits(m.col, kindOf(got)) {
						bad = check.retype(r, cols[m.col], kindOf(got))
						return false
					}
					appendJSON(v, got)
				}
			}
			return !stopEarly || left > 0
		}
		if check == nil || check.linesValid {
			eachMember(line, visit)
		} else if ok, big := checkMembers(line, visit); !ok || big != "" {
			return nil, r, lineFault(line)
		}
		if bad != nil {
			return nil, r, bad
		}
		for _, v := range vecs {
			if v.Len() == r {
				v.AppendNull()
			}
		}
	}
	return column.NewBatch(vecs, len(lines)), 0, nil
}

// scanCheck is what a scan of a file typed from a sample checks each value it reads against (sample.go): the
// kinds the typing saw for each scanned column, and whether the scan reads every top-level column, so that a
// key the sample never showed would be a column of its answer.
type scanCheck struct {
	saw []kinds
	all bool
	// linesValid says every line is known to be valid JSON with its numbers in range (jsonlTyping.linesValid),
	// so only the values read are checked.
	linesValid bool
}

// fits reports whether a value of kind k leaves scan column c's type as the sample made it.
func (c *scanCheck) fits(col int, k kinds) bool {
	return k == 0 || (c.saw[col]|k).columnType() == c.saw[col].columnType()
}

func (c *scanCheck) retype(row int, f column.Field, k kinds) *RetypeError {
	return &RetypeError{Line: row, Column: f.Name, Type: f.Type, Value: kindName(k)}
}

// pathRaw finds the value at a nested path inside a member's raw value val, as gjson reads it, and returns
// that value's own bytes within val, so that appendRaw reads it without the copies gjson.GetBytes makes. ok is
// false when gjson does not say where the value lies (a path that computes its result, or one that matched
// nothing): the caller then reads the path with gjson.GetBytes.
func pathRaw(val []byte, path string) (raw []byte, ok bool) {
	got := gjson.Get(view(val), path)
	if got.Index <= 0 || got.Raw == "" || got.Index+len(got.Raw) > len(val) {
		return nil, false
	}
	return val[got.Index : got.Index+len(got.Raw)], true
}

// appendRaw is appendJSON for a value's raw text: the common cases straight from the bytes (null; a number
// into a long, real or string column; a boolean; a string without escapes into a string or datetime column;
// any value as written into a dynamic column), the rest through gjson. A string is a view of raw when held
// (see jsonlBatch), else a copy. A number parses here as appendJSON parses it (its Raw is the same text), and
// a real column's number never needs specialReals (those are JSON strings).
func appendRaw(v *column.Vector, raw []byte, held bool) {
	str := func(b []byte) string {
		if held {
			return view(b)
		}
		return string(b)
	}
	c := raw[0]
	number := c == '-' || isDigit(c)
	switch {
	case c == 'n':
		v.AppendNull()
		return
	case v.Type == column.Long && number:
		if n, err := parseLong(view(raw)); err == nil {
			v.AppendInt(n)
			return
		}
	case v.Type == column.Real && number:
		f, _ := strconv.ParseFloat(view(raw), 64) // checked in range when the line was read
		v.AppendReal(f)
		return
	case v.Type == column.Bool && (c == 't' || c == 'f'):
		v.AppendBool(c == 't')
		return
	case v.Type == column.Dynamic && !bytes.Equal(raw, []byte(`""`)): // "" is null outside a string column
		v.AppendString(str(raw))
		return
	case c == '"' && len(raw) > 2 && indexByte(raw, '\\') < 0:
		switch v.Type {
		case column.String:
			v.AppendString(str(raw[1 : len(raw)-1]))
			return
		case column.DateTime:
			if ns, ok := column.ParseDateTime(view(raw[1 : len(raw)-1])); ok {
				v.AppendInt(ns)
				return
			}
		}
	case v.Type == column.String && (number || c == 't' || c == 'f'):
		v.AppendString(str(raw))
		return
	}
	appendJSON(v, gjson.ParseBytes(raw))
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
		n, err := parseLong(r.Raw)
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
