// Package format writes query output as JSON lines, CSV or an aligned text table.
//
// Every format writes values the same way: long as an integer, real as the shortest number that reads back
// exactly, datetime as ISO-8601 UTC ending in Z, timespan as KQL writes it ([d.]hh:mm:ss[.fffffff]), and null as
// null in JSON or an empty field in CSV and tables.
//
// No format writes a control character from the data raw, where a terminal would obey it (ESC starts a
// sequence that moves the cursor or recolours the screen, CR returns over what was written, BEL rings): in JSON
// they are \u escapes; in a table every one is escaped, newline and tab included, as \n, \r, \t, \x1b (C0 and
// DEL), \u009b (C1) or \xff (a byte that is not UTF-8); in CSV tab, CR and LF stay data, in a quoted field (RFC
// 4180), and the others are escaped as in tables. A backslash in the data is written as it is, so those escapes
// are for reading: a CSV field \x1b may have been either.
package format

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
)

// Writer writes batches of one schema.
type Writer interface {
	Write(b *column.Batch) error
	Close() error
}

// Formats lists the format names New accepts.
var Formats = []string{"jsonl", "csv", "table"}

// New returns a writer for format "jsonl", "csv" or "table".
func New(w io.Writer, format string, schema column.Schema) (Writer, error) {
	switch format {
	case "jsonl":
		return &jsonl{w: w, schema: schema}, nil
	case "csv":
		c := &csvWriter{w: csv.NewWriter(w), schema: schema}
		names := make([]string, len(schema))
		for i, f := range schema {
			names[i] = escapeControls(f.Name, keepCSVData)
		}
		return c, c.w.Write(names)
	case "table":
		return &table{w: w, schema: schema}, nil
	}
	return nil, fmt.Errorf("format: unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// jsonl writes one JSON object per row, keys in column order.
type jsonl struct {
	w      io.Writer
	schema column.Schema
	buf    []byte
}

func (j *jsonl) Write(b *column.Batch) error {
	for r := 0; r < b.N; r++ {
		j.buf = j.buf[:0]
		j.buf = append(j.buf, '{')
		for c, f := range j.schema {
			if c > 0 {
				j.buf = append(j.buf, ',')
			}
			j.buf = appendJSONString(j.buf, f.Name)
			j.buf = append(j.buf, ':')
			j.buf = AppendJSON(j.buf, b.Cols[c], r)
		}
		j.buf = append(j.buf, '}', '\n')
		if _, err := j.w.Write(j.buf); err != nil {
			return err
		}
	}
	return nil
}

func (j *jsonl) Close() error { return nil }

// AppendJSON appends row r of v as a JSON value.
func AppendJSON(dst []byte, v *column.Vector, r int) []byte {
	if v.IsNull(r) {
		return append(dst, "null"...)
	}
	switch v.Type {
	case column.Bool:
		return strconv.AppendBool(dst, v.Bools[r])
	case column.Long:
		return strconv.AppendInt(dst, v.Ints[r], 10)
	case column.Real:
		f := v.Reals[r]
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return appendJSONString(dst, expr.FormatReal(f)) // JSON has no NaN or Infinity
		}
		return append(dst, expr.FormatReal(f)...) // finite: always a valid JSON number
	case column.Dynamic:
		if s := v.Strs[r]; json.Valid([]byte(s)) {
			return appendJSONText(dst, []byte(s))
		}
		return appendJSONString(dst, v.Strs[r])
	case column.String:
		return appendJSONString(dst, v.Strs[r])
	}
	return appendJSONString(dst, expr.ToString(v.Value(r)))
}

func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return appendJSONText(dst, b)
}

// appendJSONText appends valid JSON, escaping DEL and the C1 controls, which encoding/json leaves raw (it
// escapes C0 itself). Outside strings JSON is ASCII with no DEL, so every one found is inside a string, where
// a \u escape means the same character.
func appendJSONText(dst, js []byte) []byte {
	for i := 0; i < len(js); i++ {
		switch c := js[i]; {
		case c == 0x7f:
			dst = append(dst, `\u007f`...)
		case c == 0xc2 && i+1 < len(js) && js[i+1] >= 0x80 && js[i+1] < 0xa0: // U+0080 to U+009F in UTF-8
			dst = fmt.Appendf(dst, `\u%04x`, js[i+1])
			i++
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// Text renders row r of v for CSV and tables: empty for null, raw JSON for dynamic.
func Text(v *column.Vector, r int) string {
	if v.IsNull(r) {
		return ""
	}
	return expr.ToString(v.Value(r))
}

// isControl reports whether r is a control character: C0, DEL or C1.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// escapeControls writes s with every control character, and every byte that is not UTF-8, escaped, except
// those that keep reports true for (see the package comment for the forms).
func escapeControls(s string, keep func(rune) bool) string {
	clean := true
	for i := 0; i < len(s) && clean; i++ {
		clean = s[i] >= 0x20 && s[i] < 0x7f || s[i] < 0x20 && keep(rune(s[i]))
	}
	if clean {
		return s // the common case: printable ASCII, or ASCII with kept controls
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !isControl(r) || keep(r):
			b.WriteString(s[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// keepNone escapes every control character: for tables, where a newline or tab would break the alignment.
func keepNone(rune) bool { return false }

// keepCSVData keeps the controls a CSV reader takes back as data inside a quoted field.
func keepCSVData(r rune) bool { return r == '\t' || r == '\r' || r == '\n' }

type csvWriter struct {
	w      *csv.Writer
	schema column.Schema
}

func (c *csvWriter) Write(b *column.Batch) error {
	rec := make([]string, len(c.schema))
	for r := 0; r < b.N; r++ {
		for i := range c.schema {
			rec[i] = escapeControls(Text(b.Cols[i], r), keepCSVData)
		}
		if err := c.w.Write(rec); err != nil {
			return err
		}
	}
	return nil
}

func (c *csvWriter) Close() error {
	c.w.Flush()
	return c.w.Error()
}

// table holds all rows to align the columns, then writes them on Close.
type table struct {
	w      io.Writer
	schema column.Schema
	rows   [][]string
}

func (t *table) Write(b *column.Batch) error {
	for r := 0; r < b.N; r++ {
		row := make([]string, len(t.schema))
		for i := range t.schema {
			row[i] = escapeControls(Text(b.Cols[i], r), keepNone)
		}
		t.rows = append(t.rows, row)
	}
	return nil
}

func (t *table) Close() error {
	widths := make([]int, len(t.schema))
	header := make([]string, len(t.schema))
	for i, f := range t.schema {
		header[i] = escapeControls(f.Name, keepNone)
		widths[i] = utf8.RuneCountInString(header[i])
	}
	for _, row := range t.rows {
		for i, s := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		for i, s := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(s)
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(s)))
			}
		}
		b.WriteByte('\n')
	}
	rule := make([]string, len(t.schema))
	for i := range t.schema {
		rule[i] = strings.Repeat("-", widths[i])
	}
	line(header)
	line(rule)
	for _, row := range t.rows {
		line(row)
	}
	fmt.Fprintf(&b, "(%d rows)\n", len(t.rows))
	_, err := io.WriteString(t.w, b.String())
	return err
}
