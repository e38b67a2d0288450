package source

import (
	"math/rand"
	"testing"
)

// TestCSVEndMatchesByteScan feeds csvEnd generated CSV (quoted newlines, doubled quotes, CRLF) in pieces of
// random size, as the chunker grows its buffer, and checks each answer against a byte-by-byte scan.
func TestCSVEndMatchesByteScan(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	pieces := []string{"a", ",", "\n", "\r\n", `"`, `""`, "\"x\ny\"", "12", " "}
	for i := 0; i < 2000; i++ {
		var buf []byte
		for range rng.Intn(60) {
			buf = append(buf, pieces[rng.Intn(len(pieces))]...)
		}
		var c csvEnd
		for n := 0; n < len(buf); {
			n = min(len(buf), n+1+rng.Intn(8))
			if got, want := c.end(buf[:n]), byteScanEnd(buf[:n]); got != want {
				t.Fatalf("%q, first %d bytes: end %d, want %d", buf, n, got, want)
			}
		}
	}
}

// byteScanEnd is the last record end of buf by a scan of every byte: a newline outside quotes.
func byteScanEnd(buf []byte) int {
	quoted, last := false, 0
	for i, b := range buf {
		switch {
		case b == '"':
			quoted = !quoted
		case b == '\n' && !quoted:
			last = i + 1
		}
	}
	return last
}
