package ui

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/joinlab/joinlab/engine/trace"
)

// TraceView folds a run's trace events, as they arrive, into the small summaries the strategy views draw.
// Views render from these summaries, never from the raw events, so a render costs the same after a million
// events as after ten. Every attribute is optional: an event missing one is counted and otherwise skipped,
// so a strategy that emits less than its view hopes for shows less, and never breaks the page.
//
// The kinds the views look for are those the strategy issues name (partition written/read, hot key, heavy
// key, per-worker load, sweep position, page requested/returned, filter split, …); matching is by words in
// the kind, so "partition_written" and "partition_write" both feed the Grace view.
type TraceView struct {
	Events  int64
	Dropped int64
	// Kinds counts events per kind.
	Kinds map[string]int64
	// Recent are the last few events, newest last, for the trace panel.
	Recent []trace.Event
	// LastAt is the latest event time seen (virtual time where the engine keeps it).
	LastAt time.Duration
	// Chosen is the strategy a strategy_chose event named.
	Chosen, ChosenWhy string
	// MemoryHigh is the highest memory_high event.
	MemoryHigh int64

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

	Grace  GraceSummary
	Salted SaltedSummary
	Sweep  SweepSummary
	Paged  PagedSummary
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

// Add folds one event in.
func (t *TraceView) Add(e trace.Event) {
	t.Events++
	kind := string(e.Kind)
	t.Kinds[kind]++
	t.LastAt = max(t.LastAt, e.At)
	if len(t.Recent) == recentEvents {
		copy(t.Recent, t.Recent[1:])
		t.Recent = t.Recent[:recentEvents-1]
	}
	t.Recent = append(t.Recent, e)
	a := e.Attrs
	switch {
	case kind == string(trace.StrategyChose):
		t.Chosen, t.ChosenWhy = str(a, "strategy"), str(a, "reason")
		return
	case kind == string(trace.MemoryHigh):
		if b, ok := num(a, "bytes"); ok {
			t.MemoryHigh = max(t.MemoryHigh, int64(b))
			t.MemoryOver.Add(t.ms(), float64(t.MemoryHigh))
		}
		return
	case kind == "scan_rows":
		t.addScan(a)
		return
	case kind == string(trace.RowsEmitted) && e.Op == "output":
		if n, ok := num(a, "total"); ok {
			t.Output = int64(n)
			t.OutputSeries.Add(float64(t.Events), n)
			t.RowsOver.Add(t.ms(), n)
		}
		return
	}
	words := strings.FieldsFunc(kind, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	has := func(w string) bool {
		return slices.ContainsFunc(words, func(x string) bool { return strings.HasPrefix(x, w) })
	}
	if has("request") && has("sent") {
		t.addNative(a)
		t.Requests++
		t.RequestsOver.Add(t.ms(), float64(t.Requests))
	}
	switch {
	case has("prune"):
		n, _ := num(a, "pruned")
		t.Sweep.Pruned += n
	case has("partition") || has("spill") || has("repartition") || has("hot") || has("pair"):
		t.Grace.add(has, e.Op, a)
	case has("heavy") || has("salt") || has("worker") || has("replicat"):
		t.Salted.add(has, a)
	case has("sweep") || has("active") || has("expir") || has("overlap"):
		t.Sweep.add(has, a, e.At)
	case has("page") || has("filter") || has("tie") || has("refetch") || has("cursor") || has("probe") ||
		has("request") || has("throttl") || has("retr"):
		t.Paged.add(has, a)
	}
}

// ms is the trace's time so far in milliseconds, the x of the Over series.
func (t *TraceView) ms() float64 { return float64(t.LastAt) / float64(time.Millisecond) }

// addScan follows a source's reading. Reads while planning (a strategy measuring its input) are tallied
// apart, so the build and probe bars show the run; a source read again (a nested loop's inner side) shows
// its latest pass.
func (t *TraceView) addScan(a map[string]any) {
	name := str(a, "source")
	total, _ := num(a, "total")
	scan, _ := num(a, "scan")
	rows, _ := num(a, "rows")
	if str(a, "phase") == "plan" {
		t.PlanReads += int64(rows)
		return
	}
	t.RunReads += int64(rows)
	for i := range t.Scans {
		sc := &t.Scans[i]
		if sc.Source != name {
			continue
		}
		switch {
		case int64(scan) > sc.Scans:
			sc.Scans, sc.Rows = int64(scan), int64(total)
		case int64(scan) == sc.Scans:
			sc.Rows = max(sc.Rows, int64(total))
		}
		return
	}
	t.Scans = append(t.Scans, Scan{Source: name, Rows: int64(total), Scans: int64(scan)})
}

// Native is one request a connector was sent, in its own dialect, with its sizes and the connector's caps on
// them (0: the event carries no cap).
type Native struct {
	Source, Text    string
	Bytes, MaxBytes float64
	InValues, MaxIn float64
	Limit, MaxRows  float64
}

// recentNatives is how many native requests the trace panel lists.
const recentNatives = 6

func (t *TraceView) addNative(a map[string]any) {
	text := str(a, "native")
	if text == "" {
		return
	}
	bytes, ok := num(a, "query_bytes")
	if !ok {
		bytes = float64(len(text))
	}
	if len(t.Natives) == recentNatives {
		t.Natives = append(t.Natives[:0], t.Natives[1:]...)
	}
	n := Native{Source: str(a, "source", "table"), Text: text, Bytes: bytes}
	n.MaxBytes, _ = num(a, "max_query_bytes")
	n.InValues, _ = num(a, "in_values")
	n.MaxIn, _ = num(a, "max_in_values")
	n.Limit, _ = num(a, "limit")
	n.MaxRows, _ = num(a, "max_rows")
	t.Natives = append(t.Natives, n)
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

// Describe renders an event as one line of text.
func Describe(e trace.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", fmtDuration(e.At), e.Kind)
	if e.Op != "" {
		fmt.Fprintf(&b, " [%s]", e.Op)
	}
	keys := make([]string, 0, len(e.Attrs))
	for k := range e.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := fmt.Sprint(e.Attrs[k])
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
	Pairs       int64
	Spills      int64
	Repartition int64
}

func (g *GraceSummary) add(has func(string) bool, op string, a map[string]any) {
	if has("hot") {
		if k := str(a, "key"); k != "" && len(g.HotKeys) < 8 && !slices.Contains(g.HotKeys, k) {
			g.HotKeys = append(g.HotKeys, k)
		}
		return
	}
	level, _ := num(a, "level")
	g.Levels = max(g.Levels, int(level))
	if has("repartition") {
		g.Repartition++
	}
	if has("spill") {
		g.Spills++
	}
	if has("pair") {
		g.Pairs++
		return
	}
	id := str(a, "partition", "part")
	if id == "" {
		return
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
	b.Level = max(b.Level, int(level))
	rows, _ := num(a, "rows")
	bytes, _ := num(a, "bytes")
	pages, _ := num(a, "pages")
	switch {
	case has("read"):
		b.Read += rows
	default:
		b.Rows += rows
		b.Bytes += bytes
		b.Pages += pages
	}
	if has("spill") || has("written") || has("write") {
		b.Spilled = true
	}
}

// maxBins bounds the partitions the Grace view draws (one element each).
const maxBins = 64

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
	HeavyKeys     []HeavyKey
	Replicated    float64
	Salts         int64
	Workers       int
}

// HeavyKey is a measured heavy key.
type HeavyKey struct {
	Key   string
	Count float64
}

func (s *SaltedSummary) add(has func(string) bool, a map[string]any) {
	switch {
	case has("heavy"):
		if len(s.HeavyKeys) < 8 {
			c, ok := num(a, "count", "rows")
			if !ok {
				l, _ := num(a, "left_rows")
				r, _ := num(a, "right_rows")
				c = l + r
			}
			s.HeavyKeys = append(s.HeavyKeys, HeavyKey{Key: str(a, "key"), Count: c})
		}
	case has("replicat"):
		n, _ := num(a, "rows", "count")
		s.Replicated += n
	case has("salt"):
		s.Salts++
	}
	if w, ok := num(a, "workers", "w", "copies"); ok {
		s.Workers = max(s.Workers, int(w))
	}
	// Load comes either as one worker's figure with a phase, or as whole arrays before and after.
	for key, into := range map[string]map[int]float64{"before": s.Before, "after": s.After} {
		if arr, ok := a[key].([]any); ok {
			for i, v := range arr {
				if f, ok := toFloat(v); ok && i < maxBins {
					into[i] = f
				}
			}
		}
	}
	if w, ok := num(a, "worker"); ok && int(w) < maxBins {
		before, hasBefore := num(a, "load_before", "rows_before")
		after, hasAfter := num(a, "load_after", "rows_after")
		if hasBefore || hasAfter {
			s.Before[int(w)], s.After[int(w)] = before, after
		} else if load, ok := num(a, "load", "rows", "pairs"); ok {
			if str(a, "phase", "when") == "before" {
				s.Before[int(w)] = load
			} else {
				s.After[int(w)] = load
			}
		}
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

// SweepSummary is the interval view's picture: the sweep line's position and the active set over time.
type SweepSummary struct {
	Position  float64
	ActiveMax float64
	Active    Series
	Expired   float64
	Overlaps  float64
	Advances  int64
	// Pruned counts partitions or source ranges skipped because they cannot overlap the query's window.
	Pruned float64
}

func (s *SweepSummary) add(has func(string) bool, a map[string]any, at time.Duration) {
	if p, ok := num(a, "position", "pos", "time", "at"); ok {
		s.Position = p
	}
	active, ok := num(a, "active", "active_set", "size")
	if l, okl := num(a, "active_left"); okl {
		r, _ := num(a, "active_right")
		active, ok = l+r, true
	}
	if ok {
		s.ActiveMax = max(s.ActiveMax, active)
		s.Active.Add(float64(s.Advances), active)
	}
	// The sweep join reports running totals on each advance; other emitters may send one event per expiry.
	if n, ok := num(a, "expired"); ok && !has("expir") {
		s.Expired = max(s.Expired, n)
	}
	if n, ok := num(a, "overlaps"); ok && !has("overlap") {
		s.Overlaps = max(s.Overlaps, n)
	}
	switch {
	case has("expir"):
		n, ok := num(a, "count", "rows", "expired")
		if !ok {
			n = 1
		}
		s.Expired += n
	case has("overlap"):
		n, ok := num(a, "count", "rows", "overlaps")
		if !ok {
			n = 1
		}
		s.Overlaps += n
	default:
		s.Advances++
	}
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
	TiesCut   int64
	Slices    []Slice
	SliceCap  float64
	Refetches int64
	// Cursor is the last cursor the trace showed, as text.
	Cursor string
}

// Page is one build-side page.
type Page struct {
	Rows, Bytes, Keys float64
	Cursor            string
	Tie               bool
}

// Slice is one piece of a split dynamic filter, with its rendered size.
type Slice struct{ Bytes, Values float64 }

// maxPages bounds the pages the paged view draws.
const maxPages = 120

func (p *PagedSummary) add(has func(string) bool, a map[string]any) {
	if c := str(a, "cursor", "window_to"); c != "" {
		p.Cursor = c
	}
	switch {
	case has("tie"):
		p.TiesCut++
		if n := len(p.Pages); n > 0 {
			p.Pages[n-1].Tie = true
		}
	case has("split") || has("filter"):
		if c, ok := num(a, "max_bytes", "cap", "cap_bytes"); ok {
			p.SliceCap = c
		}
		if sizes, ok := firstArray(a, "slice_bytes", "sizes"); ok {
			for _, v := range sizes {
				if f, ok := toFloat(v); ok && len(p.Slices) < maxPages {
					p.Slices = append(p.Slices, Slice{Bytes: f})
				}
			}
		} else if b, ok := num(a, "bytes"); ok && len(p.Slices) < maxPages {
			v, _ := num(a, "values", "keys")
			p.Slices = append(p.Slices, Slice{Bytes: b, Values: v})
		}
	case has("refetch"):
		p.Refetches++
		if b, _ := a["from_page"].(bool); b {
			p.FromPage++
		}
	case has("throttl") || has("retr"):
		p.Throttled++
	case has("page") && has("fetched"): // a build-side thin page; a connector's page_returned is any response
		rows, _ := num(a, "rows")
		bytes, _ := num(a, "bytes")
		keys, _ := num(a, "keys", "distinct_keys")
		if len(p.Pages) < maxPages {
			p.Pages = append(p.Pages, Page{Rows: rows, Bytes: bytes, Keys: keys, Cursor: str(a, "cursor")})
		}
	case has("request") && has("sent"):
		p.Requests++
	case has("page") && has("requested"):
		if b, _ := a["wide"].(bool); b {
			p.Wide++
		} else {
			p.Thin++
		}
	}
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

// Polyline renders the series as SVG polyline points in a w×h box, y growing up.
func (s *Series) Polyline(w, h float64) string {
	if len(s.X) == 0 {
		return ""
	}
	x0, x1 := s.X[0], s.X[len(s.X)-1]
	var y1 float64
	for _, y := range s.Y {
		y1 = max(y1, y)
	}
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

func firstArray(a map[string]any, keys ...string) ([]any, bool) {
	for _, k := range keys {
		if v, ok := a[k].([]any); ok {
			return v, true
		}
	}
	return nil, false
}

func str(a map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := a[k].(type) {
		case string:
			return v
		case nil:
		default:
			return fmt.Sprint(v)
		}
	}
	return ""
}

// num returns the first of keys that holds a number.
func num(a map[string]any, keys ...string) (float64, bool) {
	for _, k := range keys {
		if f, ok := toFloat(a[k]); ok {
			return f, true
		}
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case float32:
		return float64(v), true
	case int32:
		return float64(v), true
	case uint64:
		return float64(v), true
	}
	return 0, false
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
