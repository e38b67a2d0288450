package join

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
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
//	radix   when the kind emits pairs (not semi or anti) and every sum is over int64 values: the order rows
//	        are added in does not matter, so the join is folded per key over radix partitions that fit the
//	        cache (radix_aggregate.go). Output pairs are counted, never enumerated, so a key with 1,000 build
//	        rows and 1.5M probe rows costs 1.5M steps, not 1.5G. Int64 keys of a dense range skip the partitions:
//	        an array indexed by the key's offset is the table (dense_aggregate.go).
//	rows    otherwise, and under a where (SetWhere), the hash join runs as usual; every output batch's row
//	        indexes (probe row, build row, -1 for a null-extended side) are folded into the aggregates before
//	        any column is gathered, those the where rejects dropped first
//
// Memory: the radix path's (see radixAggregate), or the hash join's. Real sums take the rows path because
// floating-point addition is not associative: a different order could change the last bits of the result.
type HashAggregate struct {
	h      *Hash
	radix  *radixAggregate // the radix path; nil takes the rows path
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
	a := &pairAggregator{}
	radix := !h.ps.semi && !h.ps.anti && !h.bs.semi && !h.bs.anti
	for _, p := range aggs {
		t := aggTarget{sum: p.Sum}
		if p.Sum {
			if p.Col < 0 || p.Col >= len(spec.Schema) {
				return nil, fmt.Errorf("hash aggregate: sum of column %d, the join has %d", p.Col, len(spec.Schema))
			}
			switch typ := spec.Schema[p.Col].Type; typ {
			case column.Long, column.Timespan:
			case column.Real:
				t.real, radix = true, false
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
	op := &HashAggregate{h: h, schema: schema}
	if radix {
		op.radix = newRadixAggregate(h, a.aggs)
	}
	return op, nil
}

// SetWhere makes the aggregates fold only the output rows at which pred, compiled against the join's output
// schema, is true: the where between the join and the summarize, evaluated on each batch's row pairs (see
// Hash.SetWhere). It takes the rows path, as a where is a test of each pair the radix path never forms. Call
// before the first Next.
func (a *HashAggregate) SetWhere(pred expr.Expr) {
	a.h.SetWhere(pred)
	a.radix = nil
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
	for a.radix == nil {
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
	if a.radix != nil {
		if err := a.radix.run(ctx); err != nil {
			return nil, err
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

// pairAggregator is the running state of a HashAggregate's rows path inside its hash join.
type pairAggregator struct {
	aggs []aggTarget
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
		switch {
		case !t.sum:
			t.n += int64(len(bidx))
		case t.fromProbe && pb != nil:
			t.add(pb.Cols[t.col], pidx)
		case !t.fromProbe:
			t.add(h.table.Cols[t.col], bidx)
		}
	}
}

// add folds the values of v at rows (-1: a null-extended row, skipped) into t's sum. The loop is chosen once,
// by the sum's type and whether v has nulls: under js/wasm a test per row is a jump through a dispatch table.
func (t *aggTarget) add(v *column.Vector, rows []int32) {
	switch {
	case v.HasNulls():
		for _, r := range rows {
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
	case t.real:
		for _, r := range rows {
			if r >= 0 {
				t.n++
				t.f += v.Reals[r]
			}
		}
	case len(v.Ints) > 0: // else every row is null-extended
		vals := v.Ints
		var s, n int64
		for _, r := range rows {
			keep := int64(^r >> 31 & 1) // 0 for a null-extended row, which reads row 0 and adds nothing
			s += vals[r&^(r>>31)] * keep
			n += keep
		}
		t.i += s
		t.n += n
	}
}
