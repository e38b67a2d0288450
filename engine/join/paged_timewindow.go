package join

import (
	"context"
	"fmt"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join/joinevent"
)

// defaultTimeWindow is the timewindow baseline's window when none is set: a minute, a plausible choice for a
// month of logs that nothing about the data justifies — which is the baseline's point.
const defaultTimeWindow = time.Minute

// TimeWindowColumn is the datetime column the timewindow baseline windows by: the first datetime column of the
// table's key, or "" when it has none.
func TimeWindowColumn(info connector.TableInfo) string {
	for _, k := range info.Key {
		if i := info.Schema.Index(k.Column); i >= 0 && info.Schema[i].Type == column.DateTime {
			return k.Column
		}
	}
	return ""
}

// NewTimeWindow is the time-window baseline (BASELINE, limited): the paged side is read newest first in windows
// (hi-W, hi] of a fixed width W, each window in one request with no row limit. It fails where the source
// document says: log volume is not uniform, so nothing bounds a window's rows — a burst of rows on one
// timestamp exceeds the response cap in any window, whatever W (the error names the window) — and its order is
// the time column's, so only `sort by <time> desc` is served in order (for any other sort the planner keeps the
// sort above it, which then holds everything and cannot stop early). After each window one request (newest
// row at or before the window's low edge, limit 1) finds the next window, so empty stretches cost nothing.
func NewTimeWindow(spec *Spec, left, right *Remote, cfg PagedConfig, env *exec.Env) (exec.Operator, error) {
	b, err := newBaseline(spec, left, right, cfg, env, "timewindow")
	if err != nil {
		return nil, err
	}
	p := b.p
	tc := TimeWindowColumn(p.paged.r.Info)
	if tc == "" {
		return nil, fmt.Errorf("timewindow: @%s has no datetime key column to window by", p.paged.r.Name)
	}
	w := cfg.Window
	if w <= 0 {
		w = defaultTimeWindow
	}
	var hi *column.Value // the next window's newest timestamp; nil before the first
	b.next = func(ctx context.Context) (*column.Table, bool, error) {
		r := p.paged.r
		// Find the newest row at or before hi: the next window starts there.
		find := connector.Request{Table: r.Info.Name, Columns: []string{tc}, Limit: 1,
			OrderBy: []connector.OrderKey{{Column: tc, Desc: true}}, Where: p.paged.where(connector.NotNull{Column: tc})}
		if hi != nil {
			find.Where = and(find.Where, connector.Compare{Column: tc, Op: "<=", Value: *hi})
		}
		page, err := p.paged.send(ctx, find, "next window")
		if err != nil {
			return nil, false, err
		}
		cols, order := p.fullColumns()
		if page.Rows() == 0 {
			return column.NewTable(schemaOf(cols, r.Info.Schema)), false, nil
		}
		top := page.Batch.Cols[0].Value(0)
		lo := column.Value{Type: column.DateTime, Int: top.Int - int64(w)}
		where := p.paged.where(p.phaseWhere(0), connector.Compare{Column: tc, Op: "<=", Value: top},
			connector.Compare{Column: tc, Op: ">", Value: lo})
		p.emit(joinevent.PageRequested{Page: p.page, Phase: "window", WindowFrom: connector.Literal(lo), WindowTo: connector.Literal(top)})
		rows, err := p.paged.send(ctx, connector.Request{Table: r.Info.Name, Columns: cols, Where: where, OrderBy: order}, "window")
		if err != nil {
			return nil, false, fmt.Errorf("window (%s, %s] of %s: %w", connector.Literal(lo), connector.Literal(top), w, err)
		}
		if rows.Truncated {
			return nil, false, fmt.Errorf("window (%s, %s] of %s: truncated at %d rows: the rest would be lost", connector.Literal(lo), connector.Literal(top), w, rows.Rows())
		}
		hi = &lo
		return pageOf(rows, cols, r.Info.Schema), true, nil
	}
	return b, nil
}
