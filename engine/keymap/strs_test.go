package keymap

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// edgeKeys differ only where a slot cannot see it: past the 16 inline bytes, in trailing zero bytes (the
// words' padding), or in length alone; with the empty key and keys sharing a 16-byte prefix.
func edgeKeys() []string {
	long := strings.Repeat("p", 16)
	keys := []string{"", "\x00", "\x00\x00", "a", "a\x00", long, long + "\x00", long + "x", long + "y", long + "xy",
		strings.Repeat("q", 40), strings.Repeat("q", 39) + "r", "key-000000000001", "key-000000000002",
		"12345678", "12345678\x00"}
	for i := range 40 {
		keys = append(keys, fmt.Sprintf("shared-prefix-16%d", i), fmt.Sprintf("shared-prefix-16-and-more-%032d", i))
	}
	return keys
}

// TestStrsFindsWhatWasPushed fills a map with the edge keys, pushed from a buffer that is overwritten after
// each push (the map keeps its own copy of a long key), and finds every key with the value of its last push,
// More on the keys pushed twice, by Find, Lookup, FindEach and FindTo; keys never pushed find -1. The room
// reserved for the copies is exactly what they take.
func TestStrsFindsWhatWasPushed(t *testing.T) {
	keys := edgeKeys()
	m := NewStrs(len(keys))
	long := 0
	for _, k := range keys {
		if len(k) > InlineBytes {
			long += len(k)
		}
	}
	m.Reserve(int64(long))
	var buf []byte
	push := func(k string, v int32) int32 {
		buf = append(buf[:0], k...)
		old := m.Push(unsafe.String(unsafe.SliceData(buf), len(buf)), v, false)
		for i := range buf {
			buf[i] = '#'
		}
		return old
	}
	for i := len(keys) - 1; i >= 0; i-- {
		if old := push(keys[i], int32(i)); old != -1 {
			t.Fatalf("first Push(%q) = %d, want -1", keys[i], old)
		}
	}
	// A second push of a key with the value of an equal key's row: nothing more is copied.
	for i := 0; i < len(keys); i += 3 {
		if old := push(keys[i], int32(i)); old != int32(i) {
			t.Fatalf("second Push(%q) = %d, want %d", keys[i], old, i)
		}
	}
	want := func(i int) int32 {
		if i%3 == 0 {
			return int32(i) | More
		}
		return int32(i)
	}
	checkLookups(t, "copied", m, keys, want)
	for _, k := range []string{"b", strings.Repeat("p", 16) + "z", "\x00\x00\x00", strings.Repeat("q", 41),
		"shared-prefix-16x", "shared-prefix-16-and-more-" + strings.Repeat("9", 32), "12345678\x00\x00"} {
		if got := m.Find(k); got != -1 {
			t.Fatalf("Find(%q) = %d, want -1", k, got)
		}
	}
	if cap(m.keys) != long || m.KeyBytes() != int64(long) {
		t.Fatalf("%d bytes of long keys copied into a room of %d, for %d", m.KeyBytes(), cap(m.keys), long)
	}
}

// TestStrsPushKeep checks Push with keep, the unique build: the first value of a key stays, later ones are
// refused with Kept, and no value gets More.
func TestStrsPushKeep(t *testing.T) {
	keys := edgeKeys()
	m := NewStrs(len(keys))
	for i, k := range keys {
		if old := m.Push(k, int32(i), true); old != -1 {
			t.Fatalf("Push(%q, keep) of a new key = %d", k, old)
		}
	}
	for i, k := range keys {
		if m.Push(k, int32(i+1), true) != Kept || m.Find(k) != int32(i) {
			t.Fatalf("key %q: Push(keep) of a present key, or its value changed to %d", k, m.Find(k))
		}
	}
}

// TestStrsSmallMapWraps puts 8 keys in a 16-slot map so probes collide and wrap past the last slot, and checks
// the sizes charged to the budget.
func TestStrsSmallMapWraps(t *testing.T) {
	var keys []string
	for i := 0; len(keys) < 8; i++ {
		k := fmt.Sprintf("wrap-%d", i)
		if StrHome(k)>>shiftFor(16) >= 14 {
			keys = append(keys, k)
		}
	}
	m := NewStrs(len(keys))
	if len(m.slots) != 16 || m.Bytes() != StrsBytes(len(keys)) || m.Bytes() != 16*strSlotBytes {
		t.Fatalf("NewStrs(8): %d slots, %d bytes, StrsBytes %d", len(m.slots), m.Bytes(), StrsBytes(len(keys)))
	}
	for i, k := range keys {
		m.Push(k, int32(i), false)
	}
	if m.slots[0].val == 0 {
		t.Fatal("no key wrapped to slot 0")
	}
	for i, k := range keys {
		if m.Find(k) != int32(i) {
			t.Fatalf("Find(%q) = %d, want %d", k, m.Find(k), i)
		}
	}
}

// TestStrsLongKeysSameSlotWords checks the full compare: two 36-byte keys found by search to share their first
// 16 bytes, their length, their 32-bit tag and their home slot in a 16-slot map, so that only the compare of
// the whole keys tells them apart.
func TestStrsLongKeysSameSlotWords(t *testing.T) {
	a, b := "shared-prefix-16-and-more-0000298810", "shared-prefix-16-and-more-0000317995"
	ha, _, _ := StrHash(a)
	hb, _, _ := StrHash(b)
	if uint32(ha) != uint32(hb) || strHome(ha)>>60 != strHome(hb)>>60 {
		t.Fatalf("the keys no longer share tag and home: %#x, %#x", ha, hb)
	}
	m := NewStrs(1)
	m.Push(a, 0, false)
	if got := m.Find(b); got != -1 {
		t.Fatalf("Find(b) = %d before b was pushed, want -1", got)
	}
	if old := m.Push(b, 1, false); old != -1 {
		t.Fatalf("Push(b) = %d, as if b were a", old)
	}
	if m.Find(a) != 0 || m.Find(b) != 1 {
		t.Fatalf("Find(a) = %d, Find(b) = %d, want 0 and 1", m.Find(a), m.Find(b))
	}
}
