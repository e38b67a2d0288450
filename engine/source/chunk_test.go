package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// genJSONL writes rows JSON lines with nested objects, escaped quotes, blank lines and a CRLF now and then.
func genJSONL(rng *rand.Rand, rows int) string {
	var b strings.Builder
	for i := range rows {
		fmt.Fprintf(&b, `{"id":%d,"name":"u\"%d","score":%d.5,"ok":%t,"at":"2024-05-01T12:%02d:00Z","actor":{"id":%d}}`,
			i, rng.IntN(50), rng.IntN(1000), rng.IntN(2) == 0, rng.IntN(60), rng.IntN(9))
		switch rng.IntN(6) {
		case 0:
			b.WriteString("\r\n")
		case 1:
			b.WriteString("\n\n")
		default:
			b.WriteString("\n")
		}
	}
	return b.String()
}

// genCSV writes rows CSV records with quoted fields holding newlines, CRLFs, commas and escaped quotes.
func genCSV(rng *rand.Rand, rows int, crlf bool) string {
	end := "\n"
	if crlf {
		end = "\r\n"
	}
	var b strings.Builder
	b.WriteString("id,note,score,at" + end)
	for i := range rows {
		note := fmt.Sprintf("n%d", rng.IntN(100))
		switch rng.IntN(4) {
		case 0:
			note = fmt.Sprintf("\"line one\nline \"\"two\"\",\r\n%d\"", rng.IntN(100))
		case 1:
			note = "\"a,b\""
		}
		fmt.Fprintf(&b, "%d,%s,%d.25,2024-05-01T12:%02d:00Z%s", i, note, rng.IntN(1000), rng.IntN(60), end)
	}
	return b.String()
}

// rowsOf reads every column of src whole, with the schema.
func rowsOf(t *testing.T, src Source) (column.Schema, []*column.Vector) {
	t.Helper()
	return src.Schema(nil), scanAll(t, src)
}

func sameTable(t *testing.T, what string, wantSchema column.Schema, want []*column.Vector, gotSchema column.Schema, got []*column.Vector) {
	t.Helper()
	if fmt.Sprint(wantSchema) != fmt.Sprint(gotSchema) {
		t.Fatalf("%s: schema %v, want %v", what, gotSchema, wantSchema)
	}
	for c := range want {
		if want[c].Len() != got[c].Len() {
			t.Fatalf("%s: column %s has %d rows, want %d", what, wantSchema[c].Name, got[c].Len(), want[c].Len())
		}
		for r := 0; r < want[c].Len(); r++ {
			a, b := want[c].Value(r), got[c].Value(r)
			if a.Null != b.Null || (!a.Null && !a.Equal(b)) {
				t.Fatalf("%s: column %s row %d = %v, want %v", what, wantSchema[c].Name, r, b, a)
			}
		}
	}
}

// TestChunkSizeDoesNotChangeTheTable reads generated JSON lines and CSV (quoted newlines, CRLF) in chunks from
// one byte up, sequentially and on several workers, and checks each against the one-shot parse.
func TestChunkSizeDoesNotChangeTheTable(t *testing.T) {
	seed := uint64(21)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	inputs := []struct {
		name   string
		format Format
		data   string
	}{
		{"jsonl", JSONLines, genJSONL(rng, 300)},
		{"csv", CSV, genCSV(rng, 300, false)},
		{"csv-crlf", CSV, genCSV(rng, 300, true)},
		{"csv-bom-no-final-newline", CSV, utf8BOM + strings.TrimSuffix(genCSV(rng, 40, true), "\r\n")},
	}
	for _, in := range inputs {
		var oneShot Source
		var err error
		if in.format == CSV {
			oneShot, err = FromCSV("T", []byte(in.data))
		} else {
			oneShot, err = FromJSONL("T", []byte(in.data))
		}
		if err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
		wantSchema, want := rowsOf(t, oneShot)
		if len(want) == 0 || want[0].Len() < 40 {
			t.Fatalf("%s: the one-shot parse read too little: %v", in.name, wantSchema)
		}
		for _, size := range []int{1, 2, 3, 7, 64, 1000, 1 << 20} {
			for _, workers := range []int{1, 4} {
				// iotest-style reads of at most size bytes make the reader see every split too.
				r := &smallReads{r: strings.NewReader(in.data), n: size}
				src, err := Read("T", in.format, r, Options{ChunkBytes: size, Workers: workers})
				if err != nil {
					t.Fatalf("%s, chunk %d, %d workers: %v", in.name, size, workers, err)
				}
				gotSchema, got := rowsOf(t, src)
				sameTable(t, fmt.Sprintf("%s, chunk %d, %d workers", in.name, size, workers), wantSchema, want, gotSchema, got)
			}
		}
	}
}

// smallReads returns at most n bytes per Read.
type smallReads struct {
	r io.Reader
	n int
}

func (s *smallReads) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), s.n)]) }

// TestErrorLinesInLateChunks puts a bad record far into a file read in small chunks: the line is the file's.
func TestErrorLinesInLateChunks(t *testing.T) {
	var j, c strings.Builder
	c.WriteString("a,b\n")
	for i := range 500 {
		fmt.Fprintf(&j, "{\"a\":%d}\n", i)
		fmt.Fprintf(&c, "%d,\"x\ny\"\n", i) // two lines per record
	}
	cases := []struct {
		name   string
		format Format
		data   string
		want   string
	}{
		{"jsonl malformed", JSONLines, j.String() + "{nope\n" + j.String(), "line 501: malformed JSON"},
		{"jsonl range", JSONLines, j.String() + "\n{\"a\":1e400}\n", "line 502: number 1e400 is out of range"},
		{"csv fields", CSV, c.String() + "1\n", "line 1002: wrong number of fields"},
		{"csv range", CSV, c.String() + "1,\"q\n1\"\n2,1e999\n", "line 1004: number 1e999 is out of range"},
	}
	for _, cs := range cases {
		for _, workers := range []int{1, 3} {
			_, err := Read("T", cs.format, strings.NewReader(cs.data), Options{ChunkBytes: 100, Workers: workers})
			if err == nil || err.Error() != cs.want {
				t.Errorf("%s, %d workers: error %v, want %s", cs.name, workers, err, cs.want)
			}
		}
	}
}

