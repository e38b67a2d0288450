package exec

import (
	"context"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/kql"
)

// TestFilterCopiesLiveColumns checks that a filter keeps the rows its predicate selects, copies only the
// columns live above it (a column only the predicate reads is left nil), and passes a batch it keeps whole on
// as it is.
func TestFilterCopiesLiveColumns(t *testing.T) {
	schema := column.Schema{{Name: "a", Type: column.Long}, {Name: "b", Type: column.Long}, {Name: "c", Type: column.Long}}
	tab := column.NewTable(schema)
	for i := range 10 {
		for c := range schema {
			tab.Cols[c].AppendInt(int64(i * (c + 1)))
		}
	}
	tab.N = 10
	q, err := kql.Parse("@T | where b % 4 == 0 and a > 1")
	if err != nil {
		t.Fatal(err)
	}
	pred, err := expr.Compile(q.Ops[0].(*kql.Where).Pred, schema)
	if err != nil {
		t.Fatal(err)
	}
	f := NewFilter(&batches{t: tab, size: 10}, pred)
	f.Keep([]bool{true, false, true})
	b, err := f.Next(context.Background())
	if err != nil || b == nil {
		t.Fatalf("no batch: %v", err)
	}
	if b.N != 4 || b.Cols[1] != nil {
		t.Fatalf("kept %d rows (want 4: a = 2, 4, 6, 8), column b %v (want nil)", b.N, b.Cols[1])
	}
	for r, want := range []int64{2, 4, 6, 8} {
		if b.Cols[0].Ints[r] != want || b.Cols[2].Ints[r] != 3*want {
			t.Fatalf("row %d: a %d c %d, want %d and %d", r, b.Cols[0].Ints[r], b.Cols[2].Ints[r], want, 3*want)
		}
	}
	whole := NewFilter(&batches{t: tab, size: 10}, &expr.Const{V: column.Value{Type: column.Bool, Bool: true}})
	whole.Keep([]bool{true, false, true})
	if b, _ := whole.Next(context.Background()); b == nil || b.N != 10 || b.Cols[1] == nil {
		t.Fatalf("a batch kept whole was not passed on as it is")
	}
}
