package source

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
)

// TestJSONLFileScansAsHeld opens generated JSON lines as a file (read again at each scan, never held) in chunks
// from one byte up, sequentially and in parallel, and checks the schema, a nested path's type and every value
// against the one-shot in-memory parse.
func TestJSONLFileScansAsHeld(t *testing.T) {
	seed := uint64(7)
	t.Logf("seed %d", seed)
	data := genJSONL(rand.New(rand.NewPCG(seed, seed)), 3*BatchRows+5) // several batches, a short last one
	path := filepath.Join(t.TempDir(), "u.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	held, err := FromJSONL("T", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	nested := []string{"actor.id"}
	wantSchema := held.Schema(nested)
	want := scanColumns(t, held, wantSchema)
	if wantSchema[len(wantSchema)-1].Type != column.Long {
		t.Fatalf("actor.id typed %v in memory, want long", wantSchema[len(wantSchema)-1].Type)
	}
	for _, size := range []int{1, 13, 4096, 0} {
		for _, workers := range []int{1, 3} {
			src, err := OpenWith("T", path, Options{ChunkBytes: size, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := src.(*jsonlFile); !ok {
				t.Fatalf("a regular .jsonl file opened as %T, want a file scanned in place", src)
			}
			if src.Rows() != held.Rows() {
				t.Fatalf("rows %d, want %d", src.Rows(), held.Rows())
			}
			schema := src.Schema(nested)
			sameTable(t, fmt.Sprintf("chunk %d, %d workers", size, workers), wantSchema, want, schema, scanColumns(t, src, schema))
		}
	}
}

// scanColumns reads the given columns of src whole.
func scanColumns(t *testing.T, src Source, cols column.Schema) []*column.Vector {
	t.Helper()
	out := make([]*column.Vector, len(cols))
	for i, f := range cols {
		out[i] = column.NewVector(f.Type, 0)
	}
	it := src.Scan(context.Background(), cols)
	for {
		b, err := it.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return out
		}
		if b.N == 0 || b.N > BatchRows {
			t.Fatalf("batch of %d rows", b.N)
		}
		for i := range cols {
			out[i].AppendVector(b.Cols[i])
		}
	}
}

// TestJSONLFileChangedFailsTheScan rewrites a file after opening it: the scan fails instead of returning rows
// the schema was not made from.
func TestJSONLFileChangedFailsTheScan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat("{\"a\":1}\n", 10)), 0o600); err != nil {
		t.Fatal(err)
	}
	src, err := Open("T", path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("{\"a\":1}\n", 11)), 0o600); err != nil {
		t.Fatal(err)
	}
	it := src.Scan(context.Background(), src.Schema(nil))
	for {
		b, err := it.Next(context.Background())
		if err != nil {
			if !strings.Contains(err.Error(), "10 rows when opened, 11 now: the file changed") {
				t.Errorf("error %v, want the change named", err)
			}
			return
		}
		if b == nil {
			t.Fatal("the scan of a changed file ended without an error")
		}
	}
}

// TestCancelledFileScanClosesItsFile: a scan stopped by its context gives ctx's error and holds no descriptor.
func TestCancelledFileScanClosesItsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat(`{"a":1}`+"\n", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	src, err := OpenWith("T", path, Options{ChunkBytes: 64, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	it := src.Scan(context.Background(), src.Schema(nil))
	if b, err := it.Next(context.Background()); err != nil || b == nil {
		t.Fatalf("first batch: %v, %v", b, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := it.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after the cancel: %v; want context.Canceled", err)
	}
	fs, ok := it.(*fileScan)
	if !ok {
		t.Fatalf("the scan is a %T, not a file scan", it)
	}
	if fs.f != nil {
		t.Error("the cancelled scan still holds its file open")
	}
}
