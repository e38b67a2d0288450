// Package connectortest is the conformance suite every connector passes: answers are typed as described,
// limits and orders are honoured, keyset pages tile the answer with no row lost or repeated, predicates are
// applied with the engine's semantics, and the caps produce the typed errors exactly one past each limit.
package connectortest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
)

// Run checks conn on table, which must have a Key and at least a few rows. Throttles and transient failures
// are retried (a suite must pass on a faulty connector too); any other error fails the test.
func Run(t *testing.T, conn connector.Connector, info connector.TableInfo) {
	t.Helper()
	if len(info.Key) == 0 {
		t.Fatalf("table %s has no key", info.Name)
	}
	caps := conn.Caps()
	page := 7
	if caps.MaxRows > 0 {
		page = min(page, caps.MaxRows/2)
	}
	page = max(page, 1)
	var keyCols []string
	for _, k := range info.Key {
		keyCols = append(keyCols, k.Column)
	}
	all := []string{}
	for _, f := range info.Schema {
		all = append(all, f.Name)
	}

	t.Run("typed-columns", func(t *testing.T) {
		p := query(t, conn, connector.Request{Table: info.Name, Columns: all, OrderBy: info.Key, Limit: page})
		if p.Batch == nil || len(p.Batch.Cols) != len(all) {
			t.Fatalf("page has %v columns, want %d", p.Batch, len(all))
		}
		for i, f := range info.Schema {
			if v := p.Batch.Cols[i]; v == nil || v.Type != f.Type || v.Len() != p.Batch.N {
				t.Errorf("column %s: got %+v, want type %s and %d rows", f.Name, v, f.Type, p.Batch.N)
			}
		}
		if p.Rows() == 0 || p.Rows() > page {
			t.Errorf("limit %d: got %d rows", page, p.Rows())
		}
		if p.Bytes <= 0 {
			t.Errorf("page of %d rows reports %d bytes", p.Rows(), p.Bytes)
		}
	})

	t.Run("order-and-keyset-tiling", func(t *testing.T) {
		want := collect(t, conn, info, keyCols, 3*page, 3*page)
		checkOrder(t, info.Key, want)
		got := collect(t, conn, info, keyCols, 3*page, page)
		if len(got) < len(want) {
			t.Fatalf("keyset pages of %d gave %d rows, one page of %d gave %d", page, len(got), 3*page, len(want))
		}
		for i := range want {
			if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
				t.Fatalf("row %d: paged %v, unpaged %v", i, got[i], want[i])
			}
		}
	})

	t.Run("predicate-applied", func(t *testing.T) {
		first := query(t, conn, connector.Request{Table: info.Name, Columns: keyCols, OrderBy: info.Key, Limit: 1})
		if first.Rows() == 0 {
			t.Skip("empty table")
		}
		v := first.Batch.Cols[0].Value(0)
		for _, where := range []connector.Predicate{
			connector.Compare{Column: keyCols[0], Op: "==", Value: v},
			connector.In{Column: keyCols[0], Values: []column.Value{v}},
			connector.Keyset{Keys: info.Key[:1], Values: []column.Value{v}, Bound: connector.AtOrBefore},
		} {
			p := query(t, conn, connector.Request{Table: info.Name, Columns: keyCols, Where: where, OrderBy: info.Key, Limit: page})
			if p.Rows() == 0 {
				t.Errorf("%s: no rows, though the first row matches", where)
			}
			keep, err := connector.Eval(where, keyCols, p.Batch)
			if err != nil {
				t.Fatal(err)
			}
			for i, k := range keep {
				if !k {
					t.Errorf("%s: row %d (%v) does not match", where, i, p.Batch.Cols[0].Value(i))
				}
			}
		}
	})

	t.Run("caps", func(t *testing.T) {
		if caps.MaxRows > 0 {
			query(t, conn, connector.Request{Table: info.Name, Columns: keyCols[:1], OrderBy: info.Key, Limit: caps.MaxRows})
			wantErr[*connector.InvalidRequestError](t, conn, connector.Request{Table: info.Name, Columns: keyCols[:1], OrderBy: info.Key, Limit: caps.MaxRows + 1})
		}
		if caps.MaxInValues > 0 {
			in := func(n int) connector.Request {
				vals := make([]column.Value, n)
				for i := range vals {
					vals[i] = column.Value{Type: column.String, Str: fmt.Sprintf("v%d", i)}
				}
				return connector.Request{Table: info.Name, Columns: keyCols[:1], Where: connector.In{Column: stringColumn(info), Values: vals}, Limit: 1}
			}
			if caps.MaxQueryBytes == 0 || caps.MaxInValues*8+256 < caps.MaxQueryBytes {
				query(t, conn, in(caps.MaxInValues))
			}
			e := wantErr[*connector.FilterTooLargeError](t, conn, in(caps.MaxInValues+1))
			if e != nil && e.Values != caps.MaxInValues+1 {
				t.Errorf("filter too large reports %d values, want %d", e.Values, caps.MaxInValues+1)
			}
		}
		wantErr[*connector.InvalidRequestError](t, conn, connector.Request{Table: info.Name + "_missing", Limit: 1})
		wantErr[*connector.InvalidRequestError](t, conn, connector.Request{Table: info.Name, Columns: []string{"no_such_column"}, Limit: 1})
	})
}

