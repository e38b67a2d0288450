package join

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/dynfilter"
	"github.com/joinlab/joinlab/engine/expr"
)

// Engine-side conditions of the paged join: a condition over one side that its connector cannot compute (a
// function, a string operator, a dynamic column — see connector.Translate — or a conjunct the pushdown
// refused for its caps) is evaluated by the engine on the rows the join fetches, and acts exactly as a where
// under the join: a row that fails it is not an input of the join at all (not matched, not null-extended, not
// output by an anti join, not counted by take).
//
// On the paged side the condition runs twice, because the two requests of a page do different jobs:
//
//   - on the thin page, which carries the columns the condition reads besides the cursor columns: failing rows
//     stay in the page — they still advance the cursor, bound the window (cursor, last] and show tie groups cut
//     at the edge, so a page whose rows all fail moves on like any other — but their keys are not probed, not
//     re-fetched, and not counted in the page's keys;
//   - on the re-fetched full rows (and the wide first page, the null-key rows): the re-fetch asks by key, and a
//     key that passed on one row brings every row of that key in the window, including rows that fail; and a
//     source that changed between the two requests may send rows that no longer pass. Only rows that pass here
//     are joined, so the answer holds no row that fails, whatever the thin page said.
//
// With null phases (see paged_phasemerge.go) every phase's thin requests carry those columns, the failing rows
// of every phase advance that phase's cursor, a key is re-fetched from a phase only for that phase's rows whose
// tuple passes (or may), and the merged re-fetch of all the window's phases is checked again. A phase's stream
// continues after its last row fetched, which could leave twins of that row unseen in the middle of a page;
// with conditions the page gives that tuple back and the phase asks again from it, inclusive (see giveBack),
// so twins are cut only at the page's edge, as without phases (see tupleVerdict for the one exception).
//
// On the probe side it runs on every probe answer (and the scan for the probe side's unmatched rows) before
// the answer's keys count as matched.
//
// Cost: the thin page is wider by the columns the condition reads (bytes per thin row grow, so the adaptive
// size shrinks pages against the response byte cap, measured from the pages themselves); no request is added,
// and rows that fail on the thin page save their share of the probe and the re-fetch. The evaluation is the
// where's own compiled kernels over each fetched batch. Under take N a one-key window cannot stop its probe at
// the first N matches (some may fail), so it reads all of that key's matches.

// EngineCond is one condition over a side that its connector does not compute, evaluated by the engine.
type EngineCond struct {
	// Text is the condition as written, for explain, the trace and errors.
	Text string
	// Pred is the condition compiled over the side's columns in Remote.Columns order (the spec's side schema):
	// only the columns it reads (Pred.Refs) need be present when it is evaluated.
	Pred expr.Expr
}

// engineColumns are the connector columns r's engine conditions read, in Columns order.
func (r *Remote) engineColumns() []string {
	var reads []bool
	for _, c := range r.Engine {
		for _, i := range c.Pred.Refs(nil) {
			if reads == nil {
				reads = make([]bool, len(r.Columns))
			}
			if i >= 0 && i < len(reads) {
				reads[i] = true
			}
		}
	}
	var out []string
	for i, rd := range reads {
		if rd {
			out = append(out, r.Columns[i])
		}
	}
	return out
}

// readsForEngine reports whether an engine condition of r reads column i of Columns.
func (r *Remote) readsForEngine(i int) bool {
	for _, c := range r.Engine {
		for _, j := range c.Pred.Refs(nil) {
			if j == i {
				return true
			}
		}
	}
	return false
}

// checkEngine says why r's engine conditions cannot run: a column index outside the side, or a condition
// that is not a truth value.
func (r *Remote) checkEngine() error {
	for _, c := range r.Engine {
		if c.Pred == nil {
			return fmt.Errorf("engine-side condition %q over @%s is not compiled", c.Text, r.Name)
		}
		if t := c.Pred.Type(); t != column.Bool && t != column.Dynamic {
			return fmt.Errorf("engine-side condition %q over @%s is a %s, not a condition", c.Text, r.Name, t)
		}
		for _, i := range c.Pred.Refs(nil) {
			if i < 0 || i >= len(r.Columns) {
				return fmt.Errorf("engine-side condition %q over @%s reads column %d of %d", c.Text, r.Name, i, len(r.Columns))
			}
		}
	}
	return nil
}

// engineKeep evaluates r's engine conditions over b, whose columns are the connector columns cols: which rows
// pass every one (nil when r has none). Null and false both fail, as in a where.
func (r *Remote) engineKeep(cols []string, b *column.Batch) ([]bool, error) {
	if len(r.Engine) == 0 {
		return nil, nil
	}
	laid := &column.Batch{Cols: make([]*column.Vector, len(r.Columns)), N: b.N}
	for i, c := range r.Columns {
		if j := indexOfName(cols, c); j >= 0 {
			laid.Cols[i] = b.Cols[j]
		}
	}
	keep := make([]bool, b.N)
	for i := range keep {
		keep[i] = true
	}
	for _, c := range r.Engine {
		for _, i := range c.Pred.Refs(nil) {
			if laid.Cols[i] == nil {
				return nil, fmt.Errorf("engine-side condition %q over @%s reads %s, which the request did not fetch", c.Text, r.Name, r.Columns[i])
			}
		}
		if b.N == 0 {
			continue
		}
		mask := c.Pred.Eval(laid)
		for i := range keep {
			if !keep[i] {
				continue
			}
			if mask.Type != column.Bool { // a dynamic condition: only JSON true keeps the row
				t, ok := expr.Truth(mask.Value(i))
				keep[i] = ok && t
				continue
			}
			keep[i] = mask.Bools[i] && !mask.IsNull(i)
		}
	}
	return keep, nil
}

