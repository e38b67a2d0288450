package spill

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
)

func sample() *column.Batch {
	schema := column.Schema{{Name: "k", Type: column.Long}, {Name: "s", Type: column.String},
		{Name: "r", Type: column.Real}, {Name: "b", Type: column.Bool}, {Name: "dead", Type: column.Long}}
	t := column.NewTable(schema)
	for i := 0; i < 100; i++ {
		t.Cols[0].AppendInt(int64(i))
		if i%7 == 0 {
			t.Cols[1].AppendNull()
		} else {
			t.Cols[1].AppendString(strings.Repeat("x", i%13))
		}
		t.Cols[2].AppendReal(float64(i) / 3)
		t.Cols[3].AppendBool(i%2 == 0)
		t.Cols[4].AppendInt(0)
	}
	t.N = 100
	b := t.Batch()
	b.Cols[4] = nil
	return b
}

// roundTrip writes every row of b into pages of pageBytes and reads them back, checking rows, counts and the
// memory bound, on both stores.
func roundTrip(t *testing.T, st Store, b *column.Batch, pageBytes int) {
	t.Helper()
	f, err := st.Create()
	if err != nil {
		t.Fatal(err)
	}
	codec := NewCodec(column.Schema{{Name: "k", Type: column.Long}, {Name: "s", Type: column.String},
		{Name: "r", Type: column.Real}, {Name: "b", Type: column.Bool}, {Name: "dead", Type: column.Long}}, LiveOf(b))
	w := NewWriter(f, codec, pageBytes)
	for i := 0; i < b.N; i++ {
		if err := w.Append(b, i); err != nil {
			t.Fatal(err)
		}
	}
	run, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if io := st.IO(); io.PagesWritten != run.Pages || io.BytesWritten != run.Bytes {
		t.Fatalf("store counted %+v, run says %d pages %d bytes", io, run.Pages, run.Bytes)
	}
	r := NewReader(run, codec)
	var got []string
	var mem int64
	for {
		x, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if x == nil {
			break
		}
		if x.Cols[4] != nil {
			t.Fatal("a dead column came back alive")
		}
		if x.Bytes() > run.MaxPageMem {
			t.Fatalf("a page decoded to %d bytes, over the bound %d", x.Bytes(), run.MaxPageMem)
		}
		mem += x.Bytes()
		for i := 0; i < x.N; i++ {
			got = append(got, fmt.Sprint(x.Cols[0].Value(i), x.Cols[1].Value(i), x.Cols[2].Value(i), x.Cols[3].Value(i)))
		}
	}
	if mem > run.MemBytes {
		t.Fatalf("decoded %d bytes, over the bound %d", mem, run.MemBytes)
	}
	if len(got) != b.N || st.IO().PagesRead != run.Pages {
		t.Fatalf("read %d rows in %d pages, wrote %d rows in %d", len(got), st.IO().PagesRead, b.N, run.Pages)
	}
	for i := 0; i < b.N; i++ {
		if want := fmt.Sprint(b.Cols[0].Value(i), b.Cols[1].Value(i), b.Cols[2].Value(i), b.Cols[3].Value(i)); got[i] != want {
			t.Fatalf("row %d: %s, want %s", i, got[i], want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, page := range []int{MinPageBytes, 40, 300, 64 << 10} { // 16 and 40 bytes cut rows into pieces
		t.Run(fmt.Sprint("mem/", page), func(t *testing.T) { roundTrip(t, NewMemStore(), sample(), page) })
		t.Run(fmt.Sprint("file/", page), func(t *testing.T) {
			st, err := NewFileStore(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			roundTrip(t, st, sample(), page)
		})
	}
}

func TestFileStoreCloseRemovesFolder(t *testing.T) {
	st, err := NewFileStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f, _ := st.Create()
	if err := f.WritePage([]byte{0, 1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.Dir()); !os.IsNotExist(err) {
		t.Fatalf("folder %s still there after Close: %v", st.Dir(), err)
	}
	if err := f.WritePage([]byte{0}); err == nil {
		t.Fatal("writing after Close should fail")
	}
	if err := st.Close(); err != nil {
		t.Fatal("a second Close should be harmless:", err)
	}
}
