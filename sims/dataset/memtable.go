// Package dataset generates the simulations' tables from a seed, with realistic shapes: Okta System Log
// events (a virtual table of up to 70 billion rows), CrowdStrike detections and Sentinel sign-ins. Tables
// implement service.Table, so a simulated service answers requests over them.
package dataset

import (
	"context"
	"fmt"
	"sort"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/expr"
)

// MemTable is a generated table held in memory. Answering filters every row, sorts the matches and gathers
// the requested columns: O(n + m log m) per request for m matches, fine for tables of thousands to a few
// million rows.
type MemTable struct {
	info  connector.TableInfo
	table *column.Table
}

// NewMemTable wraps t, whose schema must be info.Schema.
func NewMemTable(info connector.TableInfo, t *column.Table) *MemTable {
	info.Rows = int64(t.N)
	return &MemTable{info: info, table: t}
}

func (m *MemTable) Info() connector.TableInfo { return m.info }

// Table is the whole table, for tests that compute expected answers.
func (m *MemTable) Table() *column.Table { return m.table }

func (m *MemTable) Answer(_ context.Context, req connector.Request, max int) (*column.Batch, error) {
	names := make([]string, len(m.info.Schema))
	for i, f := range m.info.Schema {
		names[i] = f.Name
	}
	for _, c := range append(connector.Columns(req.Where, nil), req.Columns...) {
		if m.info.Schema.Index(c) < 0 {
			return nil, &connector.InvalidRequestError{Reason: fmt.Sprintf("table %s has no column %q", m.info.Name, c)}
		}
	}
	for _, k := range req.OrderBy {
		if m.info.Schema.Index(k.Column) < 0 {
			return nil, &connector.InvalidRequestError{Reason: fmt.Sprintf("table %s has no column %q to order by", m.info.Name, k.Column)}
		}
	}
	keep, err := connector.Eval(req.Where, names, m.table.Batch())
	if err != nil {
		return nil, err
	}
	var idx []int32
	for i, k := range keep {
		if k {
			idx = append(idx, int32(i))
		}
	}
	if len(req.OrderBy) > 0 {
		keys := make([]*column.Vector, len(req.OrderBy))
		for i, k := range req.OrderBy {
			keys[i] = m.table.Cols[m.info.Schema.Index(k.Column)]
		}
		sort.SliceStable(idx, func(a, b int) bool {
			for i, k := range req.OrderBy {
				x, y := keys[i].Value(int(idx[a])), keys[i].Value(int(idx[b]))
				c := orderCompare(x, y)
				if k.Desc && !x.Null && !y.Null {
					c = -c
				}
				if c != 0 {
					return c < 0
				}
			}
			return false
		})
	}
	if max >= 0 && len(idx) > max {
		idx = idx[:max]
	}
	cols := make([]*column.Vector, len(req.Columns))
	for i, c := range req.Columns {
		cols[i] = m.table.Cols[m.info.Schema.Index(c)].Gather(idx)
	}
	return column.NewBatch(cols, len(idx)), nil
}

// orderCompare orders values ascending with nulls last; the caller flips only non-null pairs for desc, so
// nulls stay last in both directions.
func orderCompare(x, y column.Value) int {
	switch {
	case x.Null && y.Null:
		return 0
	case x.Null:
		return 1
	case y.Null:
		return -1
	}
	c, _ := expr.Compare(x, y)
	return c
}

// RowColumn is the hidden column a file table gets for its row number (0-based, in file order): the one order
// in which no two rows of a user's file tie, so a scan can page through it by keyset.
const RowColumn = "_row"

// NewFileTable serves the rows of a user's file (already parsed) as a table named name, with a hidden
// RowColumn as its key, so that a scan behind a profile's row cap pages through the file instead of asking
// for it in one request.
func NewFileTable(name string, schema column.Schema, t *column.Table) *MemTable {
	rows := column.NewVector(column.Long, t.N)
	for i := 0; i < t.N; i++ {
		rows.AppendInt(int64(i))
	}
	schema = append(append(column.Schema(nil), schema...), column.Field{Name: RowColumn, Type: column.Long, Hidden: true})
	cols := append(append([]*column.Vector(nil), t.Cols...), rows)
	withRows := &column.Table{Schema: schema, Cols: cols, N: t.N}
	return NewMemTable(connector.TableInfo{Name: name, Schema: schema, Key: []connector.OrderKey{{Column: RowColumn}}}, withRows)
}
