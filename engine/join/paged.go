package join

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/dynfilter"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// Paged is the paged federated join: it joins a side too large to fetch in one request (or to hold) with a
// side behind another connector, page by page, in the output's sort order, holding one page at a time.
//
// The paged side (the document's "build" side) is read in thin keyset pages: only the cursor columns — the
// sort column and the join key — ordered by (sort column, join key), `tuple > cursor`, at most page_size rows.
// The join key is the cursor's tiebreaker, so the cursor walks through a tie group instead of stopping in it or
// skipping it. For each page:
//
//	thin ──► probe ──► refetch ──► emit ──► thin … ──► (block dry) ──► next block ──► … ──► probe scan ──► done
//	  ▲                                │
//	  └──── null-key rows due ◄────────┘  (the paged side's outer and anti kinds)
//
//	thin     page_size+1 thin rows, one request (per null phase whose rows in hand ran dry: see
//	         paged_phasemerge.go); the extra row only says whether the page is the last
//	         (short) and whether the page edge cuts a tie group; it is not part of the page
//	probe    the page's distinct keys go to the probe connector as a dynamic filter, split into the fewest IN
//	         lists that fit its caps (engine/dynfilter); the slices' rows are unioned
//	refetch  the paged side's full-width rows with `tuple in (cursor, last]` — the upper bound inclusive, so
//	         every twin of the last tuple comes back — and `key in matched`, with no row limit (paged by the
//	         table's tie-free key if the answer is larger than a response)
//	emit     the page's rows joined (an in-memory hash join holding the probe rows, streaming the re-fetched
//	         rows in order), streamed to the consumer; then cursor = the page's last tuple
//
// Output order: the sort columns (each its direction; nulls where the query puts them), then the join key, then the
// table's key, each paged row's matches in the probe table's key order. Because the windows (cursor, last]
// tile the order, every finished page extends a prefix of the final result: rows are certain as soon as they
// are emitted, and a consumer that stops pulling (take N) stops the join — no further request is sent.
//
// Nulls: a row whose join key is null never matches, so thin pages ask `isnotnull(key)`; when the kind outputs
// the paged side's unmatched rows (its outer or anti join) the null-key rows are read apart and merged into the
// output in order, and when it outputs the probe side's, those come from a scan of the probe side after the
// last page (see paged_unmatched.go). Sort columns may hold nulls, at any position, first or last as each
// column's order says: the rows are read in one phase per null pattern of the sort columns (a null column is
// constant in its phase, so the phase's keyset compares only its non-null columns), and the phases' streams
// are merged by the full order; a page's rows may come from several phases, each window's re-fetch asks each
// phase present in it for its own range (see paged_phasemerge.go).
//
// The first page is wide: it is small, so it is read at full width (every column the query reads, in the
// re-fetch's order) and its windows' re-fetches are answered from it, without a request — the first rows
// arrive after two round trips, not three, for a few KB more. It serves only when it holds every row of its
// last tuple (the look past the edge has another tuple, or the page is short); otherwise its windows are
// re-fetched like any page's. PagedConfig.ThinFirst (hint.first_page=thin) reads it thin, and so does
// FixedPage (hint.page_rows: every page the same).
//
// Page size is adaptive (see sizeNext): a small first page for time to first row, then pages sized from what earlier pages showed — output rows per thin row against the rows still
// wanted, distinct keys per row against the probe's IN capacity, bytes per row against the response caps and
// the memory budget — each decision traced with its reason.
//
// Conditions the connectors cannot compute (Remote.Engine) are applied by the engine as a where under the join:
// every phase's thin requests also carry the columns they read, rows that fail advance their phase's cursor but
// their keys are not probed, and re-fetched rows, of every phase, are checked again (see paged_enginecond.go).
//
// Concurrency: the requests of one step that do not depend on each other — a window's probe slices, its
// re-fetch slices, the slices of a continuation split again — overlap, up to the connector's Caps.Concurrent,
// through connector.Overlap: on a virtual clock each costs its own latency from its own start, the step the
// longest of them rather than their sum, and a seed still gives the same trace. Their answers are used in
// slice order, so the output is the one a sequential run (PagedConfig.Sequential) gives. The steps themselves
// stay in order: a probe needs the thin page's keys, a re-fetch the probe's matches, a thin page the last
// page's cursor and statistics.
//
// Memory: one thin page, its probe rows and its re-fetched rows, plus the hash table over the probe rows; all
// accounted against the budget and released when the page is emitted. Cost: per page one thin request, ⌈keys /
// slice⌉ probe requests and ⌈matched / slice⌉ re-fetch requests (more when an answer exceeds a response);
// a page whose keys match nothing costs no re-fetch (for inner and semi kinds; an outer join on the paged side
// re-fetches every row of the window's keys, an anti join the rows of the keys that matched nothing). The probe
// side's outer and anti kinds also hold the set of matched keys until the end (see noteMatched).
type Paged struct {
	spec    *Spec
	cfg     PagedConfig
	paged   *fetcher
	probe   *fetcher
	budget  *memory.Budget
	sink    trace.Sink
	details *trace.Details
	op      string

	sortCol  string       // the first sort column; "" when the order is the join key alone
	sortCols []SortColumn // the order before the join key (the key itself left out)
	keyCol   string       // the paged side's join key column
	phases   []nullPhase  // the null patterns of the sort columns, in output order (see nullPhases)
	state    pagedState
	cursor   []column.Value // the sort values and key of the last row in a window joined (for the trace)
	size     int
	page     int
	emitted  int64
	held     int64
	hash     *Hash
	lastRate pageRates
	sizes    []int

	// The thin page in hand, while its windows go through probe and refetch one after another.
	thin         *column.Batch
	thinCols     []string
	thinUse      int // the page's rows, without the look past the edge
	thinPos      int // the first row not yet in a window
	thinShort    bool
	thinHeld     int64
	windowOfPage int
	windowKeys   int             // keys of the next window while no row is out (0: pages are not cut into windows)
	heavy        map[string]bool // probe keys seen filling much of a full response (see noteHeavy)
	sample       map[string]int  // matches per key in the last dropped full probe response, until the next window
	sampleEnd    int             // the end of the window whose response that was
	wide         bool            // the page in hand is full width and whole: its windows need no re-fetch (see fetchThin)
	thinPass     []bool          // which of the page's rows pass the paged side's engine conditions (nil: it has none)
	thinTuples   []tupleVerdict  // per row, what those conditions say of its tuple (nil: none; see checkThinPage)

	// The phases in blocks whose rows interleave (see phaseBlocks), the block being paged, and per phase its
	// thin rows in hand and its cursors (see paged_phasemerge.go); thinPhase is each row's phase in the page,
	// nil when its rows are all of phase thinOnly.
	blocks    [][2]int
	block     int
	streams   []phaseStream
	thinPhase []int
	thinOnly  int

	// What the kind asks of the paged side's rows and of the probe side's (see Kind.sides).
	pagedWants, probeWants side
	// perWindow says a window's join outputs rows: false when only the probe side's unmatched rows are output
	// (its anti join), for which a window only adds its keys to matchedKeys.
	perWindow bool
	// afterEmit is the state to return to once the join in hand is emitted.
	afterEmit pagedState
	// ready are output batches due before the join's next (null-key rows); cuts, when the window's paged rows
	// have null-key rows among them, stream those rows to the join (see cutAtNullKeys).
	ready []*column.Batch
	cuts  *cutRows
	// nulls are the paged side's rows with a null key, per phase, when its unmatched rows are output (see
	// nullKeyStream); nullBlock is the block they are read in (never past the main stream's).
	nulls     []nullKeyStream
	nullBlock int
	// nullKeysFirst: the order ends with the join key, nulls first, so a null key goes before its tie group's
	// other keys (otherwise after them).
	nullKeysFirst bool
	// matchedKeys are the keys (connector.Literal) that exclude a probe row from the unmatched ones, when those
	// are output (nil otherwise): every key that found probe rows so far, or, when windows probe nothing (the
	// probe side's anti join), every key of the paged side so far. The scan after the last page outputs the
	// probe rows whose key is null or not here (see nextUnmatchedProbe). Accounted (matchedHeld).
	matchedKeys map[string]bool
	matchedHeld int64
	scanCursor  []column.Value // the probe scan's keyset: the last row read (nil: from the start)
	scanDone    bool
}

