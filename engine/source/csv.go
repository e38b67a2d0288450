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

// FromCSV parses CSV data whose first record is a header of unique column names. Each column is typed from
// all its values (long, real, bool, datetime, else string); an empty field is null. A record with the wrong
// number of fields is reported with its line number.
func FromCSV(name string, data []byte) (*Table, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = false
	header, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("source %s: empty CSV: expected a header line", name)
	}
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", name, csvError(err))
	}
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if h == "" {
			return nil, fmt.Errorf("source %s: line 1: column %d has no name", name, i+1)
		}
		if seen[h] {
			return nil, fmt.Errorf("source %s: line 1: duplicate column %q", name, h)
		}
		seen[h] = true
		header[i] = h
	}
	var records [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", name, csvError(err))
		}
		records = append(records, rec)
	}
	schema := make(column.Schema, len(header))
	for c, h := range header {
		var k kinds
		for _, rec := range records {
			k |= csvKind(rec[c])
		}
		schema[c] = column.Field{Name: h, Type: k.columnType()}
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

func csvKind(s string) kinds {
	switch {
	case s == "":
		return 0
	case strings.EqualFold(s, "true") || strings.EqualFold(s, "false"):
		return sawBool
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return sawLong
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return sawReal
	}
	if _, ok := column.ParseDateTime(s); ok {
		return sawDateTime
	}
	return sawString
}

func appendCSV(v *column.Vector, t column.Type, s string) {
	if s == "" {
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
		f, _ := strconv.ParseFloat(s, 64)
		v.AppendReal(f)
	case column.DateTime:
		ns, _ := column.ParseDateTime(s)
		v.AppendInt(ns)
	default:
		v.AppendString(s)
	}
}
