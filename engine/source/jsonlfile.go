package source

import (
	"bytes"
	"context"
	"io"
	"os"
	"sync"

	"github.com/joinlab/joinlab/engine/column"
)

// jsonlFile is a JSON-lines file read where it lies. Opening it reads it once, in parallel chunks, to validate
// every line and type the top-level keys, and keeps only the schema and the row count; every scan reads the
// file again, chunk by chunk, and parses each chunk straight into batches of the columns it asks for, so a
// query holds a few chunks of the file (one per worker, plus their batches), never the whole of it. A nested
// path is typed, the first time a query names it, by one more pass over the file.
//
// The cost is a read of the file per scan (from the page cache, once it is warm) in place of holding it. A
// file changed after it was opened fails the scan when its row count no longer matches.
type jsonlFile struct {
	name, path string
	top        column.Schema
	rows       int
	opts       Options

	mu    sync.Mutex
	paths map[string]column.Type
}

var _ Source = (*jsonlFile)(nil)

// openJSONLFile validates and types a JSON-lines file without keeping its lines.
func openJSONLFile(name, path string, f io.Reader, o Options) (*jsonlFile, error) {
	c := newChunker(f, lineEnd{}, o.ChunkBytes, o.Budget)
	parts, err := parseChunks(c, workers(o), func(ch chunk) (jsonlPart, error) { return parseJSONLLines(ch, false) })
	if err != nil {
		return nil, err
	}
	s := &jsonlFile{name: name, path: path, top: topSchema(parts), opts: o, paths: map[string]column.Type{}}
	for _, p := range parts {
		s.rows += p.rows
	}
	return s, nil
}

func (s *jsonlFile) Name() string { return s.name }
func (s *jsonlFile) Rows() int    { return s.rows }

// Schema is as JSONL's: the top-level columns, then the nested paths the query names, typed by one more read
// of the file for all the paths not typed before.
func (s *jsonlFile) Schema(paths []string) column.Schema {
	return nestedSchema(s.top, paths, s.pathTypes)
}

func (s *jsonlFile) pathTypes(paths []string) []column.Type {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cachedPathTypes(s.paths, s.top, paths, func(t *pathTyper) error {
		f, err := os.Open(s.path)
		if err != nil {
			return err
		}
		defer f.Close()
		c := newChunker(f, lineEnd{}, s.opts.ChunkBytes, nil)
		parts, err := parseChunks(c, workers(s.opts), func(ch chunk) (*pathTyper, error) {
			part := &pathTyper{plan: t.plan, kinds: make([]kinds, len(t.kinds))}
			forEachJSONLine(ch.data, part.line)
			return part, nil
		})
		for _, p := range parts {
			t.merge(p)
		}
		return err
	})
}

// Scan reads the file again, a chunk per worker at a time, in file order.
func (s *jsonlFile) Scan(_ context.Context, cols []column.Field) Iterator {
	plan := newScanPlan(s.top, cols)
	parse := func(ch chunk) ([]*column.Batch, error) {
		var lines [][]byte
		var out []*column.Batch
		forEachJSONLine(ch.data, func(line []byte) {
			lines = append(lines, line)
			if len(lines) == BatchRows {
				out = append(out, jsonlBatch(lines, cols, plan))
				lines = lines[:0]
			}
		})
		if len(lines) > 0 {
			out = append(out, jsonlBatch(lines, cols, plan))
		}
		return out, nil
	}
	return &fileScan{name: s.name, path: s.path, rows: s.rows, opts: s.opts, split: func() boundary { return lineEnd{} }, parse: parse}
}

// forEachJSONLine calls fn with each non-blank line of data, trimmed, as parseJSONLLines reads them.
func forEachJSONLine(data []byte, fn func([]byte)) {
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			fn(line)
		}
	}
}