// PagedConfig is what the planner tells a paged join beyond the spec.
type PagedConfig struct {
	// PagedLeft says the left side is the one paged; otherwise the right is.
	PagedLeft bool
	// Sort is the order the output must follow: columns of the paged side, each with its direction and nulls;
	// the join key may only come last (it is the cursor's tiebreaker). Empty: the paged table's natural order
	// (its key's first column, unless that is the join key).
	Sort []SortColumn
	// Limit is how many output rows the consumer wants (take N above the join), or -1 for all.
	Limit int64
	// FirstPage is the first page's rows (0: firstPageRows); MaxPage bounds every page (0: the caps).
	FirstPage, MaxPage int
	// FixedPage keeps every page at FirstPage rows (a test knob: page size 1 throughout).
	FixedPage bool
	// ThinFirst reads the first page thin like the others; by default it is read at full width (see Paged),
	// unless FixedPage.
	ThinFirst bool
	// Sequential sends one request at a time. By default a window's filter slices (its probe requests, and
	// its re-fetch requests) overlap up to each connector's Caps.Concurrent (see Paged); sequential runs are
	// for comparison, and give the same rows in the same order.
	Sequential bool
	// Op names the operator in trace events (default "paged").
	Op string
	// Window is the time window of the timewindow baseline (0: defaultTimeWindow).
	Window time.Duration
}

// SortColumn is one sort key of the paged side.
type SortColumn struct {
	Column     string
	Desc       bool
	NullsFirst bool
}

// The paged join's trace events (PageSized, PageRequested, PageFetched, TieGroupCut, FilterSplit, ProbeResults,
// Refetched, PageWindow, and the unmatched rows' NullKeyRows and ProbeScanned) are declared in
// engine/join/joinevent; each connector request also emits the connector's events (connevent.RequestSent… with a
// Purpose: wide, thin, probe, refetch), and each batch out a trace.KindRowsEmitted.

// Detail keys of the paged join.
const (
	DetailPages         = "pages"
	DetailPageSizes     = "page_sizes"
	DetailFilterSlices  = "filter_slices"
	DetailRefetchRows   = "refetch_rows"
	DetailTieGroupsCut  = "tie_groups_cut"
	DetailPagedStrategy = "paged_strategy"
	// DetailEngineDropped counts the thin rows the paged side's engine conditions dropped (paged_enginecond.go).
	DetailEngineDropped = "engine_dropped"
)

// firstPageRows is the first thin page: small, so the thin scan, the probe and the re-fetch each carry little
// and the first rows reach the user after three short round trips.
const firstPageRows = 64

// pageGrowth is the most one page grows over the last when the statistics ask for more (or say nothing): fast
// enough to reach the caps in a few pages, slow enough that one page's noise cannot overshoot by much.
const pageGrowth = 4

// yieldHeadroom over-asks the rows the observed yield says will complete take N, so a slightly worse next page
// still finishes it in one round.
const yieldHeadroom = 1.5

// maxSlicesPerPage bounds the probe requests one page may need: the page's expected distinct keys are kept
// within this many full IN lists of the probe connector.
const maxSlicesPerPage = 8

// pageMemoryShare is the share of the memory budget one page's re-fetched rows may be planned to take: the
// rest is for the probe rows, the hash table and the estimate being low.
const pageMemoryShare = 0.25

// firstWindowKeys and windowGrowth cut thin pages into windows while no row is out and the probe overflows a
// response: one key, then four times the keys of the last window.
const (
	firstWindowKeys = 1
	windowGrowth    = 4
)

type pagedState int

const (
	pagedNext      pagedState = iota // emit the null-key rows now due, or fetch the next page (or move to the next phase)
	pagedEmit                        // stream the join in hand (a window's, null-key rows', or unmatched probe rows'), then afterEmit
	pagedProbeScan                   // after the last page: scan the probe side for its unmatched rows
	pagedDone
)

// pageRates are what the pages so far showed, per thin row.
type pageRates struct {
	thinRows, thinBytes, keys, refetchRows, refetchBytes, outRows int64
}

// PagedKinds are the join kinds a paged join serves when the given side is paged. Each page's rows are joined
// with the probe rows of that page's keys, so a kind is served when its output is decided one of three ways:
//
//   - by a page's own rows and their matches (inner, the paged side's semi join, and innerunique when the
//     right side is paged, since then the left side it deduplicates is the probe, whose rows of one key all
//     come with that key);
//   - by that too, plus the paged side's rows that match nothing (the paged side's outer and anti kinds): a
//     window's unmatched rows are null-extended (outer) or kept (anti) in its own output, and the rows whose
//     key is null, which never match, are read apart and merged into the output in order (see nullKeyStream);
//   - by the whole paged side's keys (the probe side's outer and anti kinds, and fullouter): the keys that
//     found probe rows are kept across pages, and after the last page the probe side is scanned once for its
//     rows whose key is null or not among them, emitted last (see nextUnmatchedProbe).
//
// Not served: innerunique with the left side paged (the first row of a key may come pages after its others)
// and the probe side's semi join (a probe row is output once, but its key may match in many pages).
func PagedKinds(pagedLeft bool) []Kind {
	if pagedLeft {
		return []Kind{Inner, LeftSemi, LeftOuter, LeftAnti, RightOuter, FullOuter, RightAnti}
	}
	return []Kind{InnerUnique, Inner, RightSemi, RightOuter, RightAnti, LeftOuter, FullOuter, LeftAnti}
}

// BaselineKinds are the kinds the paged join's baselines serve: those decided by a page's own rows and their
// matches. The baselines page only rows with a non-null key and keep no keys across pages.
func BaselineKinds(pagedLeft bool) []Kind {
	if pagedLeft {
		return []Kind{Inner, LeftSemi}
	}
	return []Kind{InnerUnique, Inner, RightSemi}
}

// pagedSides is what kind asks of the paged side's rows and of the probe side's.
func pagedSides(kind Kind, pagedLeft bool) (paged, probe side) {
	l, r := kind.sides()
	if pagedLeft {
		return l, r
	}
	return r, l
}

// keepsUnmatched reports whether a side's rows that match nothing are output (outer or anti).
func (s side) keepsUnmatched() bool { return s.unmatched || s.anti }

// CheckPagedSort says why a paged join of kind cannot produce the order sort: a kind that outputs the probe
// side's unmatched rows emits them after the last page, with every paged column null, so the order must put
// nulls last in every sort column. nil: it can.
func CheckPagedSort(kind Kind, pagedLeft bool, sort []SortColumn) error {
	if _, probe := pagedSides(kind, pagedLeft); !probe.keepsUnmatched() {
		return nil
	}
	for _, s := range sort {
		if s.NullsFirst {
			return fmt.Errorf("kind %s emits the probe side's unmatched rows (null in %s) after the last page, "+
				"but the order puts nulls of %s first", kind, s.Column, s.Column)
		}
	}
	return nil
}

