package exec

import (
	"slices"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/keymap"
	"github.com/joinlab/joinlab/engine/memory"
)

// groupTable numbers a summarize's groups 0, 1, 2… in order of first appearance and keeps each group's key
// values, in a key map (engine/keymap) from key to group. One key of long, datetime or timespan is looked up as
// the int64 itself (keymap.Ints), two such keys as the pair of int64s (keymap.Pairs, a row with a null in
// either taking the way of other keys); one string key by its hash and the copy of its header the map keeps in
// the slot (keymap.StringHashes; its null is a group outside the map); any other key by the hash of its values,
// each candidate the map offers confirmed by a typed compare with the group's key (keymap.Hashes,
// summarize_keygroups.go). Every group's key
// and state is grown on the budget before the group exists, and so is each doubling of the map.
type groupTable struct {
	budget   *memory.Budget
	holder   string // what the budget's refusals name: the operator the table serves
	perGroup int64  // a group's share of the table and its aggregates' states, beyond its key
	held     int64
	keyCols  []*column.Vector
	n        int
	ints     *keymap.Ints   // one int key
	dense    *denseGroups   // one or two int keys, while their values span small ranges (summarize_dense.go)
	nullID   int32          // the null int key's group, -1 before it appears
	pairs    *keymap.Pairs  // two int keys, neither null
	keys     *keymap.Hashes // any other key
	hashes   []uint64       // the hashes of the rows of the last assign (keys)
	created  []int32        // rows of the last assign that made a group, in order
}

