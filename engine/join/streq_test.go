package join

import (
	"strings"
	"testing"
)

// TestSameBytesIsEquality compares sameBytes with == on strings of every length to 70 that differ in each
// single byte, in length only, or not at all, including strings that share their memory.
func TestSameBytesIsEquality(t *testing.T) {
	for n := 0; n <= 70; n++ {
		a := strings.Repeat("k", n)
		if !sameBytes(a, strings.Clone(a)) || !sameBytes(a, a) {
			t.Fatalf("length %d: a string differs from its copy", n)
		}
		if sameBytes(a, a+"k") || sameBytes(a+"k", a) {
			t.Fatalf("length %d: strings of two lengths are equal", n)
		}
		for i := 0; i < n; i++ {
			b := []byte(a)
			b[i] = 'j'
			if sameBytes(a, string(b)) != (a == string(b)) {
				t.Fatalf("length %d, byte %d: sameBytes says %v", n, i, !(a == string(b)))
			}
		}
	}
	long := strings.Repeat("x", 64)
	if sameBytes(long[:40], long[1:41]) != (long[:40] == long[1:41]) || sameBytes(long[:39], long[1:41]) {
		t.Fatal("substrings of one string compare wrongly")
	}
}