// NewPaged makes a paged join under spec, paging one remote and probing the other.
func NewPaged(spec *Spec, left, right *Remote, cfg PagedConfig, env *exec.Env) (*Paged, error) {
	served := false
	for _, k := range PagedKinds(cfg.PagedLeft) {
		served = served || k == spec.Kind
	}
	side := "right"
	if cfg.PagedLeft {
		side = "left"
	}
	if !served {
		return nil, fmt.Errorf("paged join: kind %s is not served with the %s side paged (served: %v)", spec.Kind, side, PagedKinds(cfg.PagedLeft))
	}
	if len(spec.LeftKeys) != 1 {
		return nil, fmt.Errorf("paged join: needs exactly one key pair, has %d", len(spec.LeftKeys))
	}
	paged, probe := left, right
	if !cfg.PagedLeft {
		paged, probe = right, left
	}
	for _, r := range []*Remote{paged, probe} {
		if err := r.checkEngine(); err != nil {
			return nil, fmt.Errorf("paged join: %w", err)
		}
	}
	if cfg.Op == "" {
		cfg.Op = "paged"
	}
	p := &Paged{spec: spec, cfg: cfg, budget: env.Budget, sink: env.Trace, details: env.Details, op: cfg.Op,
		paged: newFetcher(paged, cfg.Op, env.Trace, env.Details), probe: newFetcher(probe, cfg.Op, env.Trace, env.Details)}
	p.paged.sequential, p.probe.sequential = cfg.Sequential, cfg.Sequential
	p.keyCol = paged.keyColumn()
	if len(cfg.Sort) == 0 {
		for _, k := range paged.Info.Key {
			if k.Column != p.keyCol {
				p.cfg.Sort = []SortColumn{{Column: k.Column, Desc: k.Desc}}
			}
			break
		}
	}
	for i, s := range p.cfg.Sort {
		if s.Column == p.keyCol {
			p.nullKeysFirst = s.NullsFirst
			if i != len(p.cfg.Sort)-1 {
				return nil, fmt.Errorf("paged join: the join key %s may only be the last sort column (it is the cursor's tiebreaker)", s.Column)
			}
			break
		}
		for _, o := range p.sortCols {
			if o.Column == s.Column {
				return nil, fmt.Errorf("paged join: sort column %s appears twice", s.Column)
			}
		}
		if paged.Info.Schema.Index(s.Column) < 0 {
			return nil, fmt.Errorf("paged join: sort column %s is not a column of %s", s.Column, paged.Info.Name)
		}
		p.sortCols = append(p.sortCols, s)
	}
	if len(p.sortCols) > 0 {
		p.sortCol = p.sortCols[0].Column
	}
	nullable := make([]bool, len(p.sortCols))
	var nullableCols []string
	for i, s := range p.sortCols {
		nullable[i] = indexOfName(paged.Info.NeverNull, s.Column) < 0
		if nullable[i] {
			nullableCols = append(nullableCols, s.Column)
		}
	}
	if len(nullableCols) > MaxNullableSortColumns {
		return nil, fmt.Errorf("paged join: the sort columns %v may hold nulls (%s does not declare them never null): at most %d are paged, "+
			"since each doubles the null phases", nullableCols, paged.Info.Name, MaxNullableSortColumns)
	}
	p.phases = nullPhases(p.sortCols, nullable)
	p.blocks = phaseBlocks(p.phases)
	p.streams = make([]phaseStream, len(p.phases))
	p.nulls = make([]nullKeyStream, len(p.phases))
	if err := CheckPagedSort(spec.Kind, cfg.PagedLeft, p.cfg.Sort); err != nil {
		return nil, fmt.Errorf("paged join: %w", err)
	}
	p.pagedWants, p.probeWants = pagedSides(spec.Kind, cfg.PagedLeft)
	p.perWindow = p.pagedWants.output || p.probeWants.pairs
	if p.probeWants.keepsUnmatched() {
		p.matchedKeys = map[string]bool{}
	}
	return p, nil
}

// MaxNullableSortColumns bounds the sort columns that may hold nulls in a sort the paged join follows: the
// rows are paged in one phase per null pattern of those columns (2^n phases, each at least one request when it
// is reached, and the phases of a block all read before its first row: see paged_phasemerge.go), so a long
// sort would spend its requests proving phases empty. Four are 16 phases, 8 in the first block (the first
// column not null). Columns the source declares never null add no phase, so they are not counted: the sort
// may have any number of them.
const MaxNullableSortColumns = 4

// nullPhase says, per sort column, whether the phase pages the rows where that column is null. Within a phase
// the null columns are constant, so its cursor is the tuple of its non-null sort columns and the join key, a
// keyset no source has to compare with null. A later column's nulls fall inside the tie groups of the earlier
// columns, so the phases do not simply follow one another: their streams are merged by the full order (see
// paged_phasemerge.go).
type nullPhase []bool

// nullPhases lists the null patterns of cols in the output's order: lexicographic, the first column the most
// significant, each column's null side first or last as its NullsFirst says. A column that is not nullable (the
// source says it is never null: connector.TableInfo.NeverNull) has no null side, so no request is spent proving it
// empty. With no sort column there is one phase, over the key alone.
func nullPhases(cols []SortColumn, nullable []bool) []nullPhase {
	phases := []nullPhase{{}}
	for i := len(cols) - 1; i >= 0; i-- {
		order := []bool{false, true}
		switch {
		case !nullable[i]:
			order = []bool{false}
		case cols[i].NullsFirst:
			order = []bool{true, false}
		}
		var next []nullPhase
		for _, null := range order {
			for _, rest := range phases {
				next = append(next, append(nullPhase{null}, rest...))
			}
		}
		phases = next
	}
	return phases
}

// anyNull reports whether the phase pages rows with a null sort column.
func (ph nullPhase) anyNull() bool {
	for _, n := range ph {
		if n {
			return true
		}
	}
	return false
}

func (p *Paged) Schema() column.Schema { return p.spec.Schema }

func (p *Paged) Next(ctx context.Context) (*column.Batch, error) {
	for {
		switch p.state {
		case pagedNext:
			if p.cfg.Limit >= 0 && p.emitted >= p.cfg.Limit {
				p.finish()
				continue
			}
			if p.pagedWants.keepsUnmatched() {
				due, err := p.nextNullKeys(ctx)
				if err != nil {
					p.release()
					p.dropThin()
					return nil, fmt.Errorf("paged join: rows with a null key: %w", err)
				}
				if due {
					continue
				}
			}
			if p.block >= len(p.blocks) {
				if p.probeWants.keepsUnmatched() {
					p.state = pagedProbeScan
					continue
				}
				p.finish()
				continue
			}
			if err := p.nextPage(ctx); err != nil {
				p.release()
				p.dropThin()
				return nil, fmt.Errorf("paged join: page %d: %w", p.page, err)
			}
		case pagedEmit:
			var b *column.Batch
			if len(p.ready) > 0 {
				b, p.ready = p.ready[0], p.ready[1:]
			} else {
				var err error
				if p.hash != nil {
					b, err = p.hash.Next(ctx)
				}
				if err == nil && p.cuts != nil {
					err = p.readyCuts(ctx, b)
					if err == nil && len(p.ready) > 0 {
						if b != nil {
							p.ready = append(p.ready, b)
						}
						continue
					}
				}
				if err != nil {
					p.release()
					p.dropThin()
					return nil, fmt.Errorf("paged join: page %d: %w", p.page, err)
				}
			}
			if b == nil {
				p.release()
				p.state = p.afterEmit
				continue
			}
			if b.N == 0 {
				continue
			}
			if p.cfg.Limit >= 0 && p.emitted+int64(b.N) > p.cfg.Limit {
				b = b.Slice(0, int(p.cfg.Limit-p.emitted)) // past the limit, a one-key window's matches are cut
			}
			p.emitted += int64(b.N)
			p.lastRate.outRows += int64(b.N)
			p.emit(trace.RowsEmitted{Rows: int64(b.N), Total: p.emitted, Page: p.page})
			return b, nil
		case pagedProbeScan:
			if p.cfg.Limit >= 0 && p.emitted >= p.cfg.Limit {
				p.finish()
				continue
			}
			if err := p.nextUnmatchedProbe(ctx); err != nil {
				p.release()
				return nil, fmt.Errorf("paged join: the probe side's unmatched rows: %w", err)
			}
		case pagedDone:
			return nil, nil
		default:
			return nil, fmt.Errorf("paged join: impossible state %d", p.state)
		}
	}
}

