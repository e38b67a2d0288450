package keymap

import (
	"encoding/binary"
	"strings"
	"testing"
)

// TestKeyWords checks KeyWords and StrHash against their definitions byte by byte: the words are the first 16
// bytes little-endian and zero-padded, and keys that differ anywhere hash apart, for every length to 40.
func TestKeyWords(t *testing.T) {
	seen := map[uint64]string{}
	for n := 0; n <= 40; n++ {
		for _, fill := range []byte{0, 'k', 0xff} {
			k := strings.Repeat(string(fill), n)
			if n > 0 {
				k = k[:n-1] + "\x01"
			}
			var b [16]byte
			copy(b[:], k)
			w0, w1 := KeyWords(k)
			if w0 != binary.LittleEndian.Uint64(b[:8]) || w1 != binary.LittleEndian.Uint64(b[8:]) {
				t.Fatalf("KeyWords(%q) = %#x, %#x, want the zero-padded little-endian words of %q", k, w0, w1, b)
			}
			h, hw0, hw1 := StrHash(k)
			if hw0 != w0 || hw1 != w1 {
				t.Fatalf("StrHash(%q) words %#x, %#x, KeyWords gives %#x, %#x", k, hw0, hw1, w0, w1)
			}
			if other, ok := seen[h]; ok && other != k {
				t.Fatalf("StrHash(%q) = StrHash(%q)", k, other)
			}
			seen[h] = k
		}
	}
}
