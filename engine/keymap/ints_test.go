package keymap

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// intCases are key sets that stress a table: multiples of a constant (which cluster under a single Fibonacci
// multiply), keys whose hashes share their home slot, and the int64 extremes.
func intCases() map[string][]int64 {
	cases := map[string][]int64{}
	for _, c := range []int64{1, 7919, 1 << 12, 1 << 32, 1000} {
		var ks []int64
		for i := range int64(3000) {
			ks = append(ks, (i-1500)*c)
		}
		cases[fmt.Sprintf("multiples of %d", c)] = ks
	}
	// Keys with one home slot in a 16-slot map: they collide, and those homed on the last slot wrap around.
	for _, home := range []uint64{3, 15} {
		var ks []int64
		for k := int64(0); len(ks) < 7; k++ {
			if IntHash(k)>>shiftFor(16) == home {
				ks = append(ks, k)
			}
		}
		cases[fmt.Sprintf("homed at slot %d of 16", home)] = ks
	}
	cases["extremes"] = []int64{0, -1, 1, math.MinInt64, math.MaxInt64, math.MinInt64 + 1}
	return cases
}

// TestIntsFindsWhatWasPushed fills a map made for its keys and finds every key, with the value of its last
// push and More exactly on the keys pushed twice, in Find, Lookup, FindEach and FindTo; absent keys find -1, in
// Find and FindTo.
func TestIntsFindsWhatWasPushed(t *testing.T) {
	for name, keys := range intCases() {
		m := NewInts(len(keys))
		for i, k := range keys {
			if old := m.Push(k, int32(i), false); old != -1 {
				t.Fatalf("%s: first Push(%d) = %d, want -1", name, k, old)
			}
		}
		for i, k := range keys {
			if i%3 == 0 {
				if old := m.Push(k, int32(i+len(keys)), false); old != int32(i) {
					t.Fatalf("%s: second Push(%d) = %d, want %d", name, k, old, i)
				}
			}
		}
		want := func(i int) int32 {
			if i%3 == 0 {
				return int32(i+len(keys)) | More
			}
			return int32(i)
		}
		checkLookups(t, name, m, keys, want)
		present := map[int64]bool{}
		for _, k := range keys {
			present[k] = true
		}
		var absent []int64
		for k := int64(-50); k < 50; k++ {
			if !present[k*7+3] {
				absent = append(absent, k*7+3)
			}
		}
		if !present[0] { // the zero key, which an empty slot's key field equals
			absent = append(absent, 0)
		}
		at := make([]int32, len(absent))
		for j := range at {
			at[j] = int32(j)
		}
		to := make([]int32, len(absent))
		m.FindTo(absent, at, to)
		for j, k := range absent {
			if m.Find(k) != -1 || to[j] != -1 {
				t.Fatalf("%s: absent key %d found: Find %d, FindTo %d", name, k, m.Find(k), to[j])
			}
		}
	}
}

// TestIntsGrowsKeyByKey adds keys one at a time as summarize does — Locate, grow when Full, Locate again, Put
// — and checks that no map passes three quarters full and every key keeps its value across the doublings.
func TestIntsGrowsKeyByKey(t *testing.T) {
	seed := uint64(19)
	r := rand.New(rand.NewPCG(seed, seed))
	for name, keys := range intCases() {
		m := &Ints{}
		ids := map[int64]int32{}
		for range 2 * len(keys) {
			k := keys[r.IntN(len(keys))]
			s, id := m.Locate(k)
			if id < 0 {
				if m.Full() {
					m = m.Grown()
					s, _ = m.Locate(k)
				}
				id = int32(len(ids))
				m.Put(s, k, id)
				ids[k] = id
			}
			if id != ids[k] {
				t.Fatalf("%s seed=%d: key %d has value %d, want %d", name, seed, k, id, ids[k])
			}
			if m.Len()*4 > len(m.slots)*3 {
				t.Fatalf("%s seed=%d: %d keys in %d slots", name, seed, m.Len(), len(m.slots))
			}
		}
		for k, id := range ids {
			if got := m.Find(k); got != id {
				t.Fatalf("%s seed=%d: after growing, Find(%d) = %d, want %d", name, seed, k, got, id)
			}
		}
		if m.Bytes() != int64(len(m.slots))*intSlotBytes || len(m.slots) < minGrownSlots {
			t.Fatalf("%s: %d slots, %d bytes", name, len(m.slots), m.Bytes())
		}
	}
}

// TestIntsEmptyAndSizes checks the zero map and the sizes the budget is charged.
func TestIntsEmptyAndSizes(t *testing.T) {
	var m Ints
	if s, v := m.Locate(5); s != 0 || v != -1 || !m.Full() {
		t.Fatalf("zero map: Locate = %d, %d, Full %v", s, v, m.Full())
	}
	for _, n := range []int{0, 1, 7, 8, 9, 1000, 1 << 20} {
		got := NewInts(n)
		if got.Bytes() != IntsBytes(n) || len(got.slots) < 2*n || len(got.slots) < minSlots || len(got.slots)&(len(got.slots)-1) != 0 {
			t.Fatalf("NewInts(%d): %d slots, %d bytes, IntsBytes %d", n, len(got.slots), got.Bytes(), IntsBytes(n))
		}
		if 64-got.Shift() >= 64 || 1<<(64-got.Shift()) != len(got.slots) {
			t.Fatalf("NewInts(%d): shift %d for %d slots", n, got.Shift(), len(got.slots))
		}
	}
}