func (p *Paged) finish() {
	p.dropThin()
	p.dropStreams()
	for i := range p.nulls {
		p.nulls[i].drop(p.budget)
	}
	p.budget.Shrink(p.matchedHeld)
	p.matchedKeys, p.matchedHeld = nil, 0
	p.state = pagedDone
	p.details.Set(DetailPageSizes, append([]int(nil), p.sizes...))
}

func (p *Paged) emit(e trace.Payload) {
	p.sink.Emit(trace.Event{At: p.paged.now(), Op: p.op, Payload: e})
}

func (p *Paged) grow(what string, n int64) error {
	if err := p.budget.Grow(what, n); err != nil {
		return err
	}
	p.held += n
	return nil
}

func (p *Paged) release() {
	p.budget.Shrink(p.held)
	p.held = 0
	p.hash, p.cuts, p.ready = nil, nil, nil
}

// readyCuts puts in p.ready the null-key rows due before b, the join's next output (nil: its end).
func (p *Paged) readyCuts(ctx context.Context, b *column.Batch) error {
	if b == nil {
		p.cuts.started = math.MaxInt
	}
	for _, c := range p.cuts.due() {
		batches, err := p.alone(ctx, c.rows)
		if err != nil {
			return err
		}
		p.ready = append(p.ready, batches...)
	}
	return nil
}

// phaseKeys is phase ph's cursor: (the phase's non-null sort columns…, key).
func (p *Paged) phaseKeys(ph int) []connector.OrderKey {
	var keys []connector.OrderKey
	for i, s := range p.sortCols {
		if !p.phases[ph][i] {
			keys = append(keys, connector.OrderKey{Column: s.Column, Desc: s.Desc})
		}
	}
	return append(keys, connector.OrderKey{Column: p.keyCol})
}

// thinOrder orders thin pages: (sort columns…, key). A phase's null columns are constant, so ordering by them
// changes nothing; they stay in place so that sources which only order by a prefix of their key still accept
// the order.
func (p *Paged) thinOrder() []connector.OrderKey {
	keys := make([]connector.OrderKey, 0, len(p.sortCols)+1)
	for _, s := range p.sortCols {
		keys = append(keys, connector.OrderKey{Column: s.Column, Desc: s.Desc})
	}
	return append(keys, connector.OrderKey{Column: p.keyCol})
}

// phaseWhere is what every request of phase ph asks besides the pushed predicate: a non-null key, and each
// sort column null or not as the phase says.
func (p *Paged) phaseWhere(ph int) connector.Predicate {
	and := connector.And{connector.NotNull{Column: p.keyCol}}
	for i, s := range p.sortCols {
		if p.phases[ph][i] {
			and = append(and, connector.Not{X: connector.NotNull{Column: s.Column}})
		} else {
			and = append(and, connector.NotNull{Column: s.Column})
		}
	}
	return and
}

func (p *Paged) cursorPred(ph int, bound connector.Bound, vals []column.Value) connector.Predicate {
	if vals == nil {
		return nil
	}
	return connector.Keyset{Keys: p.phaseKeys(ph), Values: vals, Bound: bound}
}

// sortIndex is column c's place among the sort columns, or -1.
func (p *Paged) sortIndex(c string) int {
	for i, s := range p.sortCols {
		if s.Column == c {
			return i
		}
	}
	return -1
}

func literals(vals []column.Value) []string {
	if vals == nil {
		return nil
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = connector.Literal(v)
	}
	return out
}

// nextPage fetches the next thin page (or, when the phase has no rows left, moves to the next phase), or, when
// a page is in hand, runs its next window through probe and refetch, leaving the window's join ready to emit.
func (p *Paged) nextPage(ctx context.Context) error {
	if p.thin == nil {
		if err := p.fetchThin(ctx); err != nil || p.thin == nil {
			return err
		}
	}
	return p.nextWindow(ctx)
}

// fetchThin builds one thin page of size+1 rows (the last only a look past the edge) from the block's phases,
// merged in the full order (see mergePage), and keeps it for its windows; a block with no rows left moves to the
// next block instead. The run's first page is asked at full width (see Paged), and thin after all if the source
// refuses it so.
func (p *Paged) fetchThin(ctx context.Context) error {
	p.page++
	size, reason := p.sizeNext()
	p.size = size
	p.emit(joinevent.PageSized{Page: p.page, Size: size, Reason: reason})
	wide := p.page == 1 && !p.cfg.ThinFirst && !p.cfg.FixedPage && p.perWindow
	runs, bytes, dry, err := p.mergePage(ctx, &size, wide)
	if err != nil {
		return err
	}
	n := 0
	for _, r := range runs {
		n += r.hi - r.lo
	}
	if n == 0 {
		p.nextBlock()
		p.page--
		return nil
	}
	use := min(n, size)
	cols := p.thinColumns()
	allWide, onePhase := true, true
	for _, r := range runs {
		allWide = allWide && r.wide
		onePhase = onePhase && r.phase == runs[0].phase
	}
	if allWide {
		cols = runs[0].cols
	}
	thin := gatherRuns(runs, n, cols, p.paged.r.Info.Schema)
	open := openRows(runs, n)
	if err := p.compactStreams(); err != nil {
		return err
	}
	if err := p.budget.Grow("a thin page", thin.Bytes()); err != nil {
		return err
	}
	p.thin, p.thinCols, p.thinUse, p.thinPos = thin, cols, use, 0
	p.thinPhase, p.thinOnly = nil, runs[0].phase
	if !onePhase {
		p.thinPhase = make([]int, 0, n)
		for _, r := range runs {
			for i := r.lo; i < r.hi; i++ {
				p.thinPhase = append(p.thinPhase, r.phase)
			}
		}
	}
	p.thinShort = dry
	p.thinHeld = thin.Bytes()
	dropped, err := p.checkThinPage(use, open)
	if err != nil {
		return err
	}
	last := p.fullTupleAt(use - 1)
	// A wide page answers its windows' re-fetches itself only if it holds every row of each phase's last tuple
	// in it: the row after it in its phase has another tuple, or the phase has no more rows.
	p.wide = allWide && p.holdsLastTuples(use)
	thinCols := p.thinColumns()
	thinBytes := connector.RowBytes(thinCols, p.project(thinCols)) // what the thin rows cost, for sizing
	p.sizes = append(p.sizes, size)
	p.details.Add(DetailPages, 1)
	if use < n && p.sameSort(use-1, use) {
		kc, _ := expr.Compare(p.thin.Cols[indexOfName(cols, p.keyCol)].Value(use-1), p.thin.Cols[indexOfName(cols, p.keyCol)].Value(use))
		tuple := make([]string, len(p.sortCols))
		for i, v := range last[:len(p.sortCols)] {
			tuple[i] = connector.Literal(v)
		}
		p.details.Add(DetailTieGroupsCut, 1)
		p.emit(joinevent.TieGroupCut{Page: p.page, Tuple: strings.Join(tuple, ", "), SameKey: kc == 0})
	}
	keyAt := indexOfName(cols, p.keyCol)
	pageKeys := dynfilter.Distinct(thin.Cols[keyAt].Slice(0, use), use)
	p.emit(joinevent.PageFetched{Page: p.page, Rows: use, Bytes: bytes, DistinctKeys: len(pageKeys),
		WindowFrom: literals(p.cursor), WindowTo: literals(last), Short: p.thinShort, EngineDropped: engineDropped(p.paged.r, dropped)})
	p.lastRate.thinRows += int64(use)
	p.lastRate.thinBytes += thinBytes * int64(use) / int64(n)
	p.lastRate.keys += int64(len(pageKeys))
	return nil
}

