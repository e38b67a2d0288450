package exec

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
)

// aggStates is one aggregate's running state for every group, column-wise: group g's state is entry g of the
// slices its layout uses, so an update over a batch touches a few bytes a row in one typed slice, and a
// hundred thousand groups of a sum fit in cache (8 bytes each, not a boxed state).
//
//	count                        n
//	sum of long, timespan        i           sum of real or dynamic, avg   f, n
//	min, max of long, datetime,  i           min, max of real              f, n
//	  timespan                               min, max of string            s, n
//	min, max of bool, dynamic    v, n        dcount                        n, distinct
//
// n counts the group's non-null values (its rows for count): a group with none has a null sum, min, max, avg.
// The int64 states keep their count beside the value, i[2g] the value and i[2g+1] the count, so an update
// touches one cache line where two slices would touch two: with a hundred thousand groups the states no
// longer fit the L2 cache, and a row's update is a miss per line.
type aggStates struct {
	a Agg
	n []int64
	i []int64 // value and count pairs (see above)
	f []float64
	s []string
	v []column.Value
	// distinct is a dcount's table of (group, value) pairs (summarize_dcount.go); its n counts them per group.
	distinct *dcountState
	// layout is the slice the value lives in: 'i', 'f', 's', 'v', or 0 (count, dcount).
	layout byte
}

func newAggStates(a Agg, grouped bool, budget *memory.Budget) *aggStates {
	st := &aggStates{a: a}
	switch {
	case a.Func == "dcount":
		st.distinct = newDcountState(a.Arg.Type(), grouped, budget)
	case a.Func == "count":
	case a.Func == "avg" || a.Type == column.Real:
		st.layout = 'f'
	case isIntKey(a.Type):
		st.layout = 'i'
	case a.Type == column.String:
		st.layout = 's'
	default:
		st.layout = 'v'
	}
	return st
}

// groupBytes is the memory one group's state takes in st's slices (a dcount's pairs are charged as they come).
func (st *aggStates) groupBytes() int64 {
	n := int64(8) // n
	switch st.layout {
	case 'i', 'f':
		n += 8
	case 's':
		n += int64(unsafe.Sizeof(""))
	case 'v':
		n += int64(unsafe.Sizeof(column.Value{}))
	}
	return n
}

// add appends a zero state for a new group.
func (st *aggStates) add() {
	switch {
	case st.layout == 'i':
		st.i = append(st.i, 0, 0)
		return
	case st.layout == 'f':
		st.f = append(st.f, 0)
	case st.layout == 's':
		st.s = append(st.s, "")
	case st.layout == 'v':
		st.v = append(st.v, column.Value{})
	}
	st.n = append(st.n, 0)
}

// update adds the rows of v whose groups are gids (row r in group gids[r]) to aggregate i, in one loop over
// the batch shaped by the aggregate and the vector's type: counts, sums, averages, min and max over longs,
// datetimes, timespans, reals and strings read the typed slice and never box a value. dcount, bools and
// dynamic values go row by row through accumulate. The rows of a loop are taken in order, so a budget failure
// (a dcount's new value) returns the row it stopped at: the rows before it are taken, it and those after not.
func (s *Summarize) update(i int, v *column.Vector, gids []int32) (int, error) {
	st := s.states[i]
	a := st.a
	// The loops below read the state's and the vector's slices through locals, and test a row for null only
	// in a vector that has nulls: under js/wasm every field read per row is a load from linear memory.
	if a.Func == "count" {
		n := st.n
		if len(s.keys) == 0 {
			n[0] += int64(len(gids))
			return len(gids), nil
		}
		for _, g := range gids {
			n[g]++
		}
		return len(gids), nil
	}
	nulls := v.HasNulls()
	if len(s.keys) == 0 && updateOne(st, v, len(gids)) {
		return len(gids), nil
	}
	switch {
	case a.Func == "dcount":
		return st.dcount(v, gids)
	case v.Type == column.Dynamic || v.Type == column.Bool:
	case (a.Func == "sum" || a.Func == "avg") && v.Type == column.Real:
		f, n, vals := st.f, st.n, v.Reals
		for r, g := range gids {
			if !nulls || !v.IsNull(r) {
				f[g] += vals[r]
				n[g]++
			}
		}
		return len(gids), nil
	case a.Func == "avg":
		f, n, vals := st.f, st.n, v.Ints
		for r, g := range gids {
			if !nulls || !v.IsNull(r) {
				f[g] += float64(vals[r])
				n[g]++
			}
		}
		return len(gids), nil
	case a.Func == "sum":
		acc, vals := st.i, v.Ints
		for r, g := range gids {
			if !nulls || !v.IsNull(r) {
				acc[2*g] += vals[r]
				acc[2*g+1]++
			}
		}
		return len(gids), nil
	case a.Func == "min" || a.Func == "max":
		sign := 1
		if a.Func == "max" {
			sign = -1
		}
		switch st.layout {
		case 'f':
			extreme(st.f, st.n, gids, v.Nulls, sign, v.Reals, cmp.Compare[float64])
		case 's':
			extreme(st.s, st.n, gids, v.Nulls, sign, v.Strs, strings.Compare)
		case 'i':
			if len(s.keys) == 0 {
				extremeInt(st.i, v.Ints[:len(gids)], v.Nulls, sign)
			} else {
				extremeInts(st.i, gids, v.Nulls, sign, v.Ints)
			}
		}
		return len(gids), nil
	}
	for r, g := range gids {
		if err := s.accumulate(st, g, v, r); err != nil {
			return r, err
		}
	}
	return len(gids), nil
}

