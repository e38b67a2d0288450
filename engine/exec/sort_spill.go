package exec

import (
	"container/heap"
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/spill"
)

// External sort: a sort whose rows outgrow the budget spills them in sorted runs and merges the runs.
//
//	read input, holding rows while the budget lets them grow
//	when a batch does not fit: sort what is held (with that batch), write it as a run, release it
//	at the end: write what is held as the last run
//	while there are more runs than fit in memory at once: merge the first F into one
//	merge the rest as the output streams
//
// Every run is sorted stably and holds a stretch of the input later than the run before it, so a merge that
// breaks ties by run number keeps equal rows in input order: the result is the in-memory stable sort's, row
// for row. A top (a sort with a limit) cuts each run, and each merge, to its limit, and its cut still drops
// rows on arrival.
//
// Memory: reading a run holds one page buffer and the batch it decodes to, at most run.MaxPageMem; a merge of
// F runs reserves F of those plus its output (a batch of at most the largest page's memory, or the writer's
// page when the merge makes a new run), and F is as many as the budget has room for. Cost: each row is written
// and read once per pass, 1 + ⌈log_F(runs)⌉ passes; with F ≥ 2 any input sorts in any budget that holds two
// pages' rows. The batch that did not fit is sorted into the run it closes: it is in memory already, held by
// the operator that made it.

// Sort page sizes: a page is the budget's sortPageShare-th part, within [minSortPageBytes, maxSortPageBytes],
// so a merge of at least a few runs fits whatever the budget, and a large budget does not pay for large reads.
const (
	sortPageShare    = 32
	minSortPageBytes = 1 << 10
	maxSortPageBytes = 64 << 10
)

// sortSpill is the spilled state of one sort.
type sortSpill struct {
	store     spill.Store
	codec     *spill.Codec
	pageBytes int
	runs      []spill.Run
	passes    int // merge passes that wrote a new run
}

// newSortSpill makes the spill state of a sort of schema under budget, with a store of the run's Space.
func newSortSpill(ctx context.Context, schema column.Schema, budget *memory.Budget) (*sortSpill, error) {
	store, err := spill.StoreFor(ctx)
	if err != nil {
		return nil, fmt.Errorf("sort: spill store: %w", err)
	}
	page := int(min(max(budget.Limit()/sortPageShare, minSortPageBytes), maxSortPageBytes))
	return &sortSpill{store: store, codec: spill.NewCodec(schema, nil), pageBytes: page}, nil
}

// spill sorts t's rows (cut to the sort's limit) and writes them as the next run.
func (s *Sort) spill(t *column.Table) error {
	rows := s.sorted(t.Batch())
	f, err := s.spilled.store.Create()
	if err != nil {
		return fmt.Errorf("sort: spill: %w", err)
	}
	w := spill.NewWriter(f, s.spilled.codec, s.spilled.pageBytes)
	for i := range rows.N {
		if err := w.Append(rows, i); err != nil {
			return fmt.Errorf("sort: spill: %w", err)
		}
	}
	run, err := w.Finish()
	if err != nil {
		return fmt.Errorf("sort: spill: %w", err)
	}
	s.spilled.runs = append(s.spilled.runs, run)
	return nil
}

// readerCost is what reading one of runs holds: its page buffer, a long row's pieces, and the decoded batch.
func (sp *sortSpill) readerCost(runs []spill.Run) int64 {
	var page int64
	for _, r := range runs {
		page = max(page, r.MaxPageMem)
	}
	return 2*int64(sp.pageBytes) + page
}

// fanIn reserves memory for a merge and returns how many runs it may take (at least two, at most want) and the
// bytes reserved. out is what the merge's output holds besides its readers.
func (s *Sort) fanIn(want int, out int64) (int, int64, error) {
	per := s.spilled.readerCost(s.spilled.runs)
	n := min(int((s.budget.Available()-out)/per), want)
	if n < 2 {
		n = 2
	}
	held := int64(n)*per + out
	if err := s.budget.Grow("sort merge", held); err != nil {
		return 0, 0, fmt.Errorf("sort: merging %d runs of %s pages: %w", len(s.spilled.runs),
			memory.Bytes(int64(s.spilled.pageBytes)), err)
	}
	return n, held, nil
}

