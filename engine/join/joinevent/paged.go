package joinevent

import "github.com/joinlab/joinlab/engine/trace"

// The paged federated join's events (engine/join/paged.go and its baselines; Op "paged"), besides the
// connector's request events (connevent.RequestSent… with a Purpose: wide, thin, probe, refetch) and
// trace.RowsEmitted. Page numbers count from 1. A cursor or window edge is a tuple of sort values written as
// literals; EngineDropped, set only when the paged side has conditions the engine applies itself, counts the
// rows those conditions dropped.

// PageSized is the size chosen for the next thin page, and why.
type PageSized struct {
	Page   int    `json:"page"`
	Size   int    `json:"size"`
	Reason string `json:"reason"`
}

// PageRequested is a thin page asked for: Phase is "rows" or a null-sort phase (the time-window baseline's is
// "window", with its edges in WindowFrom and WindowTo); Cursor is nil at the start; Wide marks a first page
// asked for at full width.
type PageRequested struct {
	Page       int      `json:"page"`
	Phase      string   `json:"phase"`
	Cursor     []string `json:"cursor"`
	Size       int      `json:"size,omitempty"`
	Wide       bool     `json:"wide,omitempty"`
	WindowFrom string   `json:"window_from,omitempty"`
	WindowTo   string   `json:"window_to,omitempty"`
}

// PageFetched is a thin page in hand: its rows, bytes and distinct join keys, and the re-fetch window (from,
// to] from the cursor to the page's last tuple; Short says the source had no more.
type PageFetched struct {
	Page          int      `json:"page"`
	Rows          int      `json:"rows"`
	Bytes         int64    `json:"bytes,omitempty"`
	DistinctKeys  int      `json:"distinct_keys,omitempty"`
	WindowFrom    []string `json:"window_from"`
	WindowTo      []string `json:"window_to,omitempty"`
	Short         bool     `json:"short,omitempty"`
	EngineDropped *int     `json:"engine_dropped,omitempty"`
}

// TieGroupCut is a page edge that falls inside a group of rows sharing Tuple, the sort value; SameKey says the
// edge also splits rows sharing the join key (the inclusive re-fetch brings their twins).
type TieGroupCut struct {
	Page    int    `json:"page"`
	Tuple   string `json:"tuple"`
	SameKey bool   `json:"same_key"`
}

// FilterSplit is a page's keys cut into Slices filter requests to fit the Source's caps (MaxBytes of query,
// MaxValues per IN list; 0: none): Side is "probe" or "refetch"; SliceBytes and SliceValues hold each slice's.
type FilterSplit struct {
	Page        int    `json:"page"`
	Side        string `json:"side"`
	Source      string `json:"source"`
	Keys        int    `json:"keys"`
	Slices      int    `json:"slices"`
	SliceBytes  []int  `json:"slice_bytes"`
	SliceValues []int  `json:"slice_values"`
	MaxBytes    int    `json:"max_bytes"`
	MaxValues   int    `json:"max_values"`
}

// ProbeResults is a page's probe answered: its rows and how many of the page's keys matched.
type ProbeResults struct {
	Page          int  `json:"page"`
	Rows          int  `json:"rows"`
	MatchedKeys   int  `json:"matched_keys"`
	EngineDropped *int `json:"engine_dropped,omitempty"`
}

// Refetched is a page's full-width rows over its inclusive window (from, to] for its matched Keys: Phases is
// how many null phases were re-fetched (one request each at least), or FromPage says the wide first page
// answered it without a request.
type Refetched struct {
	Page          int      `json:"page"`
	WindowFrom    []string `json:"window_from"`
	WindowTo      []string `json:"window_to"`
	Keys          int      `json:"keys"`
	Rows          int      `json:"rows"`
	Phases        int      `json:"phases,omitempty"`
	FromPage      bool     `json:"from_page,omitempty"`
	EngineDropped *int     `json:"engine_dropped,omitempty"`
}

// PageWindow is a part of a thin page, its rows [RowsFrom, RowsTo), probed and re-fetched on its own before the
// run's first row. Window counts from 1; Window 0 announces the cut, with HeavyKeys the keys over twice their
// share of a probe response.
type PageWindow struct {
	Page       int      `json:"page"`
	Window     int      `json:"window"`
	RowsFrom   int      `json:"rows_from"`
	RowsTo     int      `json:"rows_to"`
	Keys       int      `json:"keys"`
	HeavyKeys  int      `json:"heavy_keys,omitempty"`
	WindowFrom []string `json:"window_from,omitempty"`
	WindowTo   []string `json:"window_to,omitempty"`
	Reason     string   `json:"reason"`
}

// NullKeyRows is a response of the paged side's rows whose join key is null (paged_unmatched.go), in the
// null-sort phase numbered Phase; More says another follows.
type NullKeyRows struct {
	Phase         int  `json:"phase"`
	Rows          int  `json:"rows"`
	More          bool `json:"more"`
	EngineDropped *int `json:"engine_dropped,omitempty"`
}

// ProbeScanned is a response of the scan of the probe side after the last page, and how many of its rows
// matched no paged key (of MatchedKeys so far).
type ProbeScanned struct {
	Rows          int  `json:"rows"`
	Unmatched     int  `json:"unmatched"`
	More          bool `json:"more"`
	MatchedKeys   int  `json:"matched_keys"`
	EngineDropped *int `json:"engine_dropped,omitempty"`
}

// The paged join's kinds.
const (
	KindPageSized     trace.Kind = "page_sized"
	KindPageRequested trace.Kind = "page_requested"
	KindPageFetched   trace.Kind = "page_fetched"
	KindTieGroupCut   trace.Kind = "tie_group_cut"
	KindFilterSplit   trace.Kind = "filter_split"
	KindProbeResults  trace.Kind = "probe_results"
	KindRefetched     trace.Kind = "refetch"
	KindPageWindow    trace.Kind = "page_window"
	KindNullKeyRows   trace.Kind = "null_key_rows"
	KindProbeScanned  trace.Kind = "probe_scanned"
)

func (PageSized) Kind() trace.Kind     { return KindPageSized }
func (PageRequested) Kind() trace.Kind { return KindPageRequested }
func (PageFetched) Kind() trace.Kind   { return KindPageFetched }
func (TieGroupCut) Kind() trace.Kind   { return KindTieGroupCut }
func (FilterSplit) Kind() trace.Kind   { return KindFilterSplit }
func (ProbeResults) Kind() trace.Kind  { return KindProbeResults }
func (Refetched) Kind() trace.Kind     { return KindRefetched }
func (PageWindow) Kind() trace.Kind    { return KindPageWindow }
func (NullKeyRows) Kind() trace.Kind   { return KindNullKeyRows }
func (ProbeScanned) Kind() trace.Kind  { return KindProbeScanned }