// nextBlock moves the main stream to the next block of phases, releasing the rows the last one left.
func (p *Paged) nextBlock() {
	p.dropStreams()
	p.block++
}

// holdsLastTuples reports whether, for each phase with rows in the page's first use rows, the page holds
// every row of that phase's last tuple there: the phase's next row has another tuple, or the phase has none.
func (p *Paged) holdsLastTuples(use int) bool {
	seen := map[int]bool{}
	for i := use - 1; i >= 0; i-- {
		ph := p.phaseAt(i)
		if seen[ph] {
			continue
		}
		seen[ph] = true
		s := &p.streams[ph]
		if s.empty() {
			if !s.done {
				return false
			}
			continue
		}
		if equalValues(p.tupleAt(i), p.phaseTuple(ph, s.rows, s.cols, s.pos)) {
			return false
		}
	}
	return true
}

func equalValues(a, b []column.Value) bool {
	for i := range a {
		if a[i].Null != b[i].Null {
			return false
		}
		if c, ok := expr.Compare(a[i], b[i]); !a[i].Null && (!ok || c != 0) {
			return false
		}
	}
	return true
}

// gatherRuns is the merged page's n rows, columns cols, in order: the run itself when there is one whose
// columns are cols, else a copy.
func gatherRuns(runs []pageRun, n int, cols []string, schema column.Schema) *column.Batch {
	if len(runs) == 1 && slices.Equal(runs[0].cols, cols) {
		return runs[0].rows.Slice(runs[0].lo, runs[0].hi)
	}
	t := column.NewTable(schemaOf(cols, schema))
	for c, name := range cols {
		for _, r := range runs {
			t.Cols[c].AppendVector(r.rows.Cols[indexOfName(r.cols, name)].Slice(r.lo, r.hi))
		}
	}
	t.N = n
	return t.Batch()
}

// phaseAt is the phase of the page's row i.
func (p *Paged) phaseAt(i int) int {
	if p.thinPhase == nil {
		return p.thinOnly
	}
	return p.thinPhase[i]
}

// tupleAt is the cursor tuple of the current thin page's row i, in its phase's keyset.
func (p *Paged) tupleAt(i int) []column.Value {
	return p.phaseTuple(p.phaseAt(i), p.thin, p.thinCols, i)
}

// fullTupleAt is row i's sort values (nulls included) and key: where it stands in the whole order.
func (p *Paged) fullTupleAt(i int) []column.Value {
	keys := p.thinOrder()
	out := make([]column.Value, len(keys))
	for k, key := range keys {
		out[k] = p.thin.Cols[indexOfName(p.thinCols, key.Column)].Value(i)
	}
	return out
}

// sameTuple reports whether rows i and j of the page in hand are twins: the same phase and cursor tuple (sort
// values and key). Twins are next to one another in the merged page: rows of other phases never tie with them
// on the sort columns, so none falls between them.
func (p *Paged) sameTuple(i, j int) bool {
	ph := p.phaseAt(i)
	return ph == p.phaseAt(j) && equalValues(p.tupleAt(i), p.tupleAt(j))
}

// sameSort reports whether rows i and j of the page in hand have the same sort values: a tie group.
func (p *Paged) sameSort(i, j int) bool {
	if len(p.sortCols) == 0 {
		return false
	}
	return equalValues(p.fullTupleAt(i)[:len(p.sortCols)], p.fullTupleAt(j)[:len(p.sortCols)])
}

// project is the page in hand's columns cols.
func (p *Paged) project(cols []string) *column.Batch {
	out := &column.Batch{Cols: make([]*column.Vector, len(cols)), N: p.thin.N}
	for i, c := range cols {
		out.Cols[i] = p.thin.Cols[indexOfName(p.thinCols, c)]
	}
	return out
}

// nextWindow probes and re-fetches the current thin page's next window — its rows [thinPos, end) — and leaves
// the window's join ready to emit. A page is one window, unless its keys match more probe rows than one
// response carries while the consumer is waiting (for the first row, or for the rest of take N): then the
// rows would wait for every page of the probe (a page whose 40 keys match 45,000 detections waits for ten full
// responses, though take 100 needs the matches of two or three rows). Windowing then starts: the probe's first
// response is dropped, and windows are cut by distinct keys in page order — the first holds the first row's
// key alone, each later one windowGrowth times the keys of the last (carried across pages) — so rows wait
// only for their own matches, and take N stops after the windows it needs. Once nobody waits (a run without
// take, after its first row), the rest of the page is one window again: the fewest requests. Cost of the
// switch: the one dropped probe response, and a round trip per window (logarithmic in the page's keys).
func (p *Paged) nextWindow(ctx context.Context) error {
	keyVec := p.thin.Cols[indexOfName(p.thinCols, p.keyCol)]
	start, end := p.thinPos, p.thinUse
	windowing := p.waiting() && p.windowKeys > 0
	var reason string
	if windowing {
		end = cutAfterKeys(keyVec, start, p.thinUse, p.windowKeys, p.heavy)
		reason = fmt.Sprintf("the next %d keys in page order are probed on their own", p.windowKeys)
		if need := p.cfg.Limit - p.emitted; p.cfg.Limit >= 0 && p.sample != nil {
			// Only a window shorter than the one that overflowed: a window that overflows again falls back to
			// cutting by keys, so windows always shrink to one key and the loop ends.
			if e := coverRows(p.passingKeyVector(keyVec), start, p.thinUse, need, p.sample); e > 0 && e < p.sampleEnd {
				end, reason = e, fmt.Sprintf("the dropped response already holds %d matches of these rows' keys: they are sure to complete take %d", need, p.cfg.Limit)
			}
		}
		p.sample = nil
	}
	from, to := p.cursor, p.fullTupleAt(end-1)
	keys, err := p.windowPassKeys(ctx, start, end, from, to)
	if err != nil {
		return err
	}
	if windowing {
		p.emit(joinevent.PageWindow{Page: p.page, Window: p.windowOfPage + 1, RowsFrom: start, RowsTo: end,
			Keys: len(keys), WindowFrom: literals(from), WindowTo: literals(to), Reason: reason})
		p.windowKeys *= windowGrowth
	}
	if !p.perWindow {
		// Only the probe side's unmatched rows are output: a window only says which keys the paged side has.
		if err := p.noteMatched(keys); err != nil {
			return err
		}
		p.advanceWindow(start, end)
		return nil
	}
	var stop stopAt
	switch {
	case !p.waiting():
	case len(keys) > 1:
		stop.firstOnly = true
	case p.cfg.Limit >= 0 && len(p.probe.r.Engine) == 0:
		// One key: the window's first row takes its matches in the probe's order, so the first rows still
		// wanted are the first that many matches; Next emits no row past the limit. (Not with engine
		// conditions on the probe: some of those matches may fail them.)
		stop.most = int(p.cfg.Limit - p.emitted)
	}
	probeTab, matched, err := p.probeKeys(ctx, keys, stop)
	var full *responseFull
	if errors.As(err, &full) {
		p.release()
		what := "the page's"
		if windowing {
			what = "the window's"
		}
		p.windowKeys = firstWindowKeys
		sample, err := p.probeSample(full.page)
		if err != nil {
			return err
		}
		heavy := p.noteHeavy(sample, len(keys))
		p.sampleEnd = end
		p.emit(joinevent.PageWindow{Page: p.page, Window: 0, RowsFrom: start, RowsTo: end, Keys: len(keys),
			HeavyKeys: heavy, Reason: fmt.Sprintf("%s %d keys match more than one probe response (%d rows, %d keys over twice their share of it): "+
				"keys go a few at a time, in page order, from %d again, each heavy key alone", what, len(keys), full.page.N, heavy, firstWindowKeys)})
		return nil
	}
	if err != nil {
		return err
	}
	// The paged rows the window's output needs: those that matched (pairs, semi), every row (the paged
	// side's outer join: the rest are null-extended), or those whose key matched nothing (its anti join).
	want := matched
	switch {
	case p.pagedWants.unmatched:
		want = keys
	case p.pagedWants.anti:
		want = missing(keys, matched)
	}
	var pagedTab *column.Table
	switch {
	case len(want) == 0:
	case p.wide:
		pagedTab, err = p.pageRows(start, end, from, to, want)
	default:
		pagedTab, err = p.refetch(ctx, start, end, from, to, want)
	}
	if err != nil {
		return err
	}
	if err := p.noteMatched(p.keptKeys(pagedTab, matched)); err != nil {
		return err
	}
	var cuts []nullCut
	if pagedTab != nil && p.pagedWants.keepsUnmatched() {
		if cuts, err = p.cutAtNullKeys(ctx, pagedTab); err != nil {
			return err
		}
	}
	p.advanceWindow(start, end)
	if pagedTab == nil || pagedTab.N == 0 {
		p.release()
		return nil
	}
	p.joinRows(pagedTab, p.probeOfKept(probeTab, pagedTab), false, cuts)
	return nil
}

