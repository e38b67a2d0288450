package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/internal/filebench"
)

// TestFileQueriesAsThePageRunsThem loads small generated files through LoadFile, as the page does with the
// bytes it fetched, and checks each query's digest against the same KQL over the files opened from disk (the
// command's path), so the page's reader and query wiring answer what the native file benchmark answers.
func TestFileQueriesAsThePageRunsThem(t *testing.T) {
	files, err := filebench.Write(t.TempDir(), 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string][2]string{
		"jsonl": {files.UsersJSONL, files.EventsJSONL},
		"csv":   {files.UsersCSV, files.EventsCSV},
	}
	qs := FileQueries()
	if len(qs) != len(filebench.Queries) {
		t.Fatalf("%d file queries, want %d", len(qs), len(filebench.Queries))
	}
	for _, q := range qs {
		t.Run(fileQueryKey(q), func(t *testing.T) {
			p := paths[q.Format]
			loaded := map[string]source.Source{}
			for i, name := range []string{"Users", "Events"} {
				b, err := os.ReadFile(p[i])
				if err != nil {
					t.Fatal(err)
				}
				s, _, err := LoadFile(name, q.Format, bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				loaded[name] = s
			}
			got, _, err := RunFileQuery(context.Background(), q, loaded)
			if err != nil {
				t.Fatal(err)
			}
			opened := map[string]source.Source{}
			for i, name := range []string{"Users", "Events"} {
				if opened[name], err = source.Open(name, p[i]); err != nil {
					t.Fatal(err)
				}
			}
			want, _, err := runKQL(context.Background(), "opened", q.KQL, opened)
			if err != nil {
				t.Fatal(err)
			}
			if got != want || got.Count == "0" {
				t.Errorf("digest %+v, want %+v (and a non-empty join)", got, want)
			}
			if len(q.LoadSQL) != 2 || strings.Contains(q.TablesSQL, "read_") || !strings.Contains(q.TablesSQL, "jl_users") {
				t.Errorf("DuckDB's load %q and join %q do not split the query %q", q.LoadSQL, q.TablesSQL, q.SQL)
			}
			if _, err := findFileQuery(fileQueryKey(q)); err != nil {
				t.Error(err)
			}
		})
	}
}
