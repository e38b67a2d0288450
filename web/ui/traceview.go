package ui

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/dynfilter/dfevent"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/plan/planevent"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// TraceView folds a run's trace events, as they arrive, into the small summaries the strategy views draw.
// Views render from these summaries, never from the raw events, so a render costs the same after a million
// events as after ten. Events arrive decoded into their Go types (engine/trace/registry) and are folded by a
// switch on the type: a fold reads the fields the emitting package declares, never a name it guesses.
type TraceView struct {
	Events  int64
	Dropped int64
	// Kinds counts events per kind.
	Kinds map[string]int64
	// Recent are the last few events, newest last, for the trace panel.
	Recent []trace.Event
	// LastAt is the latest event time seen, of any event: the engine's and the connectors' events carry the
	// simulated sources' virtual time (0 where no source keeps one), the runner's own (runnerEvent) the
	// engine's working time. VirtualAt is the latest of the former alone, the run's virtual clock: a figure
	// labelled virtual time reads VirtualAt, never LastAt, so the two clocks are never mixed on the page.
	LastAt, VirtualAt time.Duration
	// Chosen is the strategy a strategy_chose event named (the first join's), Strategies every join's in
	// the order the event lists them, ChosenWhy the planner's reason.
	Chosen, ChosenWhy string
	Strategies        []string
	// MemoryHigh is the highest memory_high event, MemoryBudget the budget it was held to.
	MemoryHigh, MemoryBudget int64

	Inputs map[string]int64
	// Scans are rows read per source while running, in the order the sources were first read.
	Scans []Scan
	// RunReads and PlanReads count every row read from the sources, running and while planning.
	RunReads, PlanReads int64
	// Output is rows delivered; OutputSeries samples it over time for the sparkline.
	Output       int64
	OutputSeries Series
	// Requests counts requests sent to connectors. The Over series sample rows out, requests and held memory
	// against the trace's time (LastAt, in milliseconds) for the metrics panel's charts.
	Requests                           int64
	RowsOver, RequestsOver, MemoryOver Series

	// Natives are the last few requests sent to connectors, as rendered for them.
	Natives []Native
	// Faults counts the requests a connector failed (retried or not); Resized the scans that asked for fewer
	// rows after a result too large.
	Faults, Resized int64

	Grace  GraceSummary
	Salted SaltedSummary
	Sweep  SweepSummary
	Paged  PagedSummary
	// Baseline is where a paged baseline loses, repeats or reorders rows, or is refused (paged_failures.go).
	Baseline BaselineSummary
	// DynFilters are the dynamic filters pushed into probe scans, in the order their events came.
	DynFilters []DynFilter
}

// Scan is one source's reading progress.
type Scan struct {
	Source string
	Rows   int64
	// Scans counts how many times the source was read (a nested loop rereads its inner side).
	Scans int64
}

// recentEvents is how many raw events the trace panel lists.
const recentEvents = 12

// NewTraceView returns an empty summary.
func NewTraceView() *TraceView {
	return &TraceView{Kinds: map[string]int64{}, Grace: GraceSummary{index: map[string]int{}},
		Salted: SaltedSummary{Before: map[int]float64{}, After: map[int]float64{}}}
}

// Fold is the summary of events, folded in order from an empty one: a view of events[:k] is Fold(events[:k]),
// so the player, the walkthrough and a test all draw the same state at the same event.
func Fold(events []trace.Event) *TraceView {
	t := NewTraceView()
	for _, e := range events {
		t.Add(e)
	}
	return t
}

// Add folds one event in.
func (t *TraceView) Add(e trace.Event) { t.fold(e) }

