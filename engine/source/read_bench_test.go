package source

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchRows is the size of the generated files the read benchmarks open: the users file of issue 21.
const benchRows = 1_000_000

// writeBenchFile writes benchRows users, each with a nested object, as JSON lines or CSV (the nested object
// flattened), from integer hashes so every run reads the same bytes.
func writeBenchFile(b *testing.B, format Format) string {
	b.Helper()
	name := "users.jsonl"
	if format == CSV {
		name = "users.csv"
	}
	path := filepath.Join(b.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if format == CSV {
		fmt.Fprintln(w, "user_id,name,age,score,active,signup,country,city")
	}
	for i := range benchRows {
		h := uint64(i) * 0x9e3779b97f4a7c15
		if format == CSV {
			fmt.Fprintf(w, "%d,user%d,%d,%d.%02d,%t,2024-%02d-%02dT10:00:00Z,C%d,\"City %d, %d\"\n",
				i, h%100000, 18+h%60, h%1000, h%100, h%3 == 0, 1+h%12, 1+h%28, h%50, h%997, h%10)
			continue
		}
		fmt.Fprintf(w, `{"user_id":%d,"name":"user%d","age":%d,"score":%d.%02d,"active":%t,"signup":"2024-%02d-%02dT10:00:00Z","profile":{"country":"C%d","city":"City %d"}}`+"\n",
			i, h%100000, 18+h%60, h%1000, h%100, h%3 == 0, 1+h%12, 1+h%28, h%50, h%997)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkOpenFile opens a generated 1M-row file the way the command line does and scans every top-level
// column once: "whole" is the reading before chunks (os.ReadFile, one sequential parse, the table held),
// "chunked" reads ChunkBytes at a time on one worker, and "parallel" on every core. JSON lines from a file are
// scanned where they lie (jsonlFile), so "chunked" and "parallel" read that file twice.
func BenchmarkOpenFile(b *testing.B) {
	for _, format := range []Format{JSONLines, CSV} {
		path := writeBenchFile(b, format)
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		label := map[Format]string{JSONLines: "jsonl", CSV: "csv"}[format]
		b.Run(label+"/whole", func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				data, err := os.ReadFile(path)
				if err != nil {
					b.Fatal(err)
				}
				var src Source
				if format == CSV {
					src, err = FromCSV("T", data)
				} else {
					src, err = FromJSONL("T", data)
				}
				if err != nil {
					b.Fatal(err)
				}
				scanRows(b, src)
			}
		})
		for _, run := range []struct {
			name    string
			workers int
		}{{"chunked", 1}, {"parallel", 0}} {
			b.Run(label+"/"+run.name, func(b *testing.B) {
				b.SetBytes(st.Size())
				b.ReportAllocs()
				for b.Loop() {
					src, err := OpenWith("T", path, Options{Workers: run.workers})
					if err != nil {
						b.Fatal(err)
					}
					scanRows(b, src)
				}
			})
		}
	}
}

// scanRows scans every top-level column of src and checks that it has benchRows rows.
func scanRows(b *testing.B, src Source) {
	b.Helper()
	schema := src.Schema(nil)
	it := src.Scan(context.Background(), schema)
	n := 0
	for {
		batch, err := it.Next(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if batch == nil {
			break
		}
		n += batch.N
	}
	if n != benchRows {
		b.Fatalf("%d rows, want %d", n, benchRows)
	}
}
