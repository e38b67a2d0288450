//go:build wasm

package keymap

import "unsafe"

// SameBytes reports whether a and b are equal. Under js/wasm the runtime compares strings a byte at a time
// (internal/bytealg's memeqbody is a byte loop there), which made the full compare of 31- and 58-byte join
// keys a tenth of a join's time; this compares eight bytes per load, the last word overlapping the one before
// it, as wasm loads need no alignment. Elsewhere it is a == b (streq_other.go), which the runtime vectorises.
func SameBytes(a, b string) bool {
	n := len(a)
	if n != len(b) {
		return false
	}
	if n < 8 {
		return a == b
	}
	pa, pb := unsafe.Pointer(unsafe.StringData(a)), unsafe.Pointer(unsafe.StringData(b))
	if pa == pb {
		return true
	}
	for i := 0; i+8 <= n; i += 8 {
		if *(*uint64)(unsafe.Add(pa, i)) != *(*uint64)(unsafe.Add(pb, i)) {
			return false
		}
	}
	return *(*uint64)(unsafe.Add(pa, n-8)) == *(*uint64)(unsafe.Add(pb, n-8))
}
