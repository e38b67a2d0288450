package join

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join/joinevent"
)

// The merge of the null phases: how the paged join follows a sort whose columns may hold nulls at any
// position, each column's nulls first or last, in any mix of directions.
//
// A source orders by plain columns with nulls last, and its keyset seek cannot compare with null. So the
// paged side is read in null phases (see nullPhases): one per null pattern of the sort columns, each asking
// every sort column to be null or not as the pattern says. Inside a phase a null column is constant, so the
// source's order is the sort's and the phase's cursor is the tuple of its non-null sort columns and the join
// key — an ordinary keyset.
//
// Invariant: the output is the merge of the phases' streams by the full order (each column's direction and
// null placement), because every phase's stream is in that order and two rows of different phases never tie
// (they differ in a column's nullness). The merge is lazy in blocks: phases whose patterns agree up to and
// including their first non-null column share that column's values, so their rows interleave and are merged;
// phases that differ before any shared non-null column (the first column's null block, then the second's
// inside it, …) follow one another, so a block is read only when the blocks before it are done. With the first
// sort column nullable and the later ones not, each block is one phase: the phases simply follow one another.
//
// Each phase of the block in hand keeps the thin rows it fetched and has not yet put in a page (phaseStream):
// a page takes the smallest head of the block's streams size+1 times, and a stream that runs dry while the
// page is built is fetched again, size+1 rows after its last. The first fetches of a block go out together
// (connector.Overlap, up to the source's Caps.Concurrent). A window of the page re-fetches, per phase present
// in it, that phase's rows in (its cursor, its last tuple in the window] — the windows of one phase tile that
// phase — and the phases' answers are merged back into the full order.
//
// Cost: a block of k phases costs k thin requests before its first page (one round trip when they overlap),
// then one per page that drains a phase's stream, and a window re-fetches once per phase present in it. A
// phase with no rows costs one request, answered empty, and nothing more. Memory: up to size+1 thin rows per
// phase of the block besides the page.

// phaseBlocks groups the phases (in nullPhases' order) into blocks: runs of phases that agree up to and
// including their first non-null sort column. Each block is [lo, hi) of phases.
func phaseBlocks(phases []nullPhase) [][2]int {
	lead := func(ph nullPhase) int { // the first non-null column, or len: all null
		for i, null := range ph {
			if !null {
				return i
			}
		}
		return len(ph)
	}
	var blocks [][2]int
	for i, ph := range phases {
		if len(blocks) > 0 {
			prev := phases[blocks[len(blocks)-1][0]]
			if l := lead(ph); l == lead(prev) && (l == len(ph) || equalPhases(ph[:l+1], prev[:l+1])) {
				blocks[len(blocks)-1][1] = i + 1
				continue
			}
		}
		blocks = append(blocks, [2]int{i, i + 1})
	}
	return blocks
}

func equalPhases(a, b nullPhase) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// phaseStream is one phase's thin rows fetched and not yet put in a page, and where the phase stands.
type phaseStream struct {
	rows *column.Batch // the last response of the phase, taken up to pos
	cols []string
	pos  int
	wide bool // rows are at full width (the run's first page)
	// next is the keyset tuple of the last row fetched (nil: the phase's start), done says the source holds
	// no row of the phase after it.
	next []column.Value
	done bool
	// cursor is the tuple of the phase's last row in a window already joined: the phase's re-fetch windows
	// start after it (nil: the phase's start).
	cursor []column.Value
	held   int64
	// oneTuple says the response in hand holds rows of one tuple only; again says the phase's next request
	// starts at next, inclusive, because the page gave back the rows of that tuple (see giveBack).
	oneTuple, again bool
}

func (s *phaseStream) empty() bool { return s.rows == nil || s.pos >= s.rows.N }

// skipTwins drops from phase ph's rows in hand those of the tuple its last window ended on: the window's
// inclusive re-fetch already brought every row of that tuple (a page edge may cut between them).
func (p *Paged) skipTwins(ph int) {
	s := &p.streams[ph]
	for s.cursor != nil && !s.empty() && equalValues(p.phaseTuple(ph, s.rows, s.cols, s.pos), s.cursor) {
		s.pos++
	}
}

// pageRun is a run of a merged page's rows taken one after another from one response of a phase: its rows
// [lo, hi). A block of one phase gives a page of one run (two when the phase is fetched again mid-page). open
// says the response was not the phase's last: the phase's next request starts after its last row's tuple, so
// twins of that row past the response are never in a thin page (see openRows).
type pageRun struct {
	phase  int
	rows   *column.Batch
	cols   []string
	lo, hi int
	wide   bool
	open   bool
}

