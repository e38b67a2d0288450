package exec

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
)

// SortKey is one key of a sort: an expression, its direction, and where nulls go.
type SortKey struct {
	Expr       expr.Expr
	Asc        bool
	NullsFirst bool
}

// Sort holds its whole input (accounted against the budget), orders it stably by its keys (a radix sort on
// order codes, sort_order.go) and emits it in batches. With a limit it is top: it keeps only the first Limit
// rows of the order, compacting as it reads (see topCompactRows); a top with one key can also publish its cut
// to an operator below it, which then skips rows that cannot enter (ShareBound, TopBound). Cost without a
// limit: a few sequential passes over the rows per key, memory of the whole input — or, when that outgrows the
// budget, of a few pages: the sort spills sorted runs and merges them (sort_spill.go).
type Sort struct {
	in     Operator
	keys   []SortKey
	limit  int64 // < 0: no limit
	budget *memory.Budget

	loaded bool
	// out is the input, held whole, and order its rows in sorted order (cut to the limit): each output batch
	// is gathered from them as it goes out, so the sort never holds a second, sorted copy of its input.
	out   *column.Batch
	order []int32
	pos   int
	held  int64
	// spilled is the state of a sort that outgrew the budget, and merge the merge its output comes from.
	spilled *sortSpill
	merge   *merge
	details *trace.Details
	// cut holds, once a top has compacted to a full Limit rows, the key values of its last kept row: a later
	// row that does not sort strictly before it can never enter the top (on a tie the earlier row wins), so
	// it is dropped on arrival without being copied.
	cut []*column.Vector
	// bound, when shared (ShareBound), receives the cut for an operator below to filter on.
	bound *TopBound
	// verdict and codes are rowsBeforeCut's buffers.
	verdict []int8
	codes   []uint64
}

// NewSort sorts in by keys; limit >= 0 keeps only that many rows (top N).
func NewSort(in Operator, keys []SortKey, limit int64, budget *memory.Budget) *Sort {
	return &Sort{in: in, keys: keys, limit: limit, budget: budget}
}

// ShareBound makes the top publish its cut to b each time it compacts, for an operator below it to skip rows
// that cannot enter (see TopBound). It reports false, and shares nothing, unless s is a top with one key.
func (s *Sort) ShareBound(b *TopBound) bool {
	if s.limit < 0 || len(s.keys) != 1 {
		return false
	}
	s.bound = b
	return true
}

// ReportTo makes the sort add its spill figures (sort_spills, sort_merge_passes, sort_pages_written,
// sort_pages_read) to d when it spills.
func (s *Sort) ReportTo(d *trace.Details) { s.details = d }

func (s *Sort) Schema() column.Schema { return s.in.Schema() }

func (s *Sort) Next(ctx context.Context) (*column.Batch, error) {
	if !s.loaded {
		s.loaded = true
		if err := s.load(ctx); err != nil {
			return nil, err
		}
	}
	if s.merge != nil {
		b, err := s.merge.next(ctx, s.in.Schema())
		if b == nil && err == nil {
			s.merge = nil
			err = s.endSpill()
		}
		return b, err
	}
	if s.out == nil || s.pos >= len(s.order) {
		s.budget.Shrink(s.held)
		s.held = 0
		s.out, s.order = nil, nil
		return nil, nil
	}
	hi := min(s.pos+sortOutRows, len(s.order))
	b := s.out.Gather(s.order[s.pos:hi])
	s.pos = hi
	return b, nil
}

// outBatchRows is the size of the batches a blocking operator emits.
const outBatchRows = source.BatchRows

// sortOutRows is the size of a sort's output batches, each gathered from its input as it goes out: larger
// than outBatchRows, as a gather per small batch cost a tenth more in all under js/wasm (node) than one gather
// of every row, and the gathered batches are the caller's, so they hold no memory of the sort's.
const sortOutRows = 4 * outBatchRows

// load reads the input. It holds the batches as they come (a batch belongs to its caller) and concatenates
// them once, at their total size, when it sorts — at the end, at a top's compaction, or at a spill — instead of
// appending each to a growing table, which regrows and copies a large column several times over.
func (s *Sort) load(ctx context.Context) error {
	var held []*column.Batch
	rows := 0
	err := Drain(ctx, s.in, func(b *column.Batch) error {
		if s.cut != nil {
			if b = s.beforeCut(b); b.N == 0 {
				return nil
			}
		}
		n := b.Bytes()
		if err := s.budget.Grow("sort", n); err != nil {
			if !errors.As(err, new(*memory.ExceededError)) {
				return err
			}
			// Over the budget: what is held, and this batch, become a sorted run on the spill store.
			if s.spilled == nil {
				if s.spilled, err = newSortSpill(ctx, s.in.Schema(), s.budget); err != nil {
					return err
				}
			}
			if err := s.spill(column.Concat(s.in.Schema(), append(held, b))); err != nil {
				return err
			}
			s.budget.Shrink(s.held)
			s.held = 0
			clear(held)
			held, rows = held[:0], 0
			return nil
		}
		s.held += n
		held, rows = append(held, b), rows+b.N
		if s.limit >= 0 && (int64(rows) >= s.limit+s.compactSlack() || s.cut == nil && s.limit > 0 && int64(rows) >= s.limit) {
			kept := s.compact(column.Concat(s.in.Schema(), held).Batch())
			clear(held)
			held, rows = append(held[:0], kept), kept.N
		}
		return nil
	})
	if err != nil {
		return err
	}
	t := column.Concat(s.in.Schema(), held)
	if s.spilled != nil {
		return s.finishSpill(ctx, t)
	}
	s.out = t.Batch()
	s.order = s.sortedOrder(s.out)
	return nil
}

