package dynfilter

import (
	"fmt"

	"slices"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/expr"
)

// MaxDistinctValues is the most distinct keys a dynamic filter carries as IN lists; past it the filter
// compacts to ranges or a min/max range. Trino's dynamic filters collect at most 1,000 distinct values
// (its small per-driver limit) and fall back to a min/max range beyond; here the same figure also bounds the
// requests: a thousand keys are already ten IN lists under Okta's 100 values per list.
const MaxDistinctValues = 1_000

// MaxRanges is the most ranges a compacted filter over integer or datetime keys keeps. Each costs two
// comparisons of query text; eight cut a key set with a few clusters (users' id blocks, a few days of
// timestamps) into its clusters while staying a short query.
const MaxRanges = 8

// Build is the dynamic filter of keys (distinct, non-null, one type) for column col: Empty without keys,
// IN lists cut by SplitToFit up to maxDistinct keys (MaxDistinctValues when 0), else Compact's ranges.
func Build(col string, keys []column.Value, maxDistinct int, caps connector.Caps, render Render) (Filter, error) {
	if maxDistinct <= 0 {
		maxDistinct = MaxDistinctValues
	}
	switch {
	case len(keys) == 0:
		return Filter{Kind: Empty, Column: col, MaxValues: caps.MaxInValues, MaxBytes: caps.MaxQueryBytes}, nil
	case len(keys) <= maxDistinct:
		f, err := SplitToFit(col, keys, caps, render)
		if err == nil {
			return f, nil
		}
		// A key too long for any IN list under the cap: a range may still fit (or no filter is used).
		return Compact(col, keys, err.Error(), caps, render)
	}
	return Compact(col, keys, fmt.Sprintf("%d distinct keys, over the %d an IN set carries", len(keys), maxDistinct), caps, render)
}

// Compact turns keys into ranges that cover them all, one request each (why is the reason, kept in the
// filter): for integer, datetime and timespan keys, the sorted keys cut at their MaxRanges-1 widest gaps;
// for other ordered keys, or when those ranges are over the query cap, the one range [least, greatest]; when
// even that is over the cap, no filter (None) — never a wrong one. Cost: a sort of the keys and at most two
// renders.
func Compact(col string, keys []column.Value, why string, caps connector.Caps, render Render) (Filter, error) {
	f := Filter{Column: col, MaxValues: caps.MaxInValues, MaxBytes: caps.MaxQueryBytes, Keys: len(keys), Why: why}
	sorted := append([]column.Value(nil), keys...)
	ordered := true
	slices.SortFunc(sorted, func(a, b column.Value) int {
		c, ok := expr.Compare(a, b)
		ordered = ordered && ok
		return c
	})
	if !ordered || len(sorted) == 0 {
		f.Kind, f.Why = None, why+"; the keys have no order to range over"
		return f, nil
	}
	try := func(kind Kind, pred connector.Predicate) (bool, error) {
		n := 0
		if render != nil {
			var err error
			if n, err = render(pred); err != nil {
				return false, fmt.Errorf("dynfilter: render the %s filter: %w", kind, err)
			}
		}
		if caps.MaxQueryBytes > 0 && n > caps.MaxQueryBytes {
			return false, nil
		}
		f.Kind, f.Slices = kind, []Slice{{Pred: pred, Bytes: n}}
		return true, nil
	}
	lo, hi := sorted[0], sorted[len(sorted)-1]
	switch lo.Type {
	case column.Long, column.DateTime, column.Timespan:
		if ok, err := try(Ranges, rangesPred(col, sorted)); ok || err != nil {
			return f, err
		}
		why += "; the ranges are over the query cap"
	}
	f.Why = why
	if ok, err := try(MinMax, between(col, lo, hi)); ok || err != nil {
		return f, err
	}
	f.Kind, f.Why = None, why+"; even the min/max range is over the query cap"
	return f, nil
}

// compactBounds is the min/max filter [lo, hi] when only the bounds of the keys are known (a Collector past
// its limit), or None when it is over the query cap.
func compactBounds(col string, lo, hi column.Value, why string, caps connector.Caps, render Render) (Filter, error) {
	f := Filter{Kind: MinMax, Column: col, MaxValues: caps.MaxInValues, MaxBytes: caps.MaxQueryBytes, Why: why}
	pred := between(col, lo, hi)
	n := 0
	if render != nil {
		var err error
		if n, err = render(pred); err != nil {
			return Filter{}, fmt.Errorf("dynfilter: render the min/max filter: %w", err)
		}
	}
	if caps.MaxQueryBytes > 0 && n > caps.MaxQueryBytes {
		f.Kind, f.Why = None, why+"; even the min/max range is over the query cap"
		return f, nil
	}
	f.Slices = []Slice{{Pred: pred, Bytes: n}}
	return f, nil
}

// rangesPred covers sorted (integer-valued) keys with at most MaxRanges ranges, cut at the widest gaps.
func rangesPred(col string, sorted []column.Value) connector.Predicate {
	cuts := make([]int, 0, len(sorted)-1) // cut i separates sorted[i] from sorted[i+1]
	for i := 0; i+1 < len(sorted); i++ {
		cuts = append(cuts, i)
	}
	gap := func(i int) uint64 { return uint64(sorted[i+1].Int) - uint64(sorted[i].Int) } // sorted, so no wrap
	slices.SortStableFunc(cuts, func(a, b int) int {
		ga, gb := gap(a), gap(b)
		switch {
		case ga > gb:
			return -1
		case ga < gb:
			return 1
		}
		return 0
	})
	cuts = cuts[:min(len(cuts), MaxRanges-1)]
	slices.Sort(cuts)
	var or connector.Or
	start := 0
	for _, c := range append(cuts, len(sorted)-1) {
		or = append(or, between(col, sorted[start], sorted[c]))
		start = c + 1
	}
	if len(or) == 1 {
		return or[0]
	}
	return or
}

// between is lo <= col <= hi.
func between(col string, lo, hi column.Value) connector.Predicate {
	return connector.And{connector.Compare{Column: col, Op: ">=", Value: lo}, connector.Compare{Column: col, Op: "<=", Value: hi}}
}