// openRows marks the rows of a page built from runs (n rows) that end an open response: twins of such a row
// (the same phase, sort values and key) may follow unseen, as the re-fetch of its window will bring them.
func openRows(runs []pageRun, n int) []bool {
	open := make([]bool, n)
	at := 0
	for _, r := range runs {
		at += r.hi - r.lo
		if r.open && r.hi == r.rows.N {
			open[at-1] = true
		}
	}
	return open
}

// blockPhases are the phases of the block in hand.
func (p *Paged) blockPhases() []int {
	b := p.blocks[p.block]
	out := make([]int, 0, b[1]-b[0])
	for ph := b[0]; ph < b[1]; ph++ {
		out = append(out, ph)
	}
	return out
}

// mergePage takes the block's next rows in the full order: up to size+1 of them (the page and its look past
// the edge, which stays in its stream), fetching a phase's next size+1 rows whenever its stream is dry — the
// dry ones first all together (wide when asked), then any that runs dry while the page is built. It returns
// the rows as runs, the bytes the responses carried, and whether the block has no row after them. A source
// that refuses size rows lowers size.
func (p *Paged) mergePage(ctx context.Context, size *int, wide bool) ([]pageRun, int64, bool, error) {
	phases := p.blockPhases()
	var dry []int
	for _, ph := range phases {
		p.skipTwins(ph)
		if s := &p.streams[ph]; s.empty() && !s.done {
			dry = append(dry, ph)
		}
	}
	var bytes int64
	pages, err := connector.Overlap(ctx, p.paged.r.Clock, p.paged.inFlight(), len(dry), func(ctx context.Context, i int) (fetchedPhase, error) {
		return p.fetchPhase(ctx, dry[i], *size, wide)
	})
	if err != nil {
		return nil, 0, false, err
	}
	for i, f := range pages {
		if err := p.keepPhase(dry[i], f); err != nil {
			return nil, 0, false, err
		}
		bytes += f.page.Bytes
		*size = min(*size, f.size)
	}
	var out []pageRun
	for n := 0; n <= *size; n++ {
		best := -1
		for _, ph := range phases {
			s := &p.streams[ph]
			if s.empty() && !s.done {
				var back int
				out, back = p.giveBack(ph, out)
				n -= back
				f, err := p.fetchPhase(ctx, ph, *size, false)
				if err != nil {
					return nil, 0, false, err
				}
				if err := p.keepPhase(ph, f); err != nil {
					return nil, 0, false, err
				}
				bytes += f.page.Bytes
			}
			if s.empty() {
				continue
			}
			if best < 0 || p.compareSortRows(s.rows, s.cols, s.pos, p.streams[best].rows, p.streams[best].cols, p.streams[best].pos) < 0 {
				best = ph
			}
		}
		if best < 0 {
			return out, bytes, true, nil
		}
		s := &p.streams[best]
		if k := len(out) - 1; k >= 0 && out[k].rows == s.rows && out[k].hi == s.pos {
			out[k].hi++
		} else {
			out = append(out, pageRun{phase: best, rows: s.rows, cols: s.cols, lo: s.pos, hi: s.pos + 1, wide: s.wide, open: !s.done})
		}
		s.pos++
	}
	// The look past the edge stays in its stream: the next page starts with it.
	p.streams[out[len(out)-1].phase].pos--
	return out, bytes, false, nil
}

// giveBack takes out of the page being built (out) the rows of phase ph's last tuple fetched, when the phase
// has just run dry on them and has more rows: the phase's next request then starts at that tuple, inclusive, so
// the page holds every twin of it. Only with engine conditions on the paged side, whose verdicts are per row:
// without them a window needs one row of a key to probe and re-fetch every row of it, and twins never seen in
// a thin page cost nothing. Not when the response held that tuple alone (asked again, it would come back the
// same): then its last row stays open (see openRows). It returns out and the rows it took.
func (p *Paged) giveBack(ph int, out []pageRun) ([]pageRun, int) {
	s := &p.streams[ph]
	if len(p.paged.r.Engine) == 0 || s.oneTuple || len(out) == 0 {
		return out, 0
	}
	last := &out[len(out)-1]
	if last.phase != ph || last.rows != s.rows || last.hi != s.rows.N {
		return out, 0
	}
	k := 0
	for i := last.hi - 1; i >= last.lo && equalValues(p.phaseTuple(ph, last.rows, last.cols, i), s.next); i-- {
		k++
	}
	if k == 0 {
		return out, 0
	}
	last.hi -= k
	if last.hi == last.lo {
		out = out[:len(out)-1]
	}
	s.again = true
	return out, k
}

