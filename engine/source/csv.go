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
	data = bytes.TrimPrefix(data, []byte(utf8BOM))
	if len(data) == 0 {
		return nil, errors.New("empty CSV: expected a header line")
	}
	// encoding/csv skips blank lines, so without this check an empty first line would make the first record
	// the header: the columns get the first row's values as names and that row is lost.
	if first, _, _ := bytes.Cut(data, []byte("\n")); len(bytes.TrimSuffix(first, []byte("\r"))) == 0 {
		return nil, errors.New("line 1: empty header: the first line must name the columns")
	}
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err != nil {
		return nil, csvError(err)
	}
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, fmt.Errorf("line 1: column %d has no name", i+1)
		}
		if seen[h] {
			return nil, fmt.Errorf("line 1: duplicate column %q", h)
		}
		seen[h] = true
		header[i] = h
	}
	var records [][]string
	saw := make([]kinds, len(header))
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(err)
		}
		for c, s := range rec {
			k, err := textKind(s, false)
			if err != nil {
				line, _ := r.FieldPos(c)
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			saw[c] |= k
		}
		records = append(records, rec)
	}
	schema := make(column.Schema, len(header))
	for c, h := range header {
		schema[c] = column.Field{Name: h, Type: saw[c].columnType()}
	}
	t := column.NewTable(schema)
	for c, f := range schema {
		v := t.Cols[c]
		for _, rec := range records {
			appendCSV(v, f.Type, rec[c])
		}
	}
	t.N = len(records)
	return FromTable(name, t), nil
}

// csvError rewrites encoding/csv's errors as "line N: …".
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d: %w", pe.Line, pe.Err)
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
