package ui

import "github.com/joinlab/joinlab/engine/trace"

// The trace kinds the views fold, as the packages that emit them declare them. They are spelled here, not
// imported, so the page's WebAssembly does not carry the engine (which runs in its own worker);
// TestKindsMatchTheEngine holds each to the engine's constant.
const (
	// web/runner
	kindScanRows trace.Kind = "scan_rows"
	opOutput                = "output"

	// engine/connector
	kindRequestSent      trace.Kind = "request_sent"
	kindRequestThrottled trace.Kind = "request_throttled"
	kindRequestRetried   trace.Kind = "request_retried"

	// engine/plan
	kindPartitionsPruned trace.Kind = "partitions_pruned"

	// engine/dynfilter
	kindDynamicFilter trace.Kind = "dynamic_filter"

	// engine/join: grace.go
	kindSpill            trace.Kind = "spill"
	kindPartitionWritten trace.Kind = "partition_written"
	kindPartitionRead    trace.Kind = "partition_read"
	kindRepartition      trace.Kind = "repartition"
	kindHotKey           trace.Kind = "hot_key"
	kindPairJoined       trace.Kind = "pair_joined"

	// engine/join: salted.go
	kindHeavyKey       trace.Kind = "heavy_key_found"
	kindSaltAssigned   trace.Kind = "salt_assigned"
	kindRowsReplicated trace.Kind = "rows_replicated"
	kindWorkerLoad     trace.Kind = "worker_load"

	// engine/join: sweep.go
	kindSweepAdvanced trace.Kind = "sweep_advanced"

	// engine/join: paged.go
	kindPageRequested trace.Kind = "page_requested"
	kindPageFetched   trace.Kind = "page_fetched"
	kindTieGroupCut   trace.Kind = "tie_group_cut"
	kindFilterSplit   trace.Kind = "filter_split"
	kindRefetched     trace.Kind = "refetch"
)
