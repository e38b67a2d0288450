package join

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
)

// The rows of the paged join that match nothing and are not in any window's join: the paged side's rows whose
// key is null (output by the paged side's outer and anti kinds), and the probe side's rows whose key the paged
// side never has (output by the probe side's outer and anti kinds, and fullouter).
//
// Null-key rows never match, and thin pages never read them (their key is the cursor's tiebreaker, which no
// source compares with null). They are read apart, per null phase, at full width in the output's order —
// `isnull(key)`, the phase's sort columns null or not, ordered by (sort columns…, the table's key) and
// continued by keyset over the phase's non-null sort columns and the table's key without the join key — a
// response at a time, the phases of a block merged by the full order as the main stream's are (see
// paged_phasemerge.go), and merged into the output: a null key sorts after every key (unless the order ends
// with the key, nulls first), so a null-key row goes out just before the first row of the main stream whose
// sort values come after its own (or are the same, nulls first), or at the end of its block. Each batch goes
// through the windows' machinery, joined with an empty probe side: null-extended (outer) or alone (anti).
// Cost: one request per response of such rows, at least one per phase reached.
//
// The probe side's unmatched rows are known only when every page is done. Each window adds to matchedKeys the
// keys that found probe rows (or, when windows probe nothing — the probe side's anti join — every key of the
// window); after the last page the probe side is scanned once in its table key's order, a response at a time,
// and its rows whose key is null or not in the set go out joined with an empty paged side: null-extended
// (outer) or alone (anti). Every paged column of those rows is null, so they come last in an order that puts
// nulls last (CheckPagedSort refuses the others). Memory: the set, a key and matchedKeyBytes each, accounted;
// past matchedKeysShare of the budget the join fails (see noteMatched). Cost: ⌈probe rows / probeScanRows⌉ requests.

// The unmatched rows' trace events are joinevent.NullKeyRows and joinevent.ProbeScanned.

// probeScanRows bounds one response of the probe scan (below the source's row cap): the scan holds one
// response and its unmatched rows at a time, so its memory stays that of a page whatever the probe side's size.
const probeScanRows = 4096

// nullKeyStream reads one phase's rows with a null key, a response at a time.
type nullKeyStream struct {
	rows   *column.Table // the last response, emitted up to pos
	pos    int
	cursor []column.Value // the keyset values of the response's last row (nil: the phase's start)
	asked  bool           // a request of the phase was sent
	more   bool           // the source may hold more rows of the phase past cursor
	held   int64
}

func (n *nullKeyStream) drop(budget *memory.Budget) {
	budget.Shrink(n.held)
	n.rows, n.pos, n.held = nil, 0, 0
}

// spent says the stream has no row in hand.
func (n *nullKeyStream) spent() bool { return n.rows == nil || n.pos >= n.rows.N }

// nextNullKeys leaves ready to emit the null-key rows due before the main stream's next window — those whose
// sort values come before its first row, or all of a block the main stream has left, a response at a time —
// and reports whether there were any. It may fetch the next thin page to know where the main stream stands.
func (p *Paged) nextNullKeys(ctx context.Context) (bool, error) {
	for p.nullBlock < len(p.blocks) && p.nullBlock <= p.block {
		var bound []column.Value // the next main row's sort values; nil: the whole block is due
		if p.nullBlock == p.block {
			if p.thin == nil {
				if err := p.fetchThin(ctx); err != nil {
					return false, err
				}
				if p.thin == nil {
					continue // the block has no more rows: p.block moved on
				}
			}
			bound = p.fullTupleAt(p.thinPos)[:len(p.sortCols)]
		}
		due, err := p.dueNullKeys(ctx, bound)
		if err != nil {
			return false, err
		}
		if due == nil {
			b := p.blocks[p.nullBlock]
			for ph := b[0]; ph < b[1]; ph++ {
				p.nulls[ph].drop(p.budget)
			}
			p.nullBlock++
			continue
		}
		if due.N == 0 {
			return false, nil
		}
		batches, err := p.alone(ctx, due)
		if err != nil {
			return false, err
		}
		p.ready, p.cuts, p.hash = batches, nil, nil
		p.state, p.afterEmit = pagedEmit, pagedNext
		return true, nil
	}
	return false, nil
}

// dueNullKeys takes the null block's next rows that sort before bound (the sort values of a main row; nil:
// every row), merged across the block's phases in the order, from the responses in hand or, once one is spent,
// its phase's next one: empty when none is due, nil when the block is done.
func (p *Paged) dueNullKeys(ctx context.Context, bound []column.Value) (*column.Table, error) {
	b := p.blocks[p.nullBlock]
	var out *column.Table
	for {
		best := -1
		for ph := b[0]; ph < b[1]; ph++ {
			n := &p.nulls[ph]
			// A response whose rows all fail the engine conditions is spent as soon as it is read: the next.
			for n.spent() && (!n.asked || n.more) {
				if out != nil && out.N > 0 {
					return out, nil // a response at a time: the rest when these are out
				}
				if err := p.readNullKeys(ctx, ph); err != nil {
					return nil, err
				}
			}
			if n.spent() {
				continue
			}
			if best < 0 || p.compareSortRows(n.rows.Batch(), columnNames(n.rows), n.pos, p.nulls[best].rows.Batch(), columnNames(p.nulls[best].rows), p.nulls[best].pos) < 0 {
				best = ph
			}
		}
		if best < 0 {
			if out == nil {
				return nil, nil
			}
			return out, nil
		}
		n := &p.nulls[best]
		if out == nil {
			out = column.NewTable(n.rows.Schema)
		}
		if bound != nil && !p.sortsBefore(n.rows, n.pos, bound) {
			return out, nil
		}
		out.Append(n.rows.Batch().Slice(n.pos, n.pos+1))
		n.pos++
	}
}

