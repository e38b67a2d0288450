package exec

import (
	"slices"

	"github.com/joinlab/joinlab/engine/column"
)

// denseGroups numbers the groups of one or two int keys whose values seen so far span small ranges, by the
// keys' offset in those ranges: with one key ids[x-lo] is key x's group, with two ids[(x-lo)·span + (y-lo')]
// is (x, y)'s (-1: none yet). A lookup is one load at a known place — no hash, no probe loop whose length a
// branch must guess — where the open-addressing maps cost a hash and a probe per row even when all their
// slots are in cache. Keys of categories, codes, small counters and bins of a bounded range take it.
//
// The ranges grow with the keys a batch brings, as long as they cover at most denseGroupSpan places in all; a
// batch that would stretch them further — or, with two keys, a batch with a null key, which the pair map
// leaves to the hashed keys — moves every group into the map (groupTable.ints or pairs), and the table goes on
// from there. A range that grows grows by at least its own size on that side (while the places allow), so
// keys that rise batch by batch (a time bin over a sorted log) re-lay the ids a logarithmic number of times,
// not once a batch. Memory: 4 bytes a place, on the budget as the maps' slots are.
type denseGroups struct {
	keys int      // 1 or 2
	lo   [2]int64 // per key, the least value of its range
	span [2]int64 // per key, the values its range covers; 0 before the first key
	ids  []int32
	laid int // how many times the ids were laid out (widenDense), for tests
}

// denseGroupSpan is the most places the dense ranges cover: 4 MiB of ids, which the L3 cache holds, where the
// open-addressing maps take 16 to 24 bytes a slot at two slots a key (measured: `summarize dcount(pg) by w`,
// whose 1,000 × 1,000 pairs of keys took the pair map at 256 KiB, 302–311 ms natively, 109–119 dense).
const denseGroupSpan = 1 << 20

// assignDense is assign while the keys' ranges are dense. It reports false, having assigned nothing, when the
// batch leaves them (see denseGroups): the groups have then moved into the map, for its path to go on with.
func (t *groupTable) assignDense(kv []*column.Vector, n int, gids []int32) (_ []int32, m int, ok bool, err error) {
	d := t.dense
	if d.keys == 2 && (kv[0].HasNulls() || kv[1].HasNulls()) {
		return gids, 0, false, t.leaveDense()
	}
	lo, span := d.lo, d.span
	places := int64(1)
	any, wider := false, false
	for i := range d.keys {
		l, h, found := keySpan(kv[i].Ints[:n], kv[i].Nulls)
		any = any || found
		if span[i] > 0 {
			l, h = min(l, d.lo[i]), max(h, d.lo[i]+span[i]-1)
		}
		if uint64(h)-uint64(l) >= denseGroupSpan {
			return gids, 0, false, t.leaveDense()
		}
		wider = wider || l != lo[i] || h-l+1 != span[i]
		lo[i], span[i] = l, h-l+1
		places *= span[i]
	}
	if any && wider {
		if places > denseGroupSpan {
			return gids, 0, false, t.leaveDense()
		}
		lo, span = d.slack(lo, span, places)
		if t.widenDense(lo, span) != nil { // the budget refused the places: the map may hold the groups in less
			return gids, 0, false, t.leaveDense()
		}
	}
	if d.keys == 2 {
		m, err = t.assignDense2(kv, n, gids)
		return gids, m, true, err
	}
	k := kv[0]
	ids, base := d.ids, d.lo[0]
	for r, x := range k.Ints[:n] {
		if k.Nulls != nil && k.Nulls.Get(r) {
			if t.nullID < 0 {
				if err := t.grow(8); err != nil {
					return gids, r, true, err
				}
				t.nullID = t.create(kv, r)
			}
			gids[r] = t.nullID
			continue
		}
		id := ids[x-base]
		if id < 0 {
			if err := t.grow(8); err != nil {
				return gids, r, true, err
			}
			id = t.create(kv, r)
			ids[x-base] = id
		}
		gids[r] = id
	}
	return gids, n, true, nil
}

