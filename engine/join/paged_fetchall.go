package join

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
)

// NewFetchAll is the fetch-all baseline (BASELINE, limited): the whole paged side in one request, as a
// federated engine that assumes the build side comes back in one query does. It works while the side fits
// one response and fails — visibly, with the source's *connector.ResultTooLargeError — as soon as it does not
// (Sentinel: 500,000 rows or 64 MB). A truncated answer is an error too: accepting it would lose rows.
// Memory: the whole side.
func NewFetchAll(spec *Spec, left, right *Remote, cfg PagedConfig, env *exec.Env) (exec.Operator, error) {
	b, err := newBaseline(spec, left, right, cfg, env, "fetchall")
	if err != nil {
		return nil, err
	}
	p := b.p
	b.next = func(ctx context.Context) (*column.Table, bool, error) {
		cols, order := p.fullColumns()
		r := p.paged.r
		req := connector.Request{Table: r.Info.Name, Columns: cols, OrderBy: order, Where: p.paged.where(p.phaseWhere(0))}
		page, err := p.paged.send(ctx, req, "fetch-all")
		if err != nil {
			return nil, false, fmt.Errorf("fetch-all of @%s in one request: %w", r.Name, err)
		}
		if page.Truncated {
			return nil, false, fmt.Errorf("fetch-all of @%s in one request: the source truncated the answer at %d rows: the rest would be lost", r.Name, page.Rows())
		}
		return pageOf(page, cols, r.Info.Schema), false, nil
	}
	return b, nil
}
