package keymap

import "testing"

// lookupMap is what Ints and Strs share, for checkLookups.
type lookupMap[K any] interface {
	Push(k K, v int32, keep bool) int32
	Find(k K) int32
	Lookup(k K) int32
	FindEach(keys []K, vals []int32)
	FindTo(keys []K, at, vals []int32)
	Len() int
}

// checkLookups checks that m holds exactly keys, key i with value want(i) (More included): by Find, Lookup,
// FindEach and FindTo (the keys given in reverse, written back in order), and that Push with keep leaves every
// one of them alone.
func checkLookups[K any](t *testing.T, name string, m lookupMap[K], keys []K, want func(i int) int32) {
	t.Helper()
	vals := make([]int32, len(keys))
	m.FindEach(keys, vals)
	at := make([]int32, len(keys))
	rev := make([]K, len(keys))
	for j := range at {
		at[j] = int32(len(keys) - 1 - j)
		rev[j] = keys[at[j]]
	}
	to := make([]int32, len(keys))
	m.FindTo(rev, at, to)
	for i, k := range keys {
		w := want(i)
		if got := m.Find(k); got != w || vals[i] != w || to[i] != w {
			t.Fatalf("%s: key %v: Find %d, FindEach %d, FindTo %d, want %d", name, k, got, vals[i], to[i], w)
		}
		if got := m.Lookup(k); got != w&^More {
			t.Fatalf("%s: Lookup(%v) = %d, want %d", name, k, got, w&^More)
		}
		if m.Push(k, 0, true) != Kept || m.Find(k) != w {
			t.Fatalf("%s: Push(%v, keep) changed a present key", name, k)
		}
	}
	if m.Len() != len(keys) {
		t.Fatalf("%s: Len %d, want %d", name, m.Len(), len(keys))
	}
}