// fold folds one event in and reports whether a view's summary took it: every kind the engine and the runner
// emit has its case here (TestEveryEmittedKindIsFolded runs every strategy to hold them to it); a payload of a
// type no case knows is only counted.
func (t *TraceView) fold(e trace.Event) bool {
	t.Events++
	t.Kinds[string(e.Kind())]++
	t.LastAt = max(t.LastAt, e.At)
	if !runnerEvent(e) {
		t.VirtualAt = max(t.VirtualAt, e.At)
	}
	if len(t.Recent) == recentEvents {
		copy(t.Recent, t.Recent[1:])
		t.Recent = t.Recent[:recentEvents-1]
	}
	t.Recent = append(t.Recent, e)
	t.Baseline.add(e.Payload)
	switch p := e.Payload.(type) {
	case trace.StrategyChose:
		t.Chosen, t.ChosenWhy = p.Strategy, p.Reason
		if p.Strategies != "" {
			t.Strategies = strings.Split(p.Strategies, ",")
		} else if t.Chosen != "" {
			t.Strategies = []string{t.Chosen}
		}
	case memory.HighWater:
		t.MemoryHigh = max(t.MemoryHigh, p.Bytes)
		t.MemoryOver.Add(t.ms(), float64(t.MemoryHigh))
		t.MemoryBudget = p.Budget
	case trace.ScanRows:
		t.addScan(p)
	case connevent.PageReturned:
		t.addPage(p)
	case trace.RowsEmitted:
		if e.Op != protocol.OpOutput {
			t.Paged.addEmitted(p)
			return true
		}
		t.Output = p.Total
		t.OutputSeries.Add(float64(t.Events), float64(p.Total))
		t.RowsOver.Add(t.ms(), float64(p.Total))
	case connevent.RequestSent:
		t.addNative(p)
		t.Requests++
		t.RequestsOver.Add(t.ms(), float64(t.Requests))
		t.Paged.Requests++
	case connevent.RequestThrottled, connevent.RequestRetried:
		t.Paged.Throttled++
	case connevent.RequestFailed:
		t.Faults++
	case connevent.PageResized:
		t.Resized++
	case planevent.PartitionsPruned:
		t.Sweep.Pruned += float64(p.Pruned)
	case joinevent.Spill, joinevent.PartitionWritten, joinevent.PartitionRead, joinevent.Repartition,
		joinevent.HotKey, joinevent.PairJoined:
		t.Grace.add(e.Op, p)
	case joinevent.PartitionKeys:
		t.Grace.addKeys(e.Op, p)
	case joinevent.HeavyKey, joinevent.SaltAssigned, joinevent.RowsReplicated, joinevent.WorkerLoad:
		t.Salted.add(p)
	case joinevent.WorkerRows:
		t.Salted.addRows(p)
	case joinevent.SweepAdvanced:
		t.Sweep.add(p)
	case joinevent.PageSized, joinevent.PageRequested, joinevent.PageFetched, joinevent.TieGroupCut,
		joinevent.FilterSplit, joinevent.ProbeResults, joinevent.Refetched, joinevent.PageWindow,
		joinevent.NullKeyRows, joinevent.ProbeScanned:
		t.Paged.add(p)
	case dfevent.Applied:
		t.addDynFilter(p)
	default:
		return false
	}
	return true
}

// runnerEvent reports whether e is one the runner adds to the engine's trace (rows read from a source, rows
// delivered to the page), stamped with the engine's working time rather than a virtual clock.
func runnerEvent(e trace.Event) bool {
	switch e.Payload.(type) {
	case trace.ScanRows:
		return true
	case trace.RowsEmitted:
		return e.Op == protocol.OpOutput
	}
	return false
}

// ms is the trace's time so far in milliseconds, the x of the Over series: the virtual clock once the run
// shows one, else the engine's working time the runner stamps on its events (ClockName says which), so a
// chart never plots one clock against the other.
func (t *TraceView) ms() float64 {
	at := t.LastAt
	if t.VirtualAt > 0 {
		at = t.VirtualAt
	}
	return float64(at) / float64(time.Millisecond)
}

// ClockName names the clock of the Over series' x axis.
func (t *TraceView) ClockName() string {
	if t.VirtualAt > 0 {
		return "virtual time"
	}
	return "engine time"
}

// addScan follows a source's reading. Reads while planning (a strategy measuring its input) are tallied
// apart, so the build and probe bars show the run; a source read again (a nested loop's inner side) shows
// its latest pass.
func (t *TraceView) addScan(p trace.ScanRows) {
	if p.Phase == "plan" {
		t.PlanReads += p.Rows
		return
	}
	t.RunReads += p.Rows
	scan := int64(p.Scan)
	for i := range t.Scans {
		sc := &t.Scans[i]
		if sc.Source != p.Source {
			continue
		}
		switch {
		case scan > sc.Scans:
			sc.Scans, sc.Rows = scan, p.Total
		case scan == sc.Scans:
			sc.Rows = max(sc.Rows, p.Total)
		}
		return
	}
	t.Scans = append(t.Scans, Scan{Source: p.Source, Rows: p.Total, Scans: scan})
}