// fetchedPhase is one thin response of a phase.
type fetchedPhase struct {
	page  connector.Page
	cols  []string
	limit int
	size  int
	wide  bool
}

// fetchPhase asks a phase's next size+1 rows after its last fetched one, at full width when wide, thin after all
// if the source refuses them so, halving the rows after a result-too-large answer.
func (p *Paged) fetchPhase(ctx context.Context, ph, size int, wide bool) (fetchedPhase, error) {
	s := &p.streams[ph]
	phaseName := "rows"
	if p.phases[ph].anyNull() {
		phaseName = "null_sort"
	}
	thinCols := p.thinColumns() // a phase's null sort columns too (the trace shows them), and the engine conditions' columns
	for {
		limit := size + 1
		if caps := p.paged.r.Conn.Caps(); caps.MaxRows > 0 && limit > caps.MaxRows {
			limit = caps.MaxRows // a source returning one row per response gets no look past the edge
			size = max(1, limit-1)
		}
		cols, order, purpose := thinCols, p.thinOrder(), "thin"
		if wide {
			cols, order, _ = p.fullShape(ph)
			purpose = "wide"
		}
		p.emit(joinevent.PageRequested{Page: p.page, Phase: phaseName, Cursor: literals(s.next), Size: size, Wide: wide})
		bound := connector.After
		if s.again {
			bound = connector.AtOrAfter
		}
		req := connector.Request{Table: p.paged.r.Info.Name, Columns: cols, OrderBy: order, Limit: limit,
			Where: p.paged.where(p.phaseWhere(ph), p.cursorPred(ph, bound, s.next))}
		page, err := p.paged.send(ctx, req, purpose)
		var big *connector.ResultTooLargeError
		if errors.As(err, &big) && wide {
			wide = false
			p.emit(joinevent.PageSized{Page: p.page, Size: size, Reason: "the source refused the first page at full width: " + big.Error() + "; thin rows instead"})
			continue
		}
		if errors.As(err, &big) && size > 1 {
			next := max(1, size/shrinkDivisor)
			p.emit(joinevent.PageSized{Page: p.page, Size: next, Reason: "the source refused " + fmt.Sprint(size) + " thin rows: " + big.Error()})
			size = next
			continue
		}
		if err != nil {
			return fetchedPhase{}, fmt.Errorf("thin page: %w", err)
		}
		return fetchedPhase{page: page, cols: cols, limit: limit, size: size, wide: wide}, nil
	}
}

// keepPhase makes a phase's response its stream's rows, in place of the spent ones.
func (p *Paged) keepPhase(ph int, f fetchedPhase) error {
	s := &p.streams[ph]
	p.budget.Shrink(s.held)
	s.held = 0
	if err := p.budget.Grow("a thin page", f.page.Batch.Bytes()); err != nil {
		return err
	}
	n := f.page.Rows()
	s.rows, s.cols, s.pos, s.wide, s.held = f.page.Batch, f.cols, 0, f.wide, f.page.Batch.Bytes()
	s.done = !f.page.Truncated && n < f.limit
	s.again, s.oneTuple = false, false
	if n > 0 {
		s.next = p.phaseTuple(ph, f.page.Batch, f.cols, n-1)
		s.oneTuple = equalValues(p.phaseTuple(ph, f.page.Batch, f.cols, 0), s.next)
	}
	return nil
}

// windowPhases are the phases present in the page's rows [start, end), in order of their first row there, each
// with its last row there and those of matched that are keys of its rows: what each phase's re-fetch asks. With
// engine conditions on the paged side, a key counts for a phase only through its rows whose tuple may pass them
// (see probesKey): a key probed for a row of one phase is not re-fetched from another whose rows of it all fail.
func (p *Paged) windowPhases(start, end int, matched []column.Value) ([]int, map[int]int, map[int][]column.Value) {
	if p.thinPhase == nil { // one phase: the window's keys are its own
		return []int{p.thinOnly}, map[int]int{p.thinOnly: end - 1}, map[int][]column.Value{p.thinOnly: matched}
	}
	want := make(map[string]bool, len(matched))
	for _, v := range matched {
		want[connector.Literal(v)] = true
	}
	keyVec := p.thin.Cols[indexOfName(p.thinCols, p.keyCol)]
	var phases []int
	last := map[int]int{}
	keys := map[int][]column.Value{}
	seen := map[string]bool{}
	for i := start; i < end; i++ {
		ph := p.thinPhase[i]
		if _, ok := last[ph]; !ok {
			phases = append(phases, ph)
		}
		last[ph] = i
		k := keyVec.Value(i)
		lit := connector.Literal(k)
		if tag := fmt.Sprint(ph, ":", lit); want[lit] && !seen[tag] && p.probesKey(i) {
			seen[tag] = true
			keys[ph] = append(keys[ph], k)
		}
	}
	return phases, last, keys
}