// newGroupTable makes the table for keys of the given types, charging each group stateBytes for its aggregates' states on top of
// its key and its first row's number (the tables' slots are charged as they double), in holder's name.
func newGroupTable(holder string, types []column.Type, stateBytes int64, budget *memory.Budget) *groupTable {
	t := &groupTable{budget: budget, holder: holder, perGroup: stateBytes + 8, nullID: -1}
	for _, typ := range types {
		t.keyCols = append(t.keyCols, column.NewVector(typ, 0))
	}
	switch {
	case len(types) == 1 && isIntKey(types[0]):
		t.ints, t.dense = &keymap.Ints{}, &denseGroups{keys: 1}
	case len(types) == 2 && isIntKey(types[0]) && isIntKey(types[1]):
		t.pairs, t.keys, t.dense = &keymap.Pairs{}, &keymap.Hashes{}, &denseGroups{keys: 2}
	case len(types) == 1 && types[0] == column.String:
		t.keys = keymap.StringHashes()
	default:
		t.keys = &keymap.Hashes{}
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
	if t.dense != nil {
		var ok bool
		if gids, m, ok, err = t.assignDense(kv, n, gids); ok || err != nil {
			return gids, m, err
		}
	}
	if t.ints != nil {
		k := kv[0]
		// Most rows have a group already: the batch is looked up in one loop first (FindEach), and a row takes
		// the path below only for a null key or a key the map lacked then (an earlier row may have made it).
		if t.ints.Len() > 0 {
			t.ints.FindEach(k.Ints[:n], gids)
		} else {
			for r := range gids {
				gids[r] = -1
			}
		}
		for r := range n {
			if k.Nulls != nil && k.Nulls.Get(r) {
				if gids[r], err = t.nullGroup(kv, r, 8); err != nil {
					return gids, r, err
				}
				continue
			}
			if gids[r] >= 0 {
				continue
			}
			x := k.Ints[r]
			slot, id := t.ints.Locate(x)
			if id < 0 {
				if t.ints.Full() {
					if err := t.resize(); err != nil {
						return gids, r, err
					}
					slot, _ = t.ints.Locate(x)
				}
				if err := t.grow(8); err != nil {
					return gids, r, err
				}
				id = t.create(kv, r)
				t.ints.Put(slot, x, id)
			}
			gids[r] = id
		}
		return gids, n, nil
	}
	if t.pairs != nil {
		return t.assignPairs(kv, n, gids)
	}
	t.hashes = hashKeys(kv, n, t.hashes)
	if len(kv) == 1 && kv[0].Type == column.String {
		return t.assignStrings(kv, n, gids)
	}
	for r, h := range t.hashes {
		id, err := t.assignHashed(kv, r, h)
		if err != nil {
			return gids, r, err
		}
		gids[r] = id
	}
	return gids, n, nil
}

// assignStrings is assign for one string key, hashed into t.hashes: the map keeps each group's key in its slot
// (keymap.StringHashes), so a row is confirmed against the slot's copy of the key's header. The null key, which
// no string equals, is the group nullID, outside the map.
func (t *groupTable) assignStrings(kv []*column.Vector, n int, gids []int32) (_ []int32, m int, err error) {
	k := kv[0]
	for r, h := range t.hashes[:n] {
		if k.Nulls != nil && k.Nulls.Get(r) {
			if gids[r], err = t.nullGroup(kv, r, 0); err != nil {
				return gids, r, err
			}
			continue
		}
		x := k.Strs[r]
		slot, id := t.keys.FindString(h, x)
		if id < 0 {
			if t.keys.Full() {
				if err := t.resizeKeys(); err != nil {
					return gids, r, err
				}
				slot, _ = t.keys.FindString(h, x)
			}
			if err := t.grow(int64(len(x))); err != nil {
				return gids, r, err
			}
			id = t.create(kv, r)
			t.keys.PutString(slot, h, t.keyCols[0].Strs[id], id)
		}
		gids[r] = id
	}
	return gids, n, nil
}

// nullGroup is the group of the null key of one key column, nullID, made from row r (a key of keyBytes) the
// first time.
func (t *groupTable) nullGroup(kv []*column.Vector, r int, keyBytes int64) (int32, error) {
	if t.nullID < 0 {
		if err := t.grow(keyBytes); err != nil {
			return -1, err
		}
		t.nullID = t.create(kv, r)
	}
	return t.nullID, nil
}

// assignPairs is assign for two int keys: the batch is looked up in one loop first (FindEach), and a row
// takes the path below only for a key with a null (the hashed way) or a key the map lacked then.
func (t *groupTable) assignPairs(kv []*column.Vector, n int, gids []int32) (_ []int32, m int, err error) {
	a, b := kv[0], kv[1]
	nulls := a.HasNulls() || b.HasNulls()
	if nulls {
		t.hashes = hashKeys(kv, n, t.hashes)
	}
	t.pairs.FindEach(a.Ints[:n], b.Ints[:n], gids)
	for r := range n {
		if nulls && (a.IsNull(r) || b.IsNull(r)) { // the stored ints of a null are no key: FindEach's answer is void
			if gids[r], err = t.assignHashed(kv, r, t.hashes[r]); err != nil {
				return gids, r, err
			}
			continue
		}
		if gids[r] >= 0 {
			continue
		}
		x, y := a.Ints[r], b.Ints[r]
		slot, id := t.pairs.Locate(x, y)
		if id < 0 {
			if t.pairs.Full() {
				next := t.pairs.Grown()
				if err := t.regrow(t.pairs.Bytes(), next.Bytes()); err != nil {
					return gids, r, err
				}
				t.pairs = next
				slot, _ = t.pairs.Locate(x, y)
			}
			if err := t.grow(16); err != nil {
				return gids, r, err
			}
			id = t.create(kv, r)
			t.pairs.Put(slot, x, y, id)
		}
		gids[r] = id
	}
	return gids, n, nil
}

// assignHashed returns the group of row r of kv, whose key hashes to h, found in the map of hashed keys or
// made there.
func (t *groupTable) assignHashed(kv []*column.Vector, r int, h uint64) (int32, error) {
	slot, id := findKey(t.keys, h, kv, r, t.keyCols)
	if id >= 0 {
		return id, nil
	}
	if t.keys.Full() {
		if err := t.resizeKeys(); err != nil {
			return -1, err
		}
		slot, _ = findKey(t.keys, h, kv, r, t.keyCols)
	}
	if err := t.grow(keyBytes(kv, r)); err != nil {
		return -1, err
	}
	id = t.create(kv, r)
	t.keys.Put(slot, h, id)
	return id, nil
}

// grow reserves a new group of a key of keyBytes.
func (t *groupTable) grow(keyBytes int64) error {
	n := keyBytes + t.perGroup
	if err := t.budget.Grow(t.holder, n); err != nil {
		return err
	}
	t.held += n
	return nil
}

// resize doubles the int map, growing the budget by the new slots first.
func (t *groupTable) resize() error {
	next := t.ints.Grown()
	if err := t.regrow(t.ints.Bytes(), next.Bytes()); err != nil {
		return err
	}
	t.ints = next
	return nil
}

// resizeKeys doubles the map of other keys, growing the budget by the new slots first.
func (t *groupTable) resizeKeys() error {
	next := t.keys.Grown()
	if err := t.regrow(t.keys.Bytes(), next.Bytes()); err != nil {
		return err
	}
	t.keys = next
	return nil
}

// regrow trades a map of old bytes for one of next bytes on the budget, growing it first.
func (t *groupTable) regrow(old, next int64) error {
	if err := t.budget.Grow(t.holder, next); err != nil {
		return err
	}
	t.budget.Shrink(old)
	t.held += next - old
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
	t.ints, t.dense, t.pairs, t.keys = nil, nil, nil, nil
}

// Groups numbers the groups of rows that an operator folds itself (the join aggregate), with the summarize's
// table: groups 0, 1, 2… in order of first appearance, each key's values kept, every group grown on the budget.
type Groups struct{ t *groupTable }

// NewGroups makes the groups of keys of the given types, charging each group stateBytes for its states.
func NewGroups(types []column.Type, stateBytes int64, budget *memory.Budget) *Groups {
	return &Groups{t: newGroupTable("summarize", types, stateBytes, budget)}
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