func stringColumn(info connector.TableInfo) string {
	for _, f := range info.Schema {
		if f.Type == column.String {
			return f.Name
		}
	}
	return info.Schema[0].Name
}

// retries is how many throttles or transient failures the suite rides out per request.
const retries = 50

func query(t *testing.T, conn connector.Connector, req connector.Request) connector.Page {
	t.Helper()
	for i := 0; ; i++ {
		p, err := conn.Query(context.Background(), req)
		if err == nil {
			return p
		}
		if !connector.Retryable(err) || i == retries {
			t.Fatalf("%s: %v", req.Table, err)
		}
	}
}

func wantErr[E error](t *testing.T, conn connector.Connector, req connector.Request) E {
	t.Helper()
	var zero E
	for i := 0; i <= retries; i++ {
		_, err := conn.Query(context.Background(), req)
		if err == nil {
			t.Errorf("request %+v: no error, want %T", req, zero)
			return zero
		}
		if connector.Retryable(err) {
			continue
		}
		var e E
		if !errors.As(err, &e) {
			t.Errorf("request %+v: error %v (%T), want %T", req, err, err, zero)
		}
		return e
	}
	t.Errorf("request %+v: still throttled after %d tries", req, retries)
	return zero
}

// collect reads up to n rows of the key columns by keyset pages of page rows, resuming after truncation.
func collect(t *testing.T, conn connector.Connector, info connector.TableInfo, keyCols []string, n, page int) [][]column.Value {
	t.Helper()
	var rows [][]column.Value
	var cursor []column.Value
	for len(rows) < n {
		var w connector.Predicate
		if cursor != nil {
			w = connector.Keyset{Keys: info.Key, Values: cursor, Bound: connector.After}
		}
		asked := min(page, n-len(rows))
		p := query(t, conn, connector.Request{Table: info.Name, Columns: keyCols, Where: w, OrderBy: info.Key, Limit: asked})
		for i := 0; i < p.Rows(); i++ {
			row := make([]column.Value, len(keyCols))
			for c := range keyCols {
				row[c] = p.Batch.Cols[c].Value(i)
			}
			rows = append(rows, row)
			cursor = row
		}
		if p.Rows() == 0 || (p.Rows() < asked && !p.Truncated) {
			break
		}
	}
	return rows
}

// checkOrder fails unless rows are strictly increasing in the key order (so the key has no ties).
func checkOrder(t *testing.T, keys []connector.OrderKey, rows [][]column.Value) {
	t.Helper()
	for i := 1; i < len(rows); i++ {
		ks := connector.Keyset{Keys: keys, Values: rows[i-1], Bound: connector.After}
		if c, ok := ks.CompareRow(func(k int) column.Value { return rows[i][k] }); !ok || c <= 0 {
			t.Fatalf("row %d %v is not after row %d %v in the key order", i, rows[i], i-1, rows[i-1])
		}
	}
}