// advanceWindow moves the cursors past the window of the page's rows [start, end): each phase's to its last
// tuple there. The page is dropped after its last window, and the block ends after a short page's.
func (p *Paged) advanceWindow(start, end int) {
	seen := map[int]bool{}
	for i := end - 1; i >= start && (p.thinPhase != nil || len(seen) == 0); i-- {
		if ph := p.phaseAt(i); !seen[ph] {
			seen[ph] = true
			p.streams[ph].cursor = p.tupleAt(i)
		}
	}
	p.cursor, p.thinPos = p.fullTupleAt(end-1), end
	p.windowOfPage++
	if end == p.thinUse {
		if p.thinShort {
			p.nextBlock()
		}
		p.dropThin()
	}
}

// joinRows leaves the join of pagedTab and probeTab ready to emit, then back to the next page (or, with
// probeScan, to the probe scan). The hash table holds the probe rows and the paged rows stream through it in
// order — through cutRows when null-key rows go between them (cuts) — except for the probe scan's unmatched
// rows, which stream through an empty paged side.
func (p *Paged) joinRows(pagedTab, probeTab *column.Table, probeScan bool, cuts []nullCut) {
	left, right := p.sideOps(pagedTab, probeTab)
	if len(cuts) > 0 {
		pagedOp := &left
		if !p.cfg.PagedLeft {
			pagedOp = &right
		}
		p.cuts = &cutRows{pageTable: *(*pagedOp).(*pageTable), cuts: cuts, started: -1}
		*pagedOp = p.cuts
	}
	buildLeft := !p.cfg.PagedLeft
	p.afterEmit = pagedNext
	if probeScan {
		buildLeft, p.afterEmit = p.cfg.PagedLeft, pagedProbeScan
	}
	p.hash = NewHash(p.spec, left, right, buildLeft, p.budget)
	p.state = pagedEmit
}

// missing are the keys not in matched.
func missing(keys, matched []column.Value) []column.Value {
	found := make(map[string]bool, len(matched))
	for _, v := range matched {
		found[connector.Literal(v)] = true
	}
	var out []column.Value
	for _, v := range keys {
		if !found[connector.Literal(v)] {
			out = append(out, v)
		}
	}
	return out
}

// matchedKeyBytes is what one key of matchedKeys is accounted at beyond its text: the map's slot and the
// string header, roughly.
const matchedKeyBytes = 48

// matchedKeysShare is the share of the memory budget matchedKeys may take: the set only grows, and the pages,
// probe rows and hash tables of the windows still to come need the rest; a set that outgrows it fails the join
// with its own error, not a later page with the page's.
const matchedKeysShare = 0.5

// noteMatched adds keys to matchedKeys, when the probe side's unmatched rows are output. The set grows with the
// distinct keys both sides share; past the budget the join fails, since the scan after the last page cannot
// tell the unmatched probe rows without it.
func (p *Paged) noteMatched(keys []column.Value) error {
	if p.matchedKeys == nil {
		return nil
	}
	var grow int64
	var fresh []string
	for _, v := range keys {
		k := connector.Literal(v)
		if !p.matchedKeys[k] {
			fresh = append(fresh, k)
			grow += int64(len(k)) + matchedKeyBytes
		}
	}
	if grow == 0 {
		return nil
	}
	err := p.budget.Grow("the keys matched so far", grow)
	if lim := p.budget.Limit(); err == nil && lim > 0 && float64(p.matchedHeld+grow) > matchedKeysShare*float64(lim) {
		p.budget.Shrink(grow)
		err = &memory.ExceededError{Holder: fmt.Sprintf("the keys matched so far (at most %.0f%% of the budget)", matchedKeysShare*100),
			Asked: grow, Used: p.matchedHeld, Limit: int64(matchedKeysShare * float64(lim))}
	}
	if err != nil {
		return fmt.Errorf("kind %s outputs the %s side's unmatched rows, known only from every key the paged side matched: "+
			"%d keys so far are over the budget: %w", p.spec.Kind, p.probeSideName(), len(p.matchedKeys)+len(fresh), err)
	}
	p.matchedHeld += grow
	for _, k := range fresh {
		p.matchedKeys[k] = true
	}
	return nil
}

func (p *Paged) probeSideName() string {
	if p.cfg.PagedLeft {
		return "right"
	}
	return "left"
}

// waiting says the consumer is still waiting for rows it was promised soon: the first row, or, under take N,
// any of the N.
func (p *Paged) waiting() bool {
	return p.emitted == 0 || (p.cfg.Limit >= 0 && p.emitted < p.cfg.Limit)
}

// noteHeavy reads a dropped full probe response as a sample: it keeps the matches it holds per key (p.sample,
// a lower bound of each key's matches), adds to p.heavy the keys holding more than twice their share (of keys
// asked) of it, and returns how many of its keys are heavy. A heavy key is likely to fill responses alone, so
// windows give it no company: its own matches are what its rows wait for.
func (p *Paged) noteHeavy(page *column.Batch, asked int) int {
	keyAt := indexOfName(fetchColumns(p.probe.r), p.probe.r.keyColumn())
	if keyAt < 0 || page.N == 0 {
		return 0
	}
	counts := map[string]int{}
	var buf []byte
	for i := 0; i < page.N; i++ {
		buf = column.AppendKey(buf[:0], page.Cols[keyAt], i)
		counts[string(buf)]++
	}
	if p.heavy == nil {
		p.heavy = map[string]bool{}
	}
	p.sample = counts
	n := 0
	for k, c := range counts {
		if c*asked >= 2*page.N {
			p.heavy[k] = true
			n++
		}
	}
	return n
}

// coverRows is the end of the shortest window from row start of v whose rows are sure to give need output rows
// — each row pairs with at least the matches the sample holds for its key — or 0 when the page's rows are not.
func coverRows(v *column.Vector, start, n int, need int64, sample map[string]int) int {
	var sure int64
	var buf []byte
	for i := start; i < n; i++ {
		buf = column.AppendKey(buf[:0], v, i)
		if sure += int64(sample[string(buf)]); sure >= need {
			return i + 1
		}
	}
	return 0
}

