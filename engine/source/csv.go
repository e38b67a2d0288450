package source

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
)

// utf8BOM is the byte-order mark some editors put before a CSV file's first byte; it is not part of the header.
const utf8BOM = "\ufeff"

// FromCSV parses CSV data whose first line is a header of unique column names. Each column is typed from all its
// values (long, real, bool, datetime, else string), empty and special values as described at specialReals. An
// empty first line, a record with the wrong number of fields or a number out of range is reported as
// "line N: …" (the caller says which source).
func FromCSV(name string, data []byte) (*Table, error) {
	ch := chunk{data: data, line: 1, offset: 0}
	header, first, err := parseCSVHead(ch, csvRead{keep: true})
	if err != nil {
		return nil, err
	}
	return newCSV(name, header, []csvPart{first})
}

// readCSV reads CSV as FromCSV does, a chunk at a time: the first chunk, which holds the header, alone, then the
// others in parallel, each straight into column vectors. Every chunk's bytes are kept until the types are
// known, to parse again a chunk whose column must widen (see newCSV). A regular file is read by csvFile instead.
func readCSV(name string, c *chunker, workers int) (*Table, error) {
	how := csvRead{keep: true, view: true}
	ch, err := c.next()
	if err == io.EOF {
		return nil, errors.New("empty CSV: expected a header line")
	}
	if err != nil {
		return nil, err
	}
	header, first, err := parseCSVHead(ch, how)
	c.release(ch)
	if err != nil {
		return nil, err
	}
	rest, err := parseChunks(c, workers, func(ch chunk) (csvPart, error) {
		return parseCSVChunk(ch, len(header), how)
	})
	if err != nil {
		return nil, err
	}
	return newCSV(name, header, append([]csvPart{first}, rest...))
}

// csvPart is one chunk parsed: a vector per column, each typed from the chunk's own values (its sample), the
// kinds of value each column showed, and where the chunk lies in the file, to parse it again at a wider type.
type csvPart struct {
	cols  []*column.Vector
	saw   []kinds
	rows  int
	first bool   // the chunk starts with the header
	line  int    // the chunk's first line in the file
	data  []byte // the chunk's bytes, when kept
	// viewed says the part's strings view data (csvRead.view), so a parse again at a wider type may too.
	viewed bool
}

// parseCSVHead reads the header from the first chunk of a file, then the records after it, as how says.
func parseCSVHead(ch chunk, how csvRead) ([]string, csvPart, error) {
	data := bytes.TrimPrefix(ch.data, []byte(utf8BOM))
	if len(data) == 0 {
		return nil, csvPart{}, errors.New("empty CSV: expected a header line")
	}
	// encoding/csv skips blank lines, so without this check an empty first line would make the first record
	// the header: the columns get the first row's values as names and that row is lost.
	if first, _, _ := bytes.Cut(data, []byte("\n")); len(bytes.TrimSuffix(first, []byte("\r"))) == 0 {
		return nil, csvPart{}, errors.New("line 1: empty header: the first line must name the columns")
	}
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err != nil {
		return nil, csvPart{}, csvError(err, ch.line)
	}
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, csvPart{}, fmt.Errorf("line 1: column %d has no name", i+1)
		}
		if seen[h] {
			return nil, csvPart{}, fmt.Errorf("line 1: duplicate column %q", h)
		}
		seen[h] = true
		header[i] = h
	}
	part, err := readCSVRecords(recordsAfterHeader(r, data, len(header)), ch, len(header), how)
	part.first = true
	return header, part, err
}

// parseCSVChunk parses a chunk after the first: as readCSVRecords, with the header's number of fields.
func parseCSVChunk(ch chunk, fields int, how csvRead) (csvPart, error) {
	return readCSVRecords(newCSVRecords(ch.data, 1, fields), ch, fields, how)
}

