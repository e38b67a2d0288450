package keymap

import (
	"math/rand/v2"
	"testing"
)

// freshBallast is live data the size of the wide suite's tables (320 MB), kept while BenchmarkFreshMemory
// runs, so that the collector's goal sits far above what a run allocates, as it does in the bench page.
var freshBallast [][]int64

// BenchmarkFreshMemory builds a map of 1M keys (32 MB of slots, plus 4 MB of previous values) with 320 MB
// live beside it: in memory allocated for each run, which grows the heap into pages never touched before
// until the collector's goal is reached, and in one map cleared and reused. Under js/wasm, where a memory
// never shrinks and a fresh page costs a fault on first touch, the gap is why the benchmarks collect before
// each timed run (wasm/bench's Settle):
//
//	GOOS=js GOARCH=wasm go test -c -o km.wasm ./engine/keymap
//	node --stack-size=8192 $(go env GOROOT)/lib/wasm/wasm_exec_node.js km.wasm -test.run '^$' \
//	    -test.bench FreshMemory -test.benchtime 10x
func BenchmarkFreshMemory(b *testing.B) {
	if freshBallast == nil {
		for range 40 {
			x := make([]int64, 1<<20)
			for i := range x {
				x[i] = int64(i)
			}
			freshBallast = append(freshBallast, x)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	keys := make([]int64, 1_000_000)
	rows := make([]int32, len(keys))
	for i := range keys {
		keys[i], rows[i] = int64(rng.IntN(1_000_000))*7919003+13, int32(i)
	}
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			prev := make([]int32, len(keys))
			NewInts(len(keys)).PushTo(keys, rows, false, prev)
		}
	})
	b.Run("reused", func(b *testing.B) {
		prev := make([]int32, len(keys))
		m := NewInts(len(keys))
		for b.Loop() {
			clear(m.slots)
			m.n = 0
			m.PushTo(keys, rows, false, prev)
		}
	})
}
