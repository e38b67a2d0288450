package keymap

import (
	"strings"
	"testing"
)

// TestSameBytesIsEquality compares SameBytes with == on strings of every length to 70 that differ in each
// single byte, in length only, or not at all, including strings that share their memory.
func TestSameBytesIsEquality(t *testing.T) {
	for n := 0; n <= 70; n++ {
		a := strings.Repeat("k", n)
		if !SameBytes(a, strings.Clone(a)) || !SameBytes(a, a) {
			t.Fatalf("length %d: a string differs from its copy", n)
		}
		if SameBytes(a, a+"k") || SameBytes(a+"k", a) {
			t.Fatalf("length %d: strings of two lengths are equal", n)
		}
		for i := 0; i < n; i++ {
			b := []byte(a)
			b[i] = 'j'
			if SameBytes(a, string(b)) != (a == string(b)) {
				t.Fatalf("length %d, byte %d: SameBytes says %v", n, i, !(a == string(b)))
			}
		}
	}
	long := strings.Repeat("x", 64)
	if SameBytes(long[:40], long[1:41]) != (long[:40] == long[1:41]) || SameBytes(long[:39], long[1:41]) {
		t.Fatal("substrings of one string compare wrongly")
	}
}
