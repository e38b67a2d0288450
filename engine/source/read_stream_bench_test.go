package source

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/joinlab/joinlab/internal/filebench"
)

// readBenchUsers is the users of the files BenchmarkReadStream reads (and five times as many events): the
// shapes of `go run mage.go benchfiles`, smaller, so that a run takes seconds.
const readBenchUsers = 50_000

// BenchmarkReadStream reads the benchfiles files the way the browser loads a table (source.Read from bytes
// held in memory, one worker, as under js/wasm), then scans every top-level column once, as the join reads
// them: `go test -run '^$' -bench BenchmarkReadStream -cpu 1 ./engine/source/`.
func BenchmarkReadStream(b *testing.B) {
	files, err := filebench.Write(b.TempDir(), readBenchUsers, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range []struct {
		name   string
		path   string
		format Format
		rows   int
	}{
		{"jsonl/users", files.UsersJSONL, JSONLines, readBenchUsers},
		{"jsonl/events", files.EventsJSONL, JSONLines, readBenchUsers * filebench.EventsPerUser},
		{"csv/users", files.UsersCSV, CSV, readBenchUsers},
		{"csv/events", files.EventsCSV, CSV, readBenchUsers * filebench.EventsPerUser},
	} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			b.Fatal(err)
		}
		for _, step := range []string{"read", "read+scan"} {
			b.Run(f.name+"/"+step, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					src, err := Read("T", f.format, bytes.NewReader(data), Options{Workers: 1})
					if err != nil {
						b.Fatal(err)
					}
					if src.Rows() != f.rows {
						b.Fatalf("%d rows, want %d", src.Rows(), f.rows)
					}
					if step == "read+scan" {
						scanCount(b, src, f.rows)
					}
				}
			})
		}
	}
}

// scanCount scans every top-level column of src and checks that it has rows rows.
func scanCount(b *testing.B, src Source, rows int) {
	b.Helper()
	it := src.Scan(context.Background(), src.Schema(nil))
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
	if n != rows {
		b.Fatalf("%d rows, want %d", n, rows)
	}
}
