package exec

import (
	"math/bits"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// topCandidates narrows a top's sort to the rows that can make its cut, by a radix select on the first key
// before anything is sorted: each row's order code (sort_order.go) is bucketed by its top eight varying bits,
// which order the buckets as the codes are ordered, with the key's nulls in a bucket of their own before or
// after all of them. Counting the buckets from the front finds the one where the limit falls: every row of an
// earlier bucket sorts before every row of that one, every row of a later bucket after it, so the first limit
// rows of the whole order are the first limit of the rows up to that bucket — the candidates, returned in
// input order, so that a stable sort of them keeps the ties of the whole sort.
//
// A top of a million rows over two million (a compaction, or the last sort of a top that outgrew its limit)
// then sorts a million and a bucket's worth instead of two million, for one pass over the first key. It returns
// nil — sort every row — when the select cannot pay: no limit below n, a first key that is a string or dynamic
// (ranking or comparing them costs more than the sort it saves), a first key on which every row ties, fewer
// than topSelectRows rows, a cut that would drop less than a quarter of them, or a budget that refuses the
// codes' memory (selectRowBytes a row, held only while it runs).
func topCandidates(v *column.Vector, key SortKey, n int, limit int64, budget *memory.Budget) []int32 {
	switch {
	case limit <= 0 || int64(n) <= limit || n < topSelectRows:
		return nil
	case v.Type == column.String || v.Type == column.Dynamic:
		return nil
	}
	need := int64(n) * selectRowBytes
	if budget.Grow("sort", need) != nil {
		return nil
	}
	defer budget.Shrink(need)
	codes := make([]uint64, n)
	orderCodes(v, key.Asc, codes)
	first := codes[0]
	var varying uint64
	for _, x := range codes {
		varying |= x ^ first
	}
	nulls := v.HasNulls()
	if varying == 0 && !nulls {
		return nil
	}
	// Buckets 1…256 hold the codes by their top eight varying bits (bits above them are alike in every row);
	// bucket 0 holds the nulls when they sort first, bucket 257 when they sort last.
	shift := uint(max(0, 64-bits.LeadingZeros64(varying)-8))
	nullBucket := 257
	if key.NullsFirst {
		nullBucket = 0
	}
	var counts [258]int
	for _, x := range codes {
		counts[1+x>>shift&255]++
	}
	if nulls {
		for r := range codes {
			if v.IsNull(r) {
				counts[1+codes[r]>>shift&255]--
				counts[nullBucket]++
			}
		}
	}
	last, keep := 0, 0 // the bucket the limit falls in, and the rows up to it
	for ; last < len(counts); last++ {
		if keep += counts[last]; int64(keep) >= limit {
			break
		}
	}
	if keep > n-n/4 {
		return nil
	}
	cand := make([]int32, 0, keep)
	for r, x := range codes {
		b := 1 + int(x>>shift&255)
		if nulls && v.IsNull(r) {
			b = nullBucket
		}
		if b <= last {
			cand = append(cand, int32(r))
		}
	}
	return cand
}

const (
	// topSelectRows is the least input the select runs on: below it, a sort of every row costs little more.
	topSelectRows = 4096
	// selectRowBytes is what the select holds per row: the first key's code and, at most, a candidate.
	selectRowBytes = 8 + 4
)
