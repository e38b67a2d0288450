package join

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/memory"
)

// PairAgg is one aggregate folded over a join's output rows: count() when Sum is false, else sum() of output
// column Col, which must be stored as int64 (long, timespan) or be real.
type PairAgg struct {
	Sum bool
	Col int
}

// HashAggregate is a hash join whose output only feeds aggregates with no group key (summarize count(),
// sum(x) with no by): it folds each output row into the aggregates instead of copying it out, and emits the
// single result row. It computes exactly what exec.Summarize computes over the join's output: a sum skips nulls
// and is null when every value was, integer sums wrap like the summarize's, and real sums add in output order.
//
// Two paths, chosen once from the aggregates and the kind:
//
//	rows    the join runs as usual; every output batch's row indexes (probe row, build row, -1 for a
//	        null-extended side) are folded into the aggregates before any column is gathered
//	chains  when the probe side emits pairs and every sum is over int64 values, each probe row adds its
//	        chain as a whole: the chain's length, and for build-side sums the chain's sum, computed once per
//	        key the first time a probe row finds it. Output pairs are counted, never enumerated, so a key with
//	        1,000 build rows and 1.5M probe rows costs 1.5M steps, not 1.5G.
//
// Memory: the hash join's, plus for the chains path 4 bytes a build row and 12 bytes a build row per
// build-side sum, held only once a chain longer than one row is found. Real sums take the rows path because
// floating-point addition is not associative: a different order could change the last bits of the result.
type HashAggregate struct {
	h      *Hash
	schema column.Schema
	done   bool
}

var _ exec.Operator = (*HashAggregate)(nil)

// NewHashAggregate makes the hash join of left and right under spec (building on the left when buildLeft) and
// the aggregates over its output; schema is the result row's (one long or real column per aggregate).
func NewHashAggregate(spec *Spec, left, right exec.Operator, buildLeft bool, budget *memory.Budget, aggs []PairAgg, schema column.Schema) (*HashAggregate, error) {
	if len(schema) != len(aggs) {
		return nil, fmt.Errorf("hash aggregate: %d aggregates for %d result columns", len(aggs), len(schema))
	}
	h := NewHash(spec, left, right, buildLeft, budget)
	a := &pairAggregator{byChain: !h.ps.semi && !h.ps.anti && !h.bs.semi && !h.bs.anti}
	for _, p := range aggs {
		t := aggTarget{sum: p.Sum}
		if p.Sum {
			if p.Col < 0 || p.Col >= len(spec.Schema) {
				return nil, fmt.Errorf("hash aggregate: sum of column %d, the join has %d", p.Col, len(spec.Schema))
			}
			switch typ := spec.Schema[p.Col].Type; typ {
			case column.Long, column.Timespan:
			case column.Real:
				t.real, a.byChain = true, false
			default:
				return nil, fmt.Errorf("hash aggregate: sum over %s column %s", typ, spec.Schema[p.Col].Name)
			}
			left, c := outputSource(spec, p.Col)
			if c < 0 {
				return nil, fmt.Errorf("hash aggregate: output column %d comes from neither side", p.Col)
			}
			t.col, t.fromProbe = c, left != buildLeft
		}
		a.aggs = append(a.aggs, t)
	}
	h.agg = a
	return &HashAggregate{h: h, schema: schema}, nil
}

// outputSource finds the input column behind join output column o: its side and index, or -1.
func outputSource(spec *Spec, o int) (left bool, col int) {
	for c, x := range spec.LeftOut {
		if x == o {
			return true, c
		}
	}
	for c, x := range spec.RightOut {
		if x == o {
			return false, c
		}
	}
	return false, -1
}

func (a *HashAggregate) Schema() column.Schema { return a.schema }

// Next runs the whole join on its first call and returns the result row; then nil.
func (a *HashAggregate) Next(ctx context.Context) (*column.Batch, error) {
	if a.done {
		return nil, nil
	}
	for {
		b, err := a.h.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		if b.N != 0 {
			return nil, fmt.Errorf("hash aggregate: the join emitted %d rows in aggregate mode", b.N)
		}
	}
	a.done = true
	cols := make([]*column.Vector, len(a.schema))
	for i, t := range a.h.agg.aggs {
		v := column.NewVector(a.schema[i].Type, 1)
		switch {
		case !t.sum:
			v.AppendInt(t.n)
		case t.n == 0:
			v.AppendNull()
		case t.real:
			v.AppendReal(t.f)
		default:
			v.AppendInt(t.i)
		}
		cols[i] = v
	}
	return column.NewBatch(cols, 1), nil
}

// aggregatedBatch is what a hash join in aggregate mode returns in place of an output batch.
var aggregatedBatch = column.NewBatch(nil, 0)

