package ui

import (
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/trace"
)

// A small paged run's rows, page by page: which output row came from which build-side page, with each page's
// cursor tuple (page_fetched's window_to, the last row's sort tuple the next page starts after) and the tie
// group its edge cut (tie_group_cut's tuple). The join's rows_emitted events name the page each batch came
// from, so the run's output rows, in order, split into pages by their counts. That holds only when the rows
// the join emitted are the rows the run delivered, one for one: the view draws the split when the join's
// emitted rows add up to the run's output, and the run is small (at most smallRows rows), so the table stays
// a few dozen DOM rows.

// smallRows is the most output rows a run may have for its rows to be drawn one by one: the engine's own
// figure for listing a small input's rows (joinevent.SmallSideRows), so every strategy's drawing of rows
// starts at the same size.
const smallRows = joinevent.SmallSideRows

// PageEmit is rows the paged join emitted from one page.
type PageEmit struct {
	Page, Rows float64
}

func (p *PagedSummary) addEmitted(e trace.RowsEmitted) {
	page, rows := float64(e.Page), float64(e.Rows)
	if e.Page == 0 || rows <= 0 {
		return
	}
	if n := len(p.Emitted); n > 0 && p.Emitted[n-1].Page == page {
		p.Emitted[n-1].Rows += rows
		return
	}
	if len(p.Emitted) < maxPages {
		p.Emitted = append(p.Emitted, PageEmit{Page: page, Rows: rows})
	}
}

// PageRows is one page's part of a small run's output.
type PageRows struct {
	Page        int64
	Cursor, Tie string
	First       int // the page's first output row, from 1
	Rows        [][]string
}

// PageRows lays the run's delivered rows out by the page each came from, or returns nil when the run is not
// small or its emitted rows do not add up to its output.
func (c *PagedView) PageRows() []PageRows {
	r := c.Run
	tr := r.Trace
	shown := r.RowsShown()
	if shown == 0 || shown > smallRows || len(tr.Paged.Emitted) == 0 {
		return nil
	}
	var total float64
	for _, e := range tr.Paged.Emitted {
		total += e.Rows
	}
	if int64(total) != tr.Output || int64(shown) != tr.Output {
		return nil
	}
	pages := map[float64]Page{}
	for _, p := range tr.Paged.Pages {
		pages[p.N] = p
	}
	var out []PageRows
	at := 0
	for _, e := range tr.Paged.Emitted {
		n := int(e.Rows)
		pg := pages[e.Page]
		out = append(out, PageRows{Page: int64(e.Page), Cursor: pg.Cursor, Tie: pg.TieTuple, First: at + 1,
			Rows: r.Rows.Slice(at, at+n, len(r.Columns))})
		at += n
	}
	return out
}

// PageRowsClass marks a page whose edge cut a tie group.
func (c *PagedView) PageRowsClass(pr PageRows) string {
	if pr.Tie != "" {
		return "page-group tie"
	}
	return "page-group"
}

// PageHead captions a page's rows: its number, rows, cursor tuple and the tie group its edge cut.
func (c *PagedView) PageHead(pr PageRows) string {
	s := "page " + count(pr.Page) + ": " + plural(int64(len(pr.Rows)), "row")
	if pr.Cursor != "" {
		s += ", cursor " + pr.Cursor
	}
	if pr.Tie != "" {
		s += "; its edge cut the tie group " + pr.Tie
	}
	return s
}
