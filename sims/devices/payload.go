package devices

import (
	"context"
	"fmt"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/source"
)

// payloadColumn is the metrics' JSON document: the agent's report, as a device sends it.
const payloadColumn = "payload"

// metricsSource is the Metrics table: per partition, the flat columns (timestamp, device, location_id) in a
// column table and, row for row beside them, the payload documents as a JSON-lines source. A query's paths
// into the payload (payload.cpu.pct) are read by the engine's own projection (source.JSONL: one gjson lookup
// a row and path, at scan time), so only the fields the query names are ever extracted and the documents are
// never decoded whole; the flat columns cost no JSON at all.
//
// Invariant: a partition's table and its documents have the same rows in the same order, and both sources
// cut their scans into batches of source.BatchRows from the first row, so their batches pair up one to one.
type metricsSource struct {
	name  string
	parts []metricsPart
	rows  int
	// shape is the whole table's first partition, which gives the schema even to a view pruned to nothing.
	shape metricsPart
}

// metricsPart is one time partition: rows whose timestamp lies in [lo, hi].
type metricsPart struct {
	lo, hi   int64
	flat     *source.Table
	payloads *source.JSONL
}

var _ source.TimePartitioned = (*metricsSource)(nil)

// newMetricsSource pairs each partition's table with its documents, one JSON line a row.
func newMetricsSource(name string, lo []int64, span int64, tabs []*column.Table, docs [][]byte) (*metricsSource, error) {
	s := &metricsSource{name: name}
	for p, t := range tabs {
		js, err := source.FromJSONL(name, docs[p])
		if err != nil {
			return nil, fmt.Errorf("devices: partition %d's payloads: %w", p, err)
		}
		if js.Rows() != t.N {
			return nil, fmt.Errorf("devices: partition %d has %d rows but %d payloads", p, t.N, js.Rows())
		}
		s.parts = append(s.parts, metricsPart{lo: lo[p], hi: lo[p] + span - 1, flat: source.FromTable(name, t), payloads: js})
		s.rows += t.N
	}
	if len(s.parts) == 0 {
		return nil, fmt.Errorf("devices: %s has no partitions", name)
	}
	s.shape = s.parts[0]
	return s, nil
}

func (s *metricsSource) Name() string       { return s.name }
func (s *metricsSource) Rows() int          { return s.rows }
func (s *metricsSource) TimeColumn() string { return "timestamp" }
func (s *metricsSource) Partitions() int    { return len(s.parts) }

// Schema is the flat columns, the payload (raw JSON) and a hidden column for each path into it that the
// query names, typed by the first partition's documents (every partition is written by the same generator).
func (s *metricsSource) Schema(paths []string) column.Schema {
	out := append(column.Schema(nil), s.shape.flat.Schema(nil)...)
	return append(out, s.shape.payloads.Schema(paths)...)
}

func (s *metricsSource) Prune(lo, hi int64) (source.Source, int) {
	view := &metricsSource{name: s.name, shape: s.shape}
	for _, p := range s.parts {
		if p.hi >= lo && p.lo <= hi {
			view.parts = append(view.parts, p)
			view.rows += p.flat.Rows()
		}
	}
	return view, len(s.parts) - len(view.parts)
}

// Scan reads the flat columns from the tables and the payload and its paths from the documents, partition by
// partition, and puts each batch's columns back in the order asked for.
func (s *metricsSource) Scan(ctx context.Context, cols []column.Field) source.Iterator {
	it := &metricsIter{s: s, from: make([]bool, len(cols))}
	for i, f := range cols {
		if f.Name == payloadColumn || strings.HasPrefix(f.Name, payloadColumn+".") {
			it.from[i] = true
			it.json = append(it.json, f)
		} else {
			it.flat = append(it.flat, f)
		}
	}
	return it
}

type metricsIter struct {
	s          *metricsSource
	flat, json []column.Field
	from       []bool // from[i]: column i comes from the documents
	part       int
	fi, ji     source.Iterator
}

func (it *metricsIter) Next(ctx context.Context) (*column.Batch, error) {
	for it.part < len(it.s.parts) {
		if it.fi == nil {
			p := it.s.parts[it.part]
			it.fi, it.ji = p.flat.Scan(ctx, it.flat), p.payloads.Scan(ctx, it.json)
		}
		fb, err := it.fi.Next(ctx)
		if err != nil {
			return nil, err
		}
		jb, err := it.ji.Next(ctx)
		if err != nil {
			return nil, fmt.Errorf("devices: partition %d's payloads: %w", it.part, err)
		}
		if fb == nil && jb == nil {
			it.part++
			it.fi, it.ji = nil, nil
			continue
		}
		if fb == nil || jb == nil || fb.N != jb.N {
			return nil, fmt.Errorf("devices: partition %d: table and payload batches do not pair up", it.part)
		}
		cols := make([]*column.Vector, len(it.from))
		f, j := 0, 0
		for i, fromJSON := range it.from {
			if fromJSON {
				cols[i], j = jb.Cols[j], j+1
			} else {
				cols[i], f = fb.Cols[f], f+1
			}
		}
		return column.NewBatch(cols, fb.N), nil
	}
	return nil, nil
}
