// Package format writes query output as JSON lines, CSV or an aligned text table.
//
// Every format writes values the same way: long as an integer, real as the shortest number that reads back
// exactly, datetime as ISO-8601 UTC ending in Z, timespan as KQL writes it ([d.]hh:mm:ss[.fffffff]), and null as
// null in JSON or an empty field in CSV and tables.
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
			names[i] = f.Name
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
			return append(dst, s...)
		}
		return appendJSONString(dst, v.Strs[r])
	case column.String:
		return appendJSONString(dst, v.Strs[r])
	}
	return appendJSONString(dst, expr.ToString(v.Value(r)))
}

func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(dst, b...)
}

// Text renders row r of v for CSV and tables: empty for null, raw JSON for dynamic.
func Text(v *column.Vector, r int) string {
	if v.IsNull(r) {
		return ""
	}
	return expr.ToString(v.Value(r))
}

type csvWriter struct {
	w      *csv.Writer
	schema column.Schema
}

func (c *csvWriter) Write(b *column.Batch) error {
	rec := make([]string, len(c.schema))
	for r := 0; r < b.N; r++ {
		for i := range c.schema {
			rec[i] = Text(b.Cols[i], r)
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
			row[i] = Text(b.Cols[i], r)
		}
		t.rows = append(t.rows, row)
	}
	return nil
}

func (t *table) Close() error {
	widths := make([]int, len(t.schema))
	for i, f := range t.schema {
		widths[i] = utf8.RuneCountInString(f.Name)
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
	header := make([]string, len(t.schema))
	rule := make([]string, len(t.schema))
	for i, f := range t.schema {
		header[i] = f.Name
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
