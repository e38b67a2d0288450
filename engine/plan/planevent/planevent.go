// Package planevent declares the trace events of the planner's choices that happen as a plan opens (the
// strategy's own are trace.StrategyChose). It imports nothing but engine/trace, so the page decodes these
// events without carrying the engine.
package planevent

import "github.com/joinlab/joinlab/engine/trace"

// PartitionsPruned is a scan of a time-partitioned source narrowed by its filter, emitted when it opens (Op
// "scan @Source").
type PartitionsPruned struct {
	Source string `json:"source"`
	Read   int    `json:"read"`   // partitions read
	Pruned int    `json:"pruned"` // partitions skipped
	// Lo and Hi are the time bounds (Unix nanoseconds) the filter implies.
	Lo int64 `json:"lo"`
	Hi int64 `json:"hi"`
}

// KindPartitionsPruned is PartitionsPruned's kind.
const KindPartitionsPruned trace.Kind = "partitions_pruned"

func (PartitionsPruned) Kind() trace.Kind { return KindPartitionsPruned }