// finishSpill writes what t holds as the last run, merges runs until one merge can take them all, and starts
// that merge, which Next drains.
func (s *Sort) finishSpill(ctx context.Context, t *column.Table) error {
	if t.N > 0 {
		if err := s.spill(t); err != nil {
			return err
		}
		s.budget.Shrink(s.held)
		s.held = 0
	}
	sp := s.spilled
	for {
		outMem := sp.readerCost(sp.runs) - 2*int64(sp.pageBytes) // the largest page's rows
		n, held, err := s.fanIn(len(sp.runs), outMem)
		if err != nil {
			return err
		}
		if n >= len(sp.runs) {
			m, err := s.newMerge(sp.runs, outMem)
			if err != nil {
				s.budget.Shrink(held)
				return err
			}
			s.merge, s.held = m, held
			return nil
		}
		// A pass: the first n runs become one, in their place, so later runs stay later.
		run, err := s.mergeToRun(ctx, sp.runs[:n])
		s.budget.Shrink(held)
		if err != nil {
			return err
		}
		sp.runs = append([]spill.Run{run}, sp.runs[n:]...)
		sp.passes++
	}
}

// mergeToRun merges runs into a new run and removes them.
func (s *Sort) mergeToRun(ctx context.Context, runs []spill.Run) (spill.Run, error) {
	m, err := s.newMerge(runs, 0)
	if err != nil {
		return spill.Run{}, err
	}
	f, err := s.spilled.store.Create()
	if err != nil {
		return spill.Run{}, fmt.Errorf("sort: merge: %w", err)
	}
	w := spill.NewWriter(f, s.spilled.codec, s.spilled.pageBytes)
	err = m.each(ctx, func(b *column.Batch, i int) error { return w.Append(b, i) })
	if err != nil {
		return spill.Run{}, fmt.Errorf("sort: merge: %w", err)
	}
	for _, r := range runs {
		if r.File != nil {
			if err := r.File.Remove(); err != nil {
				return spill.Run{}, fmt.Errorf("sort: merge: %w", err)
			}
		}
	}
	run, err := w.Finish()
	if err != nil {
		return spill.Run{}, fmt.Errorf("sort: merge: %w", err)
	}
	return run, nil
}

// endSpill removes the last runs, releases the merge's memory and adds the sort's spill figures to the run's
// details.
func (s *Sort) endSpill() error {
	s.budget.Shrink(s.held)
	s.held = 0
	for _, r := range s.spilled.runs {
		if r.File != nil {
			if err := r.File.Remove(); err != nil {
				return fmt.Errorf("sort: %w", err)
			}
		}
	}
	s.spilled.runs = nil
	d := s.details
	if d == nil {
		return nil
	}
	io := s.spilled.store.IO()
	d.Add("sort_spills", 1)
	d.Add("sort_merge_passes", int64(s.spilled.passes))
	d.Add("sort_pages_written", io.PagesWritten)
	d.Add("sort_pages_read", io.PagesRead)
	return nil
}

// runCursor is one run's place in a merge: the batch of its current page, that batch's key values and the row.
type runCursor struct {
	run  int
	r    *spill.Reader
	b    *column.Batch
	keys []*column.Vector
	i    int
}

// merge is a k-way merge of sorted runs: a heap of cursors ordered by the sort's keys, ties by run number.
type merge struct {
	s      *Sort
	cur    []*runCursor
	outMem int64 // the output batch's bound (0: the caller takes rows one at a time)
	left   int64 // rows the sort's limit still lets out (< 0: no limit)
}

