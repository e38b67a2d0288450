package join

import (
	"context"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
)

// NestedLoop is the nested-loop join: it holds both inputs and compares every left row with every right row,
// on boxed values, sharing no code with the hash join's keys or tables. That independence is its purpose: it
// is the oracle every other strategy is tested against, and `hint.strategy=nestedloop` runs it on demand.
//
// Output order: left order, each left row's matches in right order (unmatched left rows in place), then the
// right rows the kind emits at the end in right order. Memory: both inputs. Cost: O(L × R) key comparisons.
type NestedLoop struct {
	spec        *Spec
	left, right exec.Operator
	budget      *memory.Budget
	done        bool
}

func NewNestedLoop(spec *Spec, left, right exec.Operator, budget *memory.Budget) *NestedLoop {
	return &NestedLoop{spec: spec, left: left, right: right, budget: budget}
}

func (j *NestedLoop) Schema() column.Schema { return j.spec.Schema }

func (j *NestedLoop) Next(ctx context.Context) (*column.Batch, error) {
	if j.done {
		return nil, nil
	}
	j.done = true
	var held int64
	defer func() { j.budget.Shrink(held) }()
	load := func(op exec.Operator) (*column.Table, error) {
		t := column.NewTable(op.Schema())
		err := exec.Drain(ctx, op, func(b *column.Batch) error {
			if err := j.budget.Grow("nested-loop join", b.Bytes()); err != nil {
				return err // the holder already names the nested-loop join
			}
			held += b.Bytes()
			t.Append(b)
			return nil
		})
		return t, err
	}
	lt, err := load(j.left)
	if err != nil {
		return nil, err
	}
	rt, err := load(j.right)
	if err != nil {
		return nil, err
	}
	ls, rs := j.spec.Kind.sides()
	var lidx, ridx []int32
	emit := func(l, r int32) { lidx, ridx = append(lidx, l), append(ridx, r) }
	rightMatched := make([]bool, rt.N)
	var keptLeft []int // innerunique: the left rows that are first of their key
	for l := 0; l < lt.N; l++ {
		if j.spec.Kind == InnerUnique && j.duplicateLeft(lt, keptLeft, l) {
			continue
		}
		keptLeft = append(keptLeft, l)
		matches := 0
		for r := 0; r < rt.N; r++ {
			if !j.keysEqual(lt, rt, l, r) {
				continue
			}
			matches++
			rightMatched[r] = true
			if ls.pairs {
				emit(int32(l), int32(r))
			}
		}
		switch {
		case ls.unmatched && matches == 0:
			emit(int32(l), -1)
		case ls.semi && matches > 0, ls.anti && matches == 0:
			emit(int32(l), -1)
		}
	}
	for r := 0; r < rt.N; r++ {
		switch {
		case rs.unmatched && !rightMatched[r], rs.anti && !rightMatched[r], rs.semi && rightMatched[r]:
			emit(-1, int32(r))
		}
	}
	cols := make([]*column.Vector, len(j.spec.Schema))
	for c, o := range j.spec.LeftOut {
		if o >= 0 && lt.Cols[c] != nil {
			cols[o] = lt.Cols[c].Gather(lidx)
		}
	}
	for c, o := range j.spec.RightOut {
		if o >= 0 && rt.Cols[c] != nil {
			cols[o] = rt.Cols[c].Gather(ridx)
		}
	}
	return column.NewBatch(cols, len(lidx)), nil
}

// keysEqual compares left row l with right row r on every key pair; a null on either side never matches.
func (j *NestedLoop) keysEqual(lt, rt *column.Table, l, r int) bool {
	for k := range j.spec.LeftKeys {
		a := lt.Cols[j.spec.LeftKeys[k]].Value(l)
		b := rt.Cols[j.spec.RightKeys[k]].Value(r)
		if !valuesEqual(a, b) {
			return false
		}
	}
	return true
}

// duplicateLeft reports whether left row l has the same (non-null) key as a left row already kept.
func (j *NestedLoop) duplicateLeft(lt *column.Table, kept []int, l int) bool {
	for _, p := range kept {
		same := true
		for _, k := range j.spec.LeftKeys {
			if !valuesEqual(lt.Cols[k].Value(p), lt.Cols[k].Value(l)) {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}

// valuesEqual is key equality: numbers compare by value across long and real, an untyped (dynamic) key compares
// by text, and null equals nothing.
func valuesEqual(a, b column.Value) bool {
	if a.Null || b.Null {
		return false
	}
	if a.Type != b.Type && (a.Type == column.Dynamic || b.Type == column.Dynamic) {
		return expr.ToString(a) == expr.ToString(b)
	}
	return a.Equal(b)
}