// topCompactRows is how many rows beyond its limit a small top holds before it sorts what it holds and drops
// all but the first Limit (compactSlack): large enough that the sort of a compaction is amortised over many new
// rows, small enough to stay in cache. The first compaction comes sooner, as soon as a batch brings the top to
// Limit rows: it makes the cut, which filters every later row on arrival (and, through a shared TopBound, below
// the top), so waiting for more rows would only let them through.
var topCompactRows = 8192 // a variable so tests can force compactions on small inputs

// compact keeps the first Limit rows of all in sort order, as a batch of their own. Kept rows precede later
// input, so the stable sort still keeps equal rows in input order.
func (s *Sort) compact(all *column.Batch) *column.Batch {
	kept := s.sorted(all)
	if s.limit > 0 && int64(kept.N) == s.limit {
		last := kept.Slice(kept.N-1, kept.N)
		s.cut = make([]*column.Vector, len(s.keys))
		for i, k := range s.keys {
			s.cut[i] = k.Expr.Eval(last)
		}
		if s.bound != nil {
			s.bound.publish(s.cut[0], s.keys[0])
		}
	}
	n := kept.Bytes()
	s.budget.Shrink(s.held - n)
	s.held = n
	return kept
}

// compactSlack is how many rows beyond its limit a top holds before it compacts: topCompactRows, or the limit
// itself when that is larger, so that each compaction sorts at most twice the limit and drops at least half of
// it. The input then costs O(n log limit) and the memory of twice the limit at most (a top of a million rows
// that compacted every topCompactRows rows sorted a million rows each time: quadratic).
func (s *Sort) compactSlack() int64 { return max(int64(topCompactRows), s.limit) }

// sorted returns all's rows stably sorted by the keys, cut to the limit.
func (s *Sort) sorted(all *column.Batch) *column.Batch { return all.Gather(s.sortedOrder(all)) }

// sortedOrder returns all's rows in stable order of the keys, cut to the limit. A top first narrows the rows
// to the candidates of its cut (sort_select.go) and sorts only those.
func (s *Sort) sortedOrder(all *column.Batch) []int32 {
	keys := make([]*column.Vector, len(s.keys))
	for i, k := range s.keys {
		keys[i] = k.Expr.Eval(all)
	}
	n := all.N
	var cand []int32
	if s.limit >= 0 {
		cand = topCandidates(keys[0], s.keys[0], n, s.limit, s.budget)
	}
	if cand != nil {
		for i, k := range keys {
			keys[i] = k.Gather(cand)
		}
		n = len(cand)
	}
	idx := s.sortOrder(keys, n) // sort_order.go
	if s.limit >= 0 && int64(len(idx)) > s.limit {
		idx = idx[:s.limit]
	}
	if cand != nil {
		for j, r := range idx {
			idx[j] = cand[r]
		}
	}
	return idx
}

// beforeCut keeps the rows of b that sort strictly before the cut row.
func (s *Sort) beforeCut(b *column.Batch) *column.Batch {
	keys := make([]*column.Vector, len(s.keys))
	for i, k := range s.keys {
		keys[i] = k.Expr.Eval(b)
	}
	idx := s.rowsBeforeCut(keys, b.N)
	if len(idx) == b.N {
		return b
	}
	return b.Gather(idx)
}

