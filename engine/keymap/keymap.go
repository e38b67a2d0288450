// Package keymap holds the engine's key maps: open-addressing tables from a key to an int32 value, shared by
// the hash join (a key to the head of its chain of build rows) and by summarize (a key to its group's number).
//
// Four maps, one shape:
//
//	Ints    an int64 key; a slot is the key and its value, 16 bytes
//	Strs    a string key (one string column, or any key encoded as a string); a slot is the key's hash tag,
//	        length and first 8 bytes (16 when they are all), its value, 32 bytes; a longer key is copied,
//	        beside the keys pushed before it, and read only to tell apart two that agree on all of that
//	Hashes  a key the owner hashes and compares itself (several typed columns); a slot is the hash and the
//	        value, 12 bytes, and the owner confirms each candidate against the key it keeps; made by
//	        StringHashes for one string key, a slot also holds the key's header (28 bytes), compared in place
//	Pairs   a key of two int64s (two long columns); a slot is both and the value, 24 bytes
//
// All probe linearly from a key's home slot, which is the top bits of its hash, so the keys whose hashes
// share their top p bits live in one contiguous run of slots (bar a few that overflow into the next run): a
// radix-partitioned build or probe that groups its keys by those bits touches one run at a time (the hash
// join's hash_radix.go). No map holds a pointer in its slots, so the garbage collector never scans them,
// and no lookup or insert allocates.
//
// A map made for n keys (NewInts, NewStrs) is at most half full, so a lookup visits about 1.5 slots; an Ints,
// a Pairs or a Hashes grown one key at a time (Full, Grown) doubles past three quarters full. A Strs does not grow: its
// slots keep 32 bits of a key's hash, too few to find the key's new home, so growing would read every long key
// back. The batch lookups (FindEach, FindTo) run their loop over the map's fields copied into locals: under
// js/wasm a field read through a pointer is a load from linear memory on every row.
package keymap

import "fmt"

// More is a flag of a value: Push sets it on the value of a key pushed more than once, so that the hash join
// can tell a key with a single build row — the common case — without reading its chain. Values stay below it.
const More = 1 << 30

// Kept is what Push returns when it was asked to keep a present key's value.
const Kept = -2

// MaxValue is the largest value a map holds.
const MaxValue = More - 1

// minSlots is the least slots a map has: a small table costs next to nothing and saves resizes.
const minSlots = 16

// minGrownSlots is the size of a map's first growth from empty (Grown): 256 slots, at most 8 KiB, so a
// handful of groups do not double their map five times.
const minGrownSlots = 256

// maxLoadEighths is the fill, in eighths, past which a map grown a key at a time must double (Full): three
// quarters keeps linear probes short.
const maxLoadEighths = 6

// Slots is the slot count of a map made for n keys: a power of two at least minSlots and at least 2n, so the
// map is at most half full.
func Slots(n int) int {
	slots := minSlots
	for slots < 2*n {
		slots <<= 1
	}
	return slots
}

// shiftFor is the right shift that turns a 64-bit hash into a slot number of a map of slots (a power of two).
func shiftFor(slots int) uint {
	bits := uint(0)
	for 1<<bits < slots {
		bits++
	}
	return 64 - bits
}

// full reports whether n keys in slots slots leave no room for one more under maxLoadEighths.
func full(n, slots int) bool { return (n+1)*8 > slots*maxLoadEighths }

// grownSlots is the slot count of a map grown from slots.
func grownSlots(slots int) int { return max(2*slots, minGrownSlots) }

func describe(kind string, slots int) string { return fmt.Sprintf("%s, %d slots", kind, slots) }
