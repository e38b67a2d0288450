package column

import "testing"

// BenchmarkGather gathers 4,096 rows at random from a 1M-row long column, as a hash join gathers a build
// side's column for its output pairs (natively, and under js/wasm through node).
func BenchmarkGather(b *testing.B) {
	v := NewVector(Long, 0)
	for i := range 1 << 20 {
		v.AppendInt(int64(i))
	}
	idx := make([]int32, 4096)
	for i := range idx {
		idx[i] = int32((i * 7919) % (1 << 20))
	}
	for b.Loop() {
		v.Gather(idx)
	}
}
