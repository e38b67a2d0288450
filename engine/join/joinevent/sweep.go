package joinevent

import "github.com/joinlab/joinlab/engine/trace"

// SweepAdvanced is the interval join's sweep line moving on (engine/join/sweep.go; Op "sweep join"), sampled:
// the key it is in (its text; "" past the last), the start it has reached, the active set's size on each side,
// and totals so far. ActiveMax is the largest combined active set so far, which the sampled sizes can miss.
type SweepAdvanced struct {
	Key         string `json:"key"`
	Position    int64  `json:"position"`
	ActiveLeft  int    `json:"active_left"`
	ActiveRight int    `json:"active_right"`
	ActiveMax   int64  `json:"active_max"`
	Expired     int64  `json:"expired"`
	Overlaps    int64  `json:"overlaps"`
}

// KindSweepAdvanced is SweepAdvanced's kind.
const KindSweepAdvanced trace.Kind = "sweep_advanced"

func (SweepAdvanced) Kind() trace.Kind { return KindSweepAdvanced }