// cutAfterKeys is the end of the window that starts at row start of v and holds at most target distinct keys,
// a heavy key (by column.AppendKey) only alone: the first row whose key would break that, or n. Rows sharing a
// key never straddle the cut unless other keys come between them.
func cutAfterKeys(v *column.Vector, start, n, target int, heavy map[string]bool) int {
	seen := map[string]bool{}
	alone := false
	var buf []byte
	for i := start; i < n; i++ {
		buf = column.AppendKey(buf[:0], v, i)
		if seen[string(buf)] {
			continue
		}
		if len(seen) == target || (len(seen) > 0 && (alone || heavy[string(buf)])) {
			return i
		}
		seen[string(buf)] = true
		alone = heavy[string(buf)]
	}
	return n
}

// dropThin releases the current thin page.
func (p *Paged) dropThin() {
	p.budget.Shrink(p.thinHeld)
	p.thin, p.thinHeld, p.windowOfPage, p.wide = nil, 0, 0, false
}

// probeKeys fetches the probe side's rows whose key is one of keys, split to the probe connector's caps.
// stop bounds the first slice's answer (see stopAt).
func (p *Paged) probeKeys(ctx context.Context, keys []column.Value, stop stopAt) (*column.Table, []column.Value, error) {
	r := p.probe.r
	cols, order := keyedColumns(r)
	shape := connector.Request{Table: r.Info.Name, Columns: cols, OrderBy: order, Limit: r.Conn.Caps().MaxRows}
	kf := keyFilter{column: r.keyColumn(), with: func(in connector.Predicate) connector.Predicate { return p.probe.where(in) }}
	out := column.NewTable(schemaOf(cols, r.Info.Schema))
	if len(keys) == 0 {
		return out, nil, nil
	}
	f, err := p.probe.filter(kf, keys, shape)
	if err != nil {
		return nil, nil, err
	}
	p.traceSplit("probe", r.Name, len(keys), f)
	tabs, err := p.probe.completeSlices(ctx, kf, f.Slices, nil, cols, order, order, "probe", stop, stopAt{})
	if err != nil {
		return nil, nil, err
	}
	for _, t := range tabs {
		if err := p.grow("probe rows", t.Batch().Bytes()); err != nil {
			return nil, nil, err
		}
		out.Append(t.Batch())
	}
	out, dropped, err := r.enginePass(out)
	if err != nil {
		return nil, nil, fmt.Errorf("probe: %w", err)
	}
	matched := dynfilter.Distinct(out.Cols[out.Schema.Index(r.keyColumn())], out.N)
	p.emit(joinevent.ProbeResults{Page: p.page, Rows: out.N, MatchedKeys: len(matched), EngineDropped: engineDropped(r, dropped)})
	return out, matched, nil
}

// fullShape is how the paged side's full rows of phase ph are asked for: the columns the query reads and the
// order's; ordered by the thin order then the table's key, so twins (rows sharing a cursor tuple) come in a
// fixed order; keyset is the order a response boundary is resumed by (the phase drops its null sort columns).
func (p *Paged) fullShape(ph int) (cols []string, order, keyset []connector.OrderKey) {
	r := p.paged.r
	cols = fetchColumns(r)
	order = append([]connector.OrderKey(nil), p.thinOrder()...)
	for _, k := range r.Info.Key {
		if indexOfName(orderColumns(order), k.Column) < 0 {
			order = append(order, k)
		}
	}
	for _, k := range order {
		if i := p.sortIndex(k.Column); i < 0 || !p.phases[ph][i] {
			keyset = append(keyset, k) // a null sort column is constant in the phase: no cursor compares it
		}
	}
	for _, k := range order {
		if indexOfName(cols, k.Column) < 0 {
			cols = append(cols, k.Column)
		}
	}
	return cols, order, keyset
}

// pageRows is a window's re-fetch answered from the wide page in hand: its rows [start, end) whose key is in
// matched. They are the rows (from, to] of the re-fetch, in its order, because the wide page was asked in the
// re-fetch's order and holds every row of its last tuple. No request is sent.
func (p *Paged) pageRows(start, end int, from, to, matched []column.Value) (*column.Table, error) {
	want := make(map[string]bool, len(matched))
	for _, v := range matched {
		want[connector.Literal(v)] = true
	}
	keyVec := p.thin.Cols[indexOfName(p.thinCols, p.keyCol)]
	var idx []int32
	for i := start; i < end; i++ {
		if !keyVec.IsNull(i) && want[connector.Literal(keyVec.Value(i))] && p.thinPasses(i) {
			idx = append(idx, int32(i))
		}
	}
	out := &column.Table{Schema: schemaOf(p.thinCols, p.paged.r.Info.Schema), Cols: make([]*column.Vector, len(p.thinCols)), N: len(idx)}
	for i, c := range p.thin.Cols {
		if c != nil {
			out.Cols[i] = c.Gather(idx)
		}
	}
	if err := p.grow("re-fetched rows", out.Batch().Bytes()); err != nil {
		return nil, err
	}
	p.details.Add(DetailRefetchRows, int64(out.N))
	p.lastRate.refetchRows += int64(out.N)
	p.lastRate.refetchBytes += out.Batch().Bytes()
	p.emit(joinevent.Refetched{Page: p.page, WindowFrom: literals(from), WindowTo: literals(to),
		Keys: len(matched), Rows: out.N, FromPage: true})
	return out, nil
}

// refetch fetches the paged side's full rows of the page's window [start, end) whose key is in matched, in
// the output order: per phase present in the window, the phase's rows in (its cursor, its last tuple there],
// the phases' answers merged. from and to are the window's edges in the whole order, for the trace.
func (p *Paged) refetch(ctx context.Context, start, end int, from, to, matched []column.Value) (*column.Table, error) {
	phases, last, keys := p.windowPhases(start, end, matched)
	var tabs []*column.Table
	for _, ph := range phases {
		if len(keys[ph]) == 0 {
			continue
		}
		t, err := p.refetchPhase(ctx, ph, p.streams[ph].cursor, p.tupleAt(last[ph]), keys[ph])
		if err != nil {
			return nil, err
		}
		tabs = append(tabs, t)
	}
	var out *column.Table
	if len(tabs) == 0 {
		cols, _, _ := p.fullShape(phases[0])
		out = column.NewTable(schemaOf(cols, p.paged.r.Info.Schema))
	} else {
		out = p.mergePhases(tabs)
	}
	p.details.Add(DetailRefetchRows, int64(out.N))
	p.lastRate.refetchRows += int64(out.N)
	p.lastRate.refetchBytes += out.Batch().Bytes()
	// Every phase's rows are checked again: rows of a passing key that fail, or that changed since the thin page.
	out, dropped, err := p.paged.r.enginePass(out)
	if err != nil {
		return nil, fmt.Errorf("refetch: %w", err)
	}
	p.emit(joinevent.Refetched{Page: p.page, WindowFrom: literals(from), WindowTo: literals(to),
		Keys: len(matched), Rows: out.N, Phases: len(tabs), EngineDropped: engineDropped(p.paged.r, dropped)})
	return out, nil
}

