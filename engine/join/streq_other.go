//go:build !wasm

package join

// sameBytes reports whether a and b are equal (see streq_wasm.go for why it is a function).
func sameBytes(a, b string) bool { return a == b }