func columnNames(t *column.Table) []string {
	out := make([]string, len(t.Schema))
	for i, f := range t.Schema {
		out[i] = f.Name
	}
	return out
}

// nullCut is where null-key rows go inside a window's output: just before its paged row row.
type nullCut struct {
	row  int
	rows *column.Table
}

// cutAtNullKeys finds where the current null phase's rows go among a window's paged rows (in the output's
// order), taking them from the null stream: a row of t whose sort values come after null-key rows not yet out
// gets them just before it. The rows are held (accounted) until the window is emitted.
func (p *Paged) cutAtNullKeys(ctx context.Context, t *column.Table) ([]nullCut, error) {
	var cuts []nullCut
	if p.nullBlock != p.block {
		return nil, nil // the null stream is not at the window's block (it never passes the main stream)
	}
	for i := 0; i < t.N; i++ {
		bound := p.sortValues(t, i)
		for {
			due, err := p.dueNullKeys(ctx, bound)
			if err != nil {
				return nil, err
			}
			if due == nil {
				return cuts, nil
			}
			if due.N == 0 {
				break
			}
			if err := p.grow("rows with a null key", due.Batch().Bytes()); err != nil {
				return nil, err
			}
			if len(cuts) > 0 && cuts[len(cuts)-1].row == i {
				cuts[len(cuts)-1].rows.Append(due.Batch())
			} else {
				cuts = append(cuts, nullCut{row: i, rows: due})
			}
		}
	}
	return cuts, nil
}

// alone is rows of the paged side joined with an empty probe side: null-extended (outer) or alone (anti).
func (p *Paged) alone(ctx context.Context, rows *column.Table) ([]*column.Batch, error) {
	left, right := p.sideOps(rows, p.emptyTable(p.probe.r))
	h := NewHash(p.spec, left, right, !p.cfg.PagedLeft, p.budget)
	var out []*column.Batch
	for {
		b, err := h.Next(ctx)
		if err != nil || b == nil {
			return out, err
		}
		if b.N > 0 {
			out = append(out, b)
		}
	}
}

// cutRows streams a window's paged rows like pageTable, but never hands over a batch across a cut, and
// remembers the first row of the batch it handed over last: the output the hash join returns next comes from
// that batch, so the cuts at or before it are due first. This leans on Hash's contract that an output batch
// holds the rows of one probe batch, and that it returns them before reading the next.
type cutRows struct {
	pageTable
	cuts    []nullCut
	started int // the first row of the last batch handed over (-1: none yet)
}

func (o *cutRows) Next(ctx context.Context) (*column.Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.pos >= o.t.N {
		o.started = o.t.N
		return nil, nil
	}
	hi := min(o.t.N, o.pos+outRows)
	for _, c := range o.cuts {
		if c.row > o.pos && c.row < hi {
			hi = c.row
			break
		}
	}
	b := o.t.Batch().Slice(o.pos, hi)
	o.started, o.pos = o.pos, hi
	return b, nil
}

// due takes the cuts the next output may not precede: those at or before the last batch's first row.
func (o *cutRows) due() []nullCut {
	k := 0
	for k < len(o.cuts) && o.cuts[k].row <= o.started {
		k++
	}
	out := o.cuts[:k]
	o.cuts = o.cuts[k:]
	return out
}

// sortsBefore reports whether null-key row i of t goes before a row with the sort values bound (every sort
// column, nulls included) in the output's order: its sort values come first, or they are equal and the order
// puts null keys first.
func (p *Paged) sortsBefore(t *column.Table, i int, bound []column.Value) bool {
	for c, s := range p.sortCols {
		if cmp := compareSortValue(s, t.Cols[t.Schema.Index(s.Column)].Value(i), bound[c]); cmp != 0 {
			return cmp < 0
		}
	}
	return p.nullKeysFirst
}

