package join

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
)

// Top first: an inner hash join under a top N on one probe column (SetTopBound), with int64 keys that span a
// dense range, picks the top's candidates before it indexes anything:
//
//	members     one bit per value of the build keys' range [lo, hi], set for each non-null build key
//	candidates  stream the probe side through a top N of its own, keeping only the rows whose key is a member
//	index       the build rows whose key one of the (at most N) candidates holds, in build order
//	join        the candidates, in the top's order, against that small table: the usual probe loop
//
// Why the result is the top's: each candidate matches at least one build row, because the members are exact,
// so the N best candidates make at least N output rows. A member probe row that is not a candidate sorts after
// every candidate (on a tie the earlier row wins, and the inner top keeps the earlier), so all its output rows
// sort after those N and the top above drops them. With fewer than N member rows every one is a candidate and
// the join emits everything. The top above sorts stably, and the candidates come in the order it would give
// their rows, so equal rows keep their order too.
//
// Cost: the bitmap is (hi-lo)/8 bytes, at most 8 bytes a build row (denseSpanPerRow), and setting a bit is a
// write into it instead of a hash table slot and a chain link, 16 bytes a slot at two slots a row, each a cache
// miss past a few hundred thousand rows. The probe side costs one compare against the inner top's cut (most
// rows) or one bit test; the build side is read once more, sequentially, for the candidates' keys.
// Sparse keys and non-integer keys take the full table (buildTable).

// denseSpanPerRow bounds the members bitmap: the build keys' range may hold at most this many values a build
// row (plus denseSpanMin), so the bitmap never takes more than 8 bytes a row.
const (
	denseSpanPerRow = 64
	denseSpanMin    = 1 << 16
)

// members is the set of a build side's non-null int64 keys as a bitmap over their range [lo, lo+span].
type members struct {
	lo   int64
	span uint64
	bits []uint64
}

// newMembers returns the members of k's n rows, or false when k has no non-null row or its range is too
// sparse for a bitmap (see denseSpanPerRow).
func newMembers(k *column.Vector, n int) (*members, bool) {
	lo, hi, seen := keyRange(k, n, 0, 0, false)
	span := uint64(hi) - uint64(lo)
	if !seen || span >= uint64(n)*denseSpanPerRow+denseSpanMin {
		return nil, false
	}
	m := &members{lo: lo, span: span, bits: make([]uint64, span/64+1)}
	m.add(k, n)
	return m, true
}

// keyRange widens [lo, hi] (empty unless seen) to the non-null values among the first n rows of int64 key k,
// reporting whether any value is in it.
func keyRange(k *column.Vector, n int, lo, hi int64, seen bool) (int64, int64, bool) {
	nulls := k.HasNulls()
	for i, x := range k.Ints[:n] {
		if nulls && k.IsNull(i) {
			continue
		}
		if !seen {
			lo, hi, seen = x, x, true
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi, seen
}

// add sets the bits of k's non-null values among its first n rows; every value must lie in the range.
func (m *members) add(k *column.Vector, n int) {
	nulls := k.HasNulls()
	for i, x := range k.Ints[:n] {
		if nulls && k.IsNull(i) {
			continue
		}
		u := uint64(x) - uint64(m.lo)
		m.bits[u>>6] |= 1 << (u & 63)
	}
}

// has reports whether x is a member.
func (m *members) has(x int64) bool {
	u := uint64(x) - uint64(m.lo) // below lo wraps past span
	return u <= m.span && m.bits[u>>6]&(1<<(u&63)) != 0
}

func (m *members) bytes() int64 { return int64(len(m.bits)) * 8 }

// topFirst runs the first three steps above on the build table already read and leaves the join ready to
// probe: h.table holds the build rows the candidates need, h.probe streams the candidates. It changes nothing
// when the keys do not qualify.
func (h *Hash) topFirst(ctx context.Context) error {
	if h.topLimit <= 0 || !intKeyed(h.spec.KeyTypes) {
		return nil
	}
	bk, pk := h.buildKeys()
	keys := keyColumns(h.table.Batch(), bk, h.spec.KeyTypes)
	m, ok := newMembers(keys[0], h.table.N)
	if !ok {
		return nil
	}
	if err := h.budget.Grow("the build keys' bitmap", m.bytes()); err != nil {
		return fmt.Errorf("hash join: %w", err)
	}
	defer h.budget.Shrink(m.bytes())

	in := &memberRows{probe: h.probe, keys: pk, types: h.spec.KeyTypes, m: m, col: h.topCol, bound: &exec.TopBound{}}
	top := exec.NewSort(in, []exec.SortKey{h.topKey}, h.topLimit, h.budget)
	top.ShareBound(in.bound)
	cands, err := exec.Materialize(ctx, top)
	if err != nil {
		return err
	}

	ck := keyColumns(cands.Batch(), pk, h.spec.KeyTypes)[0]
	clear(m.bits)
	m.add(ck, cands.N)
	var rows []int32
	bkey := keys[0]
	nulls := bkey.HasNulls()
	for i, x := range bkey.Ints[:h.table.N] {
		if m.has(x) && !(nulls && bkey.IsNull(i)) {
			rows = append(rows, int32(i))
		}
	}
	small := column.NewTable(h.table.Schema)
	small.Append(h.table.Batch().Gather(rows))
	h.table = small
	h.probe = &tableStream{t: cands}
	h.top = nil // the candidates are the top's already
	return nil
}

// memberRows streams the probe rows whose key is a member and that can still enter the inner top, whose cut
// it reads from bound.
type memberRows struct {
	probe exec.Operator
	keys  []int
	types []column.Type
	m     *members
	col   int
	bound *exec.TopBound
	idx   []int32
}

func (r *memberRows) Schema() column.Schema { return r.probe.Schema() }

func (r *memberRows) Next(ctx context.Context) (*column.Batch, error) {
	for {
		b, err := r.probe.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		k := keyColumns(b, r.keys, r.types)[0]
		v := b.Cols[r.col]
		lo, hi, nullsIn, ranged := r.bound.IntRange(v.Type)
		active := r.bound.Active()
		knulls, vnulls := k.HasNulls(), v.HasNulls()
		idx := r.idx[:0]
		if ranged && !knulls && !vnulls {
			// The common case, on a loop of its own: a cut on an int column, no nulls.
			vs := v.Ints[:b.N]
			for i, x := range k.Ints[:b.N] {
				if y := vs[i]; y >= lo && y <= hi && r.m.has(x) {
					idx = append(idx, int32(i))
				}
			}
		} else {
			idx = r.filter(idx, k, v, b.N, lo, hi, nullsIn, ranged, active)
		}
		r.idx = idx
		switch len(idx) {
		case 0:
		case b.N:
			return b, nil
		default:
			return b.Gather(idx), nil
		}
	}
}

// filter appends to idx the rows of n that may enter the top and whose key k is a member: with ranged, those
// whose value in v is in [lo, hi] (or null, when nullsIn); else, when the bound is active, those it keeps.
func (r *memberRows) filter(idx []int32, k, v *column.Vector, n int, lo, hi int64, nullsIn, ranged, active bool) []int32 {
	knulls, vnulls := k.HasNulls(), v.HasNulls()
	for i, x := range k.Ints[:n] {
		switch {
		case ranged && !(vnulls && v.IsNull(i)):
			if y := v.Ints[i]; y < lo || y > hi {
				continue
			}
		case ranged:
			if !nullsIn {
				continue
			}
		case active && !r.bound.Keeps(v, i):
			continue
		}
		if r.m.has(x) && !(knulls && k.IsNull(i)) {
			idx = append(idx, int32(i))
		}
	}
	return idx
}
