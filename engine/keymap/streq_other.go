//go:build !wasm

package keymap

// SameBytes reports whether a and b are equal (see streq_wasm.go for why it is a function).
func SameBytes(a, b string) bool { return a == b }
