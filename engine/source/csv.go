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
	header, first, err := parseCSVHead(chunk{data: data, line: 1})
	if err != nil {
		return nil, err
	}
	return newCSV(name, header, []csvPart{first}), nil
}

// readCSV reads CSV as FromCSV does, a chunk at a time: the first chunk, which holds the header, alone, then the
// others in parallel.
func readCSV(name string, c *chunker, workers int) (*Table, error) {
	ch, err := c.next()
	if err == io.EOF {
		return nil, errors.New("empty CSV: expected a header line")
	}
	if err != nil {
		return nil, err
	}
	header, first, err := parseCSVHead(ch)
	c.release(ch)
	if err != nil {
		return nil, err
	}
	rest, err := parseChunks(c, workers, func(ch chunk) (csvPart, error) {
		r := csv.NewReader(bytes.NewReader(ch.data))
		r.FieldsPerRecord = len(header)
		return readCSVRecords(r, ch.line, len(header))
	})
	if err != nil {
		return nil, err
	}
	return newCSV(name, header, append([]csvPart{first}, rest...)), nil
}

// csvPart is what one chunk holds: its records, and the kinds of value each column showed in them.
type csvPart struct {
	records [][]string
	saw     []kinds
}

// parseCSVHead reads the header from the first chunk of a file, then the records after it.
func parseCSVHead(ch chunk) ([]string, csvPart, error) {
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
	part, err := readCSVRecords(r, ch.line, len(header))
	return header, part, err
}

// readCSVRecords reads the records left in r, whose first line is line firstLine of the file.
func readCSVRecords(r *csv.Reader, firstLine, fields int) (csvPart, error) {
	p := csvPart{saw: make([]kinds, fields)}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return p, nil
		}
		if err != nil {
			return p, csvError(err, firstLine)
		}
		for c, s := range rec {
			k, err := textKind(s, false)
			if err != nil {
				line, _ := r.FieldPos(c)
				return p, fmt.Errorf("line %d: %w", firstLine-1+line, err)
			}
			p.saw[c] |= k
		}
		p.records = append(p.records, rec)
	}
}

// newCSV types each column from the kinds every part saw and converts the records, in order.
func newCSV(name string, header []string, parts []csvPart) *Table {
	saw := make([]kinds, len(header))
	n := 0
	for _, p := range parts {
		for c, k := range p.saw {
			saw[c] |= k
		}
		n += len(p.records)
	}
	schema := make(column.Schema, len(header))
	for c, h := range header {
		schema[c] = column.Field{Name: h, Type: saw[c].columnType()}
	}
	t := &column.Table{Schema: schema, Cols: make([]*column.Vector, len(schema)), N: n}
	for c, f := range schema {
		v := column.NewVector(f.Type, n)
		for _, p := range parts {
			for _, rec := range p.records {
				appendCSV(v, f.Type, rec[c])
			}
		}
		t.Cols[c] = v
	}
	return FromTable(name, t)
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
		n, _ := strconv.ParseInt(s, 10, 64)
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