// recordsAfterHeader reads the records of a first chunk after its header, which r has just read from data.
func recordsAfterHeader(r *csv.Reader, data []byte, fields int) *csvRecords {
	off := r.InputOffset()
	return newCSVRecords(data[off:], 1+bytes.Count(data[:off], []byte("\n")), fields)
}

// csvRead says what readCSVRecords builds from a chunk.
type csvRead struct {
	// types are the columns' types; when nil, each is the narrowest type that holds the chunk's values. A
	// value that does not fit its given type is an error (see readTypedCSV).
	types []column.Type
	only  []int // the columns to build vectors for; nil means all of them, empty none
	keep  bool  // keep the chunk's bytes in the part
	// view makes the string values views of the chunk's bytes instead of copies: for a chunk the chunker made
	// (never written again) that the table keeps as long as its columns (readCSV), so no line is copied.
	view bool
}

// readCSVRecords reads the records left in r, which reads ch, into one vector per column (as how says). The
// records are held only while the chunk is parsed.
func readCSVRecords(r *csvRecords, ch chunk, fields int, how csvRead) (csvPart, error) {
	types, keep := how.types, how.keep
	r.view = how.view
	p := csvPart{saw: make([]kinds, fields), line: ch.line, viewed: how.view}
	if keep {
		p.data = ch.data
	}
	if types != nil {
		return readTypedCSV(r, ch, fields, how, p)
	}
	if how.only != nil && len(how.only) == 0 {
		return typeCSVRecords(r, ch, fields, p)
	}
	// One pass types and parses every field, kept flat (a record's fields side by side) with its kind and
	// value until the chunk's types are known; then each column is built from what was parsed.
	// They are sized from the chunk's lines, which bound its records (a quoted newline only makes fewer), so
	// they are never grown by copying.
	r.reuse = true
	n := (bytes.Count(r.data, []byte{'\n'}) + 1) * fields
	texts, saw, vals := make([]string, 0, n), make([]kinds, 0, n), make([]int64, 0, n)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return p, csvError(err, ch.line)
		}
		for c, s := range rec {
			k, x, err := textValue(s)
			if err != nil {
				line, _ := r.FieldPos(c)
				return p, fmt.Errorf("line %d: %w", ch.line-1+line, err)
			}
			p.saw[c] |= k
			texts, saw, vals = append(texts, s), append(saw, k), append(vals, x)
		}
		p.rows++
	}
	p.cols = make([]*column.Vector, fields)
	only := how.only
	if only == nil {
		only = make([]int, fields)
		for c := range only {
			only[c] = c
		}
	}
	for _, c := range only {
		t := p.saw[c].columnType()
		v := column.NewVector(t, p.rows)
		for i := c; i < len(texts); i += fields {
			appendParsed(v, t, texts[i], saw[i], vals[i])
		}
		p.cols[c] = v
	}
	return p, nil
}

// typeCSVRecords is readCSVRecords building no column (a sample's typing): each field is classed and its kind
// kept per column, and nothing else: the fields view the chunk, so no line is copied, and no value is parsed
// further than textKind needs to class it.
func typeCSVRecords(r *csvRecords, ch chunk, fields int, p csvPart) (csvPart, error) {
	r.reuse, r.view = true, true
	p.cols = make([]*column.Vector, fields)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return p, nil
		}
		if err != nil {
			return p, csvError(err, ch.line)
		}
		for c, s := range rec {
			// Two inlined tests settle most fields without a call: plain digits in a column of longs so far,
			// and a field that starts with a letter in a column already a string (addTextKind's range check
			// can only fail for a field that starts like a number).
			saw := p.saw[c]
			if saw&^sawLong == 0 {
				if _, ok := shortDigits(s); ok {
					p.saw[c] = sawLong
					continue
				}
			} else if saw&sawString != 0 && s != "" && isLetterStart(s[0]) {
				continue
			}
			k, err := addTextKind(saw, s)
			if err != nil {
				line, _ := r.FieldPos(c)
				return p, fmt.Errorf("line %d: %w", ch.line-1+line, err)
			}
			p.saw[c] = k
		}
		p.rows++
	}
}

