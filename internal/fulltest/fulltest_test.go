package fulltest

import (
	"slices"
	"testing"
)

func TestPickSamplesOneUnlessFull(t *testing.T) {
	all := []int{1, 2, 3, 4, 5}
	t.Setenv(FullEnv, "")
	t.Setenv(SeedEnv, "")
	s := New(t)
	seen := map[int]bool{}
	var first []int
	for range 100 {
		got := Pick(s, all)
		if len(got) != 1 || !slices.Contains(all, got[0]) {
			t.Fatalf("Pick = %v, want one of %v", got, all)
		}
		seen[got[0]] = true
		first = append(first, got[0])
	}
	if len(seen) != len(all) {
		t.Errorf("100 picks reached %d of %d values", len(seen), len(all))
	}
	// The same seed draws the same sample.
	again := New(t)
	for i, want := range first {
		if got := Pick(again, all)[0]; got != want {
			t.Fatalf("pick %d: %d, the first sampler drew %d", i, got, want)
		}
	}

	t.Setenv(FullEnv, "1")
	if full := New(t); !full.Full() || !slices.Equal(Pick(full, all), all) {
		t.Errorf("%s=1: Pick = %v, want all of %v", FullEnv, Pick(full, all), all)
	}
}
