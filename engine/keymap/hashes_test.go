package keymap

import (
	"math/rand/v2"
	"testing"
)

// TestHashesConfirmsCandidates grows a Hashes a key at a time as summarize does, with a hash that keeps only
// its top bits (so most keys share a hash and only the owner's compare tells them apart), and checks every key
// keeps its value across doublings and no map passes three quarters full.
func TestHashesConfirmsCandidates(t *testing.T) {
	seed := uint64(23)
	r := rand.New(rand.NewPCG(seed, seed))
	for _, mask := range []uint64{^uint64(0), 0xF000000000000000, 0} {
		hash := func(k int) uint64 { return IntHash(int64(k)) & mask }
		m := &Hashes{}
		var keys []int // keys[v] is value v's key, as summarize keeps its groups' keys
		find := func(k int) (int, int32) {
			s, v := m.First(hash(k))
			for v >= 0 && keys[v] != k {
				s, v = m.Next(hash(k), s)
			}
			return s, v
		}
		for range 3000 {
			k := r.IntN(700) * 1000
			s, v := find(k)
			if v < 0 {
				if m.Full() {
					m = m.Grown()
					s, _ = find(k)
				}
				v = int32(len(keys))
				m.Put(s, hash(k), v)
				keys = append(keys, k)
			}
			if keys[v] != k {
				t.Fatalf("mask %#x seed=%d: key %d found as value %d, key %d", mask, seed, k, v, keys[v])
			}
			if m.Len()*4 > len(m.vals)*3 {
				t.Fatalf("mask %#x: %d keys in %d slots", mask, m.Len(), len(m.vals))
			}
		}
		for v, k := range keys {
			if _, got := find(k); got != int32(v) {
				t.Fatalf("mask %#x seed=%d: key %d has value %d, want %d", mask, seed, k, got, v)
			}
		}
		if _, v := find(-1); v != -1 {
			t.Fatalf("mask %#x: an absent key found value %d", mask, v)
		}
		if m.Bytes() != int64(len(m.vals))*hashesSlotBytes || len(m.vals) < minGrownSlots {
			t.Fatalf("mask %#x: %d slots, %d bytes", mask, len(m.vals), m.Bytes())
		}
	}
	var empty Hashes
	if s, v := empty.First(7); s != 0 || v != -1 || !empty.Full() {
		t.Fatalf("zero map: First = %d, %d, Full %v", s, v, empty.Full())
	}
}
