package join

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join/joinevent"
)

// stallPages is how many consecutive pages the `<=` cursor may end on the value it started from before the
// baseline stops with an error: one such page is a tie group that fills a page; three mean it never advances.
const stallPages = 3

// NewKeysetCursor is the keyset baseline with a cursor on the sort column alone, full rows per page
// (BASELINE, wrong): page k+1 asks `sort < last` (inclusive false) or `sort <= last` (inclusive true) of page k's
// last row, ordered by the sort column, at most a page of rows.
//
//   - With `<`, every row tied with the page's last row that did not fit the page is skipped: lost rows and
//     lost join results, silently.
//   - With `<=`, the rows tied with the last row are read again by the next page (duplicated output), and when a
//     whole page shares one value the cursor never moves: detected after stallPages such pages and stopped with
//     an error rather than looping forever on an egress bill.
//
// Rows whose sort column is null are never paged (the cursor cannot compare them).
func NewKeysetCursor(spec *Spec, left, right *Remote, cfg PagedConfig, env *exec.Env, inclusive bool) (exec.Operator, error) {
	name := "keyset-lt"
	if inclusive {
		name = "keyset-le"
	}
	b, err := newBaseline(spec, left, right, cfg, env, name)
	if err != nil {
		return nil, err
	}
	p := b.p
	if p.sortCol == "" {
		return nil, fmt.Errorf("%s: needs a sort column other than the join key", name)
	}
	size := cfg.FirstPage
	if size <= 0 {
		size = firstPageRows
	}
	if caps := left.Conn.Caps(); cfg.PagedLeft && caps.MaxRows > 0 {
		size = min(size, caps.MaxRows)
	} else if caps := right.Conn.Caps(); !cfg.PagedLeft && caps.MaxRows > 0 {
		size = min(size, caps.MaxRows)
	}
	var cursor *column.Value
	stalled := 0
	b.next = func(ctx context.Context) (*column.Table, bool, error) {
		cols, order := p.fullColumns()
		r := p.paged.r
		where := p.paged.where(connector.NotNull{Column: p.sortCol})
		if cursor != nil {
			op := "<"
			if !p.cfg.Sort[0].Desc {
				op = ">"
			}
			if inclusive {
				op += "="
			}
			where = and(where, connector.Compare{Column: p.sortCol, Op: op, Value: *cursor})
		}
		p.emit(joinevent.PageRequested{Page: p.page, Phase: "rows", Cursor: literals(ptrValues(cursor)), Size: size})
		page, err := p.paged.send(ctx, connector.Request{Table: r.Info.Name, Columns: cols, Where: where, OrderBy: order, Limit: size}, "page")
		if err != nil {
			return nil, false, err
		}
		t := pageOf(page, cols, r.Info.Schema)
		if t.N == 0 {
			return t, false, nil
		}
		last := t.Cols[t.Schema.Index(p.sortCol)].Value(t.N - 1)
		if cursor != nil {
			if c, ok := expr.Compare(last, *cursor); ok && c == 0 {
				stalled++
			} else {
				stalled = 0
			}
		}
		if stalled >= stallPages {
			return nil, false, fmt.Errorf("the cursor %s %s has not advanced for %d pages: a whole page of %d rows shares that value, so `<=` reads it forever; stopped",
				p.sortCol, connector.Literal(last), stalled, size)
		}
		cursor = &last
		p.emit(joinevent.PageFetched{Page: p.page, Rows: t.N, Bytes: page.Bytes, WindowTo: literals([]column.Value{last}),
			Short: t.N < size && !page.Truncated})
		return t, page.Truncated || t.N >= size, nil
	}
	return b, nil
}

func ptrValues(v *column.Value) []column.Value {
	if v == nil {
		return nil
	}
	return []column.Value{*v}
}
