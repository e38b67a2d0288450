package main

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

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
			if json := q.JSONTablesSQL; (q.Format == "jsonl") != (json != "") ||
				strings.Contains(json, "read_") || (json != "" && !strings.Contains(json, "jl_events")) {
				t.Errorf("the JSON reader's join %q does not match the query %q", json, q.SQL)
			}
			if _, err := findFileQuery(fileQueryKey(q)); err != nil {
				t.Error(err)
			}
		})
	}
}

// BenchmarkOwnData is the browser's own-data benchmark natively: each file query's two files loaded from bytes
// as the page loads them (LoadFile) and joined twice, load, join and the second join (again: the page's next
// query over the same tables) reported apart in ms per run. With -cpu 1 it
// stands for the page's one wasm thread: go test -run '^$' -bench BenchmarkOwnData -cpu 1 ./wasm/bench
// (OWNDATA_USERS sets the users, 50,000 by default, five events each). The CPU time of the whole process
// (the collector's included) is reported beside the wall time, for paired figures on a busy machine.
func BenchmarkOwnData(b *testing.B) {
	users := 50_000
	if s := os.Getenv("OWNDATA_USERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("OWNDATA_USERS=%q: %v", s, err)
		}
		users = n
	}
	files, err := filebench.Write(b.TempDir(), users, 1)
	if err != nil {
		b.Fatal(err)
	}
	data := map[string][2][]byte{}
	for format, p := range map[string][2]string{"jsonl": {files.UsersJSONL, files.EventsJSONL}, "csv": {files.UsersCSV, files.EventsCSV}} {
		var d [2][]byte
		for i := range p {
			if d[i], err = os.ReadFile(p[i]); err != nil {
				b.Fatal(err)
			}
		}
		data[format] = d
	}
	for _, q := range FileQueries() {
		b.Run(fileQueryKey(q), func(b *testing.B) {
			var load, join, again, loadCPU, joinCPU, againCPU time.Duration
			for b.Loop() {
				loaded := map[string]source.Source{}
				cpu := processCPU()
				for i, name := range []string{"Users", "Events"} {
					s, took, err := LoadFile(name, q.Format, bytes.NewReader(data[q.Format][i]))
					if err != nil {
						b.Fatal(err)
					}
					loaded[name], load = s, load+took
				}
				read := processCPU()
				loadCPU += read - cpu
				_, took, err := RunFileQuery(context.Background(), q, loaded)
				if err != nil {
					b.Fatal(err)
				}
				ran := processCPU()
				join, joinCPU = join+took, joinCPU+ran-read
				if _, took, err = RunFileQuery(context.Background(), q, loaded); err != nil {
					b.Fatal(err)
				}
				again, againCPU = again+took, againCPU+processCPU()-ran
			}
			n := float64(b.N)
			b.ReportMetric(float64(load.Milliseconds())/n, "load-ms/op")
			b.ReportMetric(float64(join.Milliseconds())/n, "join-ms/op")
			b.ReportMetric(float64(again.Milliseconds())/n, "again-ms/op")
			b.ReportMetric(float64(loadCPU.Milliseconds())/n, "load-cpu-ms/op")
			b.ReportMetric(float64(joinCPU.Milliseconds())/n, "join-cpu-ms/op")
			b.ReportMetric(float64(againCPU.Milliseconds())/n, "again-cpu-ms/op")
		})
	}
}
