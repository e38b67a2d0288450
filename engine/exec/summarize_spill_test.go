package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/spill"
	"github.com/joinlab/joinlab/engine/trace"
)

// aggTable has a long key with many groups and nulls, a string key of a few values, a long and a real value
// (with nulls) and a string value, so every aggregate sees ties, nulls and all-null groups.
func aggTable(seed int64, n, groups int) *column.Table {
	rng := rand.New(rand.NewSource(seed))
	schema := column.Schema{{Name: "g", Type: column.Long}, {Name: "c", Type: column.String},
		{Name: "x", Type: column.Long}, {Name: "r", Type: column.Real}, {Name: "s", Type: column.String}}
	t := column.NewTable(schema)
	cols := make([]*column.Vector, len(schema))
	for i, f := range schema {
		cols[i] = column.NewVector(f.Type, n)
	}
	for range n {
		if rng.Intn(50) == 0 {
			cols[0].AppendNull()
		} else {
			cols[0].AppendInt(int64(rng.Intn(groups)))
		}
		cols[1].AppendString([]string{"a", "b", "c", ""}[rng.Intn(4)])
		if rng.Intn(6) == 0 {
			cols[2].AppendNull()
			cols[3].AppendNull()
			cols[4].AppendNull()
			continue
		}
		cols[2].AppendInt(int64(rng.Intn(1000) - 500))
		switch rng.Intn(40) {
		case 0:
			cols[3].AppendReal(math.NaN())
		case 1:
			cols[3].AppendReal(math.Copysign(0, -1))
		case 2:
			cols[3].AppendReal(0)
		default:
			cols[3].AppendReal(rng.Float64()*10 - 3)
		}
		s := fmt.Sprintf("s%d", rng.Intn(300))
		if s == "s0" {
			s = "" // the empty string, which the null key (rows above) must not join
		}
		cols[4].AppendString(s)
	}
	t.Append(column.NewBatch(cols, n))
	return t
}

func ref(i int, t column.Type) expr.Expr { return &expr.ColumnRef{Index: i, T: t} }

// TestSummarizeSpills: a grouped summarize, in memory (budget 0: the default) or with groups that outgrow the
// budget and are partitioned one level or several, emits exactly the rows of a row-at-a-time oracle, in order
// of first appearance, for every aggregate, key shape and batch size; every byte it reserved is released.
func TestSummarizeSpills(t *testing.T) {
	tab := aggTable(9, 6000, 2500)
	aggs := []Agg{
		{Func: "count", Type: column.Long},
		{Func: "sum", Arg: ref(2, column.Long), Type: column.Long},
		{Func: "sum", Arg: ref(3, column.Real), Type: column.Real},
		{Func: "avg", Arg: ref(3, column.Real), Type: column.Real},
		{Func: "min", Arg: ref(4, column.String), Type: column.String},
		{Func: "max", Arg: ref(2, column.Long), Type: column.Long},
		{Func: "min", Arg: ref(3, column.Real), Type: column.Real},
		{Func: "max", Arg: ref(3, column.Real), Type: column.Real},
		{Func: "dcount", Arg: ref(4, column.String), Type: column.Long},
		{Func: "dcount", Arg: ref(2, column.Long), Type: column.Long},
	}
	keySets := map[string][]expr.Expr{
		"g":    {ref(0, column.Long)},
		"c, g": {ref(1, column.String), ref(0, column.Long)},
		"c":    {ref(1, column.String)},
		// Reals with NaN, -0 and 0 (which group together), and a string with nulls beside a long with nulls:
		// the typed compare (sameKey) against the oracle's encoded keys.
		"r":    {ref(3, column.Real)},
		"s, x": {ref(4, column.String), ref(2, column.Long)},
		// Two longs, both with nulls: the pair map (keymap.Pairs), a row with a null taking the hashed way.
		"g, x": {ref(0, column.Long), ref(2, column.Long)},
	}
	space := spill.NewSpace(spill.Memory)
	defer space.Close()
	ctx := spill.WithSpace(context.Background(), space)
	for name, keys := range keySets {
		var schema column.Schema
		for _, k := range keys {
			schema = append(schema, column.Field{Name: "k", Type: k.Type()})
		}
		for _, a := range aggs {
			schema = append(schema, column.Field{Name: a.Func, Type: a.Type})
		}
		want := oracleSummarize(tab, keys, aggs)
		for _, budget := range []int64{96 << 10, 256 << 10, 1 << 20, 0} {
			for _, size := range []int{1, 7, 50} {
				label := fmt.Sprintf("keys %s/budget %s/batch %d", name, memory.Bytes(budget), size)
				b := memory.NewBudget(budget)
				d := &trace.Details{}
				s := NewSummarize(&batches{t: tab, size: size}, schema, keys, aggs, b)
				s.ReportTo(d)
				got, err := drainAll(ctx, s)
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
					t.Fatalf("%s: %d groups differ from the in-memory summarize's %d:\n%s", label, len(got), len(want), firstDiff(got, want))
				}
				if b.Available() != b.Limit() {
					t.Errorf("%s: %s still reserved at the end", label, memory.Bytes(b.Limit()-b.Available()))
				}
				if name != "c" && budget > 0 && budget < 1<<20 && d.Int("summarize_spills") == 0 {
					t.Errorf("%s: the groups fit a smaller budget (details %v)", label, d.Map())
				}
				if name == "c" && budget == 1<<20 && d.Int("summarize_spills") != 0 {
					t.Errorf("%s: four groups spilled (details %v)", label, d.Map())
				}
				if name == "g" && budget == 96<<10 && d.Int("summarize_spills") < 2 {
					t.Errorf("%s: one level of partitions was enough (details %v)", label, d.Map())
				}
			}
		}
	}
}

