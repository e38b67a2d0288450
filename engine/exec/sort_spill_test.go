package exec

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/spill"
	"github.com/joinlab/joinlab/engine/trace"
)

// typedCol reads column c of type t, for sort keys over strings.
func typedCol(c int, t column.Type) expr.Expr { return &expr.ColumnRef{Index: c, T: t} }

// spillTable has a long key with ties and nulls, a string key with empty, long and null values, and the row
// number, which shows whether ties keep input order.
func spillTable(seed int64, n int) *column.Table {
	rng := rand.New(rand.NewSource(seed))
	t := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "row", Type: column.Long},
		{Name: "s", Type: column.String}})
	b := column.NewBatch([]*column.Vector{column.NewVector(column.Long, n), column.NewVector(column.Long, n),
		column.NewVector(column.String, n)}, n)
	for i := range n {
		if rng.Intn(9) == 0 {
			b.Cols[0].AppendNull()
		} else {
			b.Cols[0].AppendInt(int64(rng.Intn(40)))
		}
		b.Cols[1].AppendInt(int64(i))
		switch rng.Intn(12) {
		case 0:
			b.Cols[2].AppendNull()
		case 1:
			b.Cols[2].AppendString("")
		case 2:
			b.Cols[2].AppendString(strings.Repeat("x", 200+rng.Intn(3000))) // longer than a small page
		default:
			b.Cols[2].AppendString(fmt.Sprintf("v%d", rng.Intn(30)))
		}
	}
	t.Append(b)
	return t
}

// drainAll runs op under ctx and returns its rows as text, one line per row.
func drainAll(ctx context.Context, op Operator) ([]string, error) {
	var out []string
	err := Drain(ctx, op, func(b *column.Batch) error {
		for r := range b.N {
			var line strings.Builder
			for _, v := range b.Cols {
				if v.IsNull(r) {
					line.WriteString("∅|")
				} else {
					fmt.Fprintf(&line, "%v|", v.Value(r))
				}
			}
			out = append(out, line.String())
		}
		return nil
	})
	return out, err
}

// TestSortSpills: a sort or top over more rows than its budget holds spills sorted runs and merges them, in
// one pass or several, and emits exactly the in-memory stable sort's rows (ties in input order, nulls where
// the keys say), whatever the batch size; every byte it reserved is released at the end.
func TestSortSpills(t *testing.T) {
	keySets := map[string][]SortKey{
		"k asc nulls first": {{Expr: colExpr(0), Asc: true, NullsFirst: true}},
		"s desc, k asc":     {{Expr: typedCol(2, column.String), Asc: false}, {Expr: colExpr(0), Asc: true}},
	}
	tab := spillTable(5, 3000)
	space := spill.NewSpace(spill.Memory)
	defer space.Close()
	ctx := spill.WithSpace(context.Background(), space)
	for name, keys := range keySets {
		for _, limit := range []int64{-1, 0, 3, 900} {
			want, err := drainAll(ctx, NewSort(&batches{t: tab, size: 100}, keys, limit, memory.NewBudget(0)))
			if err != nil {
				t.Fatal(err)
			}
			for _, budget := range []int64{48 << 10, 256 << 10, 1 << 20} {
				for _, size := range []int{1, 7, 50} {
					label := fmt.Sprintf("%s/limit %d/budget %s/batch %d", name, limit, memory.Bytes(budget), size)
					b := memory.NewBudget(budget)
					d := &trace.Details{}
					s := NewSort(&batches{t: tab, size: size}, keys, limit, b)
					s.ReportTo(d)
					got, err := drainAll(ctx, s)
					if err != nil {
						t.Fatalf("%s: %v", label, err)
					}
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("%s: %d rows differ from the in-memory sort's %d", label, len(got), len(want))
					}
					if b.Available() != b.Limit() {
						t.Errorf("%s: %s still reserved at the end", label, memory.Bytes(b.Limit()-b.Available()))
					}
					if limit < 0 && budget < 1<<20 && d.Int("sort_spills") == 0 {
						t.Errorf("%s: the whole input (%s) fit a smaller budget", label, memory.Bytes(tab.Batch().Bytes()))
					}
					if limit < 0 && budget == 48<<10 && size == 1 && d.Int("sort_merge_passes") == 0 {
						t.Errorf("%s: one merge took every run (details %v)", label, d.Map())
					}
				}
			}
		}
	}
}

// TestSortSpillTooSmall: a budget with no room for a merge of two runs fails with the budget's error, saying
// what the merge needed.
func TestSortSpillTooSmall(t *testing.T) {
	space := spill.NewSpace(spill.Memory)
	defer space.Close()
	ctx := spill.WithSpace(context.Background(), space)
	b := memory.NewBudget(2 << 10)
	_, err := drainAll(ctx, NewSort(&batches{t: spillTable(1, 500), size: 10},
		[]SortKey{{Expr: colExpr(0), Asc: true}}, -1, b))
	var ex *memory.ExceededError
	if !errors.As(err, &ex) || !strings.Contains(err.Error(), "sort merge") {
		t.Fatalf("err %v, want the budget's error for the sort merge", err)
	}
	if b.Available() != b.Limit() {
		t.Errorf("%s still reserved after the failure", memory.Bytes(b.Limit()-b.Available()))
	}
}