// TestIntsHomeIsTopBits checks what the radix-partitioned build and probe rely on: a key sits at its home slot
// IntHash(k) >> Shift() or after it, so in a half-full map nearly every key of partition p (top bits of its
// hash) is in partition p's run of slots.
func TestIntsHomeIsTopBits(t *testing.T) {
	const n, bits = 1 << 12, 4
	m := NewInts(n)
	for k := range int64(n) {
		m.Push(k*1000, int32(k), false)
	}
	runSlots := len(m.slots) >> bits
	outside := 0
	for s, e := range m.slots {
		if e.val == 0 {
			continue
		}
		home := int(IntHash(e.key) >> m.Shift())
		if (s-home)&int(m.mask) > 64 {
			t.Fatalf("key %d at slot %d, %d past its home %d", e.key, s, s-home, home)
		}
		if p := int(IntHash(e.key) >> (64 - bits)); s/runSlots != p {
			outside++
		}
	}
	if outside > n/50 {
		t.Fatalf("%d of %d keys outside their partition's run", outside, n)
	}
}

// TestPushToIsPush holds PushTo to Push key by key, for Ints and Strs: over keys with repeats (and a map too
// small to hold them apart), with and without keep, in counts on both sides of Strs's block of hashed keys, the
// two maps find the same values and every key's answer is the same.
func TestPushToIsPush(t *testing.T) {
	const seed = 21
	t.Logf("seed=%d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	edge := edgeKeys()
	for _, keep := range []bool{false, true} {
		for _, n := range []int{0, 1, 3, 4, 5, strBlock - 1, strBlock, strBlock + 1, 100, 1000} {
			ints := make([]int64, n)
			strs := make([]string, n)
			vals := make([]int32, n)
			for j := range ints {
				d := r.IntN(n/2 + 1)
				ints[j], strs[j] = int64(d)*1<<40, edge[d%len(edge)]+strconv.Itoa(d/len(edge))
				vals[j] = int32(n - 1 - j) // the hash join pushes rows backwards
			}
			name := fmt.Sprintf("keep %v, %d keys", keep, n)
			checkPushTo(t, name+" (ints)", NewInts(n), NewInts(n), ints, vals, keep)
			checkPushTo(t, name+" (strings)", NewStrs(n), NewStrs(n), strs, vals, keep)
		}
	}
}

// checkPushTo pushes keys with vals into one key by key and into all by PushTo, and compares the answers and
// the maps.
func checkPushTo[K any](t *testing.T, name string, one, all interface {
	lookupMap[K]
	PushTo(keys []K, vals []int32, keep bool, prev []int32)
}, keys []K, vals []int32, keep bool) {
	t.Helper()
	want, got := make([]int32, len(keys)), make([]int32, len(keys))
	for j, k := range keys {
		want[vals[j]] = one.Push(k, vals[j], keep)
	}
	all.PushTo(keys, vals, keep, got)
	if all.Len() != one.Len() {
		t.Fatalf("%s: PushTo holds %d keys, Push %d", name, all.Len(), one.Len())
	}
	for v := range want {
		if got[v] != want[v] {
			t.Fatalf("%s: value %d: PushTo gave %d, Push %d", name, v, got[v], want[v])
		}
	}
	for _, k := range keys {
		if a, b := all.Find(k), one.Find(k); a != b {
			t.Fatalf("%s: Find(%v) %d after PushTo, %d after Push", name, k, a, b)
		}
	}
}

// TestNumberTo checks that distinct keys are numbered in the order they first come, that a repeat gets its
// key's number (or -1 when only a key's first row keeps one), and that the numbers land where at says.
func TestNumberTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, first := range []bool{false, true} {
		keys := make([]int64, 5000)
		for i := range keys {
			keys[i] = rng.Int64N(700) - 350
		}
		at := rng.Perm(len(keys))
		at32 := make([]int32, len(at))
		for i, x := range at {
			at32[i] = int32(x)
		}
		m := NewInts(len(keys))
		out := make([]int32, len(keys))
		n := m.NumberTo(keys, at32, out, first)
		seen := map[int64]int32{}
		for j, k := range keys {
			want, ok := seen[k]
			if !ok {
				want = int32(len(seen))
				seen[k] = want
			} else if first {
				want = -1
			}
			if got := out[at[j]]; got != want {
				t.Fatalf("first=%v: key %d (row %d) numbered %d, want %d", first, k, j, got, want)
			}
		}
		if n != len(seen) || m.Len() != n {
			t.Fatalf("first=%v: %d keys numbered, map holds %d, want %d", first, n, m.Len(), len(seen))
		}
		for k, num := range seen {
			if got := m.Lookup(k); got != num {
				t.Fatalf("first=%v: Lookup(%d) = %d, want %d", first, k, got, num)
			}
		}
	}
}
