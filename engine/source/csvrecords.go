package source

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// csvRecords reads the records of a chunk exactly as encoding/csv reads them (RFC 4180 quoting, a CR before a
// newline dropped, blank lines skipped, every record of the same number of fields), but splits a line that
// holds no quote itself: one string for the line and a slice of it per field, with no per-byte state machine.
// A record with a quote — the only kind whose fields can hold commas, quotes or newlines, and the only kind
// that can be malformed — is handed whole to encoding/csv, so its fields and its errors are encoding/csv's.
type csvRecords struct {
	data   []byte
	line   int // the line of data's first byte, counted from the chunk's first line as 1
	fields int // the fields every record must have
	// keep is how many leading fields an unquoted record returns (the rest are only counted): all of them
	// unless the reader needs fewer (setKeep).
	keep int
	// reuse makes Read return the same slice every time (as csv.Reader.ReuseRecord); else each record is new.
	reuse bool
	// view makes an unquoted record's fields views of data instead of a copy of its line: only for data that
	// outlives every field and is never written (a chunk a stream's table keeps, see csvRead.view).
	view bool
	rec  []string
	// recLine is the line of the last record; quoted is the reader that read it when it held a quote.
	recLine int
	quoted  *csv.Reader
}

// newCSVRecords reads data, which starts at the given line of its chunk, expecting fields fields a record.
func newCSVRecords(data []byte, line, fields int) *csvRecords {
	return &csvRecords{data: data, line: line, fields: fields, keep: fields}
}

// setKeep makes Read return only the first keep fields of an unquoted record, enough for the highest field a
// scan reads: the fields past it are counted, for the check that every record has them all, but not split out.
// A quoted record still comes whole from encoding/csv.
func (r *csvRecords) setKeep(keep int) { r.keep = min(keep, r.fields) }

// Read returns the next record, io.EOF after the last.
func (r *csvRecords) Read() ([]string, error) {
	for len(r.data) > 0 {
		if !r.reuse {
			r.rec = make([]string, 0, r.fields)
		}
		rec, fields, end, unquoted := splitLine(r.data, r.rec[:0], r.keep)
		if !unquoted {
			return r.readQuoted()
		}
		next := min(end+1, len(r.data))
		if end == 0 || end == 1 && r.data[0] == '\r' { // a blank line
			r.data, r.line = r.data[next:], r.line+1
			continue
		}
		if !r.view {
			for i, f := range rec {
				rec[i] = strings.Clone(f)
			}
		}
		r.rec = rec
		r.recLine = r.line
		r.data, r.line, r.quoted = r.data[next:], r.line+1, nil
		if fields != r.fields {
			return nil, &csv.ParseError{StartLine: r.recLine, Line: r.recLine, Column: 1, Err: csv.ErrFieldCount}
		}
		return r.rec, nil
	}
	return nil, io.EOF
}

// readQuoted reads the record at the start of data, which holds a quote, through encoding/csv: it spans up to
// the first newline outside quotes (the rest of the data if none, where encoding/csv reports the open quote).
func (r *csvRecords) readQuoted() ([]string, error) {
	n, quoted := len(r.data), false
	for i, c := range r.data {
		if c == '"' {
			quoted = !quoted // "" inside a quoted field toggles twice
		} else if c == '\n' && !quoted {
			n = i + 1
			break
		}
	}
	rec := r.data[:n]
	cr := csv.NewReader(bytes.NewReader(rec))
	cr.FieldsPerRecord = r.fields
	out, err := cr.Read()
	r.recLine, r.quoted = r.line, cr
	r.data, r.line = r.data[n:], r.line+countByte(rec, '\n')
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		shifted := *pe
		shifted.StartLine += r.recLine - 1
		shifted.Line += r.recLine - 1
		return out, &shifted
	}
	return out, err
}

// FieldPos is the line and column where field c of the last record starts (the column only for a quoted one).
func (r *csvRecords) FieldPos(c int) (line, column int) {
	if r.quoted != nil {
		line, column = r.quoted.FieldPos(c)
		return r.recLine - 1 + line, column
	}
	return r.recLine, 0
}
