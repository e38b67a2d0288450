package keymap

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// strsBenchKeys returns n 31-byte keys drawn from distinct (the s31 dataset's shape), sorted by their home's
// top 8 bits and copied into one block in that order, as the hash join's partitioned build and probe hand
// them to the map.
func strsBenchKeys(rng *rand.Rand, n, distinct int) []string {
	keys := make([]string, n)
	for i := range keys {
		d := rng.IntN(distinct)
		keys[i] = fmt.Sprintf("tenant-%04d/user-%012d/p", d%100, d*7919)
	}
	slices.SortStableFunc(keys, func(a, b string) int { return int(StrHome(a)>>56) - int(StrHome(b)>>56) })
	var block strings.Builder
	for _, k := range keys {
		block.WriteString(k)
	}
	all, at := block.String(), 0
	for i, k := range keys {
		keys[i], at = all[at:at+len(k)], at+len(k)
	}
	return keys
}

// BenchmarkStrs builds a map of 1M 31-byte keys (632K distinct; 64 MB of slots) and looks up 2M keys, three
// quarters of them present, each in partition order:
//
//	go test -run '^$' -bench Strs -benchtime 5x ./engine/keymap
func BenchmarkStrs(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	build := strsBenchKeys(rng, 1_000_000, 1_000_000)
	rows := rowNumbers(len(build))
	prev := make([]int32, len(build))
	b.Run("PushTo", func(b *testing.B) {
		for b.Loop() {
			NewStrs(len(build)).PushTo(build, rows, false, prev)
		}
		reportPerKey(b, len(build))
	})
	m := NewStrs(len(build))
	m.PushTo(build, rows, false, prev)
	probe := strsBenchKeys(rng, 2_000_000, 1_300_000)
	at := rowNumbers(len(probe))
	vals := make([]int32, len(probe))
	b.Run("FindTo", func(b *testing.B) {
		for b.Loop() {
			m.FindTo(probe, at, vals)
		}
		reportPerKey(b, len(probe))
	})
}

// reportPerKey reports a benchmark's time per key, for keys keys a loop.
func reportPerKey(b *testing.B, keys int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*keys), "ns/key")
}

// rowNumbers is 0, 1, …, n-1.
func rowNumbers(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}
