package joinevent

import "github.com/joinlab/joinlab/engine/trace"

// The Grace join's events (engine/join/grace.go). Side is "left" or "right"; Partition is a partition's id
// ("3", or "3.1" for a sub-partition of 3); Level counts re-partitions (0 for the first split).

// Spill is one input (or one pair's side, when re-partitioning) spilled to the store, in Partitions parts.
type Spill struct {
	Side       string `json:"side"`
	Level      int    `json:"level"`
	Partitions int    `json:"partitions"`
	Rows       int64  `json:"rows"`
	Bytes      int64  `json:"bytes"` // on the store
	Pages      int64  `json:"pages"`
	PageBytes  int    `json:"page_bytes"`
}

// PartitionWritten is a partition of one side complete on the store.
type PartitionWritten struct {
	Side      string `json:"side"`
	Partition string `json:"partition"`
	Level     int    `json:"level"`
	Rows      int64  `json:"rows"`
	Bytes     int64  `json:"bytes"`
	Pages     int64  `json:"pages"`
}

// PartitionRead is a partition of one side read back (to join it, split it or scan it again).
type PartitionRead struct {
	Side      string `json:"side"`
	Partition string `json:"partition"`
	Level     int    `json:"level"`
	Rows      int64  `json:"rows"`
	Bytes     int64  `json:"bytes"`
	Pages     int64  `json:"pages"`
}

// Repartition is a pair split again, into Fanout sub-partitions at Level with a new Seed, because its build
// side needs Need bytes and the budget has Available.
type Repartition struct {
	Partition string `json:"partition"`
	Level     int    `json:"level"`
	Fanout    int    `json:"fanout"`
	Seed      uint64 `json:"seed"`
	Need      int64  `json:"need"`
	Available int64  `json:"available"`
}

// HotKey is a pair sent to the hot-key path (block nested loop) because a split barely shrank it: Key is its
// most frequent key in the first block and Rows that key's rows there; Shrink is the last split's ratio.
type HotKey struct {
	Partition string  `json:"partition"`
	Level     int     `json:"level"`
	Key       string  `json:"key"`
	Rows      int32   `json:"rows"`
	BlockRows int     `json:"block_rows"`
	LeftRows  int64   `json:"left_rows"`
	RightRows int64   `json:"right_rows"`
	Shrink    float64 `json:"shrink"`
}

// PairJoined is a pair done: Method is "hash" or "blocks" (the hot-key path), Build the side held.
type PairJoined struct {
	Partition string `json:"partition"`
	Level     int    `json:"level"`
	Method    string `json:"method"`
	Build     string `json:"build"`
	BuildRows int64  `json:"build_rows"`
	ProbeRows int64  `json:"probe_rows"`
	Rows      int64  `json:"rows"` // output
}

// The Grace join's kinds.
const (
	KindSpill            trace.Kind = "spill"
	KindPartitionWritten trace.Kind = "partition_written"
	KindPartitionRead    trace.Kind = "partition_read"
	KindRepartition      trace.Kind = "repartition"
	KindHotKey           trace.Kind = "hot_key"
	KindPairJoined       trace.Kind = "pair_joined"
)

func (Spill) Kind() trace.Kind            { return KindSpill }
func (PartitionWritten) Kind() trace.Kind { return KindPartitionWritten }
func (PartitionRead) Kind() trace.Kind    { return KindPartitionRead }
func (Repartition) Kind() trace.Kind      { return KindRepartition }
func (HotKey) Kind() trace.Kind           { return KindHotKey }
func (PairJoined) Kind() trace.Kind       { return KindPairJoined }

// PartitionKeys lists the join keys of the rows of one side in one partition, in the order they were written,
// for a side of at most SmallSideRows rows (at level 0 the whole input; at a re-partition, the pair's side
// being split). Partition "" holds the side's rows whose key is null: they are set aside at level 0, never
// spilled (emitted at once or dropped, as the kind says). A key is written as its values, null as null and
// text quoted, several columns separated by ", ". Only partitions with rows are listed.
type PartitionKeys struct {
	Side      string   `json:"side"`
	Partition string   `json:"partition"`
	Level     int      `json:"level"`
	Keys      []string `json:"keys"`
}

// KindPartitionKeys is PartitionKeys's kind.
const KindPartitionKeys trace.Kind = "partition_keys"

func (PartitionKeys) Kind() trace.Kind { return KindPartitionKeys }