// addPage folds a connector's answer in as rows read from its source: a connector source is read through its
// requests, not through the runner's counted scans, so its pages are what it read (the engine's rows_scanned
// detail sums the same rows).
func (t *TraceView) addPage(p connevent.PageReturned) {
	rows := int64(p.Rows)
	t.RunReads += rows
	for i := range t.Scans {
		if t.Scans[i].Source == p.Source {
			t.Scans[i].Rows += rows
			return
		}
	}
	t.Scans = append(t.Scans, Scan{Source: p.Source, Rows: rows, Scans: 1})
}

// Native is one request a connector was sent, in its own dialect, with its sizes and the connector's caps on
// them (0: no cap).
type Native struct {
	Source, Text    string
	Bytes, MaxBytes float64
	InValues, MaxIn float64
	Limit, MaxRows  float64
}

// recentNatives is how many native requests the trace panel lists.
const recentNatives = 6

func (t *TraceView) addNative(p connevent.RequestSent) {
	if p.Native == "" {
		return
	}
	if len(t.Natives) == recentNatives {
		t.Natives = append(t.Natives[:0], t.Natives[1:]...)
	}
	t.Natives = append(t.Natives, Native{Source: p.Source, Text: p.Native, Bytes: float64(p.QueryBytes),
		MaxBytes: float64(p.MaxQueryBytes), InValues: float64(p.InValues), MaxIn: float64(p.MaxInValues),
		Limit: float64(p.Limit), MaxRows: float64(p.MaxRows)})
}

