package join

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/memory"
)

// batchSizes are the input batch sizes every strategy is checked at: tiny, prime, and either side of 50.
var batchSizes = []int{1, 2, 7, 49, 50, 51, 100}

// tableOp streams a table in batches of a fixed size.
type tableOp struct {
	t    *column.Table
	size int
	pos  int
}

func (o *tableOp) Schema() column.Schema { return o.t.Schema }
func (o *tableOp) Next(ctx context.Context) (*column.Batch, error) {
	if o.pos >= o.t.N {
		return nil, nil
	}
	hi := min(o.pos+o.size, o.t.N)
	b := o.t.Batch().Slice(o.pos, hi)
	o.pos = hi
	return b, nil
}

// shape says how to generate one side's keys.
type shape struct {
	name      string
	rows      int
	domain    int     // distinct key values
	nullRate  float64 // fraction of null keys
	skew      float64 // fraction of rows on key 0
	keyType   column.Type
	multiKey  bool // a second key column: string, or long with intKey2
	intKey2   bool
	realKeys  bool // keys stored as real (compared with long keys on the other side)
	nullsOnly bool
	scatter   bool // int keys spread over all of int64 (a bijection, so ties stay ties): no dense range
	fullV     bool // the payload v is never null (the loops for batches with no null value)
}

// genTable makes a side: key column(s) k (and k2), and a payload id unique per row, prefixed by side.
func genTable(r *rand.Rand, s shape, side string) *column.Table {
	schema := column.Schema{{Name: "k", Type: s.keyType}}
	if s.realKeys {
		schema[0].Type = column.Real
	}
	if s.multiKey {
		k2 := column.Field{Name: "k2", Type: column.String}
		if s.intKey2 {
			k2.Type = column.Long
		}
		schema = append(schema, k2)
	}
	schema = append(schema, column.Field{Name: "id", Type: column.String}, column.Field{Name: "v", Type: column.Long})
	t := column.NewTable(schema)
	for i := 0; i < s.rows; i++ {
		key := r.IntN(max(s.domain, 1))
		if r.Float64() < s.skew {
			key = 0
		}
		null := s.nullsOnly || r.Float64() < s.nullRate
		c := 0
		switch {
		case null:
			t.Cols[c].AppendNull()
		case schema[0].Type == column.Real:
			t.Cols[c].AppendReal(float64(key))
		case schema[0].Type == column.String:
			t.Cols[c].AppendString(fmt.Sprintf("user-%04d@corp.example", key))
		case s.scatter:
			t.Cols[c].AppendInt(scatterKey(key))
		default:
			t.Cols[c].AppendInt(int64(key))
		}
		c++
		if s.multiKey {
			switch {
			case r.Float64() < s.nullRate/2:
				t.Cols[c].AppendNull()
			case s.intKey2:
				t.Cols[c].AppendInt(int64(r.IntN(max(s.domain/3, 1))) - 1<<40) // a word no string key's bytes would make
			default:
				t.Cols[c].AppendString([]string{"a", "b"}[r.IntN(2)])
			}
			c++
		}
		t.Cols[c].AppendString(fmt.Sprintf("%s%d", side, i))
		if !s.fullV && r.IntN(5) == 0 {
			t.Cols[c+1].AppendNull()
		} else {
			t.Cols[c+1].AppendInt(int64(r.IntN(100)))
		}
	}
	t.N = s.rows
	return t
}

