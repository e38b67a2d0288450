package source

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
)

// TestCSVFileScansAsHeld opens generated CSV (quoted newlines, CRLF, a BOM) as a file, scanned where it lies,
// in chunks from one byte up, and checks every column, and a projection of two in another order, against the
// one-shot parse.
func TestCSVFileScansAsHeld(t *testing.T) {
	seed := uint64(11)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	for _, data := range []string{genCSV(rng, 2*BatchRows+3, false), utf8BOM + genCSV(rng, 300, true)} {
		path := filepath.Join(t.TempDir(), "u.csv")
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		held, err := FromCSV("T", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		wantSchema := held.Schema(nil)
		want := scanColumns(t, held, wantSchema)
		picked := column.Schema{wantSchema[2], wantSchema[1]}
		for _, size := range []int{1, 5, 4096, 0} {
			for _, workers := range []int{1, 3} {
				what := fmt.Sprintf("chunk %d, %d workers", size, workers)
				src, err := OpenWith("T", path, Options{ChunkBytes: size, Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := src.(*csvFile); !ok {
					t.Fatalf("a regular .csv file opened as %T, want a file scanned in place", src)
				}
				schema := src.Schema(nil)
				sameTable(t, what, wantSchema, want, schema, scanColumns(t, src, schema))
				sameTable(t, what+", projected", picked, []*column.Vector{want[2], want[1]}, picked, scanColumns(t, src, picked))
			}
		}
	}
}

// TestCSVFileChangedFailsTheScan rewrites a value after opening: a long column that now holds a word fails the
// scan with its line, rather than reading a wrong number.
func TestCSVFileChangedFailsTheScan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.csv")
	if err := os.WriteFile(path, []byte("a,b\n1,x\n2,y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src, err := Open("T", path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("a,b\n1,x\nzz,y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = src.Scan(context.Background(), src.Schema(nil)).Next(context.Background())
	if err == nil || !strings.Contains(err.Error(), "column 1 holds a value that is not long: the file changed since it was opened") {
		t.Errorf("error %v, want the change named", err)
	}
}
