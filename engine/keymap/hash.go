package keymap

// IntHash mixes every bit of k into the top bits of the result, where the maps take home slots (and radix
// partitions are taken) from. Two multiply-xorshift rounds before the last multiply: a single Fibonacci
// multiply clusters keys that are themselves multiples of a constant (measured: 20x slower probes on such
// keys), and linear probing punishes clusters.
func IntHash(k int64) uint64 {
	x := uint64(k) * 0x9E3779B97F4A7C15
	x ^= x >> 32
	x *= 0xD6E8FEB86659FD93
	x ^= x >> 32
	return x * 0x9E3779B97F4A7C15
}

// InlineBytes is how much of a string key a Strs slot holds: keys up to this long never leave the slot to
// compare.
const InlineBytes = 16

// StrHash returns the hash of k, every bit of which depends on every byte of k, and k's first 16 bytes as two
// words (see KeyWords). It reads k once, 8 bytes at a time: HashWords mixes the length and the first two
// words, HashTail the rest, and a last xorshift spreads the high bits into the low ones. A Strs map takes the
// low 32 bits as a slot's tag and the home slot from the top bits of StrHash times 2⁶⁴/φ (strHome).
func StrHash(k string) (h, w0, w1 uint64) {
	w0, w1 = KeyWords(k)
	h = HashWords(len(k), w0, w1)
	if len(k) > InlineBytes {
		h = HashTail(h, k[InlineBytes:])
	}
	return h ^ h>>31, w0, w1
}

// strHome is the value whose top bits are a string key's home slot, from its StrHash h.
func strHome(h uint64) uint64 { return h * 0x9E3779B97F4A7C15 }

// HashWords is StrHash's mix of a key's length n and its first two words.
func HashWords(n int, w0, w1 uint64) uint64 {
	h := uint64(n)*0x9E3779B97F4A7C15 ^ w0
	h = (h ^ h>>29) * 0xBF58476D1CE4E5B9
	h ^= w1
	return (h ^ h>>32) * 0x94D049BB133111EB
}

// HashTail is StrHash's mix of the bytes of a key past its first 16, tail, into h.
func HashTail(h uint64, tail string) uint64 {
	for i := 0; i < len(tail); i += 8 {
		h ^= TailWord(tail[i:])
		h = (h ^ h>>32) * 0x94D049BB133111EB
	}
	return h
}

// KeyWords returns the first 16 bytes of k as two little-endian words, zero-padded. A key of 8 to 15 bytes
// takes its second word from the 8 bytes ending it, shifted down past the bytes the first word holds.
func KeyWords(k string) (uint64, uint64) {
	switch n := len(k); {
	case n >= InlineBytes:
		return Word(k), Word(k[8:])
	case n >= 8:
		return Word(k), Word(k[n-8:]) >> (8 * (InlineBytes - n))
	}
	return TailWord(k), 0
}

// Word reads the first 8 bytes of s (which has at least 8) as a little-endian word; the compiler turns it
// into one load where the machine allows unaligned loads.
func Word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// TailWord reads up to the first 8 bytes of s, zero-padded.
func TailWord(s string) uint64 {
	if len(s) >= 8 {
		return Word(s)
	}
	var w uint64
	for i := len(s) - 1; i >= 0; i-- {
		w = w<<8 | uint64(s[i])
	}
	return w
}
