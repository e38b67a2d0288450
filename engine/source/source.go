// Package source reads tables from JSON-lines and CSV data into column batches.
//
// A source is parsed and validated once when it is opened (so a malformed line is reported with its line number
// before any row flows), then scanned any number of times. A scan reads only the columns the query needs: for
// JSON lines, each requested column is a gjson path read from the raw line, so a nested field such as
// actor.alternateId is projected without decoding the rest of the document.
package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
)

// BatchRows is the number of rows a scan puts in one batch: large enough to amortise per-batch work, small
// enough that a batch of wide rows stays well under a megabyte.
const BatchRows = 1024

// Source is a table the engine can scan. Implementations are safe for concurrent scans.
type Source interface {
	// Name is the table's name, as written after '@' in a query.
	Name() string
	// Schema returns the table's columns. Nested paths the query mentions (paths holds every dotted name it
	// uses) are added as hidden columns when the source has them.
	Schema(paths []string) column.Schema
	// Rows is the number of rows.
	Rows() int
	// Scan returns the named columns (from Schema) in batches of at most BatchRows rows.
	Scan(ctx context.Context, columns []column.Field) Iterator
}

// Iterator yields batches; Next returns (nil, nil) after the last one.
type Iterator interface {
	Next(ctx context.Context) (*column.Batch, error)
}

// Open reads a file as a source named name: .jsonl, .ndjson and .json are JSON lines, .csv is CSV. Its errors
// say the source once and the file once: "source Users: users.jsonl: line 3: malformed JSON".
func Open(name, path string) (Source, error) {
	var parse func(string, []byte) (Source, error)
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson", ".json":
		parse = func(name string, data []byte) (Source, error) { return FromJSONL(name, data) }
	case ".csv":
		parse = func(name string, data []byte) (Source, error) { return FromCSV(name, data) }
	default:
		return nil, fmt.Errorf("source %s: %s: unknown file type (want .jsonl, .ndjson, .json or .csv)", name, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", name, err) // an *fs.PathError names the file
	}
	s, err := parse(name, data)
	if err != nil {
		return nil, fmt.Errorf("source %s: %s: %w", name, path, err)
	}
	return s, nil
}

// Table is a source already in memory as columns, used for generated data and tests.
type Table struct {
	name  string
	table *column.Table
}

// FromTable wraps an in-memory table as a source.
func FromTable(name string, t *column.Table) *Table { return &Table{name: name, table: t} }

func (s *Table) Name() string                  { return s.name }
func (s *Table) Schema([]string) column.Schema { return s.table.Schema }
func (s *Table) Rows() int                     { return s.table.N }
func (s *Table) Scan(_ context.Context, cols []column.Field) Iterator {
	idx := make([]int, len(cols))
	for i, f := range cols {
		idx[i] = s.table.Schema.Index(f.Name)
	}
	return &tableIter{t: s.table, idx: idx}
}

type tableIter struct {
	t   *column.Table
	idx []int
	pos int
}

func (it *tableIter) Next(ctx context.Context) (*column.Batch, error) {
	if it.pos >= it.t.N {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hi := min(it.pos+BatchRows, it.t.N)
	cols := make([]*column.Vector, len(it.idx))
	for i, c := range it.idx {
		if c < 0 {
			cols[i] = column.NullVector(column.Dynamic, hi-it.pos)
			continue
		}
		cols[i] = it.t.Cols[c].Slice(it.pos, hi)
	}
	b := column.NewBatch(cols, hi-it.pos)
	it.pos = hi
	return b, nil
}
