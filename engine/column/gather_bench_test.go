package column

import "testing"

// BenchmarkGather gathers 4,096 rows of a long column, as a hash join gathers a side's column for its output
// pairs (natively, and under js/wasm through node): at random from a 1M-row column (memory-bound, as a large
// build side is), and in a scattered order from a 4,096-row column (in cache, where the loop's own cost shows).
func BenchmarkGather(b *testing.B) {
	for _, c := range []struct {
		name string
		rows int
	}{{"1M", 1 << 20}, {"cached", 4096}} {
		b.Run(c.name, func(b *testing.B) {
			v := NewVector(Long, 0)
			for i := range c.rows {
				v.AppendInt(int64(i))
			}
			idx := make([]int32, 4096)
			for i := range idx {
				idx[i] = int32((i * 7919) % c.rows)
			}
			for b.Loop() {
				v.Gather(idx)
			}
		})
	}
}
