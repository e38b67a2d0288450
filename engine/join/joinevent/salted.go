package joinevent

import "github.com/joinlab/joinlab/engine/trace"

// The salted skew join's events (engine/join/salted.go; Op "salted join"). Side is "left", "right" or, for a
// key heavy on both, "both".

// HeavyKey is a key the measure found heavy: its rows on each side, whether it is salted (false for a key
// heavy only on the expanded side) and whether it is heavy on both sides.
type HeavyKey struct {
	Key       string `json:"key"`
	Side      string `json:"side"`
	LeftRows  int64  `json:"left_rows"`
	RightRows int64  `json:"right_rows"`
	Salted    bool   `json:"salted"`
	BothSides bool   `json:"both_sides"`
}

// SaltAssigned is a heavy key's spread side dealt over the salts: RowsPerSalt[s] rows got salt s.
type SaltAssigned struct {
	Key         string  `json:"key"`
	Side        string  `json:"side"` // the spread side
	RowsPerSalt []int64 `json:"rows_per_salt"`
}

// RowsReplicated is a key's expanded-side rows copied to each of Copies workers (W), costing ExtraBytes. A join
// that copies every key's rows (broadcast, shuffle on the same mechanism) emits one, for Key "*".
type RowsReplicated struct {
	Key        string `json:"key"`
	Side       string `json:"side"` // the expanded side
	Rows       int64  `json:"rows"`
	Copies     int    `json:"copies"`
	ExtraBytes int64  `json:"extra_bytes"`
}

// WorkerLoad is one worker's share before salting (every key's rows on the worker its hash picks) and after;
// a load is the rows received plus the pairs formed.
type WorkerLoad struct {
	Worker      int   `json:"worker"`
	RowsBefore  int64 `json:"rows_before"`
	RowsAfter   int64 `json:"rows_after"`
	BytesBefore int64 `json:"bytes_before"`
	BytesAfter  int64 `json:"bytes_after"`
	PairsBefore int64 `json:"pairs_before"`
	PairsAfter  int64 `json:"pairs_after"`
	LoadBefore  int64 `json:"load_before"`
	LoadAfter   int64 `json:"load_after"`
}

// The salted join's kinds.
const (
	KindHeavyKey       trace.Kind = "heavy_key_found"
	KindSaltAssigned   trace.Kind = "salt_assigned"
	KindRowsReplicated trace.Kind = "rows_replicated"
	KindWorkerLoad     trace.Kind = "worker_load"
)

func (HeavyKey) Kind() trace.Kind       { return KindHeavyKey }
func (SaltAssigned) Kind() trace.Kind   { return KindSaltAssigned }
func (RowsReplicated) Kind() trace.Kind { return KindRowsReplicated }
func (WorkerLoad) Kind() trace.Kind     { return KindWorkerLoad }

// WorkerRows lists, for a small run (each input at most SmallSideRows rows), the rows of one side one worker
// received, in the order they were routed, after salting: a spread row under its salt, an expanded row of a
// salted key once per worker (Copy), every other row under salt 0. Worker -1 holds the full outer join's
// expanded-side rows that no spread row matches, kept apart from the workers and null-extended once after
// them. KeepsUnmatched says the worker's join outputs this side's rows that match nothing on the worker
// (null-extended for an outer kind, alone for an anti kind): in the teaching variant, a Copy that is Alone
// there comes out null-extended once per such worker, which is its wrong answer.
type WorkerRows struct {
	Worker         int         `json:"worker"`
	Side           string      `json:"side"`
	Rows           []SaltedRow `json:"rows"`
	KeepsUnmatched bool        `json:"keeps_unmatched,omitempty"`
}

// SaltedRow is one row a worker received: its place in its input (Row, from 1, so the copies of one row are
// told apart from rows sharing its key), its join key (written as PartitionKeys's keys), its salt, whether it
// is one of the copies of an expanded row, and whether no row of the other side on the worker has its key
// (Alone: it matches nothing there; a null key never matches).
type SaltedRow struct {
	Row   int    `json:"row"`
	Key   string `json:"key"`
	Salt  int    `json:"salt,omitempty"`
	Copy  bool   `json:"copy,omitempty"`
	Alone bool   `json:"alone,omitempty"`
}

// KindWorkerRows is WorkerRows's kind.
const KindWorkerRows trace.Kind = "worker_rows"

func (WorkerRows) Kind() trace.Kind { return KindWorkerRows }