// rowsOf renders every output row as text, sorted, so outputs compare as multisets.
func rowsOf(t *testing.T, op exec.Operator) ([]string, column.Schema) {
	t.Helper()
	tab, err := exec.Materialize(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	rows := renderedRows(tab)
	slices.Sort(rows)
	return rows, tab.Schema
}

// renderedRows renders tab's rows as text, in order: the form every oracle test here compares.
func renderedRows(tab *column.Table) []string {
	rows := make([]string, tab.N)
	for r := range rows {
		var b strings.Builder
		for c, v := range tab.Cols {
			if c > 0 {
				b.WriteString("|")
			}
			if v.IsNull(r) {
				b.WriteString("∅")
			} else {
				fmt.Fprint(&b, v.Value(r).Int, v.Value(r).Real, v.Value(r).Str)
			}
		}
		rows[r] = b.String()
	}
	return rows
}

// scatterKey spreads key over all of int64, negative values included, by a multiply that is a bijection on
// 64-bit words: equal keys stay equal, and the keys of a side span far more than a dense map allows.
func scatterKey(key int) int64 { return int64(uint64(key) * 0x9E3779B97F4A7C15) }

type pair struct{ left, right shape }

func cases() []pair {
	ints := func(name string, rows, domain int) shape {
		return shape{name: name, rows: rows, domain: domain, keyType: column.Long}
	}
	with := func(s shape, f func(*shape)) shape { f(&s); return s }
	return []pair{
		{ints("unique", 40, 1000), ints("unique", 60, 1000)},
		{ints("ties", 50, 5), ints("ties", 70, 5)},
		{with(ints("nulls", 50, 10), func(s *shape) { s.nullRate = 0.3 }), with(ints("nulls", 50, 10), func(s *shape) { s.nullRate = 0.3 })},
		{with(ints("skew", 80, 20), func(s *shape) { s.skew = 0.6 }), ints("ties", 30, 20)},
		{ints("ties", 30, 20), with(ints("skew", 90, 20), func(s *shape) { s.skew = 0.7 })},
		{with(ints("skew", 60, 10), func(s *shape) { s.skew = 0.5 }), with(ints("skew", 60, 10), func(s *shape) { s.skew = 0.5 })},
		{ints("empty", 0, 10), ints("ties", 30, 10)},
		{ints("ties", 30, 10), ints("empty", 0, 10)},
		{with(ints("sparse", 50, 12), func(s *shape) { s.scatter = true; s.nullRate = 0.1 }),
			with(ints("sparse", 60, 12), func(s *shape) { s.scatter = true; s.nullRate = 0.1 })},
		{ints("empty", 0, 10), ints("empty", 0, 10)},
		{with(ints("allnull", 20, 10), func(s *shape) { s.nullsOnly = true }), ints("ties", 20, 10)},
		{with(ints("strings", 50, 8), func(s *shape) { s.keyType = column.String; s.nullRate = 0.1 }),
			with(ints("strings", 50, 8), func(s *shape) { s.keyType = column.String; s.nullRate = 0.1 })},
		{with(ints("multikey", 60, 6), func(s *shape) { s.multiKey = true; s.nullRate = 0.1 }),
			with(ints("multikey", 60, 6), func(s *shape) { s.multiKey = true; s.nullRate = 0.1 })},
		// Two int keys: packed into one int64 (keypack.go), with keys of each side outside the other's range.
		{with(ints("intpair", 60, 6), func(s *shape) { s.multiKey, s.intKey2 = true, true; s.nullRate = 0.1 }),
			with(ints("intpair", 60, 9), func(s *shape) { s.multiKey, s.intKey2 = true, true; s.nullRate = 0.1 })},
		// Two int keys whose ranges are too wide to pack.
		{with(ints("intpair", 60, 6), func(s *shape) { s.multiKey, s.intKey2, s.scatter = true, true, true; s.nullRate = 0.1 }),
			with(ints("intpair", 60, 6), func(s *shape) { s.multiKey, s.intKey2, s.scatter = true, true, true; s.nullRate = 0.1 })},
		{with(ints("realkeys", 40, 8), func(s *shape) { s.realKeys = true }), ints("ties", 40, 8)},
		{with(ints("datetime", 40, 8), func(s *shape) { s.keyType = column.DateTime }), with(ints("datetime", 40, 8), func(s *shape) { s.keyType = column.DateTime })},
		// Sparse keys with nulls and payloads with none.
		{with(ints("fullv", 50, 12), func(s *shape) { s.scatter, s.fullV = true, true; s.nullRate = 0.1 }),
			with(ints("fullv", 60, 12), func(s *shape) { s.scatter, s.fullV = true, true; s.nullRate = 0.1 })},
	}
}

func keysOf(s column.Schema) []int {
	keys := []int{0}
	if s.Index("k2") >= 0 {
		keys = append(keys, 1)
	}
	return keys
}

// TestHashMatchesNestedLoop checks the hash join against the nested-loop oracle for every kind, every input
// shape, both build sides, every batch size, and with output batches cut small enough to split chains.
func TestHashMatchesNestedLoop(t *testing.T) {
	eachKindCase(t, cases(), 1000, func(t *testing.T, c pair, kind Kind, spec *Spec, lt, rt *column.Table) {
		want, wantSchema := rowsOf(t, NewNestedLoop(spec, &tableOp{t: lt, size: 1000}, &tableOp{t: rt, size: 1000}, memory.NewBudget(0)))
		checkOracle(t, kind, lt, rt, want)
		for _, size := range batchSizes {
			for _, buildLeft := range []bool{false, true} {
				for _, maxOut := range []int{outRows, 3} {
					h := NewHash(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, buildLeft, memory.NewBudget(0))
					h.maxOut = maxOut
					got, gotSchema := rowsOf(t, h)
					if !slices.Equal(got, want) || !slices.EqualFunc(gotSchema, wantSchema, func(a, b column.Field) bool { return a == b }) {
						t.Fatalf("batch=%d buildLeft=%v maxOut=%d: hash join gave %d rows, oracle %d\nhash:   %v\noracle: %v",
							size, buildLeft, maxOut, len(got), len(want), head(got), head(want))
					}
				}
			}
		}
	})
}

func head(rows []string) []string { return rows[:min(len(rows), 8)] }

// checkOracle checks the nested-loop join itself against counts derived independently from the inputs, so the
// oracle cannot be wrong in the same way as the join it judges.
func checkOracle(t *testing.T, kind Kind, lt, rt *column.Table, got []string) {
	t.Helper()
	key := func(tab *column.Table, i int) (string, bool) {
		var b strings.Builder
		for _, k := range keysOf(tab.Schema) {
			v := tab.Cols[k]
			if v.IsNull(i) {
				return "", false
			}
			x := v.Value(i)
			fmt.Fprint(&b, x.Float(), x.Str, "|")
		}
		return b.String(), true
	}
	rightCount := map[string]int{}
	for i := 0; i < rt.N; i++ {
		if k, ok := key(rt, i); ok {
			rightCount[k]++
		}
	}
	leftCount := map[string]int{}
	for i := 0; i < lt.N; i++ {
		if k, ok := key(lt, i); ok {
			leftCount[k]++
		}
	}
	want := 0
	seenLeft := map[string]bool{}
	for i := 0; i < lt.N; i++ {
		k, ok := key(lt, i)
		m := 0
		if ok {
			m = rightCount[k]
		}
		switch kind {
		case Inner:
			want += m
		case InnerUnique:
			if ok && !seenLeft[k] {
				want += m
			}
			seenLeft[k] = true
		case LeftOuter, FullOuter:
			want += max(m, 1)
		case LeftSemi:
			want += min(m, 1)
		case LeftAnti:
			if m == 0 {
				want++
			}
		case RightOuter:
			want += m
		}
	}
	for i := 0; i < rt.N; i++ {
		k, ok := key(rt, i)
		m := 0
		if ok {
			m = leftCount[k]
		}
		switch kind {
		case RightOuter, FullOuter:
			if m == 0 {
				want++
			}
		case RightSemi:
			want += min(m, 1)
		case RightAnti:
			if m == 0 {
				want++
			}
		}
	}
	if len(got) != want {
		t.Fatalf("oracle gave %d rows, counting the inputs says %d", len(got), want)
	}
}

func TestSpecRenamesRightColumns(t *testing.T) {
	l := column.Schema{{Name: "user", Type: column.String}, {Name: "user1", Type: column.Long}}
	r := column.Schema{{Name: "user", Type: column.String}, {Name: "x", Type: column.Long}}
	s, err := NewSpec(Inner, l, r, []int{0}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range s.Schema {
		names = append(names, f.Name)
	}
	if got, want := strings.Join(names, ","), "user,user1,user2,x"; got != want {
		t.Fatalf("output columns %s, want %s", got, want)
	}
	if s, _ := NewSpec(LeftSemi, l, r, []int{0}, []int{0}); len(s.Schema) != 2 {
		t.Fatalf("leftsemi outputs %d columns, want the left side's 2", len(s.Schema))
	}
	if s, _ := NewSpec(RightAnti, l, r, []int{0}, []int{0}); s.Schema[1].Name != "x" {
		t.Fatalf("rightanti should output the right side's columns unrenamed, got %v", s.Schema)
	}
	if _, err := NewSpec(Inner, l, r, []int{1}, []int{0}); err == nil {
		t.Fatal("a long key against a string key should be a type mismatch")
	}
}

func TestHashBudgetExceeded(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	s := shape{name: "big", rows: 5000, domain: 100, keyType: column.Long}
	lt, rt := genTable(r, s, "L"), genTable(r, s, "R")
	spec, _ := NewSpec(Inner, lt.Schema, rt.Schema, []int{0}, []int{0})
	h := NewHash(spec, &tableOp{t: lt, size: 100}, &tableOp{t: rt, size: 100}, false, memory.NewBudget(10_000))
	_, err := exec.Materialize(context.Background(), h)
	if err == nil || !strings.Contains(err.Error(), "memory budget") {
		t.Fatalf("want a memory budget error, got %v", err)
	}
}

// eachKindCase runs check as a subtest for every pair of cs and every join kind: the pair's tables come from
// seed seedBase+i, which the subtest's name carries so a failure can be replayed, and spec joins them on their
// key columns.
func eachKindCase(t *testing.T, cs []pair, seedBase uint64, check func(t *testing.T, c pair, kind Kind, spec *Spec, lt, rt *column.Table)) {
	for ci, c := range cs {
		seed := seedBase + uint64(ci)
		r := rand.New(rand.NewPCG(seed, seed))
		lt, rt := genTable(r, c.left, "L"), genTable(r, c.right, "R")
		for _, kind := range Kinds {
			t.Run(fmt.Sprintf("%s-%s/%s/seed=%d", c.left.name, c.right.name, kind, seed), func(t *testing.T) {
				spec, err := NewSpec(kind, lt.Schema, rt.Schema, keysOf(lt.Schema), keysOf(rt.Schema))
				if err != nil {
					t.Fatal(err)
				}
				check(t, c, kind, spec, lt, rt)
			})
		}
	}
}
