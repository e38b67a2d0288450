package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/joinlab/joinlab/engine/column"
)

// TestOpenHeldReadsAsTheFile opens the same data as a file and as held bytes, JSON lines and CSV, typed from a
// small sample: the bytes must give the file's table, be typed from the sample as the file is, and widen with
// TypeAll as the file does.
func TestOpenHeldReadsAsTheFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	for _, c := range []struct {
		ext    string
		format Format
		data   string
	}{
		{"jsonl", JSONLines, genJSONL(rng, 3000)},
		{"csv", CSV, genCSV(rng, 3000, true)},
	} {
		file := filepath.Join(t.TempDir(), "T."+c.ext)
		if err := os.WriteFile(file, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		o := Options{ChunkBytes: 4 << 10, SampleBytes: 2 << 10}
		want, err := OpenWith("T", file, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := OpenHeld("T", c.format, held(t, c.data), o)
		if err != nil {
			t.Fatal(err)
		}
		if !got.(Sampled).Sampled() || got.Rows() != want.Rows() {
			t.Errorf("%s: sampled %t, %d rows; the file: %d rows", c.ext, got.(Sampled).Sampled(), got.Rows(), want.Rows())
		}
		for _, s := range []Source{want, got} {
			if err := s.(Sampled).TypeAll(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		ws, wv := rowsOf(t, want)
		gs, gv := rowsOf(t, got)
		sameTable(t, c.ext+" bytes", ws, wv, gs, gv)
	}
}

// TestRenameSharesTyping checks that a renamed source reads the same data under its new name, that its scan's
// errors name the source it was scanned as, and that typing it from every value through one name types every
// name.
func TestRenameSharesTyping(t *testing.T) {
	data := strings.Repeat(`{"a":1,"b":"x"}`+"\n", 2000) + `{"a":1.5,"b":"y"}` + "\n"
	o := Options{ChunkBytes: 1 << 10, SampleBytes: 1 << 10}
	orig, err := OpenHeld("table", JSONLines, held(t, data), o)
	if err != nil {
		t.Fatal(err)
	}
	named, ok := Rename(orig, "Users")
	if !ok || named.Name() != "Users" || orig.Name() != "table" {
		t.Fatalf("Rename: ok %t, names %q and %q", ok, named.Name(), orig.Name())
	}
	// The sample typed a as long; the scan meets 1.5 at line 2001.
	var re *RetypeError
	if err := scanToEnd(t, named); !errors.As(err, &re) || re.Source != "Users" || !strings.HasPrefix(err.Error(), "source Users: line 2001") {
		t.Fatalf("scan error %v: want a RetypeError of source Users at line 2001", err)
	}
	if err := orig.(Sampled).TypeAll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if named.(Sampled).Sampled() || named.Schema(nil)[0].Type != column.Real || named.Rows() != 2001 {
		t.Errorf("after TypeAll through the other name: sampled %t, schema %v, %d rows", named.(Sampled).Sampled(), named.Schema(nil), named.Rows())
	}
	if err := scanToEnd(t, named); err != nil {
		t.Errorf("scan after TypeAll: %v", err)
	}
	// A malformed line past the sample is the scan's error, with the source and the line.
	bad, err := OpenHeld("T", JSONLines, held(t, strings.Repeat(`{"a":1}`+"\n", 500)+`{"a":`+"\n"), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := scanToEnd(t, bad); err == nil || err.Error() != "source T: line 501: malformed JSON" {
		t.Errorf("scan of a malformed line: %v", err)
	}
	if _, ok := Rename(fakeSource{}, "x"); ok {
		t.Error("Rename took a source it cannot share")
	}
}

// scanToEnd reads every column of s to its end, or to its first error.
func scanToEnd(t *testing.T, s Source) error {
	it := s.Scan(t.Context(), s.Schema(nil))
	for {
		b, err := it.Next(t.Context())
		if b == nil || err != nil {
			return err
		}
	}
}

type fakeSource struct{ Source }

func held(t *testing.T, data string) *Held {
	h, err := ReadHeld(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHeldReadAt reads held data of several blocks at every kind of offset and length against the bytes.
func TestHeldReadAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	data := make([]byte, 2*heldBlockBytes+12345)
	for i := range data {
		data[i] = byte(rng.IntN(256))
	}
	h, err := ReadHeld(iotest.OneByteReader(strings.NewReader(string(data[:100]))))
	if err != nil || h.Size() != 100 {
		t.Fatalf("a one-byte reader: %v, %d bytes", err, h.Size())
	}
	if h, err = ReadHeld(strings.NewReader(string(data))); err != nil || h.Size() != int64(len(data)) {
		t.Fatalf("%v, %d bytes", err, h.Size())
	}
	for range 2000 {
		off := rng.Int64N(int64(len(data)) + 10)
		p := make([]byte, rng.IntN(heldBlockBytes+100))
		if rng.IntN(4) == 0 {
			off = max(0, int64(heldBlockBytes*rng.IntN(3))-int64(rng.IntN(3)))
		}
		n, err := h.ReadAt(p, off)
		want := 0
		if off < int64(len(data)) {
			want = copy(make([]byte, len(p)), data[off:])
		}
		if n != want || !bytes.Equal(p[:n], data[off:off+int64(n)]) || (n < len(p)) != (err == io.EOF) {
			t.Fatalf("ReadAt(%d bytes, %d) = %d, %v; want %d bytes", len(p), off, n, err, want)
		}
	}
}

// TestHeldLinesValidatedOnce checks that held JSON lines typed from a sample are validated by the first scan
// that reads them to the end, and not by the scans after it, which still check the values they read; and that
// a scan stopped early or by an error leaves them to be validated. It finds out which scans validate by
// breaking a line's JSON in the held bytes (as nothing outside a test may): a validating scan reports it with
// its line, a scan that skips the validation reads the line's members as usual.
func TestHeldLinesValidatedOnce(t *testing.T) {
	var data strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&data, `{"a":%d,"b":"x"}`+"\n", 1000+i)
	}
	lineAt := func(n int) int64 { // the byte offset of line n, 1-based; every line is 19 bytes
		return int64(n-1) * int64(len(`{"a":1000,"b":"x"}`+"\n"))
	}
	o := Options{ChunkBytes: 1 << 10, SampleBytes: 1 << 10}
	open := func() (*Held, Source) {
		h := held(t, data.String())
		s, err := OpenHeld("T", JSONLines, h, o)
		if err != nil {
			t.Fatal(err)
		}
		if !s.(Sampled).Sampled() {
			t.Fatal("the table is typed from every line; the test needs a sample")
		}
		return h, s
	}
	write := func(h *Held, off int64, b string) {
		copy(h.blocks[off/heldBlockBytes][off%heldBlockBytes:], b)
	}
	// Line 1500 ends with ']' for '}': invalid JSON whose members read as before.
	const broken = 1500
	breakLine := func(h *Held) { write(h, lineAt(broken+1)-2, "]") }
	mendLine := func(h *Held) { write(h, lineAt(broken+1)-2, "}") }
	wantMalformed := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("source T: line %d: malformed JSON", broken)) {
			t.Fatalf("%s: %v, want line %d's malformed JSON", what, err, broken)
		}
	}

	h, s := open()
	it := s.Scan(t.Context(), s.Schema(nil))
	if b, err := it.Next(t.Context()); b == nil || err != nil {
		t.Fatalf("a scan's first batch: %v, %v", b, err)
	}
	breakLine(h)
	wantMalformed("the first whole scan, after a scan stopped early", scanToEnd(t, s))
	wantMalformed("the scan after one that failed", scanToEnd(t, s))
	mendLine(h)
	if err := scanToEnd(t, s); err != nil {
		t.Fatal(err)
	}
	breakLine(h)
	if err := scanToEnd(t, s); err != nil {
		t.Fatalf("a scan after one that validated every line validated them again: %v", err)
	}
	// A value the sample's types cannot hold still stops the scan: a is long, and line 1700 now holds 12.4.
	write(h, lineAt(1700)+int64(len(`{"a":`)), "12.4")
	var re *RetypeError
	if err := scanToEnd(t, s); !errors.As(err, &re) || re.Line != 1700 || re.Column != "a" {
		t.Fatalf("a real in a long column after the lines were validated: %v, want a RetypeError at line 1700", err)
	}

	// Scans at once: one of them validates, and the -race detector sees them share the mark.
	h, s = open()
	errs := make(chan error, 4)
	for range cap(errs) {
		go func() {
			it := s.Scan(t.Context(), s.Schema(nil))
			for {
				b, err := it.Next(t.Context())
				if b == nil || err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	breakLine(h)
	if err := scanToEnd(t, s); err != nil {
		t.Fatalf("after scans at once: %v", err)
	}
}