// updateOne adds the first n rows of v to the one group of a summarize with no keys, for a sum or an avg of
// a long, timespan or real column, and reports whether it did: the loop keeps the running value in a register
// instead of a group's state indexed per row, and adds in row order, so a real sum is bit for bit the one the
// grouped loop makes.
func updateOne(st *aggStates, v *column.Vector, n int) bool {
	nulls := v.HasNulls()
	var taken int64
	switch {
	case (st.a.Func == "sum" || st.a.Func == "avg") && v.Type == column.Real:
		f := st.f[0]
		if !nulls {
			f, taken = sumReals(f, v.Reals[:n]), int64(n)
		} else {
			for r, x := range v.Reals[:n] {
				if !v.IsNull(r) {
					f += x
					taken++
				}
			}
		}
		st.f[0] = f
		st.n[0] += taken
	case st.a.Func == "avg" && (v.Type == column.Long || v.Type == column.Timespan):
		f := st.f[0]
		for r, x := range v.Ints[:n] {
			if !nulls || !v.IsNull(r) {
				f += float64(x)
				taken++
			}
		}
		st.f[0] = f
		st.n[0] += taken
	case st.a.Func == "sum" && st.layout == 'i' && (v.Type == column.Long || v.Type == column.Timespan):
		sum, taken := sumInts(v.Ints[:n], v.Nulls)
		st.i[0] += sum
		st.i[1] += taken
	default:
		return false
	}
	return true
}

// sumInts is the wrapping sum of the values of xs whose bit in nulls is clear (nulls may be nil or shorter
// than xs: a missing bit is clear), and how many there were. A null row's value is masked out rather than
// branched over, and the loop takes four rows a turn into four sums: the Go compiler's js/wasm code takes each
// turn of a loop and each skipped if through a dispatch on a table of the function's blocks, dearer than the
// add (BenchmarkSummarizeNoKeys).
func sumInts(xs []int64, nulls column.Bitmap) (sum, taken int64) {
	if nulls == nil {
		var s0, s1, s2, s3 int64
		r := 0
		for ; r+4 <= len(xs); r += 4 {
			x := xs[r : r+4 : r+4]
			s0 += x[0]
			s1 += x[1]
			s2 += x[2]
			s3 += x[3]
		}
		for ; r < len(xs); r++ {
			s0 += xs[r]
		}
		return s0 + s1 + s2 + s3, int64(len(xs))
	}
	if len(nulls) < (len(xs)+63)>>6 {
		nulls = append(nulls[:len(nulls):len(nulls)], make(column.Bitmap, (len(xs)+63)>>6-len(nulls))...)
	}
	var s0, s1, s2, s3, nn int64
	r := 0
	for ; r+4 <= len(xs); r += 4 {
		x := xs[r : r+4 : r+4]
		w := nulls[r>>6] >> (uint(r) & 63) // r is a multiple of 4, so its four bits share a word
		// Per row, 0 for a null one, else all ones.
		m0, m1, m2, m3 := int64(w&1)-1, int64(w>>1&1)-1, int64(w>>2&1)-1, int64(w>>3&1)-1
		s0 += x[0] & m0
		s1 += x[1] & m1
		s2 += x[2] & m2
		s3 += x[3] & m3
		nn += int64(w&1 + w>>1&1 + w>>2&1 + w>>3&1)
	}
	for ; r < len(xs); r++ {
		bit := nulls[r>>6] >> (uint(r) & 63) & 1
		s0 += xs[r] & (int64(bit) - 1)
		nn += int64(bit)
	}
	return s0 + s1 + s2 + s3, int64(len(xs)) - nn
}

