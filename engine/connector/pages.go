package connector

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/trace"
)

// Pages is a scan of a Source handed out one whole response at a time, for a caller that holds several
// scans' pages at once and decides itself when each scan's next request goes out (the dynamic filter's
// probe overlaps the scans of its slices). It pages exactly as Source's scan does: the same requests, the
// same retries, the same trace. Memory: the page last returned, which the caller owns.
type Pages struct {
	it *scanIter
}

// ScanPages is a page-at-a-time scan of cols; nothing is sent until NextPage.
func (s *Source) ScanPages(cols []column.Field, sink trace.Sink, details *trace.Details) *Pages {
	if sink == nil {
		sink = trace.Discard
	}
	if details == nil {
		details = &trace.Details{}
	}
	return &Pages{it: s.newScan(cols, sink, details)}
}

// NextPage sends the scan's next request (more than one when the source asks for a smaller page or a pushed
// condition leaves a page empty) and returns the page's rows of the scan's columns, never empty; nil after
// the last. Inside an Overlap task it sends on the task's lane.
func (p *Pages) NextPage(ctx context.Context) (*column.Batch, error) {
	it := p.it
	for !it.done {
		if err := it.fetch(ctx); err != nil {
			return nil, fmt.Errorf("connector: scan @%s: %w", it.s.name, err)
		}
		if it.page.N == 0 {
			continue
		}
		cols := make([]*column.Vector, len(it.out))
		for i, at := range it.out {
			cols[i] = it.page.Cols[at]
		}
		page := column.NewBatch(cols, it.page.N)
		it.page, it.pagePos = nil, 0
		return page, nil
	}
	return nil, nil
}

// Done reports whether the scan has had its last page: NextPage would send nothing and answer nil.
func (p *Pages) Done() bool { return p.it.done }
