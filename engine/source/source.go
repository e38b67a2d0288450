// Package source reads tables from JSON-lines and CSV data into column batches.
//
// A file is read in chunks split at record ends and parsed on every core (chunk.go, parallel.go); a regular
// file is not held, but read again by each scan (jsonlfile.go, csvfile.go, filescan.go), and typed from a
// sample when opened (sample.go): its scans check every record and value past it, with line numbers. A
// stream is parsed, validated and typed whole when it is read (so a malformed line is reported before any row
// flows), then scanned any number of times. A scan reads only the columns the query needs: for
// JSON lines, each requested column is a gjson path read from the raw line, so a nested field such as
// actor.alternateId is projected without decoding the rest of the document.
package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// BatchRows is the number of rows a scan puts in one batch: large enough to amortise per-batch work, small
// enough that a batch of a dozen int columns stays in the L2 cache (under 400 KiB). Under js/wasm, where every
// call and allocation costs more, the join workloads of the wide benchmark ran 5–15% faster at 4,096 rows a
// batch than at 1,024, and no faster at 8,192 (node, `-test.bench Workloads`).
const BatchRows = 4096

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

// Format is how a file's records are written.
type Format int

const (
	JSONLines Format = iota // one JSON object per line
	CSV                     // a header line, then records (RFC 4180)
)

// FormatOf names the format of a file from its extension: .jsonl, .ndjson and .json are JSON lines, .csv is CSV.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson", ".json":
		return JSONLines, nil
	case ".csv":
		return CSV, nil
	}
	return 0, errors.New("unknown file type (want .jsonl, .ndjson, .json or .csv)")
}

// Options tune how a file is read; the zero value reads with no budget, in chunks of ChunkBytes, on every core.
type Options struct {
	// Budget, when set, counts the chunks being read and parsed: a file whose next record does not end within
	// what it has left fails with the record's position instead of growing memory.
	Budget *memory.Budget
	// ChunkBytes is the size of a read (ChunkBytes when 0); a chunk grows past it only to end a record.
	ChunkBytes int
	// Workers is how many chunks are parsed at once (one per core when 0; always one under js/wasm).
	Workers int
	// SampleBytes is how much of a regular file opening reads to type its columns (sample.go):
	// DefaultSampleBytes when 0, every value when negative (TypeEveryValue).
	SampleBytes int64
	// SpoolDir is where OpenWith copies a stream it is given (a pipe, a FIFO), to read it as a file: the
	// system's temporary folder when "".
	SpoolDir string
	// MaxStreamBytes is the most a stream may hold (DefaultMaxStreamBytes when 0): a stream has no size to
	// look at beforehand, and one of records with no end would otherwise fill the disk it is copied to.
	MaxStreamBytes int64
}

// DefaultMaxStreamBytes is the largest stream a source copies by default: well past any file this engine
// joins in minutes, small enough that an endless producer (`yes '{"a":1}'`) stops with an error long before a
// disk fills.
const DefaultMaxStreamBytes = 16 << 30

// Open reads a file as a source named name, as OpenWith does with no options.
func Open(name, path string) (Source, error) { return OpenWith(name, path, Options{}) }

// OpenWith reads a file as a source named name, its format from its extension (FormatOf). Its errors say the
// source once and the file once: "source Users: users.jsonl: line 3: malformed JSON".
func OpenWith(name, path string, o Options) (Source, error) {
	format, err := FormatOf(path)
	if err != nil {
		return nil, fmt.Errorf("source %s: %s: %w", name, path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", name, err) // an *fs.PathError names the file
	}
	defer f.Close()
	// A regular file is scanned where it lies; a stream is copied into a temporary file first (spool.go), and
	// then read as one.
	at := place{path: path}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		split := boundary(lineEnd{})
		if format == CSV {
			split = &csvEnd{}
		}
		held, err := spool(f, split, o)
		if err != nil {
			return nil, fmt.Errorf("source %s: %s: %w", name, path, err)
		}
		held.path = path
		at = held
	}
	s, err := openPlace(name, format, at, o)
	if err != nil {
		return nil, fmt.Errorf("source %s: %s: %w", name, path, err)
	}
	return s, nil
}

// Rename gives a source OpenWith or OpenHeld made under another name, sharing its data and its typing (a
// TypeAll through one name serves every name); any other source comes back as it is, with ok false.
func Rename(s Source, name string) (_ Source, ok bool) {
	switch f := s.(type) {
	case *jsonlFile:
		return &jsonlFile{name: name, jsonlTyping: f.jsonlTyping}, true
	case *csvFile:
		return &csvFile{name: name, csvTyping: f.csvTyping}, true
	}
	return s, false
}

// openPlace types the data at at (from a sample, as o says) as a source of format.
func openPlace(name string, format Format, at place, o Options) (Source, error) {
	r, err := at.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var s Source
	if format == JSONLines {
		var jf *jsonlFile
		if jf, err = openJSONLFile(name, at, r, o); err == nil {
			s = jf
		}
	} else {
		var cf *csvFile
		if cf, err = openCSVFile(name, at, r, o); err == nil {
			s = cf
		}
	}
	return s, err
}

// Read parses a stream of the given format a chunk at a time: the reader splits it at record ends (JSON lines
// at newlines, CSV at newlines outside quotes) and parses the chunks on Options.Workers goroutines, so the
// rows, their types and the line of any error are those of parsing it whole. A record longer than
// MaxRecordBytes, or one that does not end within the budget, is an error with its line and byte offset.
func Read(name string, format Format, r io.Reader, o Options) (Source, error) {

	n := workers(o)
	if format == CSV {
		t, err := readCSV(name, newChunker(r, &csvEnd{}, o.ChunkBytes, o.Budget), n)
		if err != nil {
			return nil, err // not a nil *Table inside a non-nil Source
		}
		return t, nil
	}
	s, err := readJSONL(name, newChunker(r, lineEnd{}, o.ChunkBytes, o.Budget), n)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// workers is how many chunks o parses at once.
func workers(o Options) int {
	if o.Workers <= 0 || parseWorkers() == 1 {
		return parseWorkers()
	}
	return o.Workers
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
