package exec

import (
	"slices"

	"github.com/joinlab/joinlab/engine/column"
)

// denseGroups numbers the groups of one int key whose values seen so far span a small range, by the key's
// offset in that range: ids[x-lo] is key x's group (-1: none yet). A lookup is one load at a known place — no
// hash, no probe loop whose length a branch must guess — where the open-addressing map costs a hash and a probe
// per row even when all its slots are in cache. Keys of categories, codes, small counters and bins of a bounded
// range take it.
//
// The range grows with the keys a batch brings, as long as it spans at most denseGroupSpan values; a batch that
// would stretch it further moves every group into the int map (groupTable.ints) and the table goes on hashed.
// Memory: 4 bytes per value of the range, on the budget as the map's slots are.
type denseGroups struct {
	lo  int64
	ids []int32
}

// denseGroupSpan is the widest key range kept dense: 256 KiB of ids, which stays in the L2 cache.
const denseGroupSpan = 1 << 16

// assignDense is assign for one int key while its range is dense. It reports false, having assigned nothing,
// when the batch's keys would stretch the range past denseGroupSpan: the groups have then moved into the int
// map, for the hashed path to go on with.
func (t *groupTable) assignDense(k *column.Vector, kv []*column.Vector, n int, gids []int32) (_ []int32, m int, err error, ok bool) {
	d := t.dense
	ints := k.Ints[:n]
	lo, hi, any := keySpan(ints, k.Nulls)
	if any {
		if len(d.ids) > 0 {
			lo, hi = min(lo, d.lo), max(hi, d.lo+int64(len(d.ids))-1)
		}
		if uint64(hi)-uint64(lo) >= denseGroupSpan {
			return gids, 0, t.leaveDense(), false
		}
		if err := t.widenDense(lo, hi); err != nil {
			return gids, 0, err, true
		}
	}
	ids, base := d.ids, d.lo
	for r, x := range ints {
		if k.Nulls != nil && k.Nulls.Get(r) {
			if t.nullID < 0 {
				if err := t.grow(8); err != nil {
					return gids, r, err, true
				}
				t.nullID = t.create(kv, r)
			}
			gids[r] = t.nullID
			continue
		}
		id := ids[x-base]
		if id < 0 {
			if err := t.grow(8); err != nil {
				return gids, r, err, true
			}
			id = t.create(kv, r)
			ids[x-base] = id
		}
		gids[r] = id
	}
	return gids, n, nil, true
}

// keySpan is the least and greatest of the values of xs whose bit in nulls is clear; any is false when there
// is none.
func keySpan(xs []int64, nulls column.Bitmap) (lo, hi int64, any bool) {
	if nulls == nil {
		if len(xs) == 0 {
			return 0, 0, false
		}
		return slices.Min(xs), slices.Max(xs), true
	}
	for r, x := range xs {
		if nulls.Get(r) {
			continue
		}
		if !any || x < lo {
			lo = x
		}
		if !any || x > hi {
			hi = x
		}
		any = true
	}
	return lo, hi, any
}

// widenDense makes the dense range cover [lo, hi], which holds the current one, moving the ids to their new
// offsets; the budget grows by the new ids first.
func (t *groupTable) widenDense(lo, hi int64) error {
	d := t.dense
	size := int(hi-lo) + 1
	if len(d.ids) == size {
		return nil
	}
	if err := t.regrow(int64(len(d.ids))*4, int64(size)*4); err != nil {
		return err
	}
	ids := make([]int32, size)
	for i := range ids {
		ids[i] = -1
	}
	if len(d.ids) > 0 {
		copy(ids[d.lo-lo:], d.ids)
	}
	d.lo, d.ids = lo, ids
	return nil
}

// leaveDense moves every group of a non-null key into the int map and drops the dense range.
func (t *groupTable) leaveDense() error {
	d := t.dense
	t.dense = nil
	defer t.regrow(int64(len(d.ids))*4, 0) // never refused: it shrinks
	for i, id := range d.ids {
		if id < 0 {
			continue
		}
		x := d.lo + int64(i)
		slot, _ := t.ints.Locate(x)
		if t.ints.Full() {
			if err := t.resize(); err != nil {
				return err
			}
			slot, _ = t.ints.Locate(x)
		}
		t.ints.Put(slot, x, id)
	}
	return nil
}