// assignDense2 is assignDense's loop for two keys, neither null.
func (t *groupTable) assignDense2(kv []*column.Vector, n int, gids []int32) (int, error) {
	d := t.dense
	ids, lo0, lo1, span1 := d.ids, d.lo[0], d.lo[1], d.span[1]
	ys := kv[1].Ints[:n]
	for r, x := range kv[0].Ints[:n] {
		o := (x-lo0)*span1 + ys[r] - lo1
		id := ids[o]
		if id < 0 {
			if err := t.grow(16); err != nil {
				return r, err
			}
			id = t.create(kv, r)
			ids[o] = id
		}
		gids[r] = id
	}
	return n, nil
}

// slack widens ranges lo, span (covering places places, the keys seen) by each range's old size on each side
// it grew past, where the places stay within denseGroupSpan and the values within int64; before the first
// keys, and on a side that did not grow, it adds nothing.
func (d *denseGroups) slack(lo, span [2]int64, places int64) ([2]int64, [2]int64) {
	for i := range d.keys {
		old := d.span[i]
		if old == 0 || places/span[i]*(span[i]+old) > denseGroupSpan {
			continue
		}
		hi := lo[i] + span[i] - 1
		if lo[i] < d.lo[i] && lo[i]-old < lo[i] {
			lo[i] -= old
			span[i] += old
		} else if hi > d.lo[i]+old-1 && hi+old > hi {
			span[i] += old
		} else {
			continue
		}
		places = places / (span[i] - old) * span[i]
	}
	return lo, span
}

// keySpan is the least and greatest of the values of xs whose bit in nulls is clear; found is false when
// there is none.
func keySpan(xs []int64, nulls column.Bitmap) (lo, hi int64, found bool) {
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
		if !found || x < lo {
			lo = x
		}
		if !found || x > hi {
			hi = x
		}
		found = true
	}
	return lo, hi, found
}

// widenDense makes the dense ranges start at lo and cover span values (each holding the current one), moving
// the ids to their new places; the budget grows by the new ids first.
func (t *groupTable) widenDense(lo, span [2]int64) error {
	d := t.dense
	if lo == d.lo && span == d.span {
		return nil
	}
	size := span[0]
	if d.keys == 2 {
		size *= span[1]
	}
	if err := t.regrow(int64(len(d.ids))*4, size*4); err != nil {
		return err
	}
	ids := make([]int32, size)
	for i := range ids {
		ids[i] = -1
	}
	d.each(func(x, y int64, id int32) {
		o := x - lo[0]
		if d.keys == 2 {
			o = o*span[1] + y - lo[1]
		}
		ids[o] = id
	})
	d.lo, d.span, d.ids = lo, span, ids
	d.laid++
	return nil
}

// each calls f with the key (y is 0 with one key) and the id of every group the ranges hold.
func (d *denseGroups) each(f func(x, y int64, id int32)) {
	span1 := max(d.span[1], 1)
	for i, id := range d.ids {
		if id < 0 {
			continue
		}
		if d.keys == 2 {
			f(d.lo[0]+int64(i)/span1, d.lo[1]+int64(i)%span1, id)
			continue
		}
		f(d.lo[0]+int64(i), 0, id)
	}
}

// leaveDense moves every group of the ranges into the int map (one key) or the pair map (two), and drops the
// ranges.
func (t *groupTable) leaveDense() (err error) {
	d := t.dense
	t.dense = nil
	defer t.regrow(int64(len(d.ids))*4, 0) // never refused: it shrinks
	d.each(func(x, y int64, id int32) {
		if err != nil {
			return
		}
		if d.keys == 1 {
			if t.ints.Full() {
				if err = t.resize(); err != nil {
					return
				}
			}
			slot, _ := t.ints.Locate(x)
			t.ints.Put(slot, x, id)
			return
		}
		if t.pairs.Full() {
			next := t.pairs.Grown()
			if err = t.regrow(t.pairs.Bytes(), next.Bytes()); err != nil {
				return
			}
			t.pairs = next
		}
		slot, _ := t.pairs.Locate(x, y)
		t.pairs.Put(slot, x, y, id)
	})
	return err
}