// readTypedCSV is readCSVRecords for a file already typed (a scan): each record's wanted fields are parsed
// straight into their vectors, and only those fields are looked at. A value that does not parse as its
// column's type is a *RetypeError (its Column the field's number), which the scan reports as its sample's
// limit or as the file changed since it was opened.
func readTypedCSV(r *csvRecords, ch chunk, fields int, how csvRead, p csvPart) (csvPart, error) {
	only := how.only
	if only == nil {
		only = make([]int, fields)
		for c := range only {
			only[c] = c
		}
	}
	// A chunk's lines bound its records (a quoted newline or a blank line only makes fewer), so the vectors
	// are made at their size once instead of grown by copying as they fill.
	p.cols = make([]*column.Vector, fields)
	for _, c := range only {
		p.cols[c] = column.NewVector(how.types[c], ch.lines+1)
	}
	// The fields view the chunk while they are parsed, so no line is copied; a value kept as text (a string or
	// dynamic column) is copied alone, unless the chunk outlives the table's columns (how.view). Only the fields
	// up to the last one read are split out.
	r.reuse, r.view = true, true
	keep := 0
	for _, c := range only {
		keep = max(keep, c+1)
	}
	r.setKeep(keep)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return p, nil
		}
		if err != nil {
			return p, csvError(err, ch.line)
		}
		for _, c := range only {
			f, v := rec[c], p.cols[c]
			if v.Type == column.Long {
				if x, ok := shortDigits(f); ok {
					v.AppendInt(x) // most fields of a long column, read here without a call per field
					continue
				}
			}
			if t := how.types[c]; !how.view && (t == column.String || t == column.Dynamic) {
				f = strings.Clone(f)
			}
			if !appendTypedCSV(v, f) {
				line, _ := r.FieldPos(c)
				k, _ := textKind(rec[c], false)
				return p, &RetypeError{Line: ch.line - 1 + line, Column: strconv.Itoa(c + 1), col: c, Type: how.types[c], Value: kindName(k)}
			}
		}
		p.rows++
	}
}

// appendTypedCSV appends a field to a vector of its column's type, reporting false when the text is not of
// that type (as textKind would class it). A long, datetime or bool is checked by its own parse.
func appendTypedCSV(v *column.Vector, s string) bool {
	t := v.Type
	switch {
	case s == "" && t != column.String:
		v.AppendNull()
		return true
	case t == column.Long:
		n, err := parseLong(s)
		v.AppendInt(n)
		return err == nil
	case t == column.DateTime:
		ns, ok := column.ParseDateTime(s)
		v.AppendInt(ns)
		return ok
	case t == column.Bool:
		yes := strings.EqualFold(s, "true")
		v.AppendBool(yes)
		return yes || strings.EqualFold(s, "false")
	case t == column.String:
		v.AppendString(s)
		return true
	}
	if k, err := textKind(s, false); err != nil || (k|kindOfType(t)).columnType() != t {
		return false
	}
	appendCSV(v, t, s)
	return true
}