// pairAggregator is the running state of a HashAggregate inside its hash join.
type pairAggregator struct {
	aggs    []aggTarget
	byChain bool // the chains path (see HashAggregate)

	mult []int64 // per probe row of the current batch: how many output rows it makes
	// Per build row heading a chain longer than one row, filled the first time a probe finds it: the chain's
	// rows (0: not yet walked) and, per aggregate, the sum and non-null count of its build-side values.
	chainRows []int32
	chainSums [][]int64
	chainVals [][]int32
}

// aggTarget is one aggregate: what it reads and its running value.
type aggTarget struct {
	sum       bool
	real      bool
	fromProbe bool
	col       int // the input column on its side
	n         int64
	i         int64
	f         float64
}

// addRows folds output rows into the aggregates: row j pairs probe row pidx[j] of pb (pb nil: a null probe
// side) with build row bidx[j] (-1: a null build side).
func (a *pairAggregator) addRows(h *Hash, pb *column.Batch, pidx, bidx []int32) {
	for k := range a.aggs {
		t := &a.aggs[k]
		if !t.sum {
			t.n += int64(len(bidx))
			continue
		}
		if t.fromProbe {
			if pb == nil {
				continue
			}
			v := pb.Cols[t.col]
			for _, p := range pidx {
				if v.IsNull(int(p)) {
					continue
				}
				t.n++
				if t.real {
					t.f += v.Reals[p]
				} else {
					t.i += v.Ints[p]
				}
			}
			continue
		}
		v := h.table.Cols[t.col]
		for _, r := range bidx {
			if r < 0 || v.IsNull(int(r)) {
				continue
			}
			t.n++
			if t.real {
				t.f += v.Reals[r]
			} else {
				t.i += v.Ints[r]
			}
		}
	}
}

// probeChains folds the whole current probe batch of h into the aggregates by chains (see HashAggregate).
func (a *pairAggregator) probeChains(h *Hash) error {
	n := h.pb.N
	heads := h.heads[:n]
	a.mult = a.mult[:0]
	var total int64
	for _, head := range heads {
		var m int64
		switch {
		case head == dropped:
		case head < 0:
			if h.ps.unmatched {
				m = 1
			}
		case head&chainMore == 0:
			m = 1
			if h.matched != nil {
				h.matched[head] = true
			}
		default:
			r := head &^ chainMore
			if a.chainRows == nil || a.chainRows[r] == 0 {
				if err := a.walkChain(h, r); err != nil {
					return err
				}
			}
			m = int64(a.chainRows[r])
			if h.matched != nil && !h.matched[r] {
				h.markChain(head)
			}
		}
		a.mult = append(a.mult, m)
		total += m
	}
	for k := range a.aggs {
		t := &a.aggs[k]
		switch {
		case !t.sum:
			t.n += total
		case t.fromProbe:
			v := h.pb.Cols[t.col]
			for i, m := range a.mult {
				if m == 0 || v.IsNull(i) {
					continue
				}
				t.n += m
				t.i += v.Ints[i] * m // wraps exactly as m additions would
			}
		default:
			v := h.table.Cols[t.col]
			for _, head := range heads {
				if head < 0 {
					continue
				}
				r := head &^ chainMore
				if head&chainMore != 0 {
					t.n += int64(a.chainVals[k][r])
					t.i += a.chainSums[k][r]
					continue
				}
				if !v.IsNull(int(r)) {
					t.n++
					t.i += v.Ints[r]
				}
			}
		}
	}
	return nil
}

// chainStatBytes is what the chain statistics take per build row: its length, and per build-side sum an int64
// sum and an int32 count.
const (
	chainRowsBytes = 4
	chainSumBytes  = 12
)

// walkChain computes the length and build-side sums of the chain starting at build row r.
func (a *pairAggregator) walkChain(h *Hash, r int32) error {
	if a.chainRows == nil {
		rows := h.table.N
		size := int64(rows) * chainRowsBytes
		for _, t := range a.aggs {
			if t.sum && !t.fromProbe {
				size += int64(rows) * chainSumBytes
			}
		}
		if err := h.budget.Grow("the hash aggregate's chain sums", size); err != nil {
			return fmt.Errorf("hash aggregate: %w", err)
		}
		h.held += size
		a.chainRows = make([]int32, rows)
		a.chainSums, a.chainVals = make([][]int64, len(a.aggs)), make([][]int32, len(a.aggs))
		for k, t := range a.aggs {
			if t.sum && !t.fromProbe {
				a.chainSums[k], a.chainVals[k] = make([]int64, rows), make([]int32, rows)
			}
		}
	}
	var length int32
	for x := r; x >= 0; x = h.next[x] {
		length++
	}
	a.chainRows[r] = length
	for k, t := range a.aggs {
		if !t.sum || t.fromProbe {
			continue
		}
		v := h.table.Cols[t.col]
		var s int64
		var vals int32
		for x := r; x >= 0; x = h.next[x] {
			if !v.IsNull(int(x)) {
				s += v.Ints[x]
				vals++
			}
		}
		a.chainSums[k][r], a.chainVals[k][r] = s, vals
	}
	return nil
}