// enginePass is t without the rows that fail r's engine conditions, and how many were dropped (t itself and 0
// when r has none or every row passes).
func (r *Remote) enginePass(t *column.Table) (*column.Table, int, error) {
	if len(r.Engine) == 0 || t == nil {
		return t, 0, nil
	}
	cols := make([]string, len(t.Schema))
	for i, f := range t.Schema {
		cols[i] = f.Name
	}
	keep, err := r.engineKeep(cols, t.Batch())
	if err != nil {
		return nil, 0, err
	}
	idx := make([]int32, 0, t.N)
	for i, k := range keep {
		if k {
			idx = append(idx, int32(i))
		}
	}
	if len(idx) == t.N {
		return t, 0, nil
	}
	out := &column.Table{Schema: t.Schema, Cols: make([]*column.Vector, len(t.Cols)), N: len(idx)}
	for i, c := range t.Cols {
		if c != nil {
			out.Cols[i] = c.Gather(idx)
		}
	}
	return out, t.N - len(idx), nil
}

// thinColumns are the columns of a thin page: the cursor's order columns, then those the paged side's engine
// conditions read.
func (p *Paged) thinColumns() []string {
	cols := orderColumns(p.thinOrder())
	for _, c := range p.paged.r.engineColumns() {
		if indexOfName(cols, c) < 0 {
			cols = append(cols, c)
		}
	}
	return cols
}

// checkThinPage evaluates the paged side's engine conditions on the page in hand and returns how many of its
// first use rows fail them; open marks its rows that end an open response (see openRows). It also judges each
// of the page's tuples (see tupleVerdict).
func (p *Paged) checkThinPage(use int, open []bool) (int, error) {
	pass, err := p.paged.r.engineKeep(p.thinCols, p.thin)
	if err != nil {
		return 0, fmt.Errorf("thin page: %w", err)
	}
	p.thinPass, p.thinTuples = pass, nil
	if pass == nil {
		return 0, nil
	}
	dropped := 0
	for i := 0; i < use; i++ {
		if !pass[i] {
			dropped++
		}
	}
	p.details.Add(DetailEngineDropped, int64(dropped))
	p.thinTuples = make([]tupleVerdict, p.thin.N)
	for lo := 0; lo < p.thin.N; {
		hi, v := lo+1, tupleFails
		for hi < p.thin.N && p.sameTuple(lo, hi) {
			hi++
		}
		for i := lo; i < hi; i++ {
			switch {
			case pass[i]:
				v = tuplePasses
			case open[i] && v == tupleFails:
				v = tupleInDoubt
			}
		}
		if hi == p.thin.N && !p.thinShort && v == tupleFails {
			v = tupleInDoubt // the last row fetched: more twins may follow
		}
		for i := lo; i < hi; i++ {
			p.thinTuples[i] = v
		}
		lo = hi
	}
	return dropped, nil
}

// tupleVerdict is what the engine conditions say of a tuple of the page in hand (its rows of one phase with the
// same sort values and key: twins, next to one another in the page, see sameTuple).
type tupleVerdict uint8

const (
	// tupleFails: every row of the tuple fails, and the page holds all of them.
	tupleFails tupleVerdict = iota
	// tuplePasses: a row of the tuple passes.
	tuplePasses
	// tupleInDoubt: the rows in hand fail, but twins may follow unseen — after the last row fetched, or after
	// the last row of a response that was not its phase's last (the phase's next request starts after that
	// row's tuple) — and one of them may pass.
	tupleInDoubt
)

// thinPasses reports whether row i of the page in hand passes the paged side's engine conditions.
func (p *Paged) thinPasses(i int) bool { return p.thinPass == nil || p.thinPass[i] }

// probesKey reports whether the key of row i of the page in hand is probed and re-fetched for it: its tuple
// passes, or may (see tupleVerdict).
func (p *Paged) probesKey(i int) bool { return p.thinTuples == nil || p.thinTuples[i] != tupleFails }