// TestSummarizeKeyCollisions: with every key hashed alike (keyHashMask), groups (and a dcount's values) are
// told apart by the typed compare alone, which must agree with the oracle's encoded keys on nulls, -0 and 0, NaN, strings and several
// columns, for every batch size.
func TestSummarizeKeyCollisions(t *testing.T) {
	defer func(m uint64) { keyHashMask = m }(keyHashMask)
	// Four hashes, one of them shared by most keys; then one hash for every key, the null key's included.
	for _, mask := range []uint64{0xC000000000000000, 0} {
		keyHashMask = mask
		summarizeCollisions(t)
	}
}

// summarizeCollisions is TestSummarizeKeyCollisions under one keyHashMask.
func summarizeCollisions(t *testing.T) {
	tab := aggTable(11, 700, 40)
	aggs := []Agg{{Func: "count", Type: column.Long}, {Func: "sum", Arg: ref(2, column.Long), Type: column.Long},
		{Func: "dcount", Arg: ref(3, column.Real), Type: column.Long}, {Func: "dcount", Arg: ref(4, column.String), Type: column.Long}}
	for name, keys := range map[string][]expr.Expr{
		"r":       {ref(3, column.Real)},
		"s":       {ref(4, column.String)},
		"s, x":    {ref(4, column.String), ref(2, column.Long)},
		"c, g, r": {ref(1, column.String), ref(0, column.Long), ref(3, column.Real)},
		"x, g":    {ref(2, column.Long), ref(0, column.Long)},
		"none":    nil, // one group: a dcount's table holds its values alone
	} {
		var schema column.Schema
		for _, k := range keys {
			schema = append(schema, column.Field{Name: "k", Type: k.Type()})
		}
		schema = append(schema, column.Field{Name: "n", Type: column.Long}, column.Field{Name: "s", Type: column.Long},
			column.Field{Name: "dr", Type: column.Long}, column.Field{Name: "ds", Type: column.Long})
		want := oracleSummarize(tab, keys, aggs)
		for _, size := range []int{1, 7, 50, 700} {
			got, err := drainAll(context.Background(), NewSummarize(&batches{t: tab, size: size}, schema, keys, aggs, memory.NewBudget(0)))
			if err != nil {
				t.Fatalf("keys %s/batch %d: %v", name, size, err)
			}
			if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
				t.Fatalf("keys %s/batch %d: %d groups differ from the oracle's %d:\n%s", name, size, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("group %d: got %s, want %s", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(got), len(want))
}

// TestSummarizeSpillLimits: a summarize without keys cannot split its one group and fails with the budget's
// error, as does a group whose distinct values alone exceed the budget after every level.
func TestSummarizeSpillLimits(t *testing.T) {
	tab := aggTable(2, 20000, 3)
	space := spill.NewSpace(spill.Memory)
	defer space.Close()
	ctx := spill.WithSpace(context.Background(), space)
	dc := []Agg{{Func: "dcount", Arg: ref(3, column.Real), Type: column.Long}}
	for _, keys := range [][]expr.Expr{nil, {ref(1, column.String)}} {
		schema := column.Schema{{Name: "d", Type: column.Long}}
		if keys != nil {
			schema = append(column.Schema{{Name: "c", Type: column.String}}, schema...)
		}
		b := memory.NewBudget(64 << 10)
		_, err := drainAll(ctx, NewSummarize(&batches{t: tab, size: 50}, schema, keys, dc, b))
		if !errors.As(err, new(*memory.ExceededError)) {
			t.Errorf("keys %d: err %v, want the budget's", len(keys), err)
		}
		t.Logf("keys %d: %v", len(keys), err)
	}
}

// oracleSummarize groups tab row by row with boxed values, the plainest reading of each aggregate: count of
// rows, sum and avg of the non-null values, min and max by expr.Compare keeping the first of equals, dcount of
// the distinct non-null values; groups in order of first appearance.
func oracleSummarize(tab *column.Table, keys []expr.Expr, aggs []Agg) []string {
	b := tab.Batch()
	type group struct {
		key  []column.Value
		vals [][]column.Value
	}
	var order []*group
	byKey := map[string]*group{}
	for r := range b.N {
		var kb []byte
		var key []column.Value
		for _, k := range keys {
			v := k.Eval(b)
			kb = column.AppendKey(kb, v, r)
			key = append(key, v.Value(r))
		}
		g := byKey[string(kb)]
		if g == nil {
			g = &group{key: key, vals: make([][]column.Value, len(aggs))}
			byKey[string(kb)] = g
			order = append(order, g)
		}
		for i, a := range aggs {
			if a.Arg == nil {
				g.vals[i] = append(g.vals[i], column.Value{})
			} else if x := a.Arg.Eval(b).Value(r); !x.Null {
				g.vals[i] = append(g.vals[i], x)
			}
		}
	}
	var out []string
	for _, g := range order {
		var line strings.Builder
		for _, k := range g.key {
			writeValue(&line, k)
		}
		for i, a := range aggs {
			vs := g.vals[i]
			var res column.Value
			switch a.Func {
			case "count":
				res = column.Value{Type: column.Long, Int: int64(len(vs))}
			case "dcount": // distinct as the engine defines it: by key encoding (-0 is 0, NaN is NaN)
				res = column.Value{Type: column.Long, Int: int64(len(encodedSet(vs)))}
			case "sum", "avg":
				if len(vs) == 0 {
					res = column.Value{Type: a.Type, Null: true}
					break
				}
				var f float64
				var n int64
				for _, v := range vs {
					f += v.Float()
					n += v.Int
				}
				switch {
				case a.Func == "avg":
					res = column.Value{Type: column.Real, Real: f / float64(len(vs))}
				case a.Type == column.Real:
					res = column.Value{Type: column.Real, Real: f}
				default:
					res = column.Value{Type: a.Type, Int: n}
				}
			case "min", "max":
				if len(vs) == 0 {
					res = column.Value{Type: a.Type, Null: true}
					break
				}
				res = vs[0]
				for _, v := range vs[1:] {
					if c, _ := expr.Compare(v, res); a.Func == "min" && c < 0 || a.Func == "max" && c > 0 {
						res = v
					}
				}
			}
			writeValue(&line, res)
		}
		out = append(out, line.String())
	}
	return out
}

// encodedSet is the set of the values' key encodings, as the engine counts distinct values.
func encodedSet(vs []column.Value) map[string]bool {
	set := map[string]bool{}
	for _, v := range vs {
		vec := column.NewVector(v.Type, 1)
		vec.AppendValue(v)
		set[string(column.AppendKey(nil, vec, 0))] = true
	}
	return set
}

// writeValue writes a value as drainAll does.
func writeValue(w *strings.Builder, v column.Value) {
	if v.Null {
		w.WriteString("∅|")
		return
	}
	fmt.Fprintf(w, "%v|", v)
}

// TestSummarizeNoKeys: a summarize with no keys folds its one group in a register (updateOne); it must emit
// the oracle's row, a real sum bit for bit (the same additions in the same order), for every batch size, and
// a sum of only nulls must stay null.
func TestSummarizeNoKeys(t *testing.T) {
	aggs := []Agg{
		{Func: "count", Type: column.Long},
		{Func: "sum", Arg: ref(2, column.Long), Type: column.Long},
		{Func: "sum", Arg: ref(3, column.Real), Type: column.Real},
		{Func: "avg", Arg: ref(3, column.Real), Type: column.Real},
		{Func: "avg", Arg: ref(2, column.Long), Type: column.Real},
		{Func: "max", Arg: ref(2, column.Long), Type: column.Long},
		{Func: "dcount", Arg: ref(4, column.String), Type: column.Long},
	}
	var schema column.Schema
	for _, a := range aggs {
		schema = append(schema, column.Field{Name: a.Func, Type: a.Type})
	}
	full := aggTable(11, 3000, 10)
	allNull := aggTable(12, 1, 1) // one row, every value of which may be null: make it so
	allNull.Cols[2].Nulls.Set(0)
	allNull.Cols[3].Nulls.Set(0)
	allNull.Cols[4].Nulls.Set(0)
	noNull := aggTable(13, 3000, 10) // the loops without a null bitmap: the null rows' zero values taken as values
	for _, c := range noNull.Cols[2:] {
		c.Nulls = nil
	}
	for i, f := range noNull.Cols[3].Reals { // finite values, so that a real sum shows a value added wrongly
		if math.IsNaN(f) || math.IsInf(f, 0) {
			noNull.Cols[3].Reals[i] = float64(i)
		}
	}
	for name, tab := range map[string]*column.Table{"rows": full, "all null": allNull, "no nulls": noNull} {
		want := oracleSummarize(tab, nil, aggs)
		for _, size := range []int{1, 7, 50, 4096} {
			got, err := drainAll(context.Background(), NewSummarize(&batches{t: tab, size: size}, schema, nil, aggs, memory.NewBudget(0)))
			if err != nil {
				t.Fatal(err)
			}
			if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
				t.Fatalf("%s, batch %d:\ngot  %s\nwant %s", name, size, g, w)
			}
		}
	}
}