// sumReals adds the values of xs to f in row order, four a turn (a real sum must add in order to come out bit
// for bit the same whatever the batch sizes).
func sumReals(f float64, xs []float64) float64 {
	r := 0
	for ; r+4 <= len(xs); r += 4 {
		x := xs[r : r+4 : r+4]
		f += x[0]
		f += x[1]
		f += x[2]
		f += x[3]
	}
	for ; r < len(xs); r++ {
		f += xs[r]
	}
	return f
}

// extreme keeps in best, per group, the least value (sign 1) or the greatest (sign -1) of xs, leaving out the
// rows set in nulls; the first of equal values stays, in expr.Compare's order (NaN first, -0 equal to 0).
func extreme[T any](best []T, n []int64, gids []int32, nulls column.Bitmap, sign int, xs []T, compare func(T, T) int) {
	for r, g := range gids {
		if nulls != nil && nulls.Get(r) {
			continue
		}
		if x := xs[r]; n[g] == 0 || sign*compare(x, best[g]) < 0 {
			best[g] = x
		}
		n[g]++
	}
}

// extremeInts is extreme over int64 states kept as value and count pairs.
func extremeInts(pairs []int64, gids []int32, nulls column.Bitmap, sign int, xs []int64) {
	xs = xs[:len(gids)]
	for r, g := range gids {
		if nulls != nil && nulls.Get(r) {
			continue
		}
		p := pairs[2*g : 2*g+2]
		if x := xs[r]; p[1] == 0 || (sign > 0 && x < p[0]) || (sign < 0 && x > p[0]) {
			p[0] = x
		}
		p[1]++
	}
}

// extremeInt is extremeInts for the one group of a summarize with no keys: the running extreme and count stay
// in registers, and a batch with no nulls takes slices.Min or slices.Max whole.
func extremeInt(pair []int64, xs []int64, nulls column.Bitmap, sign int) {
	best, n := pair[0], pair[1]
	if nulls == nil && len(xs) > 0 {
		x := slices.Min(xs)
		if sign < 0 {
			x = slices.Max(xs)
		}
		if n == 0 || (sign > 0 && x < best) || (sign < 0 && x > best) {
			best = x
		}
		pair[0], pair[1] = best, n+int64(len(xs))
		return
	}
	for r, x := range xs {
		if nulls != nil && nulls.Get(r) {
			continue
		}
		if n == 0 || (sign > 0 && x < best) || (sign < 0 && x > best) {
			best = x
		}
		n++
	}
	pair[0], pair[1] = best, n
}

// count is how many values group g's state took (its rows, for count()).
func (st *aggStates) count(g int) int64 {
	if st.layout == 'i' {
		return st.i[2*g+1]
	}
	return st.n[g]
}

// accumulate adds row r of v to group g, boxed: the aggregates and types update has no typed loop for.
func (s *Summarize) accumulate(st *aggStates, g int32, v *column.Vector, r int) error {
	a := st.a
	if v.IsNull(r) {
		return nil
	}
	x := v.Value(r)
	switch a.Func {
	case "sum", "avg":
		// An untyped value counts only when it holds a number; the result is real (see plan.aggregate).
		n, ok := expr.Numeric(x)
		if !ok {
			return nil
		}
		st.f[g] += n.Float()
	case "min", "max":
		if c, _ := expr.Compare(x, st.v[g]); st.n[g] == 0 || (a.Func == "min" && c < 0) || (a.Func == "max" && c > 0) {
			st.v[g] = x
		}
	default:
		return fmt.Errorf("summarize: unknown aggregate %s", a.Func)
	}
	st.n[g]++
	return nil
}

// result is the aggregate's value for group g.
func (st *aggStates) result(g int) column.Value {
	a := st.a
	switch a.Func {
	case "count":
		return column.Value{Type: column.Long, Int: st.n[g]}
	case "dcount":
		return column.Value{Type: column.Long, Int: st.n[g]}
	}
	if st.count(g) == 0 {
		return column.Value{Type: a.Type, Null: true}
	}
	switch {
	case a.Func == "avg":
		return column.Value{Type: column.Real, Real: st.f[g] / float64(st.n[g])}
	case st.layout == 'f':
		return column.Value{Type: column.Real, Real: st.f[g]}
	case st.layout == 'i':
		return column.Value{Type: a.Type, Int: st.i[2*g]}
	case st.layout == 's':
		return column.Value{Type: column.String, Str: st.s[g]}
	}
	return st.v[g]
}