// KindList is the event kinds with their counts, most frequent first.
func (t *TraceView) KindList() []KindCount {
	var out []KindCount
	for k, n := range t.Kinds {
		out = append(out, KindCount{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// KindCount is one row of the trace panel's tally.
type KindCount struct {
	Kind string
	N    int64
}

// Describe renders an event as one line of text: its time, kind, operator and fields (by their json names, as
// the JSON-lines trace writes them).
func Describe(e trace.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", fmtDuration(e.At), e.Kind())
	if e.Op != "" {
		fmt.Fprintf(&b, " [%s]", e.Op)
	}
	fields := trace.Attrs(e.Payload)
	for _, k := range sortedNames(fields) {
		v := fmt.Sprint(fields[k])
		if len(v) > 60 {
			v = v[:57] + "…"
		}
		fmt.Fprintf(&b, " %s=%s", k, v)
	}
	return b.String()
}

// Bin is one Grace partition.
type Bin struct {
	// ID is the partition's id as the trace gives it ("3", or a sub-partition's "3.1"); Op the join it
	// belongs to, when a query has several.
	ID, Op                   string
	Rows, Bytes, Read, Pages float64
	Spilled                  bool
	Level                    int
}

// GraceSummary is the Grace view's picture: partitions as bins filling and spilling.
type GraceSummary struct {
	// Bins are the partitions in the order the trace first named them.
	Bins        []*Bin
	index       map[string]int // op + "\x00" + partition → position in Bins
	Levels      int
	HotKeys     []string
	HotKeyCount int64
	Pairs       int64
	Spills      int64
	Repartition int64
	// Small is a small run's rows by partition (small_rows.go), in the order the trace first listed them;
	// SmallCut says some partitions past maxSmallGroups were left out.
	Small      []*PartitionRows
	smallIndex map[string]int // op + "\x00" + partition → position in Small
	SmallCut   bool
}

func (g *GraceSummary) add(op string, p trace.Payload) {
	switch p := p.(type) {
	case joinevent.HotKey:
		g.Levels = max(g.Levels, p.Level)
		g.HotKeyCount++
		if k := p.Key; k != "" && len(g.HotKeys) < 8 && !slices.Contains(g.HotKeys, k) {
			g.HotKeys = append(g.HotKeys, k)
		}
	case joinevent.Repartition:
		g.Levels = max(g.Levels, p.Level)
		g.Repartition++
		if pr := g.smallPart(op, p.Partition); pr != nil {
			pr.Split = true
		}
	case joinevent.Spill:
		g.Levels = max(g.Levels, p.Level)
		g.Spills++
	case joinevent.PairJoined:
		g.Levels = max(g.Levels, p.Level)
		g.Pairs++
		if pr := g.smallPart(op, p.Partition); pr != nil {
			pr.Build, pr.Method = p.Build, p.Method
		}
	case joinevent.PartitionWritten:
		g.Levels = max(g.Levels, p.Level)
		if b := g.bin(op, p.Partition, p.Level); b != nil {
			b.Rows += float64(p.Rows)
			b.Bytes += float64(p.Bytes)
			b.Pages += float64(p.Pages)
			b.Spilled = true // a written partition is on the store
		}
	case joinevent.PartitionRead:
		g.Levels = max(g.Levels, p.Level)
		if b := g.bin(op, p.Partition, p.Level); b != nil {
			b.Read += float64(p.Rows)
		}
	}
}

// bin is the bin of partition id of the join op, at level, made when the trace first names it (nil for no id).
func (g *GraceSummary) bin(op, id string, level int) *Bin {
	if id == "" {
		return nil
	}
	key := op + "\x00" + id
	i, seen := g.index[key]
	switch {
	case seen:
	case len(g.Bins) < maxBins:
		i = len(g.Bins)
		g.index[key] = i
		g.Bins = append(g.Bins, &Bin{ID: id, Op: op})
	default:
		// Partitions past maxBins fold into the last bin, so the view keeps a bounded number of elements.
		i = len(g.Bins) - 1
		g.Bins[i].ID = "more"
	}
	b := g.Bins[i]
	b.Level = max(b.Level, level)
	return b
}

// maxBins bounds the partitions the Grace view draws (one element each).
const maxBins = 64

// TopPartitions counts the partitions of the first split (level 0), as the run's partitions detail does;
// the bins drawn add the sub-partitions of re-partitioning.
func (g *GraceSummary) TopPartitions() int {
	n := 0
	for _, b := range g.Bins {
		if b.Level == 0 && b.ID != "more" {
			n++
		}
	}
	return n
}

// MaxRows is the fullest bin's rows, for scaling.
func (g *GraceSummary) MaxRows() float64 {
	var m float64
	for _, b := range g.Bins {
		m = max(m, b.Rows)
	}
	return m
}

// SaltedSummary is the salted view's picture: per-worker load before and after salting, and heavy keys.
type SaltedSummary struct {
	Before, After map[int]float64
	// HeavyKeys are the first few heavy keys measured, HeavyCount all of them.
	HeavyKeys  []HeavyKey
	HeavyCount int64
	// Replicated is the extra copies the expansion made: each rows_replicated event's rows times its copies
	// less the one every row has anyway, summed (the run's rows_replicated detail). ReplicatedKeys counts
	// those events; with none, the trace says nothing of copies and the view does not draw the figure.
	Replicated     float64
	ReplicatedKeys int64
	Salts          int64
	Workers        int
	// Small is a small run's rows by worker (small_rows.go), in the order the trace listed them.
	Small []*WorkerRows
}

// HeavyKey is a measured heavy key with its rows on each side.
type HeavyKey struct {
	Key         string
	Left, Right float64
}

func (s *SaltedSummary) add(p trace.Payload) {
	switch p := p.(type) {
	case joinevent.HeavyKey:
		s.HeavyCount++
		if len(s.HeavyKeys) < 8 {
			s.HeavyKeys = append(s.HeavyKeys, HeavyKey{Key: p.Key, Left: float64(p.LeftRows), Right: float64(p.RightRows)})
		}
	case joinevent.SaltAssigned:
		s.Salts++
	case joinevent.RowsReplicated:
		s.ReplicatedKeys++
		if p.Copies > 1 {
			s.Replicated += float64(p.Rows) * float64(p.Copies-1)
		}
		s.Workers = max(s.Workers, p.Copies)
	case joinevent.WorkerLoad:
		if p.Worker < 0 || p.Worker >= maxBins {
			return
		}
		s.Workers = max(s.Workers, p.Worker+1)
		s.Before[p.Worker], s.After[p.Worker] = float64(p.LoadBefore), float64(p.LoadAfter)
	}
}

// Loads returns the per-worker loads before and after, index by worker, and the largest for scaling.
func (s *SaltedSummary) Loads() (before, after []float64, top float64) {
	n := 0
	for w := range s.Before {
		n = max(n, w+1)
	}
	for w := range s.After {
		n = max(n, w+1)
	}
	before, after = make([]float64, n), make([]float64, n)
	for w, v := range s.Before {
		before[w] = v
		top = max(top, v)
	}
	for w, v := range s.After {
		after[w] = v
		top = max(top, v)
	}
	return before, after, top
}

// SweepSummary is the interval view's picture: the sweep line's position, and the active set, the intervals
// expired and the overlaps emitted, each over the sweep's events (one every few rows swept and per output batch).
type SweepSummary struct {
	Position float64
	// ActiveMax is the largest combined active set (left and right) so far: the engine's running largest,
	// which each event carries since the events' own sizes, sampled, can miss the peak.
	ActiveMax float64
	// Active, ExpiredOver and OverlapsOver are sampled against the sweep event's index.
	Active, ExpiredOver, OverlapsOver Series
	// Expired and Overlaps are the totals so far over every sweep of the query.
	Expired, Overlaps float64
	Advances          int64
	// Pruned counts partitions or source ranges skipped because they cannot overlap the query's window.
	Pruned float64
	// A sweep reports running totals; a query with several sweeps restarts them: the totals of sweeps
	// finished are kept apart.
	doneExpired, doneOverlaps, lastExpired, lastOverlaps float64
}

func (s *SweepSummary) add(p joinevent.SweepAdvanced) {
	s.Advances++
	x := float64(s.Advances)
	s.Position = float64(p.Position)
	active := float64(p.ActiveLeft + p.ActiveRight)
	s.ActiveMax = max(s.ActiveMax, active)
	s.Active.Add(x, active)
	s.ActiveMax = max(s.ActiveMax, float64(p.ActiveMax))
	expired, overlaps := float64(p.Expired), float64(p.Overlaps)
	if expired < s.lastExpired || overlaps < s.lastOverlaps { // a new sweep
		s.doneExpired += s.lastExpired
		s.doneOverlaps += s.lastOverlaps
	}
	s.lastExpired, s.lastOverlaps = expired, overlaps
	s.Expired, s.Overlaps = s.doneExpired+expired, s.doneOverlaps+overlaps
	s.ExpiredOver.Add(x, s.Expired)
	s.OverlapsOver.Add(x, s.Overlaps)
}

// PagedSummary is the paged join's picture: pages along the build side, tie groups cut, filter slices.
type PagedSummary struct {
	Pages []Page
	// Requests counts requests sent to connectors; Thin the thin pages the join asked for, Wide the pages asked
	// at full width (the first page, by default), FromPage the re-fetches a wide page answered itself.
	Requests  int64
	Thin      int64
	Wide      int64
	FromPage  int64
	Throttled int64
	// TiesCut counts tie_group_cut events. Each names the page whose edge cut the group; the engine sends it
	// before that page's page_fetched, so a cut waits in cutPending until its page arrives.
	TiesCut    int64
	cutPending map[float64]string // page → the cut group's tuple
	// Emitted are the rows the join emitted per page, in order (its own rows_emitted events, each naming its
	// page; consecutive ones of a page merged), at most maxPages: page_rows.go lays a small run's rows out by them.
	Emitted   []PageEmit
	Slices    []Slice
	SliceCap  float64
	Refetches int64
	// Cursor is the last cursor the trace showed, as text.
	Cursor string
	// Sized counts the page sizes the join chose (page_sized), NextSize the latest; Windows the parts of thin
	// pages probed on their own before the first row; ProbeRows the probe rows the pages matched.
	Sized, Windows      int64
	NextSize, ProbeRows float64
	// NullKeyRows are the paged side's rows with a null key; ProbeScanned the probe rows the scan after the last
	// page read, Unmatched those of them no paged key matched (outer and anti joins).
	NullKeyRows, ProbeScanned, Unmatched float64
}

// Page is one build-side page: N is its number in the paged join's trace.
type Page struct {
	N                 float64
	Rows, Bytes, Keys float64
	Cursor            string
	Tie               bool
	// TieTuple is the cut tie group's sort tuple, as tie_group_cut names it.
	TieTuple string
}

// TieMarks counts the pages drawn as cutting a tie group.
func (p *PagedSummary) TieMarks() int64 {
	var n int64
	for _, pg := range p.Pages {
		if pg.Tie {
			n++
		}
	}
	return n
}

// Slice is one piece of a split dynamic filter, with its rendered size.
type Slice struct{ Bytes, Values float64 }

// maxPages bounds the pages the paged view draws.
const maxPages = 120

func (p *PagedSummary) add(e trace.Payload) {
	switch e := e.(type) {
	case joinevent.TieGroupCut:
		p.TiesCut++
		page := float64(e.Page)
		for i := range p.Pages {
			if p.Pages[i].N == page {
				p.Pages[i].Tie, p.Pages[i].TieTuple = true, e.Tuple
				return
			}
		}
		if p.cutPending == nil {
			p.cutPending = map[float64]string{}
		}
		p.cutPending[page] = e.Tuple
	case joinevent.FilterSplit:
		p.SliceCap = float64(e.MaxBytes)
		for i, b := range e.SliceBytes {
			if len(p.Slices) == maxPages {
				break
			}
			sl := Slice{Bytes: float64(b)}
			if i < len(e.SliceValues) {
				sl.Values = float64(e.SliceValues[i])
			}
			p.Slices = append(p.Slices, sl)
		}
	case joinevent.Refetched:
		p.setCursor(tupleText(e.WindowTo))
		p.Refetches++
		if e.FromPage {
			p.FromPage++
		}
	case joinevent.PageFetched:
		p.setCursor(tupleText(e.WindowTo))
		page := float64(e.Page)
		if len(p.Pages) < maxPages {
			pg := Page{N: page, Rows: float64(e.Rows), Bytes: float64(e.Bytes), Keys: float64(e.DistinctKeys),
				Cursor: tupleText(e.WindowTo)}
			if tuple, cut := p.cutPending[page]; cut {
				pg.Tie, pg.TieTuple = true, tuple
				delete(p.cutPending, page)
			}
			p.Pages = append(p.Pages, pg)
		}
	case joinevent.PageRequested:
		if e.Cursor != nil {
			p.setCursor(tupleText(e.Cursor))
		} else {
			p.setCursor(e.WindowTo)
		}
		if e.Phase == "window" { // the time-window baseline: each window is its page, never fetched thin
			if len(p.Pages) < maxPages {
				p.Pages = append(p.Pages, Page{N: float64(e.Page), Cursor: e.WindowTo})
			}
		}
		if e.Wide {
			p.Wide++
		} else {
			p.Thin++
		}
	case joinevent.PageSized:
		p.Sized++
		p.NextSize = float64(e.Size)
	case joinevent.ProbeResults:
		p.ProbeRows += float64(e.Rows)
	case joinevent.PageWindow:
		if e.Window > 0 {
			p.Windows++
		}
	case joinevent.NullKeyRows:
		p.NullKeyRows += float64(e.Rows)
	case joinevent.ProbeScanned:
		p.ProbeScanned += float64(e.Rows)
		p.Unmatched += float64(e.Unmatched)
	}
}

// setCursor keeps c as the last cursor the trace showed, unless it is empty.
func (p *PagedSummary) setCursor(c string) {
	if c != "" {
		p.Cursor = c
	}
}

// tupleText is a cursor or window edge as the paged view prints it, "[v1 v2]"; "" for none.
func tupleText(tuple []string) string {
	if tuple == nil {
		return ""
	}
	return fmt.Sprint(tuple)
}

// Series keeps a bounded number of (x, y) points: when full, it drops every other point, so a long run
// keeps its whole shape at a coarser grain.
type Series struct {
	X, Y []float64
}

// maxPoints bounds a sparkline's points: one every two units of the 200-wide charts. Each render sends
// every point again as text, so this also bounds what a chart costs a render.
const maxPoints = 100

// Add appends a point.
func (s *Series) Add(x, y float64) {
	if len(s.X) == maxPoints {
		for i := 0; i < maxPoints/2; i++ {
			s.X[i], s.Y[i] = s.X[2*i+1], s.Y[2*i+1]
		}
		s.X, s.Y = s.X[:maxPoints/2], s.Y[:maxPoints/2]
	}
	s.X, s.Y = append(s.X, x), append(s.Y, y)
}

// Polyline renders the series as SVG polyline points in a w×h box, y growing up, scaled to its largest y.
func (s *Series) Polyline(w, h float64) string {
	var y1 float64
	for _, y := range s.Y {
		y1 = max(y1, y)
	}
	return s.PolylineTop(w, h, y1)
}

// PolylineTop is Polyline with y1 at the box's top, so several series can share one scale.
func (s *Series) PolylineTop(w, h, y1 float64) string {
	if len(s.X) == 0 {
		return ""
	}
	x0, x1 := s.X[0], s.X[len(s.X)-1]
	b := make([]byte, 0, len(s.X)*12)
	for i := range s.X {
		px := 0.0
		if x1 > x0 {
			px = (s.X[i] - x0) / (x1 - x0) * w
		}
		py := h
		if y1 > 0 {
			py = h - s.Y[i]/y1*h
		}
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendFloat(b, px, 'f', 1, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, py, 'f', 1, 64)
	}
	return string(b)
}

func fmtDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}