// refetchPhase fetches phase ph's full rows in (from, to] of its keyset whose key is in matched, in the order.
func (p *Paged) refetchPhase(ctx context.Context, ph int, from, to []column.Value, matched []column.Value) (*column.Table, error) {
	r := p.paged.r
	cols, order, keyset := p.fullShape(ph)
	window := p.paged.where(p.phaseWhere(ph), p.cursorPred(ph, connector.After, from), p.cursorPred(ph, connector.AtOrBefore, to))
	shape := connector.Request{Table: r.Info.Name, Columns: cols, OrderBy: order, Limit: r.Conn.Caps().MaxRows}
	kf := keyFilter{column: p.keyCol, with: func(in connector.Predicate) connector.Predicate { return and(window, in) }}
	f, err := p.paged.filter(kf, matched, shape)
	if err != nil {
		return nil, err
	}
	p.traceSplit("refetch", r.Name, len(matched), f)
	out := column.NewTable(schemaOf(cols, r.Info.Schema))
	tabs, err := p.paged.completeSlices(ctx, kf, f.Slices, nil, cols, order, keyset, "refetch", stopAt{}, stopAt{})
	if err != nil {
		return nil, err
	}
	for _, t := range tabs {
		if err := p.grow("re-fetched rows", t.Batch().Bytes()); err != nil {
			return nil, err
		}
		out.Append(t.Batch())
	}
	if len(f.Slices) > 1 {
		out = sortTable(out, order)
	}
	return out, nil
}

func (p *Paged) traceSplit(side, source string, keys int, f dynfilter.Filter) {
	bytes := make([]int, len(f.Slices))
	vals := make([]int, len(f.Slices))
	for i, s := range f.Slices {
		bytes[i], vals[i] = s.Bytes, len(s.Values)
	}
	p.details.Add(DetailFilterSlices, int64(len(f.Slices)))
	p.emit(joinevent.FilterSplit{Page: p.page, Side: side, Source: source, Keys: keys, Slices: len(f.Slices),
		SliceBytes: bytes, SliceValues: vals, MaxBytes: f.MaxBytes, MaxValues: f.MaxValues})
}

// sideOps lays the fetched tables out as the spec's left and right inputs (unfetched columns dead).
func (p *Paged) sideOps(pagedTab, probeTab *column.Table) (exec.Operator, exec.Operator) {
	lay := func(r *Remote, t *column.Table, schema column.Schema) exec.Operator {
		out := &column.Table{Schema: schema, Cols: make([]*column.Vector, len(schema)), N: t.N}
		for i, c := range r.Columns {
			if j := t.Schema.Index(c); j >= 0 && (r.Live == nil || r.Live[i] || i == r.Key) {
				out.Cols[i] = t.Cols[j]
			}
		}
		return &pageTable{schema: schema, t: out}
	}
	if p.cfg.PagedLeft {
		return lay(p.paged.r, pagedTab, p.spec.Left), lay(p.probe.r, probeTab, p.spec.Right)
	}
	return lay(p.probe.r, probeTab, p.spec.Left), lay(p.paged.r, pagedTab, p.spec.Right)
}

// fetchColumns are the remote's columns the query reads, its key, and the columns its engine conditions read.
func fetchColumns(r *Remote) []string {
	var cols []string
	for i, c := range r.Columns {
		if r.Live == nil || r.Live[i] || i == r.Key || r.readsForEngine(i) {
			cols = append(cols, c)
		}
	}
	return cols
}

// keyedColumns are the columns a request of r's rows reads, with the table's key columns added, and that key
// as the order: the shape of a request continued by keyset over the table's key.
func keyedColumns(r *Remote) ([]string, []connector.OrderKey) {
	cols := fetchColumns(r)
	for _, k := range r.Info.Key {
		if indexOfName(cols, k.Column) < 0 {
			cols = append(cols, k.Column)
		}
	}
	return cols, r.Info.Key
}

func orderColumns(order []connector.OrderKey) []string {
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = k.Column
	}
	return out
}

// sortTable orders t by order (nulls last), the merge of several slices' answers.
func sortTable(t *column.Table, order []connector.OrderKey) *column.Table {
	idx := make([]int32, t.N)
	for i := range idx {
		idx[i] = int32(i)
	}
	cols := make([]*column.Vector, len(order))
	for i, k := range order {
		cols[i] = t.Cols[t.Schema.Index(k.Column)]
	}
	sort.SliceStable(idx, func(a, b int) bool {
		for i, k := range order {
			x, y := cols[i].Value(int(idx[a])), cols[i].Value(int(idx[b]))
			switch {
			case x.Null && y.Null:
				continue
			case x.Null:
				return false
			case y.Null:
				return true
			}
			c, _ := expr.Compare(x, y)
			if k.Desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	})
	out := &column.Table{Schema: t.Schema, Cols: make([]*column.Vector, len(t.Cols)), N: t.N}
	for i, c := range t.Cols {
		if c != nil {
			out.Cols[i] = c.Gather(idx)
		}
	}
	return out
}

// sizeNext chooses the next thin page's rows and says why.
func (p *Paged) sizeNext() (int, string) {
	caps := p.paged.r.Conn.Caps()
	capRows := math.MaxInt32
	if caps.MaxRows > 1 {
		capRows = caps.MaxRows - 1 // one row is the look past the edge
	}
	if p.cfg.MaxPage > 0 {
		capRows = min(capRows, p.cfg.MaxPage)
	}
	first := p.cfg.FirstPage
	if first <= 0 {
		first = firstPageRows
	}
	if p.cfg.FixedPage {
		return max(1, min(first, capRows)), "fixed page size (hint.page_rows)"
	}
	st := p.lastRate
	if st.thinRows == 0 {
		size := max(1, min(first, capRows))
		if p.cfg.Limit >= 0 && int64(size) > p.cfg.Limit*pageGrowth && p.cfg.Limit > 0 {
			size = int(p.cfg.Limit) * pageGrowth
		}
		return size, fmt.Sprintf("first page: small for time to first row (%d rows)", size)
	}
	prev := p.size
	size := prev * pageGrowth
	reason := fmt.Sprintf("grow ×%d over the last page", pageGrowth)
	if p.cfg.Limit >= 0 && st.outRows > 0 {
		need := float64(p.cfg.Limit - p.emitted)
		yield := float64(st.outRows) / float64(st.thinRows)
		want := int(math.Ceil(need / yield * yieldHeadroom))
		if want < size {
			size, reason = max(1, want), fmt.Sprintf("%.0f rows still wanted at %.3f output rows per thin row", need, yield)
		}
	}
	if caps.MaxBytes > 0 && st.thinBytes > 0 {
		perRow := float64(st.thinBytes) / float64(st.thinRows)
		if lim := int(float64(caps.MaxBytes) / perRow / yieldHeadroom); lim < size {
			size, reason = max(1, lim), fmt.Sprintf("thin rows of %.0f bytes against the %d-byte response cap", perRow, caps.MaxBytes)
		}
	}
	if pc := p.probe.r.Conn.Caps(); pc.MaxInValues > 0 && st.keys > 0 {
		perRow := float64(st.keys) / float64(st.thinRows)
		if lim := int(float64(pc.MaxInValues*maxSlicesPerPage) / perRow); lim < size {
			size, reason = max(1, lim), fmt.Sprintf("%.3f distinct keys per row against %d probe IN lists of %d", perRow, maxSlicesPerPage, pc.MaxInValues)
		}
	}
	if st.refetchRows > 0 && p.budget.Limit() > 0 {
		perThin := float64(st.refetchBytes) / float64(st.thinRows)
		if lim := int(pageMemoryShare * float64(p.budget.Limit()) / perThin); lim < size {
			size, reason = max(1, lim), fmt.Sprintf("re-fetched rows of %.0f bytes per thin row against %.0f%% of the %s budget",
				perThin, pageMemoryShare*100, memory.Bytes(p.budget.Limit()))
		}
	}
	if size > capRows {
		size, reason = capRows, reason+fmt.Sprintf(", capped at %d rows per response", capRows)
	}
	return size, reason
}
