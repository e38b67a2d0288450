package join

import (
	"fmt"
	"math"
)

// ShufflePlan plans Kusto's shuffle join (hint.strategy=shuffle, or hint.shufflekey=KEY): both sides are
// partitioned by a hash of the join key over workers logical workers, so every row of a key, on either side,
// lands on the same worker, and each worker hash-joins its two partitions. It is the salted join's mechanism
// (NewSalted) with no key salted: the workers' joins are disjoint and each computes the kind as written, so
// every kind is exact (fullouter's unmatched rows of the second side read are set apart while routing and
// null-extended once, as the salted join does; innerunique keeps the first left row of each key).
//
// Kusto partitions by the keys named in hint.shufflekey, or by all of them; the partition a row goes to here is
// a hash of all the join keys, which gives the same co-location (rows equal on all the keys are equal on any
// subset). Memory: both sides once; cost: L + R rows routed, then W hash joins. A key with most of the rows
// loads one worker with them: that is what the salted join cures.
func ShufflePlan(spec *Spec, workers int) (*SaltPlan, error) {
	if workers < 1 {
		return nil, fmt.Errorf("shuffle join: %d workers, want at least one", workers)
	}
	spreadLeft := true
	switch spec.Kind {
	case RightOuter, RightSemi, RightAnti, InnerUnique:
		spreadLeft = false
	}
	return &SaltPlan{Workers: workers, SpreadLeft: spreadLeft, Exact: true,
		Why: "shuffle: both sides partitioned by the key", salted: map[string]bool{},
		LeftThreshold: math.MaxInt64, RightThreshold: math.MaxInt64}, nil
}