// endless is a source with no end: the byte b forever, as a link to /dev/zero reads.
type endless struct{ b byte }

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.b
	}
	return len(p), nil
}

// TestEndlessSourceStopsAtTheBudget reads a stream with no line end under a small budget: it fails with the
// position of the record that never ends and the budget's error, having held no more than the budget.
func TestEndlessSourceStopsAtTheBudget(t *testing.T) {
	const limit = 1 << 20
	for _, format := range []Format{JSONLines, CSV} {
		budget := memory.NewBudget(limit)
		_, err := Read("T", format, endless{0}, Options{Budget: budget, ChunkBytes: 64 << 10})
		var exceeded *memory.ExceededError
		if !errors.As(err, &exceeded) {
			t.Fatalf("format %d: error %v, want the budget exceeded", format, err)
		}
		if !strings.HasPrefix(err.Error(), "line 1 (byte 0): the record is longer than the ") {
			t.Errorf("format %d: error %q does not give the record's position", format, err)
		}
		if budget.Peak() > limit {
			t.Errorf("format %d: peak %d over the budget %d", format, budget.Peak(), limit)
		}
		if budget.Available() != limit {
			t.Errorf("format %d: %d bytes still held after the failure", format, limit-budget.Available())
		}
	}
	// After whole records, the position is the unended record's: line 3, byte 16.
	r := io.MultiReader(strings.NewReader("{\"a\":1}\n{\"a\":2}\n"), endless{' '})
	_, err := Read("T", JSONLines, r, Options{Budget: memory.NewBudget(limit), ChunkBytes: 4 << 10})
	if err == nil || !strings.HasPrefix(err.Error(), "line 3 (byte 16): the record is longer than the ") {
		t.Errorf("error %v, want it at line 3, byte 16", err)
	}
}

// TestRecordLongerThanTheLimit reads a stream with no line end and no budget: MaxRecordBytes stops it.
func TestRecordLongerThanTheLimit(t *testing.T) {
	r := io.MultiReader(strings.NewReader("{\"a\":1}\n"), endless{'x'})
	_, err := Read("T", JSONLines, r, Options{})
	want := fmt.Sprintf("line 2 (byte 8): record longer than %s", memory.Bytes(MaxRecordBytes))
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// TestChunksInFlightCounted reads a file in chunks under a budget: the budget saw the chunks, and every byte
// is given back once the file is parsed.
func TestChunksInFlightCounted(t *testing.T) {
	data := genJSONL(rand.New(rand.NewPCG(1, 2)), 2000)
	budget := memory.NewBudget(1 << 20)
	if _, err := Read("T", JSONLines, bytes.NewReader([]byte(data)), Options{Budget: budget, ChunkBytes: 8 << 10, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	if budget.Peak() < 8<<10 {
		t.Errorf("peak %d: the chunks were not counted", budget.Peak())
	}
	if budget.Available() != budget.Limit() {
		t.Errorf("%d bytes still held", budget.Limit()-budget.Available())
	}
}

// TestChunksFillBeforeCutting reads through a reader that gives 100 bytes at a time, as a pipe does: every
// chunk but the last is still nearly ChunkBytes long (short by less than a line), not one read's worth.
func TestChunksFillBeforeCutting(t *testing.T) {
	const size, line = 8 << 10, `{"a":12345}` + "\n"
	data := strings.Repeat(line, 10_000)
	c := newChunker(&smallReads{r: strings.NewReader(data), n: 100}, lineEnd{}, size, nil)
	total, chunks := 0, 0
	for {
		ch, err := c.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		total += len(ch.data)
		chunks++
		if total < len(data) && len(ch.data) <= size-len(line) {
			t.Errorf("chunk %d is %d bytes, want more than %d", chunks, len(ch.data), size-len(line))
		}
	}
	if total != len(data) {
		t.Errorf("chunks hold %d bytes, want %d", total, len(data))
	}
}

// TestReadUnderATinyBudget: a file reads under a budget far smaller than ChunkBytes, its chunks cut to the
// budget, with the same table as without one, and everything released at the end.
func TestReadUnderATinyBudget(t *testing.T) {
	var text strings.Builder
	text.WriteString("a,b\n")
	for i := range 2000 {
		fmt.Fprintf(&text, "%d,\"row %d\"\n", i, i)
	}
	want, err := Read("T", CSV, strings.NewReader(text.String()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{8 << 10, 64 << 10} {
		budget := memory.NewBudget(limit)
		got, err := Read("T", CSV, strings.NewReader(text.String()), Options{Budget: budget})
		if err != nil {
			t.Fatalf("budget %s: %v", memory.Bytes(limit), err)
		}
		ws, wc := rowsOf(t, want)
		gs, gc := rowsOf(t, got)
		sameTable(t, "budget "+memory.Bytes(limit), ws, wc, gs, gc)
		if budget.Peak() > limit || budget.Available() != limit {
			t.Errorf("budget %s: peak %d, %d still held", memory.Bytes(limit), budget.Peak(), limit-budget.Available())
		}
	}
}