// compactStreams keeps of each stream of the block only its rows not yet in a page, copied, once the page has
// copied its own: so the memory held (and accounted) is the page and the rows still to come, not both twice.
func (p *Paged) compactStreams() error {
	for _, ph := range p.blockPhases() {
		s := &p.streams[ph]
		if s.rows == nil || s.pos == 0 {
			continue
		}
		idx := make([]int32, 0, s.rows.N-s.pos)
		for i := s.pos; i < s.rows.N; i++ {
			idx = append(idx, int32(i))
		}
		rest := &column.Batch{Cols: make([]*column.Vector, len(s.rows.Cols)), N: len(idx)}
		for c, v := range s.rows.Cols {
			if v != nil {
				rest.Cols[c] = v.Gather(idx)
			}
		}
		p.budget.Shrink(s.held)
		s.rows, s.pos, s.held = rest, 0, 0
		if err := p.budget.Grow("a thin page", rest.Bytes()); err != nil {
			return err
		}
		s.held = rest.Bytes()
	}
	return nil
}

// dropStreams releases every phase's rows in hand.
func (p *Paged) dropStreams() {
	for i := range p.streams {
		p.budget.Shrink(p.streams[i].held)
		p.streams[i].rows, p.streams[i].held = nil, 0
	}
}

// phaseTuple is the phase's cursor tuple (its non-null sort columns, then the key) of row i of b.
func (p *Paged) phaseTuple(ph int, b *column.Batch, cols []string, i int) []column.Value {
	keys := p.phaseKeys(ph)
	out := make([]column.Value, len(keys))
	for k, key := range keys {
		out[k] = b.Cols[indexOfName(cols, key.Column)].Value(i)
	}
	return out
}

// compareSortRows orders row i of a (columns acols) against row j of b by the sort columns, each with its
// direction and null placement: -1, 0 or 1.
func (p *Paged) compareSortRows(a *column.Batch, acols []string, i int, b *column.Batch, bcols []string, j int) int {
	for _, s := range p.sortCols {
		x := a.Cols[indexOfName(acols, s.Column)].Value(i)
		y := b.Cols[indexOfName(bcols, s.Column)].Value(j)
		if c := compareSortValue(s, x, y); c != 0 {
			return c
		}
	}
	return 0
}

// compareSortValue orders two values of sort column s: its direction, its nulls first or last.
func compareSortValue(s SortColumn, x, y column.Value) int {
	switch {
	case x.Null && y.Null:
		return 0
	case x.Null:
		if s.NullsFirst {
			return -1
		}
		return 1
	case y.Null:
		if s.NullsFirst {
			return 1
		}
		return -1
	}
	c, _ := expr.Compare(x, y)
	if s.Desc {
		c = -c
	}
	return c
}

// sortValues are the sort columns' values (nulls included) of row i of t.
func (p *Paged) sortValues(t *column.Table, i int) []column.Value {
	out := make([]column.Value, len(p.sortCols))
	for c, s := range p.sortCols {
		out[c] = t.Cols[t.Schema.Index(s.Column)].Value(i)
	}
	return out
}

// mergePhases merges tables of several phases, each in the order, into the full order. Rows of different
// phases never tie on the sort columns, so a stable sort on them alone keeps each phase's own order.
func (p *Paged) mergePhases(tabs []*column.Table) *column.Table {
	out := column.NewTable(tabs[0].Schema)
	for _, t := range tabs {
		out.Append(t.Batch())
	}
	if len(tabs) == 1 {
		return out
	}
	idx := make([]int32, out.N)
	for i := range idx {
		idx[i] = int32(i)
	}
	cols := make([]*column.Vector, len(p.sortCols))
	for c, s := range p.sortCols {
		cols[c] = out.Cols[out.Schema.Index(s.Column)]
	}
	sort.SliceStable(idx, func(a, b int) bool {
		for c, s := range p.sortCols {
			if r := compareSortValue(s, cols[c].Value(int(idx[a])), cols[c].Value(int(idx[b]))); r != 0 {
				return r < 0
			}
		}
		return false
	})
	merged := &column.Table{Schema: out.Schema, Cols: make([]*column.Vector, len(out.Cols)), N: out.N}
	for i, c := range out.Cols {
		if c != nil {
			merged.Cols[i] = c.Gather(idx)
		}
	}
	return merged
}
