package expr

import (
	"github.com/joinlab/joinlab/engine/column"
)

// A selection is the list of rows still live in an input, as increasing row indexes; nil means every row.
// Evaluating an expression under a selection computes it at those rows only and returns a compact vector:
// row k of the result is the expression's value at row sel[k]. The kernels themselves never see a selection:
// the column references at the leaves hand them their columns already compacted (Input.Column), so every
// kernel runs unchanged over len(sel) rows, and the cost of a selection is one gather of each column the
// expression reads, paid only for the live rows.
//
// Two places narrow a selection:
//   - `and` and `or` evaluate their right operand only at the rows their left operand did not decide (true or
//     null for and, false or null for or), in value context as in a filter (short-circuit by vector);
//   - Select, a filter's evaluation, returns the rows at which a predicate is true, so a filter's conjuncts
//     each run at the rows the ones before kept, and the filter copies its batch once, at the end, or hands the
//     selection itself to a consumer that takes one (exec.Selector: the hash join's probe); a where above a
//     join selects among the join's row pairs before their columns are copied (engine/join's pairs.go).
//
// Evaluating at rows outside a selection never fails (kernels have no errors: an overflow or a division by
// zero is a null), so a selection that keeps almost every row is evaluated over all of them instead, which
// saves the gathers (denseSelectionNum/Den).

// Input is what an expression reads its columns from when it runs under a selection: a batch, or rows that
// are not yet a batch, such as a join's row pairs whose columns are gathered only when read.
type Input interface {
	// Len is the number of rows.
	Len() int
	// Column returns column i at the rows of sel, compacted (row k is row sel[k]); with sel nil, every row.
	// The caller never writes to the result.
	Column(i int, sel []int32) *column.Vector
}

// BatchInput is b as an Input: a column under a selection is gathered, a whole column is b's own.
func BatchInput(b *column.Batch) Input { return batchInput{b} }

type batchInput struct{ b *column.Batch }

func (in batchInput) Len() int { return in.b.N }

func (in batchInput) Column(i int, sel []int32) *column.Vector {
	if sel == nil {
		return in.b.Cols[i]
	}
	return in.b.Cols[i].Gather(sel)
}

// denseSelection is the share of rows (num/den) from which a selection is evaluated over every row and its
// rows picked from the result: a gather of each column read costs about what evaluating a kernel over the
// rows it would skip costs, so a selection holding 7/8 of the rows saves nothing by being gathered.
const (
	denseSelectionNum = 7
	denseSelectionDen = 8
)

// dense reports whether a selection of k rows out of n is evaluated over all n.
func dense(k, n int) bool { return k*denseSelectionDen >= n*denseSelectionNum }

// rows is the number of rows a selection covers over in.
func rows(in Input, sel []int32) int {
	if sel == nil {
		return in.Len()
	}
	return len(sel)
}

// Select returns the rows of sel (every row when sel is nil) at which the predicate e is true, in increasing
// order: false and null both drop a row, and a dynamic predicate keeps only a JSON true. A conjunction selects
// with its left operand first and its right one only at the rows kept; a disjunction evaluates its right
// operand only at the rows its left one dropped. The result may share sel's storage when every row is kept.
func Select(e Expr, in Input, sel []int32) []int32 {
	if l, ok := e.(*logic); ok {
		return l.selectRows(in, sel)
	}
	if r, ok := e.(*intRange); ok {
		if out, ok := r.selectRows(in, sel); ok {
			return out
		}
	}
	n := rows(in, sel)
	if n == 0 {
		return []int32{}
	}
	if sel != nil && dense(len(sel), in.Len()) {
		return trueAt(e.evalSel(in, nil), sel, in.Len())
	}
	v := e.evalSel(in, sel)
	if v.Type != column.Bool {
		out := make([]int32, 0, n)
		for k := 0; k < n; k++ {
			if truth(v, k) {
				out = append(out, at(sel, k))
			}
		}
		return out
	}
	return trueRows(v, sel, n)
}

// trueRows returns the rows of sel (every row when sel is nil) whose compact row in v, a bool vector of n
// rows, is true and not null. The loop writes every row and advances past the true ones without a branch on
// the value, which a filter's mixed outcomes would mispredict.
func trueRows(v *column.Vector, sel []int32, n int) []int32 {
	out := make([]int32, n+1)
	j := 0
	bs := v.Bools[:n]
	if sel == nil {
		for k, b := range bs {
			out[j] = int32(k)
			j += int(b2u(b))
		}
	} else {
		sel = sel[:n]
		for k, b := range bs {
			out[j] = sel[k]
			j += int(b2u(b))
		}
	}
	return dropNulls(out[:j], v, sel, n)
}

// trueAt returns the rows of sel at which v, a value of every one of n rows, is true.
func trueAt(v *column.Vector, sel []int32, n int) []int32 {
	if v.Type != column.Bool {
		out := make([]int32, 0, len(sel))
		for _, r := range sel {
			if truth(v, int(r)) {
				out = append(out, r)
			}
		}
		return out
	}
	out := make([]int32, len(sel)+1)
	j := 0
	bs := v.Bools
	for _, r := range sel {
		out[j] = r
		j += int(b2u(bs[r]))
	}
	return dropNulls(out[:j], v, nil, n)
}

// dropNulls removes from rows, kept for a true value, any whose value is null (a null row holds false by
// column.Vector's invariant, so this only guards vectors that break it). pos maps rows back to v's compact
// positions: v's row of input row r is r itself when pos is nil, else the k with pos[k] == r.
func dropNulls(rows []int32, v *column.Vector, pos []int32, n int) []int32 {
	nulls := nullWords(v, n)
	if nulls == nil {
		return rows
	}
	keep := rows[:0]
	k := 0
	for _, r := range rows {
		i := int(r)
		if pos != nil {
			for pos[k] != r {
				k++
			}
			i = k
		}
		if !nulls.Get(i) {
			keep = append(keep, r)
		}
	}
	return keep
}

// b2u is 1 for true, 0 for false; the compiler makes it a flag set, not a branch (on amd64 and arm64).
func b2u(b bool) uint8 {
	var u uint8
	if b {
		u = 1
	}
	return u
}

// truth reports whether row i of a predicate's value keeps its row.
func truth(v *column.Vector, i int) bool {
	if v.Type != column.Bool {
		t, ok := Truth(v.Value(i))
		return ok && t
	}
	return v.Bools[i] && !v.IsNull(i)
}

// at is the input row of the k-th row of a selection.
func at(sel []int32, k int) int32 {
	if sel == nil {
		return int32(k)
	}
	return sel[k]
}

// within maps positions of a selection's compact rows back to input rows: the input rows sel[pos[k]].
func within(sel, pos []int32) []int32 {
	if sel == nil {
		return pos
	}
	out := make([]int32, len(pos))
	for k, p := range pos {
		out[k] = sel[p]
	}
	return out
}

// without returns the rows of sel (every row of n when nil) not in drop; both increasing.
func without(sel []int32, n int, drop []int32) []int32 {
	out := make([]int32, 0, rowsOf(sel, n)-len(drop))
	j := 0
	for k := 0; k < rowsOf(sel, n); k++ {
		r := at(sel, k)
		if j < len(drop) && drop[j] == r {
			j++
			continue
		}
		out = append(out, r)
	}
	return out
}

func rowsOf(sel []int32, n int) int {
	if sel == nil {
		return n
	}
	return len(sel)
}

// merge returns the union of two disjoint increasing row lists, increasing.
func merge(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] < b[j] {
			out, i = append(out, a[i]), i+1
		} else {
			out, j = append(out, b[j]), j+1
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