// readNullKeys fetches the next response of phase ph's null-key rows.
func (p *Paged) readNullKeys(ctx context.Context, ph int) error {
	n := &p.nulls[ph]
	r := p.paged.r
	cols, order := p.fullColumns()
	pattern := p.phases[ph]
	var keyset []connector.OrderKey
	for _, k := range order {
		if i := p.sortIndex(k.Column); k.Column != p.keyCol && (i < 0 || !pattern[i]) {
			keyset = append(keyset, k) // the key and the phase's null sort columns are null: no cursor compares them
		}
	}
	terms := []connector.Predicate{connector.Not{X: connector.NotNull{Column: p.keyCol}}}
	for i, s := range p.sortCols {
		if pattern[i] {
			terms = append(terms, connector.Not{X: connector.NotNull{Column: s.Column}})
		} else {
			terms = append(terms, connector.NotNull{Column: s.Column})
		}
	}
	if n.cursor != nil {
		terms = append(terms, connector.Keyset{Keys: keyset, Values: n.cursor, Bound: connector.After})
	}
	limit := max(p.size, firstPageRows)
	if caps := r.Conn.Caps(); caps.MaxRows > 0 {
		limit = min(limit, caps.MaxRows)
	}
	req := connector.Request{Table: r.Info.Name, Columns: cols, OrderBy: order, Limit: limit, Where: p.paged.where(terms...)}
	page, asked, err := p.paged.sendShrinking(ctx, req, "null-keys")
	if err != nil {
		return err
	}
	n.drop(p.budget)
	if err := p.budget.Grow("rows with a null key", page.Batch.Bytes()); err != nil {
		return err
	}
	rows := page.Rows()
	n.held, n.asked = page.Batch.Bytes(), true
	n.rows, n.pos = pageOf(page, cols, r.Info.Schema), 0
	n.more = rows > 0 && (page.Truncated || rows >= asked)
	if n.more {
		if len(keyset) == 0 {
			return fmt.Errorf("%d rows with a null key fill a response, and no column is left to continue after them", rows)
		}
		n.cursor = make([]column.Value, len(keyset))
		for i, k := range keyset {
			n.cursor[i] = n.rows.Cols[n.rows.Schema.Index(k.Column)].Value(rows - 1)
		}
	}
	var dropped int
	if n.rows, dropped, err = r.enginePass(n.rows); err != nil {
		return fmt.Errorf("null-keys: %w", err)
	}
	p.emit(joinevent.NullKeyRows{Phase: ph, Rows: rows, More: n.more, EngineDropped: engineDropped(r, dropped)})
	return nil
}

// nextUnmatchedProbe reads the next response of the probe scan and leaves its rows that match no paged key
// ready to emit; after the last response it finishes the join.
func (p *Paged) nextUnmatchedProbe(ctx context.Context) error {
	if p.scanDone {
		p.finish()
		return nil
	}
	r := p.probe.r
	cols, order := keyedColumns(r)
	limit := probeScanRows
	if caps := r.Conn.Caps(); caps.MaxRows > 0 {
		limit = min(limit, caps.MaxRows)
	}
	var after connector.Predicate
	if p.scanCursor != nil {
		after = connector.Keyset{Keys: order, Values: p.scanCursor, Bound: connector.After}
	}
	req := connector.Request{Table: r.Info.Name, Columns: cols, OrderBy: order, Limit: limit, Where: p.probe.where(after)}
	page, asked, err := p.probe.sendShrinking(ctx, req, "probe-scan")
	if err != nil {
		return err
	}
	rows := page.Rows()
	b := page.Batch
	if rows > 0 && (page.Truncated || rows >= asked) {
		p.scanCursor = make([]column.Value, len(order))
		for i, k := range order {
			p.scanCursor[i] = b.Cols[indexOfName(cols, k.Column)].Value(rows - 1)
		}
	} else {
		p.scanDone = true
	}
	keyVec := b.Cols[indexOfName(cols, r.keyColumn())]
	pass, err := r.engineKeep(cols, b)
	if err != nil {
		return fmt.Errorf("probe-scan: %w", err)
	}
	var idx []int32
	dropped := 0
	for i := 0; i < rows; i++ {
		if pass != nil && !pass[i] {
			dropped++ // not an input of the join: neither matched nor unmatched
			continue
		}
		if keyVec.IsNull(i) || !p.matchedKeys[connector.Literal(keyVec.Value(i))] {
			idx = append(idx, int32(i))
		}
	}
	p.emit(joinevent.ProbeScanned{Rows: rows, Unmatched: len(idx), More: !p.scanDone, MatchedKeys: len(p.matchedKeys), EngineDropped: engineDropped(r, dropped)})
	if len(idx) == 0 {
		return nil
	}
	out := &column.Table{Schema: schemaOf(cols, r.Info.Schema), Cols: make([]*column.Vector, len(cols)), N: len(idx)}
	for i, c := range b.Cols {
		if c != nil {
			out.Cols[i] = c.Gather(idx)
		}
	}
	if err := p.grow("unmatched probe rows", out.Batch().Bytes()); err != nil {
		return err
	}
	p.joinRows(p.emptyTable(p.paged.r), out, true, nil)
	return nil
}

// emptyTable is a table of r's fetched columns with no rows: the side a batch of unmatched rows is joined
// with.
func (p *Paged) emptyTable(r *Remote) *column.Table {
	return column.NewTable(schemaOf(fetchColumns(r), r.Info.Schema))
}
