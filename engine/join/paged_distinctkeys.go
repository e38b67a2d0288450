package join

import (
	"context"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join/joinevent"
)

// NewDistinctKeys is the distinct-key-pages baseline (BASELINE, wrong order): pages are distinct join keys in
// the order of each key's first (newest) row — `summarize max(sort) by key | sort by it | take page` — and
// each page re-fetches every row of its keys, across all time. Deduplicating before cutting the page collapses
// what the global order needs: with one key per page, ana's page brings ana 12:00 and ana 11:58 before bob
// 11:59 comes with the next. Rows are all there, in the wrong order. The connector cannot summarize, so the
// key pages are read off thin keyset pages (sort, key), skipping keys already paged; the set of keys seen
// grows with the table (a baseline may). Page size: PagedConfig.FirstPage keys (0: firstPageRows).
func NewDistinctKeys(spec *Spec, left, right *Remote, cfg PagedConfig, env *exec.Env) (exec.Operator, error) {
	b, err := newBaseline(spec, left, right, cfg, env, "distinctkeys")
	if err != nil {
		return nil, err
	}
	p := b.p
	want := cfg.FirstPage
	if want <= 0 {
		want = firstPageRows
	}
	seen := map[string]bool{}
	var cursor []column.Value
	exhausted := false
	b.next = func(ctx context.Context) (*column.Table, bool, error) {
		r := p.paged.r
		var keys []column.Value
		thinCols := []string{p.keyCol}
		if p.sortCol != "" {
			thinCols = []string{p.sortCol, p.keyCol}
		}
		limit := want
		if caps := r.Conn.Caps(); caps.MaxRows > 0 {
			limit = min(limit, caps.MaxRows)
		}
		for len(keys) < want && !exhausted {
			req := connector.Request{Table: r.Info.Name, Columns: thinCols, OrderBy: p.thinOrder(), Limit: limit,
				Where: p.paged.where(p.phaseWhere(0), p.cursorPred(0, connector.After, cursor))}
			page, err := p.paged.send(ctx, req, "key page")
			if err != nil {
				return nil, false, err
			}
			n := page.Rows()
			for i := 0; i < n && len(keys) < want; i++ {
				k := page.Batch.Cols[len(thinCols)-1].Value(i)
				cursor = make([]column.Value, len(thinCols))
				for c := range thinCols {
					cursor[c] = page.Batch.Cols[c].Value(i)
				}
				if s := connector.Literal(k); !seen[s] {
					seen[s] = true
					keys = append(keys, k)
				}
			}
			if n < limit && !page.Truncated {
				exhausted = true
			}
		}
		cols, order := p.fullColumns()
		if len(keys) == 0 {
			return column.NewTable(schemaOf(cols, r.Info.Schema)), false, nil
		}
		p.emit(joinevent.PageFetched{Page: p.page, DistinctKeys: len(keys), Rows: len(keys)})
		shape := connector.Request{Table: r.Info.Name, Columns: cols, OrderBy: order, Limit: r.Conn.Caps().MaxRows}
		kf := keyFilter{column: p.keyCol, with: func(in connector.Predicate) connector.Predicate { return p.paged.where(p.phaseWhere(0), in) }}
		f, err := p.paged.filter(kf, keys, shape)
		if err != nil {
			return nil, false, err
		}
		out := column.NewTable(schemaOf(cols, r.Info.Schema))
		tabs, err := p.paged.completeSlices(ctx, kf, f.Slices, nil, cols, order, order, "key rows", stopAt{}, stopAt{})
		if err != nil {
			return nil, false, err
		}
		for _, t := range tabs {
			out.Append(t.Batch())
		}
		if len(f.Slices) > 1 {
			out = sortTable(out, order)
		}
		return out, !exhausted, nil
	}
	return b, nil
}