// rowsBeforeCut lists the rows of the key vectors (n rows) that sort strictly before the cut row. Keys of
// fixed-width types are compared a key at a time over the whole batch, on order codes (sort_order.go) — the
// same order as compareAcross, nulls placed by a class before or after every value — with a per-row verdict
// that the first key that differs sets; a first int key with no null in the batch compares its values
// directly. A string or dynamic key (whose codes are ranks within one batch, or none) makes the whole batch
// compare row by row.
func (s *Sort) rowsBeforeCut(keys []*column.Vector, n int) []int32 {
	var idx []int32
	for _, v := range keys {
		if v.Type == column.String || v.Type == column.Dynamic {
			for r := 0; r < n; r++ {
				if s.lessAcross(keys, r, s.cut, 0) {
					idx = append(idx, int32(r))
				}
			}
			return idx
		}
	}
	// Per row: 0 while it ties the cut, -1 once it sorts before, 1 after. The buffers are reused batch to batch.
	s.verdict, s.codes = slices.Grow(s.verdict[:0], n)[:n], slices.Grow(s.codes[:0], n)[:n]
	verdict, codes := s.verdict, s.codes
	first := 0 // the first key the loop below compares
	if v, c := keys[0], s.cut[0]; isIntKey(v.Type) && !v.HasNulls() && !c.IsNull(0) {
		// The common top by one int key: the values themselves compare, with no codes made; a row that
		// ties the cut's value goes on to the next key, and with one key (or no tie) nothing more is read.
		x0, asc := c.Ints[0], s.keys[0].Asc
		xs := v.Ints[:n]
		if len(s.keys) == 1 {
			for r, x := range xs {
				if x < x0 == asc && x != x0 {
					idx = append(idx, int32(r))
				}
			}
			return idx
		}
		sign, ties := int8(1), 0
		if !asc {
			sign = -1
		}
		for r, x := range xs {
			d := int8(cmp.Compare(x, x0)) * sign
			verdict[r] = d
			ties += b2i(d == 0)
		}
		first = len(s.keys)
		if ties > 0 {
			first = 1
		}
	}
	var cut [1]uint64
	for i := first; i < len(s.keys); i++ {
		k := s.keys[i]
		v := keys[i]
		orderCodes(v, k.Asc, codes)
		orderCodes(s.cut[i], k.Asc, cut[:])
		cutClass := nullClass(s.cut[i], 0, k.NullsFirst)
		if !v.HasNulls() && cutClass == 1 {
			c := cut[0]
			if i == 0 { // every row ties so far
				for r, x := range codes {
					verdict[r] = int8(cmp.Compare(x, c))
				}
				continue
			}
			for r, x := range codes {
				if verdict[r] == 0 {
					verdict[r] = int8(cmp.Compare(x, c))
				}
			}
			continue
		}
		if i == 0 {
			clear(verdict)
		}
		for r, x := range codes {
			if verdict[r] == 0 {
				if d := cmp.Compare(nullClass(v, r, k.NullsFirst), cutClass); d != 0 {
					verdict[r] = int8(d)
				} else {
					verdict[r] = int8(cmp.Compare(x, cut[0]))
				}
			}
		}
	}
	for r, d := range verdict {
		if d < 0 {
			idx = append(idx, int32(r))
		}
	}
	return idx
}

// nullClass places row r of v among the sort's rows: a null sorting first 0, any value 1, a null sorting
// last 2. Within class 1 the order codes decide; a null's code is 0 and ties every other null.
func nullClass(v *column.Vector, r int, nullsFirst bool) int {
	switch {
	case !v.IsNull(r):
		return 1
	case nullsFirst:
		return 0
	}
	return 2
}

// lessAcross reports whether row a of the key vectors ka sorts before row b of kb.
func (s *Sort) lessAcross(ka []*column.Vector, a int, kb []*column.Vector, b int) bool {
	return s.compareAcross(ka, a, kb, b) < 0
}

// compareAcross orders row a of the key vectors ka against row b of kb under the keys: negative when a sorts
// first, positive when b does, 0 when they tie on every key.
func (s *Sort) compareAcross(ka []*column.Vector, a int, kb []*column.Vector, b int) int {
	for i, k := range s.keys {
		c := compareAcross(ka[i], a, kb[i], b, k.NullsFirst)
		if c == 0 {
			continue
		}
		if !k.Asc && !ka[i].IsNull(a) && !kb[i].IsNull(b) {
			// Descending reverses the values but not where nulls go.
			return -c
		}
		return c
	}
	return 0
}

// compareAcross orders row a of v and row b of w ascending, with nulls first or last.
func compareAcross(v *column.Vector, a int, w *column.Vector, b int, nullsFirst bool) int {
	na, nb := v.IsNull(a), w.IsNull(b)
	switch {
	case na && nb:
		return 0
	case na:
		if nullsFirst {
			return -1
		}
		return 1
	case nb:
		if nullsFirst {
			return 1
		}
		return -1
	}
	if v.Type == w.Type { // the common case, compared unboxed exactly as expr.Compare would
		switch v.Type {
		case column.Long, column.DateTime, column.Timespan:
			return cmp.Compare(v.Ints[a], w.Ints[b])
		case column.Real:
			// cmp.Compare orders NaN first, as expr.Compare does.
			return cmp.Compare(v.Reals[a], w.Reals[b])
		case column.String:
			return strings.Compare(v.Strs[a], w.Strs[b])
		}
	}
	c, _ := expr.Compare(v.Value(a), w.Value(b))
	return c
}
