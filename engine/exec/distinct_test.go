package exec

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/spill"
	"github.com/joinlab/joinlab/engine/trace"
)

// oracleDistinct is distinct row at a time: the first row of each combination of the columns cols, by their
// encoded keys (column.AppendKey), in input order.
func oracleDistinct(tab *column.Table, cols []int) []string {
	seen := map[string]bool{}
	var out []string
	b := tab.Batch()
	for r := range b.N {
		var key []byte
		var line strings.Builder
		for _, c := range cols {
			v := b.Cols[c]
			key = column.AppendKey(key, v, r)
			if v.IsNull(r) {
				line.WriteString("∅|")
			} else {
				fmt.Fprintf(&line, "%v|", v.Value(r))
			}
		}
		if !seen[string(key)] {
			seen[string(key)] = true
			out = append(out, line.String())
		}
	}
	return out
}

// project keeps the columns cols of tab.
func project(tab *column.Table, cols []int) *column.Table {
	var schema column.Schema
	var vs []*column.Vector
	for _, c := range cols {
		schema = append(schema, tab.Schema[c])
		vs = append(vs, tab.Cols[c])
	}
	t := column.NewTable(schema)
	t.Append(column.NewBatch(vs, tab.N))
	return t
}

// TestDistinct: distinct, in memory or past a budget that makes it spill (one level of partitions or several),
// streams exactly the first row of each combination that a row-at-a-time oracle keeps, in input order, for
// every column shape (an int key alone, reals with NaN, -0 and 0, strings and longs with nulls, several
// columns) and batch size; every byte it reserved is released.
func TestDistinct(t *testing.T) {
	tab := aggTable(5, 5000, 1800)
	space := spill.NewSpace(spill.Memory)
	defer space.Close()
	ctx := spill.WithSpace(context.Background(), space)
	for name, cols := range map[string][]int{
		"g":       {0},
		"r":       {3},
		"c":       {1},
		"s, x":    {4, 2},
		"g, x":    {0, 2},
		"c, g, r": {1, 0, 3},
		"all":     {0, 1, 2, 3, 4},
	} {
		in := project(tab, cols)
		want := oracleDistinct(tab, cols)
		for _, budget := range []int64{16 << 10, 64 << 10, 256 << 10, 0} {
			for _, size := range []int{1, 7, 300} {
				label := fmt.Sprintf("%s/budget %s/batch %d", name, memory.Bytes(budget), size)
				b := memory.NewBudget(budget)
				d := NewDistinct(&batches{t: in, size: size}, b)
				details := &trace.Details{}
				d.ReportTo(details)
				got, err := drainAll(ctx, d)
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
					t.Fatalf("%s: %d rows differ from the oracle's %d:\n%s", label, len(got), len(want), firstDiff(got, want))
				}
				if b.Available() != b.Limit() {
					t.Errorf("%s: %s still reserved at the end", label, memory.Bytes(b.Limit()-b.Available()))
				}
				spilled := details.Int("summarize_spills") > 0
				// Past 1,000 distinct rows the groups alone take more than 16 KiB, whatever the table's layout
				// (a dense range of one int key takes less than open addressing, and fits 64 KiB here).
				if big := len(want) > 1000; (budget == 16<<10 && big != spilled) || (budget == 0 && spilled) {
					t.Errorf("%s: %d distinct rows, spilled %v (details %v)", label, len(want), spilled, details.Map())
				}
			}
		}
	}
}

// TestDistinctKeyCollisions: with every key hashed alike (keyHashMask), rows are told apart by the typed compare
// alone.
func TestDistinctKeyCollisions(t *testing.T) {
	defer func(m uint64) { keyHashMask = m }(keyHashMask)
	keyHashMask = 0xC000000000000000
	tab := aggTable(12, 800, 60)
	for name, cols := range map[string][]int{"r": {3}, "s": {4}, "c, g, r": {1, 0, 3}, "x, g": {2, 0}} {
		want := oracleDistinct(tab, cols)
		for _, size := range []int{1, 50, 800} {
			got, err := drainAll(context.Background(), NewDistinct(&batches{t: project(tab, cols), size: size}, memory.NewBudget(0)))
			if err != nil {
				t.Fatalf("%s/batch %d: %v", name, size, err)
			}
			if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
				t.Fatalf("%s/batch %d: %d rows differ from the oracle's %d:\n%s", name, size, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}
