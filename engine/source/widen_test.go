package source

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
)

// widenRows is how many records come before the value that changes a column's type: with widenChunk, they
// fill several chunks, so the earlier chunks were typed narrower from their own values.
const (
	widenRows  = 200
	widenChunk = 256
)

// TestCSVColumnsWiden puts, after widenRows records, a value that widens each column: a long that turns real
// (with -0 and an integer past 2^53 before it), a long that turns string ("007" before it), a bool that turns
// string ("TRUE"), a datetime that turns string, a column empty until then that turns long. Read in small
// chunks, from a file (re-read where a column widens) and from a stream (chunks kept), every value must be
// the one-shot parse's, and a few are checked exactly.
func TestCSVColumnsWiden(t *testing.T) {
	var b strings.Builder
	b.WriteString("toreal,tostring,bool,when,empty\n")
	for i := range widenRows {
		r := fmt.Sprint(i)
		switch i {
		case 1:
			r = "-0"
		case 2:
			r = "9007199254740993" // 2^53+1: a long exactly, a real only to the nearest, 2^53
		}
		s := fmt.Sprint(i)
		if i == 3 {
			s = "007"
		}
		bl := "true"
		if i == 4 {
			bl = "TRUE"
		}
		fmt.Fprintf(&b, "%s,%s,%s,2024-05-01T12:00:%02dZ,\n", r, s, bl, i%60)
	}
	b.WriteString("1.5,x,maybe,soon,5\n")
	data := b.String()

	oneShot, err := FromCSV("T", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	wantSchema, want := rowsOf(t, oneShot)
	wantTypes := []column.Type{column.Real, column.String, column.String, column.String, column.Long}
	for c, w := range wantTypes {
		if wantSchema[c].Type != w {
			t.Fatalf("one-shot column %s is %v, want %v", wantSchema[c].Name, wantSchema[c].Type, w)
		}
	}

	path := filepath.Join(t.TempDir(), "w.csv")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile, err := OpenWith("T", path, Options{ChunkBytes: widenChunk, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	fromStream, err := Read("T", CSV, &smallReads{r: strings.NewReader(data), n: 7}, Options{ChunkBytes: widenChunk, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		name string
		src  Source
	}{{"file", fromFile}, {"stream", fromStream}} {
		schema, got := rowsOf(t, run.src)
		sameTable(t, run.name, wantSchema, want, schema, got)
		if r := got[0].Reals[1]; r != 0 || !math.Signbit(r) {
			t.Errorf("%s: -0 read as %v, want negative zero", run.name, r)
		}
		if r := got[0].Reals[2]; r != 1<<53 {
			t.Errorf("%s: 2^53+1 read as %v, want the nearest real, 2^53", run.name, r)
		}
		if s := got[1].Strs[3]; s != "007" {
			t.Errorf("%s: 007 read as %q, want it as written", run.name, s)
		}
		if s := got[2].Strs[4]; s != "TRUE" {
			t.Errorf("%s: TRUE read as %q, want it as written", run.name, s)
		}
		if s := got[3].Strs[0]; s != "2024-05-01T12:00:00Z" {
			t.Errorf("%s: datetime read as %q, want it as written", run.name, s)
		}
		if !got[4].IsNull(0) || got[4].Ints[widenRows] != 5 {
			t.Errorf("%s: empty column = %v then %v, want null then 5", run.name, got[4].Value(0), got[4].Value(widenRows))
		}
	}
}

// TestEmptyValuesWidenToEmptyStrings reads a column empty in its first chunks and text in a later one: the
// empty values are empty strings, as the one-shot parse reads them, not nulls.
func TestEmptyValuesWidenToEmptyStrings(t *testing.T) {
	data := "a,b\n" + strings.Repeat("1,\n", widenRows) + "2,x\n"
	src, err := Read("T", CSV, strings.NewReader(data), Options{ChunkBytes: 16, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	v := scanAll(t, src)[1]
	if v.Type != column.String || v.IsNull(0) || v.Strs[0] != "" || v.Strs[widenRows] != "x" {
		t.Errorf("b: %v %v ... %v, want string \"\" ... \"x\"", v.Type, v.Value(0), v.Value(widenRows))
	}
}
