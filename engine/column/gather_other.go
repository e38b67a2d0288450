//go:build !wasm

package column

// gatherInts is gather for int64 values (see gather_wasm.go for why js/wasm has its own).
func gatherInts(src []int64, idx []int32) ([]int64, bool) { return gather(src, idx) }
