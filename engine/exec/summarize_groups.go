package exec

import (
	"slices"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// groupTable numbers a summarize's groups 0, 1, 2… in order of first appearance and keeps each group's key
// values. One key of long, datetime or timespan is looked up as the int64 itself, in an open-addressing table
// (intGroups); any other key, or several, by the hash of its values and a typed compare with the group's
// (keyGroups). Every group's key and state is grown on the budget before the group exists, and so is each
// resize of either table.
type groupTable struct {
	budget   *memory.Budget
	perGroup int64 // a group's share of the table and its aggregates' states, beyond its key
	held     int64
	keyCols  []*column.Vector
	n        int
	ints     *intGroups // one int key
	nullID   int32      // the null int key's group, -1 before it appears
	keys     *keyGroups // any other key
	hashes   []uint64   // the hashes of the rows of the last assign (keyGroups)
	created  []int32    // rows of the last assign that made a group, in order
}

// newGroupTable makes the table for keys of the given types, charging each group stateBytes for its aggregates' states on top of
// its key and its first row's number (the tables' slots are charged as they double).
func newGroupTable(types []column.Type, stateBytes int64, budget *memory.Budget) *groupTable {
	t := &groupTable{budget: budget, perGroup: stateBytes + 8, nullID: -1}
	for _, typ := range types {
		t.keyCols = append(t.keyCols, column.NewVector(typ, 0))
	}
	if len(types) == 1 && isIntKey(types[0]) {
		t.ints = &intGroups{}
	} else {
		t.keys = &keyGroups{}
	}
	return t
}

func isIntKey(t column.Type) bool {
	return t == column.Long || t == column.DateTime || t == column.Timespan
}

// assign sets gids[r] to the group of each of the n rows with key values kv, making groups for new keys. If
// the budget refuses a group it stops there: rows before m have their groups, and err is the budget's.
func (t *groupTable) assign(kv []*column.Vector, n int, gids []int32) (_ []int32, m int, err error) {
	gids = slices.Grow(gids[:0], n)[:n]
	t.created = t.created[:0]
	if t.ints != nil {
		k := kv[0]
		for r := range n {
			if k.Nulls != nil && k.Nulls.Get(r) {
				if t.nullID < 0 {
					if err := t.grow(8); err != nil {
						return gids, r, err
					}
					t.nullID = t.create(kv, r)
				}
				gids[r] = t.nullID
				continue
			}
			x := k.Ints[r]
			slot, id := t.ints.find(x)
			if id < 0 {
				if t.ints.full() {
					if err := t.resize(); err != nil {
						return gids, r, err
					}
					slot, _ = t.ints.find(x)
				}
				if err := t.grow(8); err != nil {
					return gids, r, err
				}
				id = t.create(kv, r)
				t.ints.put(slot, x, id)
			}
			gids[r] = id
		}
		return gids, n, nil
	}
	t.hashes = hashKeys(kv, n, t.hashes)
	for r, h := range t.hashes {
		slot, id := t.keys.find(h, kv, r, t.keyCols)
		if id < 0 {
			if t.keys.full() {
				if err := t.resizeKeys(); err != nil {
					return gids, r, err
				}
				slot, _ = t.keys.find(h, kv, r, t.keyCols)
			}
			if err := t.grow(keyBytes(kv, r)); err != nil {
				return gids, r, err
			}
			id = t.create(kv, r)
			t.keys.put(slot, h, id)
		}
		gids[r] = id
	}
	return gids, n, nil
}

// grow reserves a new group of a key of keyBytes.
func (t *groupTable) grow(keyBytes int64) error {
	n := keyBytes + t.perGroup
	if err := t.budget.Grow("summarize", n); err != nil {
		return err
	}
	t.held += n
	return nil
}

// resize doubles the int table, growing the budget by the new slots first.
func (t *groupTable) resize() error {
	old := t.ints.bytes()
	next := t.ints.doubled()
	if err := t.budget.Grow("summarize", next.bytes()); err != nil {
		return err
	}
	t.budget.Shrink(old)
	t.held += next.bytes() - old
	t.ints = next
	return nil
}

// resizeKeys doubles the key table, growing the budget by the new slots first.
func (t *groupTable) resizeKeys() error {
	old := t.keys.bytes()
	next := t.keys.doubled()
	if err := t.budget.Grow("summarize", next.bytes()); err != nil {
		return err
	}
	t.budget.Shrink(old)
	t.held += next.bytes() - old
	t.keys = next
	return nil
}

// create makes the next group from row r's key.
func (t *groupTable) create(kv []*column.Vector, r int) int32 {
	for i, v := range kv {
		t.keyCols[i].AppendFrom(v, r)
	}
	t.created = append(t.created, int32(r))
	t.n++
	return int32(t.n - 1)
}

// release gives the table's memory back to the budget and drops the lookup structures; the key columns stay
// for whoever still reads them (a spill's flush).
func (t *groupTable) release() {
	t.budget.Shrink(t.held)
	t.held = 0
	t.ints, t.keys = nil, nil
}

// intGroups is an open-addressing table from int64 keys to group ids, with linear probing and Fibonacci
// hashing (the key times 2⁶⁴/φ, top bits), kept at most intGroupsLoad full.
type intGroups struct {
	keys []int64
	ids  []int32 // group id + 1; 0 is an empty slot
	bits uint
	n    int
}

// intGroupsLoad is the fill, in eighths, past which the table doubles: 3/4 keeps probes short.
const intGroupsLoad = 6

// intGroupsMinBits sizes the first table: 256 slots, 3 KiB.
const intGroupsMinBits = 8

func (h *intGroups) full() bool { return len(h.keys) == 0 || (h.n+1)*8 > len(h.keys)*intGroupsLoad }

func (h *intGroups) bytes() int64 { return int64(len(h.keys)) * 12 }

// find returns the slot of x and its group, or the empty slot where x would go and -1.
func (h *intGroups) find(x int64) (int, int32) {
	if len(h.keys) == 0 {
		return 0, -1
	}
	mask := len(h.keys) - 1
	for i := int(uint64(x) * 0x9E3779B97F4A7C15 >> (64 - h.bits)); ; i = (i + 1) & mask {
		switch id := h.ids[i]; {
		case id == 0:
			return i, -1
		case h.keys[i] == x:
			return i, id - 1
		}
	}
}

func (h *intGroups) put(slot int, x int64, id int32) {
	h.keys[slot], h.ids[slot] = x, id+1
	h.n++
}

// doubled returns a table twice the size (the first one at intGroupsMinBits) holding the same keys.
func (h *intGroups) doubled() *intGroups {
	bits := max(h.bits+1, intGroupsMinBits)
	next := &intGroups{keys: make([]int64, 1<<bits), ids: make([]int32, 1<<bits), bits: bits}
	for i, id := range h.ids {
		if id != 0 {
			slot, _ := next.find(h.keys[i])
			next.put(slot, h.keys[i], id-1)
		}
	}
	return next
}

// Groups numbers the groups of rows that an operator folds itself (the join aggregate), with the summarize's
// table: groups 0, 1, 2… in order of first appearance, each key's values kept, every group grown on the budget.
type Groups struct{ t *groupTable }

// NewGroups makes the groups of keys of the given types, charging each group stateBytes for its states.
func NewGroups(types []column.Type, stateBytes int64, budget *memory.Budget) *Groups {
	return &Groups{t: newGroupTable(types, stateBytes, budget)}
}

// Assign sets gids[r] to the group of each of the n rows with key values kv, making groups for new keys; a
// refusal of the budget is the error.
func (g *Groups) Assign(kv []*column.Vector, n int, gids []int32) ([]int32, error) {
	gids, _, err := g.t.assign(kv, n, gids)
	return gids, err
}

// Len is the number of groups.
func (g *Groups) Len() int { return g.t.n }

// Keys are the groups' key values, a column per key, row g for group g.
func (g *Groups) Keys() []*column.Vector { return g.t.keyCols }

// Release gives the table's memory back to the budget.
func (g *Groups) Release() { g.t.release() }