// windowPassKeys are the keys a window of the page in hand — its rows [start, end), re-fetched per phase as
// (cursor, last] — must probe: the keys of its tuples that pass the paged side's engine conditions or may (see
// tupleVerdict). A tuple counts whole, its rows past the window's end too: the inclusive re-fetch of the
// window's last tuple brings every twin of it, those past the window's end (the thin page cuts tie groups at
// its edge), and those never seen in a thin page (a phase's next request starts after the tuple). For a window
// that probes, that is enough: its re-fetched rows are checked again. For one that only notes the paged side's
// keys (the probe side's anti join), a tuple in doubt is settled by re-fetching its key's rows in the window —
// one request per phase holding such tuples, only when the window has any.
func (p *Paged) windowPassKeys(ctx context.Context, start, end int, from, to []column.Value) ([]column.Value, error) {
	keyVec := p.thin.Cols[indexOfName(p.thinCols, p.keyCol)]
	if p.thinTuples == nil {
		return dynfilter.Distinct(keyVec.Slice(start, end), end-start), nil
	}
	var passIdx, doubtIdx []int32
	for i := start; i < end; i++ {
		switch p.thinTuples[i] {
		case tuplePasses:
			passIdx = append(passIdx, int32(i))
		case tupleInDoubt:
			doubtIdx = append(doubtIdx, int32(i))
		}
	}
	keys := dynfilter.Distinct(keyVec.Gather(passIdx), len(passIdx))
	doubt := missing(dynfilter.Distinct(keyVec.Gather(doubtIdx), len(doubtIdx)), keys)
	if len(doubt) == 0 || p.perWindow {
		return append(keys, doubt...), nil
	}
	rows, err := p.refetch(ctx, start, end, from, to, doubt)
	p.release()
	if err != nil {
		return nil, err
	}
	return append(keys, dynfilter.Distinct(rows.Cols[rows.Schema.Index(p.keyCol)], rows.N)...), nil
}

// passingKeyVector is the page in hand's key vector with the rows that fail the engine conditions made null, so
// that counting a window's sure matches (coverRows) counts only rows that will be joined.
func (p *Paged) passingKeyVector(keyVec *column.Vector) *column.Vector {
	if p.thinPass == nil {
		return keyVec
	}
	idx := make([]int32, keyVec.Len())
	for i := range idx {
		idx[i] = int32(i)
		if i < len(p.thinPass) && !p.thinPass[i] {
			idx[i] = -1
		}
	}
	return keyVec.Gather(idx)
}

// probeSample is a dropped full probe response without its rows that fail the probe side's engine conditions:
// the sample of matches per key (see noteHeavy) counts only rows that would be joined.
func (p *Paged) probeSample(b *column.Batch) (*column.Batch, error) {
	if len(p.probe.r.Engine) == 0 {
		return b, nil
	}
	cols, _ := keyedColumns(p.probe.r)
	t, _, err := p.probe.r.enginePass(&column.Table{Schema: schemaOf(cols, p.probe.r.Info.Schema), Cols: b.Cols, N: b.N})
	if err != nil {
		return nil, err
	}
	return t.Batch(), nil
}

// keptKeys are the keys of matched that rows of t (the paged rows a window joins, after the engine conditions)
// hold: with engine conditions on the paged side, what marks a probe key matched is a paged row that passed and
// was joined, not the thin page's word for it.
func (p *Paged) keptKeys(t *column.Table, matched []column.Value) []column.Value {
	if len(p.paged.r.Engine) == 0 || t == nil {
		return matched
	}
	held := dynfilter.Distinct(t.Cols[t.Schema.Index(p.keyCol)], t.N)
	return missing(matched, missing(matched, held))
}

// probeOfKept is probeTab without the rows whose key no row of pagedTab holds, when the paged side has engine
// conditions and the kind outputs the probe side's unmatched rows: a key probed for a row that then failed
// (or a cut tuple's key probed in doubt) must not make its probe rows unmatched in this window's join — they
// are unmatched only if no window joins them, which the scan after the last page decides (see noteMatched).
func (p *Paged) probeOfKept(probeTab, pagedTab *column.Table) *column.Table {
	if len(p.paged.r.Engine) == 0 || !p.probeWants.keepsUnmatched() {
		return probeTab
	}
	held := map[string]bool{}
	pk := pagedTab.Cols[pagedTab.Schema.Index(p.keyCol)]
	for i := 0; i < pagedTab.N; i++ {
		if !pk.IsNull(i) {
			held[connector.Literal(pk.Value(i))] = true
		}
	}
	kv := probeTab.Cols[probeTab.Schema.Index(p.probe.r.keyColumn())]
	var idx []int32
	for i := 0; i < probeTab.N; i++ {
		if !kv.IsNull(i) && held[connector.Literal(kv.Value(i))] {
			idx = append(idx, int32(i))
		}
	}
	if len(idx) == probeTab.N {
		return probeTab
	}
	out := &column.Table{Schema: probeTab.Schema, Cols: make([]*column.Vector, len(probeTab.Cols)), N: len(idx)}
	for i, c := range probeTab.Cols {
		if c != nil {
			out.Cols[i] = c.Gather(idx)
		}
	}
	return out
}

// engineDropped is a trace event's count of the rows the engine conditions of r dropped, when r has any (nil
// otherwise: the field is absent, as in the traces of joins without them).
func engineDropped(r *Remote, dropped int) *int {
	if len(r.Engine) == 0 {
		return nil
	}
	return &dropped
}
