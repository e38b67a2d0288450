package source

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/keymap"
)

// TestByteScansMatchTheRuntime holds the scan's byte searches to the standard library's on random bytes, each
// drawn from the bytes searched for, their neighbours and their high-bit twins (which a word-at-a-time test
// could confuse with them), zero and 0xFF, at every length up to 40 and every start within a word. Under
// js/wasm (the CI's wasm run) they are the eight-byte versions of bytescan_wasm.go.
func TestByteScansMatchTheRuntime(t *testing.T) {
	alphabet := []byte{'\n', '"', ',', 'a', '\r', 0, 0xFF, 0x80, '\n' | 0x80, '"' | 0x80, ',' | 0x80, ',' + 1, ',' - 1, '"' - 1, '\n' + 1}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20000; trial++ {
		n := rng.IntN(41)
		buf := make([]byte, n+8)
		for i := range buf {
			buf[i] = alphabet[rng.IntN(len(alphabet))]
		}
		off := rng.IntN(8)
		b := buf[off : off+n]
		for _, c := range []byte{'\n', '"', ',', 0, 0xFF} {
			if got, want := indexByte(b, c), bytes.IndexByte(b, c); got != want {
				t.Fatalf("indexByte(%q, %q) = %d, want %d", b, c, got, want)
			}
			if got, want := indexByteString(string(b), c), strings.IndexByte(string(b), c); got != want {
				t.Fatalf("indexByteString(%q, %q) = %d, want %d", b, c, got, want)
			}
			if got, want := countByte(b, c), bytes.Count(b, []byte{c}); got != want {
				t.Fatalf("countByte(%q, %q) = %d, want %d", b, c, got, want)
			}
		}
		other := append([]byte(nil), b...)
		if n > 0 && rng.IntN(2) == 0 {
			other[rng.IntN(n)] ^= 1 << rng.IntN(8)
		}
		if got, want := keymap.SameBytes(string(b), string(other)), bytes.Equal(b, other); got != want {
			t.Fatalf("SameBytes(%q, %q) = %v, want %v", b, other, got, want)
		}
		if n > 0 && keymap.SameBytes(string(b), string(other[:n-1])) {
			t.Fatalf("SameBytes(%q, %q) = true", b, other[:n-1])
		}
		prefix := []string{"kept"}
		keep := rng.IntN(6)
		if n == 0 {
			continue // splitLine is never given no data
		}
		rec, fields, end, ok := splitLine(b, prefix, keep)
		wantEnd := bytes.IndexByte(b, '\n')
		if wantEnd < 0 {
			wantEnd = n
		}
		line := string(bytes.TrimSuffix(b[:wantEnd], []byte("\r")))
		if quoted := strings.IndexByte(line, '"') >= 0; ok == quoted {
			t.Fatalf("splitLine(%q) reported %v, the line holds a quote: %v", b, ok, quoted)
		}
		want, wantFields := prefix, 0
		if ok {
			all := strings.Split(line, ",")
			want, wantFields = append([]string{"kept"}, all[:min(keep, len(all))]...), len(all)
			if end != wantEnd {
				t.Fatalf("splitLine(%q) ends the line at %d, want %d", b, end, wantEnd)
			}
		}
		if strings.Join(rec, "|") != strings.Join(want, "|") || len(rec) != len(want) || fields != wantFields {
			t.Fatalf("splitLine(%q, keep %d) = %q, %d fields; want %q, %d", b, keep, rec, fields, want, wantFields)
		}
	}
}

// TestParseLongMatchesParseInt holds parseLong's one loop to strconv.ParseInt: values, and errors by presence.
func TestParseLongMatchesParseInt(t *testing.T) {
	cases := []string{"", "+", "-", "0", "-0", "+0", "007", "12", "-12", "+12", "1a", "a1", " 1", "1 ", "1_000",
		"999999999999999999", "-999999999999999999", "1000000000000000000", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "-9223372036854775809", "99999999999999999999", "1.5", "1e3",
		"--1", "+-1", "0x10", "١"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := make([]byte, rng.IntN(22))
		for i := range b {
			b[i] = "0123456789+-x"[rng.IntN(13)]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		got, gotErr := parseLong(s)
		want, wantErr := strconv.ParseInt(s, 10, 64)
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("parseLong(%q) = %d, %v; ParseInt gives %d, %v", s, got, gotErr, want, wantErr)
		}
	}
}

// TestShortDigitsIsParseInt checks shortDigits against strconv.ParseInt wherever it reads a value: unsigned,
// one to 18 digits.
func TestShortDigitsIsParseInt(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		b := make([]byte, rng.IntN(21))
		for i := range b {
			b[i] = "0123456789+-/:"[rng.IntN(14)]
		}
		s := string(b)
		x, ok := shortDigits(s)
		want, err := strconv.ParseInt(s, 10, 64)
		unsigned := len(s) > 0 && len(s) <= 18 && strings.Trim(s, "0123456789") == ""
		if ok != unsigned || ok && (err != nil || x != want) {
			t.Fatalf("shortDigits(%q) = %d, %v; ParseInt %d, %v", s, x, ok, want, err)
		}
	}
}
