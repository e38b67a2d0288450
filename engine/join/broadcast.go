package join

import (
	"fmt"
	"math"
)

// BroadcastPlan plans Kusto's broadcast join (hint.strategy=broadcast) over workers logical workers: the
// left side, the small one, is copied whole to every worker, and the right side is dealt out among them,
// each right row to exactly one worker; every worker hash-joins its copy of the left side with its share of the
// right side. It runs on the salted join's worker mechanism (NewSalted) with every key salted and the right
// side spread: a pair (L, R) forms at the one worker that holds R, which also holds a copy of L, so the
// workers' joins are disjoint and their union is the join.
//
// Kinds: a right row is decided by the one worker that holds it, so inner, innerunique (the left side keeps its
// first row per key first), rightouter, rightsemi and rightanti are exact; fullouter is too, because the left
// rows whose key no right row has are set apart while routing and null-extended once (as the salted join does).
// A left row is on every worker, and a worker cannot know whether another matched it: leftouter, leftsemi and
// leftanti are refused (the shuffle join serves them).
//
// Memory: the left side W times plus the right side once; cost: W·L + R rows routed, then W hash joins each
// building on the smaller of its two inputs. Output: worker by worker, then the set-apart rows.
func BroadcastPlan(spec *Spec, workers int) (*SaltPlan, error) {
	if err := BroadcastServes(spec.Kind); err != nil {
		return nil, err
	}
	if workers < 1 {
		return nil, fmt.Errorf("broadcast join: %d workers, want at least one", workers)
	}
	return &SaltPlan{Workers: workers, SpreadLeft: false, Exact: true, every: true,
		Why:           "broadcast: the left side is copied to every worker, the right side dealt out",
		LeftThreshold: math.MaxInt64, RightThreshold: math.MaxInt64}, nil
}

// BroadcastServes says whether the broadcast join can compute kind, and if not, why.
func BroadcastServes(kind Kind) error {
	switch kind {
	case LeftOuter, LeftSemi, LeftAnti:
		return fmt.Errorf("broadcast join: kind=%s decides each left row over every right row, but the left side is copied to every worker and no worker sees them all; hint.strategy=shuffle serves it", kind)
	}
	return nil
}
