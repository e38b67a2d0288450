package exec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
)

// colExpr reads long column c, the smallest expr.Expr a sort key needs.
func colExpr(c int) expr.Expr { return &expr.ColumnRef{Index: c, T: column.Long} }

// batches replays a table in batches of a fixed size.
type batches struct {
	t    *column.Table
	size int
	pos  int
}

func (b *batches) Schema() column.Schema { return b.t.Schema }
func (b *batches) Next(context.Context) (*column.Batch, error) {
	if b.pos >= b.t.N {
		return nil, nil
	}
	hi := min(b.pos+b.size, b.t.N)
	out := b.t.Batch().Slice(b.pos, hi)
	b.pos = hi
	return out, nil
}

// TestTopCompaction checks that a top with compactions forced every few rows emits exactly the first rows of
// a full stable sort (ties on the key keep input order, seen through the row number column), nulls included.
func TestTopCompaction(t *testing.T) {
	defer func(n int) { topCompactRows = n }(topCompactRows)
	for _, seed := range []int64{1, 2, 3} {
		rng := rand.New(rand.NewSource(seed))
		tab := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "row", Type: column.Long}})
		b := column.NewBatch([]*column.Vector{column.NewVector(column.Long, 0), column.NewVector(column.Long, 0)}, 0)
		for i := 0; i < 3000; i++ {
			if rng.Intn(10) == 0 {
				b.Cols[0].AppendNull()
			} else {
				b.Cols[0].AppendInt(int64(rng.Intn(50)))
			}
			b.Cols[1].AppendInt(int64(i))
		}
		b.N = 3000
		tab.Append(b)
		for _, asc := range []bool{false, true} {
			for _, limit := range []int64{0, 1, 7, 100, 2999, 5000} {
				for _, compact := range []int{1, 3, 64, 8192} {
					name := fmt.Sprintf("seed%d/asc=%v/limit%d/compact%d", seed, asc, limit, compact)
					keys := []SortKey{{Expr: colExpr(0), Asc: asc, NullsFirst: asc}}
					topCompactRows = 8192
					want := rows(t, NewSort(&batches{t: tab, size: 49}, keys, -1, memory.NewBudget(0)))
					if int64(len(want)) > limit {
						want = want[:limit]
					}
					topCompactRows = compact
					got := rows(t, NewSort(&batches{t: tab, size: 49}, keys, limit, memory.NewBudget(0)))
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s: got %d rows %v…, want %d rows %v…", name, len(got), head(got), len(want), head(want))
					}
				}
			}
		}
	}
}

func head(xs []int64) []int64 { return xs[:min(len(xs), 10)] }

// rows drains a sort and returns the row numbers it emits, in order.
func rows(t *testing.T, op Operator) []int64 {
	t.Helper()
	var out []int64
	if err := Drain(context.Background(), op, func(b *column.Batch) error {
		out = append(out, b.Cols[1].Ints[:b.N]...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRowsBeforeCutMatchesCompare: the top's filter on arrival, compared a key at a time on order codes, keeps
// exactly the rows that the row-by-row compare (lessAcross) puts strictly before the cut row, for one to three
// keys of every type, both directions, nulls first and last, a first int key with no nulls (compared on its
// values), a cut row with nulls, NaN or extremes, and a cut row drawn from the batch itself (so ties on every
// key occur and must be dropped).
func TestRowsBeforeCutMatchesCompare(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for trial := range 600 {
		n := 1 + rng.Intn(400)
		cols := orderTable(rng, n)
		plain := column.NewVector(column.Long, n) // no nulls: the int fast path's key
		for range n {
			plain.AppendInt(int64(rng.Intn(9)) - 4)
		}
		cols = append(cols, plain)
		var keys []SortKey
		var vs []*column.Vector
		for j := range 1 + rng.Intn(3) {
			c := rng.Intn(len(cols))
			if j == 0 && rng.Intn(2) == 0 {
				c = len(cols) - 1
			}
			keys = append(keys, SortKey{Expr: typedCol(c, cols[c].Type), Asc: rng.Intn(2) == 0, NullsFirst: rng.Intn(2) == 0})
			vs = append(vs, cols[c])
		}
		s := &Sort{keys: keys}
		at := rng.Intn(n)
		for _, v := range vs {
			s.cut = append(s.cut, v.Gather([]int32{int32(at)}))
		}
		var want []int32
		for r := range n {
			if s.lessAcross(vs, r, s.cut, 0) {
				want = append(want, int32(r))
			}
		}
		if got := s.rowsBeforeCut(vs, n); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("trial %d: %d rows before the cut (row %d), want %d: %v… against %v…", trial, len(got), at, len(want), got[:min(len(got), 8)], want[:min(len(want), 8)])
		}
	}
}
