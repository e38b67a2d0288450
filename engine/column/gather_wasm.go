//go:build wasm

package column

// gatherInts is gather for int64 values, shaped for js/wasm. The Go compiler's wasm code takes every jump —
// each loop's back-edge, each if whose body is skipped — through a dispatch on a table of the function's
// blocks, so a loop pays a dispatch per row before it does any work. This loop has no branch on the data (a
// negative index reads row 0 and its value is masked to zero) and takes four rows per turn (BenchmarkGather
// measures both). Natively the branch is predicted and the masking only adds work, so there it is gather
// (gather_other.go).
func gatherInts(src []int64, idx []int32) ([]int64, bool) {
	if len(src) == 0 {
		return gather(src, idx) // every index is negative: no row 0 to read
	}
	dst := make([]int64, len(idx))
	var neg int32
	j := 0
	for ; j+4 <= len(idx); j += 4 {
		i0, i1, i2, i3 := idx[j], idx[j+1], idx[j+2], idx[j+3]
		m0, m1, m2, m3 := i0>>31, i1>>31, i2>>31, i3>>31 // all ones for a negative index
		d := dst[j : j+4 : j+4]
		d[0] = src[i0&^m0] &^ int64(m0)
		d[1] = src[i1&^m1] &^ int64(m1)
		d[2] = src[i2&^m2] &^ int64(m2)
		d[3] = src[i3&^m3] &^ int64(m3)
		neg |= i0 | i1 | i2 | i3
	}
	for ; j < len(idx); j++ {
		i := idx[j]
		m := i >> 31
		dst[j] = src[i&^m] &^ int64(m)
		neg |= i
	}
	return dst, neg < 0
}
