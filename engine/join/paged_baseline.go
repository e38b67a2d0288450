package join

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/dynfilter"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/trace"
)

// baselineJoin is the loop every baseline of the paged join shares: its page source hands over full-width
// rows of the paged side, a page at a time; each page's keys go to the probe side as a dynamic filter (split to
// fit, as the paged join does), the page is joined and emitted. Only the page source differs between
// baselines, and that is where each one goes wrong. It reuses the paged join's probe, layout and accounting.
type baselineJoin struct {
	p    *Paged
	next func(ctx context.Context) (rows *column.Table, more bool, err error)
	name string
	more bool
}

func newBaseline(spec *Spec, left, right *Remote, cfg PagedConfig, env *exec.Env, name string) (*baselineJoin, error) {
	cfg.Op = name
	served := false
	for _, k := range BaselineKinds(cfg.PagedLeft) {
		served = served || k == spec.Kind
	}
	if !served {
		return nil, fmt.Errorf("%s: kind %s is not served (served: %v): a baseline pages only rows with a key and keeps nothing across pages", name, spec.Kind, BaselineKinds(cfg.PagedLeft))
	}
	for _, r := range []*Remote{left, right} {
		if len(r.Engine) > 0 {
			return nil, fmt.Errorf("%s: the condition %q over @%s is not pushed to its connector, and a baseline applies no condition in the engine (the paged join does)", name, r.Engine[0].Text, r.Name)
		}
	}
	p, err := NewPaged(spec, left, right, cfg, env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &baselineJoin{p: p, name: name, more: true}, nil
}

func (b *baselineJoin) Schema() column.Schema { return b.p.spec.Schema }

func (b *baselineJoin) Next(ctx context.Context) (*column.Batch, error) {
	p := b.p
	for {
		if p.hash != nil {
			out, err := p.hash.Next(ctx)
			if err != nil {
				p.release()
				return nil, fmt.Errorf("%s: %w", b.name, err)
			}
			if out == nil {
				p.release()
				continue
			}
			if out.N == 0 {
				continue
			}
			p.emitted += int64(out.N)
			p.emit(trace.RowsEmitted{Rows: int64(out.N), Total: p.emitted, Page: p.page})
			return out, nil
		}
		if !b.more || (p.cfg.Limit >= 0 && p.emitted >= p.cfg.Limit) {
			p.finish()
			return nil, nil
		}
		p.page++
		rows, more, err := b.next(ctx)
		if err != nil {
			p.release()
			return nil, fmt.Errorf("%s: page %d: %w", b.name, p.page, err)
		}
		b.more = more
		p.sizes = append(p.sizes, rows.N)
		p.details.Add(DetailPages, 1)
		if err := p.grow("a page", rows.Batch().Bytes()); err != nil {
			return nil, err
		}
		key := rows.Schema.Index(p.keyCol)
		probeTab, _, err := p.probeKeys(ctx, dynfilter.Distinct(rows.Cols[key], rows.N), stopAt{})
		if err != nil {
			p.release()
			return nil, fmt.Errorf("%s: page %d: %w", b.name, p.page, err)
		}
		left, right := p.sideOps(rows, probeTab)
		p.hash = NewHash(p.spec, left, right, !p.cfg.PagedLeft, p.budget)
	}
}

// fullColumns are the paged side's live columns and the order's columns, and the order: (sort column, key,
// the table's key).
func (p *Paged) fullColumns() ([]string, []connector.OrderKey) {
	r := p.paged.r
	cols := fetchColumns(r)
	order := append([]connector.OrderKey(nil), p.thinOrder()...)
	for _, k := range r.Info.Key {
		if indexOfName(orderColumns(order), k.Column) < 0 {
			order = append(order, k)
		}
	}
	for _, k := range order {
		if indexOfName(cols, k.Column) < 0 {
			cols = append(cols, k.Column)
		}
	}
	return cols, order
}

// pageOf turns a response into a table of cols.
func pageOf(page connector.Page, cols []string, schema column.Schema) *column.Table {
	t := column.NewTable(schemaOf(cols, schema))
	if page.Batch != nil {
		t.Append(page.Batch)
	}
	return t
}