// newCSV joins the parts of a file in order. A column's type is the narrowest that holds every value of the
// file, as if it were typed whole. A part whose own values typed a column narrower is widened exactly:
//
//   - a column of only empty values in the part (typed dynamic: every value null) becomes nulls of the wider
//     type, or empty strings in a string column, which is what those values read as there;
//   - any other narrower part (long where the file is real; long, real, bool or datetime where it is string)
//     is parsed again at the file's type from its kept text, so a string keeps each value as
//     written ("007", "TRUE") and a real is the nearest to the text (-0 stays negative). Converting the parsed
//     values instead would lose both.
func newCSV(name string, header []string, parts []csvPart) (*Table, error) {
	saw := make([]kinds, len(header))
	n := 0
	for _, p := range parts {
		for c, k := range p.saw {
			saw[c] |= k
		}
		n += p.rows
	}
	types := make([]column.Type, len(header))
	schema := make(column.Schema, len(header))
	for c, h := range header {
		types[c] = saw[c].columnType()
		schema[c] = column.Field{Name: h, Type: types[c]}
	}
	for i := range parts {
		if err := widenPart(&parts[i], types, len(header)); err != nil {
			return nil, err
		}
	}
	t := &column.Table{Schema: schema, Cols: make([]*column.Vector, len(schema)), N: n}
	for c, f := range schema {
		if len(parts) == 1 {
			t.Cols[c] = parts[0].cols[c]
			continue
		}
		v := column.NewVector(f.Type, n)
		for _, p := range parts {
			v.AppendVector(p.cols[c])
		}
		t.Cols[c] = v
	}
	return FromTable(name, t), nil
}

// widenPart brings every column of p to the file's types, by the rules at newCSV.
func widenPart(p *csvPart, types []column.Type, fields int) error {
	reparse := false
	for c, v := range p.cols {
		switch {
		case v.Type == types[c]:
		case v.Type == column.Dynamic:
			w := column.NewVector(types[c], p.rows)
			for range p.rows {
				appendCSV(w, types[c], "")
			}
			p.cols[c] = w
		default:
			reparse = true
		}
	}
	if !reparse {
		return nil
	}
	data := p.data
	var again csvPart
	var err error
	if p.first {
		_, again, err = parseCSVHeadTyped(chunk{data: data, line: p.line}, csvRead{types: types, view: p.viewed})
	} else {
		again, err = parseCSVChunk(chunk{data: data, line: p.line}, fields, csvRead{types: types, view: p.viewed})
	}
	if err != nil {
		return fmt.Errorf("line %d: the file changed while read: %w", p.line, err)
	}
	if again.rows != p.rows {
		return fmt.Errorf("line %d: the file changed while read: %d records, then %d", p.line, p.rows, again.rows)
	}
	p.cols = again.cols
	return nil
}

// parseCSVHeadTyped parses the first chunk again, as how says.
func parseCSVHeadTyped(ch chunk, how csvRead) ([]string, csvPart, error) {
	data := bytes.TrimPrefix(ch.data, []byte(utf8BOM))
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err != nil {
		return nil, csvPart{}, csvError(err, ch.line)
	}
	part, err := readCSVRecords(recordsAfterHeader(r, data, len(header)), ch, len(header), how)
	return header, part, err
}

// kindOfType is the kind of value a column of type t holds, so that (k | kindOfType(t)).columnType() == t says
// the kinds k fit in t.
func kindOfType(t column.Type) kinds {
	switch t {
	case column.Bool:
		return sawBool
	case column.Long:
		return sawLong
	case column.Real:
		return sawReal
	case column.DateTime:
		return sawDateTime
	case column.String:
		return sawString
	}
	return 0
}

// csvError rewrites encoding/csv's errors as "line N: …", N counted in the whole file from a reader that
// started at line firstLine.
func csvError(err error, firstLine int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d: %w", firstLine-1+pe.Line, pe.Err)
	}
	return err
}

// appendCSV converts one field to the column's type, by the mapping described at specialReals.
func appendCSV(v *column.Vector, t column.Type, s string) {
	if s == "" && t != column.String {
		v.AppendNull()
		return
	}
	switch t {
	case column.Bool:
		v.AppendBool(strings.EqualFold(s, "true"))
	case column.Long:
		n, _ := parseLong(s)
		v.AppendInt(n)
	case column.Real:
		v.AppendReal(parseReal(s))
	case column.DateTime:
		ns, _ := column.ParseDateTime(s)
		v.AppendInt(ns)
	default:
		v.AppendString(s)
	}
}