func (s *Sort) newMerge(runs []spill.Run, outMem int64) (*merge, error) {
	m := &merge{s: s, outMem: outMem, left: s.limit}
	for i, r := range runs {
		c := &runCursor{run: i, r: spill.NewReader(r, s.spilled.codec), i: -1}
		ok, err := c.advance(s)
		if err != nil {
			return nil, err
		}
		if ok {
			m.cur = append(m.cur, c)
		}
	}
	heap.Init(m)
	return m, nil
}

// advance moves c to its next row, reading the next page when the batch is used up; false at the run's end.
func (c *runCursor) advance(s *Sort) (bool, error) {
	c.i++
	for c.b == nil || c.i >= c.b.N {
		b, err := c.r.Next()
		if err != nil {
			return false, fmt.Errorf("sort: reading a run: %w", err)
		}
		if b == nil {
			c.b, c.keys = nil, nil
			return false, nil
		}
		c.b, c.i = b, 0
		c.keys = c.keys[:0]
		for _, k := range s.keys {
			c.keys = append(c.keys, k.Expr.Eval(b))
		}
	}
	return true, nil
}

func (m *merge) Len() int { return len(m.cur) }
func (m *merge) Less(a, b int) bool {
	x, y := m.cur[a], m.cur[b]
	if c := m.s.compareAcross(x.keys, x.i, y.keys, y.i); c != 0 {
		return c < 0
	}
	return x.run < y.run
}
func (m *merge) Swap(a, b int) { m.cur[a], m.cur[b] = m.cur[b], m.cur[a] }
func (m *merge) Push(x any)    { m.cur = append(m.cur, x.(*runCursor)) }
func (m *merge) Pop() any {
	c := m.cur[len(m.cur)-1]
	m.cur = m.cur[:len(m.cur)-1]
	return c
}

// each hands every row of the merge to fn, in order, checking ctx between pages.
func (m *merge) each(ctx context.Context, fn func(b *column.Batch, i int) error) error {
	for len(m.cur) > 0 && m.left != 0 {
		c := m.cur[0]
		if err := fn(c.b, c.i); err != nil {
			return err
		}
		m.left--
		page := c.b
		ok, err := c.advance(m.s)
		switch {
		case err != nil:
			return err
		case !ok:
			heap.Pop(m)
		default:
			heap.Fix(m, 0)
		}
		if c.b != page {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// next returns the merge's next output batch, of at most outBatchRows rows and outMem bytes, or nil at the end.
func (m *merge) next(ctx context.Context, schema column.Schema) (*column.Batch, error) {
	if len(m.cur) == 0 || m.left == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cols := make([]*column.Vector, len(schema))
	for i, f := range schema {
		cols[i] = column.NewVector(f.Type, 0)
	}
	n, mem := 0, int64(0)
	for len(m.cur) > 0 && n < outBatchRows && m.left != 0 {
		c := m.cur[0]
		r := rowMem(c.b, c.i)
		if n > 0 && mem+r > m.outMem {
			break
		}
		m.left--
		for j, v := range cols {
			v.AppendFrom(c.b.Cols[j], c.i)
		}
		n, mem = n+1, mem+r
		ok, err := c.advance(m.s)
		switch {
		case err != nil:
			return nil, err
		case !ok:
			heap.Pop(m)
		default:
			heap.Fix(m, 0)
		}
	}
	return column.NewBatch(cols, n), nil
}

// rowMem is row i of b's memory as column.Vector.Bytes counts it, without null bitmaps (spill.ValueMem's
// count, the one a page's MaxPageMem is made of).
func rowMem(b *column.Batch, i int) int64 {
	var n int64
	for _, v := range b.Cols {
		strLen := 0
		if v.Type == column.String || v.Type == column.Dynamic {
			strLen = len(v.Strs[i])
		}
		n += spill.ValueMem(v.Type, strLen)
	}
	return n
}
