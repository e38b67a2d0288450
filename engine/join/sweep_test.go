package join

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// ivShape says how to generate one side of an interval join: keys as in shape, plus a start and an end.
type ivShape struct {
	name     string
	rows     int
	domain   int
	keyType  column.Type // of k
	multiKey bool
	nullRate float64     // of keys, and (halved) of starts and ends
	ivType   column.Type // of s and e: long or datetime
	grid     int64       // starts and lengths are multiples of grid, so endpoints touch often
	span     int64       // starts fall in [0, span)
	maxLen   int64       // lengths fall in [0, maxLen]
	zeroRate float64     // fraction of zero-length intervals
	nestRate float64     // fraction of long intervals (up to span) that contain many others
	inverted float64     // fraction whose end is before their start
	sorted   bool        // rows in start order (the sweep then skips its sort)
}

// genIntervals makes a side with columns k [k2] s e id v.
func genIntervals(r *rand.Rand, sh ivShape, side string) *column.Table {
	schema := column.Schema{{Name: "k", Type: sh.keyType}}
	if sh.multiKey {
		schema = append(schema, column.Field{Name: "k2", Type: column.String})
	}
	schema = append(schema, column.Field{Name: "s", Type: sh.ivType}, column.Field{Name: "e", Type: sh.ivType},
		column.Field{Name: "id", Type: column.String}, column.Field{Name: "v", Type: column.Long})
	type row struct {
		key      int
		k2       string
		s, e     int64
		nk, ns   bool
		ne, nk2  bool
		identity int
	}
	rows := make([]row, sh.rows)
	for i := range rows {
		g := max(sh.grid, 1)
		s := r.Int64N(max(sh.span/g, 1)) * g
		l := r.Int64N(sh.maxLen/g+1) * g
		switch f := r.Float64(); {
		case f < sh.zeroRate:
			l = 0
		case f < sh.zeroRate+sh.nestRate:
			l = sh.span
		case f < sh.zeroRate+sh.nestRate+sh.inverted:
			l = -g - r.Int64N(3)*g
		}
		rows[i] = row{key: r.IntN(max(sh.domain, 1)), k2: []string{"a", "b"}[r.IntN(2)], s: s, e: s + l,
			nk: r.Float64() < sh.nullRate, ns: r.Float64() < sh.nullRate/2, ne: r.Float64() < sh.nullRate/2,
			nk2: r.Float64() < sh.nullRate/2, identity: i}
	}
	if sh.sorted {
		slices.SortStableFunc(rows, func(a, b row) int { return int(a.s - b.s) })
	}
	t := column.NewTable(schema)
	for _, x := range rows {
		c := 0
		switch {
		case x.nk:
			t.Cols[c].AppendNull()
		case sh.keyType == column.String:
			t.Cols[c].AppendString(fmt.Sprintf("device-%03d", x.key))
		default:
			t.Cols[c].AppendInt(int64(x.key) * 7) // spaced, so int keys are not their own dense numbers
		}
		c++
		if sh.multiKey {
			if x.nk2 {
				t.Cols[c].AppendNull()
			} else {
				t.Cols[c].AppendString(x.k2)
			}
			c++
		}
		for _, b := range []struct {
			null bool
			v    int64
		}{{x.ns, x.s}, {x.ne, x.e}} {
			if b.null {
				t.Cols[c].AppendNull()
			} else {
				t.Cols[c].AppendInt(b.v)
			}
			c++
		}
		t.Cols[c].AppendString(fmt.Sprintf("%s%d", side, x.identity))
		t.Cols[c+1].AppendInt(int64(x.identity % 10))
	}
	t.N = len(rows)
	return t
}

// overlapOracle is the interval join by brute force, written apart from the sweep and from the nested-loop
// join: every left row against every right row on boxed values, the predicate as written, output built row by
// row with AppendValue.
func overlapOracle(spec *SweepSpec, lt, rt *column.Table) *column.Table {
	o := spec.Overlap
	val := func(t *column.Table, c, i int) column.Value { return t.Cols[c].Value(i) }
	match := func(l, r int) bool {
		for k := range spec.LeftKeys {
			a, b := val(lt, spec.LeftKeys[k], l), val(rt, spec.RightKeys[k], r)
			if a.Null || b.Null || !a.Equal(b) {
				return false
			}
		}
		ls, le := val(lt, o.LeftStart, l), val(lt, o.LeftEnd, l)
		rs, re := val(rt, o.RightStart, r), val(rt, o.RightEnd, r)
		if ls.Null || le.Null || rs.Null || re.Null {
			return false
		}
		c1 := ls.Int < re.Int || (o.InclusiveLeftStart && ls.Int == re.Int)
		c2 := rs.Int < le.Int || (o.InclusiveRightStart && rs.Int == le.Int)
		return c1 && c2
	}
	out := column.NewTable(spec.Schema)
	emit := func(l, r int, ostart, oend column.Value) {
		for c, p := range spec.LeftOut {
			if p >= 0 {
				if l < 0 {
					out.Cols[p].AppendNull()
				} else {
					out.Cols[p].AppendValue(val(lt, c, l))
				}
			}
		}
		for c, p := range spec.RightOut {
			if p >= 0 {
				if r < 0 {
					out.Cols[p].AppendNull()
				} else {
					out.Cols[p].AppendValue(val(rt, c, r))
				}
			}
		}
		if spec.StartOut >= 0 {
			out.Cols[spec.StartOut].AppendValue(ostart)
			out.Cols[spec.EndOut].AppendValue(oend)
		}
		out.N++
	}
	null := column.Value{Null: true}
	rightHit := make([]bool, rt.N)
	for l := 0; l < lt.N; l++ {
		hits := 0
		for r := 0; r < rt.N; r++ {
			if !match(l, r) {
				continue
			}
			hits++
			rightHit[r] = true
			switch spec.Kind {
			case Inner, LeftOuter, RightOuter, FullOuter:
				s := max(val(lt, o.LeftStart, l).Int, val(rt, o.RightStart, r).Int)
				e := min(val(lt, o.LeftEnd, l).Int, val(rt, o.RightEnd, r).Int)
				emit(l, r, column.Value{Type: spec.IntervalType, Int: s}, column.Value{Type: spec.IntervalType, Int: e})
			}
		}
		switch {
		case hits == 0 && (spec.Kind == LeftOuter || spec.Kind == FullOuter || spec.Kind == LeftAnti):
			emit(l, -1, null, null)
		case hits > 0 && spec.Kind == LeftSemi:
			emit(l, -1, null, null)
		}
	}
	for r := 0; r < rt.N; r++ {
		switch {
		case !rightHit[r] && (spec.Kind == RightOuter || spec.Kind == FullOuter || spec.Kind == RightAnti):
			emit(-1, r, null, null)
		case rightHit[r] && spec.Kind == RightSemi:
			emit(-1, r, null, null)
		}
	}
	return out
}

type ivPair struct{ left, right ivShape }

func ivCases() []ivPair {
	base := ivShape{name: "plain", rows: 60, domain: 6, keyType: column.Long, ivType: column.DateTime,
		grid: 1, span: 1000, maxLen: 120}
	with := func(s ivShape, name string, f func(*ivShape)) ivShape { s.name = name; f(&s); return s }
	touching := with(base, "touching", func(s *ivShape) { s.grid = 50; s.maxLen = 150 })
	zero := with(base, "zero", func(s *ivShape) { s.grid = 10; s.zeroRate = 0.4 })
	nested := with(base, "nested", func(s *ivShape) { s.nestRate = 0.15; s.maxLen = 30 })
	many := with(base, "many", func(s *ivShape) { s.rows = 70; s.domain = 2; s.maxLen = 600; s.span = 800 })
	weird := with(base, "nulls-inverted", func(s *ivShape) { s.nullRate = 0.15; s.inverted = 0.15; s.grid = 10 })
	sorted := with(touching, "sorted", func(s *ivShape) { s.sorted = true })
	strs := with(touching, "strings", func(s *ivShape) { s.keyType = column.String; s.nullRate = 0.05 })
	multi := with(zero, "multikey", func(s *ivShape) { s.multiKey = true; s.nullRate = 0.05 })
	longs := with(touching, "long-bounds", func(s *ivShape) { s.ivType = column.Long })
	sparse := with(base, "sparse-keys", func(s *ivShape) { s.domain = 5000; s.rows = 80 }) // keys through the map
	empty := with(base, "empty", func(s *ivShape) { s.rows = 0 })
	return []ivPair{
		{base, base}, {touching, touching}, {zero, touching}, {nested, zero}, {many, many}, {weird, weird},
		{sorted, sorted}, {sorted, nested}, {strs, strs}, {multi, multi}, {longs, longs}, {sparse, sparse},
		{empty, touching}, {touching, empty}, {empty, empty},
	}
}

// sweepKinds are the kinds the sweep serves: all but innerunique.
var sweepKinds = []Kind{Inner, LeftOuter, RightOuter, FullOuter, LeftSemi, LeftAnti, RightSemi, RightAnti}

func ivSpec(t *testing.T, kind Kind, lt, rt *column.Table, inclL, inclR bool) *SweepSpec {
	t.Helper()
	keys := []int{0}
	if lt.Schema.Index("k2") >= 0 {
		keys = append(keys, 1)
	}
	spec, err := NewSpec(kind, lt.Schema, rt.Schema, keys, keys)
	if err != nil {
		t.Fatal(err)
	}
	o := Overlap{LeftStart: lt.Schema.Index("s"), LeftEnd: lt.Schema.Index("e"), RightStart: rt.Schema.Index("s"),
		RightEnd: rt.Schema.Index("e"), InclusiveLeftStart: inclL, InclusiveRightStart: inclR}
	ss, err := NewSweepSpec(spec, o)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestSweepMatchesOracle checks the sweep against the brute-force overlap oracle for every kind it serves,
// every input shape, all four combinations of inclusive and exclusive bounds, every batch size, with output
// batches cut small and a trace event after every row.
func TestSweepMatchesOracle(t *testing.T) {
	for ci, c := range ivCases() {
		seed := uint64(2000 + ci)
		r := rand.New(rand.NewPCG(seed, seed))
		lt, rt := genIntervals(r, c.left, "L"), genIntervals(r, c.right, "R")
		for _, kind := range sweepKinds {
			bounds := [][2]bool{{false, false}, {true, true}}
			if kind == Inner || kind == FullOuter { // the mixed bounds, for the kinds that see every pair
				bounds = append(bounds, [2]bool{true, false}, [2]bool{false, true})
			}
			for _, bounds := range bounds {
				name := fmt.Sprintf("%s-%s/%s/incl=%v/seed=%d", c.left.name, c.right.name, kind, bounds, seed)
				t.Run(name, func(t *testing.T) {
					spec := ivSpec(t, kind, lt, rt, bounds[0], bounds[1])
					want, _ := rowsOf(t, &tableOp{t: overlapOracle(spec, lt, rt), size: 1 << 20})
					for _, size := range batchSizes {
						for _, maxOut := range []int{outRows, 3} {
							s := NewSweep(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, memory.NewBudget(0), nil, nil)
							s.maxOut = maxOut
							if maxOut == 3 {
								s.traceStride = 1
							}
							got, gotSchema := rowsOf(t, s)
							if !slices.Equal(got, want) {
								t.Fatalf("batch=%d maxOut=%d: sweep gave %d rows, oracle %d\nsweep:  %v\noracle: %v",
									size, maxOut, len(got), len(want), head(got), head(want))
							}
							if !slices.Equal(gotSchema, spec.Schema) {
								t.Fatalf("schema %v, want %v", gotSchema, spec.Schema)
							}
						}
					}
				})
			}
		}
	}
}

// TestSweepOracleSeesOverlaps guards the oracle and the generators: the cases must hold touching endpoints,
// zero-length and nested intervals and keys with many overlaps, or the equality above proves little.
func TestSweepOracleSeesOverlaps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	c := ivCases()[1] // touching ⋈ touching
	lt, rt := genIntervals(r, c.left, "L"), genIntervals(r, c.right, "R")
	excl := overlapOracle(ivSpec(t, Inner, lt, rt, false, false), lt, rt).N
	incl := overlapOracle(ivSpec(t, Inner, lt, rt, true, true), lt, rt).N
	if excl == 0 || incl <= excl {
		t.Fatalf("touching intervals: %d exclusive overlaps, %d inclusive; want some, and more when inclusive", excl, incl)
	}
	many := ivCases()[4]
	lt, rt = genIntervals(r, many.left, "L"), genIntervals(r, many.right, "R")
	if n := overlapOracle(ivSpec(t, Inner, lt, rt, false, false), lt, rt).N; n < 10*lt.N {
		t.Fatalf("many overlaps: %d pairs from %d rows, want at least 10 a row", n, lt.N)
	}
}

// TestSweepHandWorked pins a small case worked by hand, including the source document's example: a metric
// window [1000, 2000] against states INITIALIZING [500, 2500] and WAITING [2500, 3500] of one device.
func TestSweepHandWorked(t *testing.T) {
	mk := func(rows [][3]int64) *column.Table {
		t := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "s", Type: column.Long}, {Name: "e", Type: column.Long}})
		for _, r := range rows {
			for c, v := range r {
				t.Cols[c].AppendInt(v)
			}
		}
		t.N = len(rows)
		return t
	}
	lt := mk([][3]int64{{1, 1000, 2000}, {1, 2500, 2500}, {2, 0, 10}})
	rt := mk([][3]int64{{1, 2500, 3500}, {1, 500, 2500}, {2, 10, 20}})
	run := func(incl bool) []string {
		spec, _ := NewSpec(Inner, lt.Schema, rt.Schema, []int{0}, []int{0})
		ss, err := NewSweepSpec(spec, Overlap{1, 2, 1, 2, incl, incl})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := rowsOf(t, NewSweep(ss, &tableOp{t: lt, size: 2}, &tableOp{t: rt, size: 2}, memory.NewBudget(0), nil, nil))
		return got
	}
	// Rows print as k|s|e|k1|s1|e1|overlap_start|overlap_end, each value as "int real str".
	row := func(v ...int64) string {
		var parts []string
		for _, x := range v {
			parts = append(parts, fmt.Sprint(x, 0, ""))
		}
		return strings.Join(parts, "|")
	}
	wantExcl := []string{row(1, 1000, 2000, 1, 500, 2500, 1000, 2000)}
	slices.Sort(wantExcl)
	if got := run(false); !slices.Equal(got, wantExcl) {
		t.Errorf("exclusive: got %v, want %v", got, wantExcl)
	}
	wantIncl := []string{
		row(1, 1000, 2000, 1, 500, 2500, 1000, 2000),
		row(1, 2500, 2500, 1, 500, 2500, 2500, 2500), // zero-length, touching INITIALIZING's end
		row(1, 2500, 2500, 1, 2500, 3500, 2500, 2500),
		row(2, 0, 10, 2, 10, 20, 10, 10),
	}
	slices.Sort(wantIncl)
	if got := run(true); !slices.Equal(got, wantIncl) {
		t.Errorf("inclusive: got %v, want %v", got, wantIncl)
	}
}

func TestSweepRefusesInnerUnique(t *testing.T) {
	lt := genIntervals(rand.New(rand.NewPCG(3, 3)), ivCases()[0].left, "L")
	spec, _ := NewSpec(InnerUnique, lt.Schema, lt.Schema, []int{0}, []int{0})
	if _, err := NewSweepSpec(spec, Overlap{1, 2, 1, 2, false, false}); err == nil || !strings.Contains(err.Error(), "kind=inner") {
		t.Fatalf("innerunique: got %v, want an error naming kind=inner", err)
	}
	spec, _ = NewSpec(Inner, lt.Schema, lt.Schema, []int{0}, []int{0})
	if _, err := NewSweepSpec(spec, Overlap{1, 3, 1, 2, false, false}); err == nil || !strings.Contains(err.Error(), "bounds") {
		t.Fatalf("string bound: got %v, want a type error", err)
	}
}

// TestSweepTraceAndDetails checks the figures against what the oracle implies: overlaps is the pair count,
// expired never exceeds the rows, the active set was at least 1, and trace events carry the documented attrs.
func TestSweepTraceAndDetails(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	c := ivCases()[4]
	lt, rt := genIntervals(r, c.left, "L"), genIntervals(r, c.right, "R")
	spec := ivSpec(t, Inner, lt, rt, false, false)
	want := overlapOracle(spec, lt, rt).N
	rec := &trace.Recorder{}
	det := &trace.Details{}
	s := NewSweep(spec, &tableOp{t: lt, size: 50}, &tableOp{t: rt, size: 50}, memory.NewBudget(0), rec, det)
	s.traceStride = 10
	if _, err := exec.Materialize(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	m := det.Map()
	if m["overlaps"] != int64(want) {
		t.Errorf("overlaps %v, want %d", m["overlaps"], want)
	}
	if e := m["expired"].(int64); e <= 0 || e > int64(lt.N+rt.N) {
		t.Errorf("expired %d, want in (0, %d]", e, lt.N+rt.N)
	}
	if a := m["active_set_max"].(int64); a < 2 || a > int64(lt.N+rt.N) {
		t.Errorf("active_set_max %d", a)
	}
	events := rec.Events()
	if len(events) < (lt.N+rt.N)/10/2 {
		t.Fatalf("%d trace events for %d rows at stride 10", len(events), lt.N+rt.N)
	}
	last := events[len(events)-1]
	sw, ok := last.Payload.(joinevent.SweepAdvanced)
	if !ok {
		t.Fatalf("last event %+v is not the sweep's", last)
	}
	if sw.Overlaps != int64(want) {
		t.Errorf("last event overlaps %v, want %d", sw.Overlaps, want)
	}
}

func TestSweepBudgetExceeded(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	sh := ivCases()[0].left
	sh.rows = 3000
	lt, rt := genIntervals(r, sh, "L"), genIntervals(r, sh, "R")
	s := NewSweep(ivSpec(t, Inner, lt, rt, false, false), &tableOp{t: lt, size: 100}, &tableOp{t: rt, size: 100}, memory.NewBudget(10_000), nil, nil)
	if _, err := exec.Materialize(context.Background(), s); err == nil || !strings.Contains(err.Error(), "memory budget") {
		t.Fatalf("want a memory budget error, got %v", err)
	}
}

// TestEndHeap checks the active set against a sorted list: after random pushes and expiries, the heap holds
// exactly the rows not expired, and dropping while the top has ended removes only rows that end too early.
func TestEndHeap(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	var h endHeap
	var ref []int64
	for step := range 5000 {
		if r.IntN(3) > 0 {
			e := r.Int64N(100)
			h = h.push(e, int32(step))
			ref = append(ref, e)
			continue
		}
		at, incl := r.Int64N(100), r.IntN(2) == 0
		var n int64
		for len(h) > 0 && ended(h[0].end, at, incl) {
			h = h.drop()
			n++
		}
		kept := ref[:0]
		var gone int64
		for _, e := range ref {
			if e < at || (e == at && !incl) {
				gone++
			} else {
				kept = append(kept, e)
			}
		}
		ref = kept
		if n != gone || len(h) != len(ref) {
			t.Fatalf("step %d: expire(%d, %v) popped %d (heap %d), want %d (left %d)", step, at, incl, n, len(h), gone, len(ref))
		}
	}
	var got []int64
	for _, it := range h {
		got = append(got, it.end)
	}
	slices.Sort(got)
	slices.Sort(ref)
	if !slices.Equal(got, ref) {
		t.Fatalf("heap holds %v, want %v", head64(got), head64(ref))
	}
}

func head64(v []int64) []int64 { return v[:min(len(v), 8)] }

// TestSweepKeyShapes checks the sweep against the oracle on key shapes that take the ordering's other paths:
// one key holding every row (sorted by pdqsort, not by insertion, with many equal starts and zero-length
// intervals touching them), keys just either side of insertionMax, and many keys of a row or two each.
func TestSweepKeyShapes(t *testing.T) {
	base := ivShape{keyType: column.Long, ivType: column.Long, grid: 10, span: 2000, maxLen: 200, zeroRate: 0.2}
	with := func(name string, rows, domain int, f func(*ivShape)) ivShape {
		s := base
		s.name, s.rows, s.domain = name, rows, domain
		if f != nil {
			f(&s)
		}
		return s
	}
	cases := []ivPair{
		{with("one-key", 300, 1, nil), with("one-key", 250, 1, nil)},
		{with("one-key-sorted", 300, 1, func(s *ivShape) { s.sorted = true }), with("one-key", 250, 1, nil)},
		{with("at-insertion-max", insertionMax*4, 4, nil), with("past-insertion-max", (insertionMax+1)*4, 4, nil)},
		{with("many-keys", 500, 400, nil), with("many-keys", 500, 400, func(s *ivShape) { s.nullRate = 0.1 })},
		{with("dups", 200, 3, func(s *ivShape) { s.span, s.maxLen = 60, 20 }), with("dups", 200, 3, func(s *ivShape) { s.span, s.maxLen = 60, 20 })},
	}
	for ci, c := range cases {
		seed := uint64(7000 + ci)
		r := rand.New(rand.NewPCG(seed, seed))
		lt, rt := genIntervals(r, c.left, "L"), genIntervals(r, c.right, "R")
		for _, kind := range []Kind{Inner, FullOuter, LeftSemi, RightAnti} {
			for _, incl := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s-%s/%s/incl=%v/seed=%d", c.left.name, c.right.name, kind, incl, seed), func(t *testing.T) {
					spec := ivSpec(t, kind, lt, rt, incl, incl)
					want, _ := rowsOf(t, &tableOp{t: overlapOracle(spec, lt, rt), size: 1 << 20})
					for _, size := range []int{1, 7, 100, 1 << 20} {
						got, _ := rowsOf(t, NewSweep(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, memory.NewBudget(0), nil, nil))
						if !slices.Equal(got, want) {
							t.Fatalf("batch=%d: sweep gave %d rows, oracle %d\nsweep:  %v\noracle: %v", size, len(got), len(want), head(got), head(want))
						}
					}
				})
			}
		}
	}
}

// shuffledOp returns a table's batches in reverse order, so no batch starts where the one before it ended
// and the sweep must copy its input rather than share the table's arrays.
type shuffledOp struct {
	t       *column.Table
	size    int
	batches []*column.Batch
	started bool
}

func (o *shuffledOp) Schema() column.Schema { return o.t.Schema }
func (o *shuffledOp) Next(context.Context) (*column.Batch, error) {
	if !o.started {
		o.started = true
		for lo := 0; lo < o.t.N; lo += o.size {
			o.batches = append(o.batches, o.t.Batch().Slice(lo, min(lo+o.size, o.t.N)))
		}
		slices.Reverse(o.batches)
	}
	if len(o.batches) == 0 {
		return nil, nil
	}
	b := o.batches[0]
	o.batches = o.batches[1:]
	return b, nil
}

// TestSweepInputNotAdjacent checks the join over batches that arrive out of order (copied, not shared) against
// the oracle over the same rows in that order.
func TestSweepInputNotAdjacent(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 31))
	c := ivCases()[1] // touching ⋈ touching
	lt, rt := genIntervals(r, c.left, "L"), genIntervals(r, c.right, "R")
	spec := ivSpec(t, FullOuter, lt, rt, false, true)
	want, _ := rowsOf(t, &tableOp{t: overlapOracle(spec, lt, rt), size: 1 << 20})
	for _, size := range []int{1, 7, 50} {
		got, _ := rowsOf(t, NewSweep(spec, &shuffledOp{t: lt, size: size}, &shuffledOp{t: rt, size: size}, memory.NewBudget(0), nil, nil))
		if !slices.Equal(got, want) {
			t.Fatalf("batch=%d: sweep gave %d rows, oracle %d\nsweep:  %v\noracle: %v", size, len(got), len(want), head(got), head(want))
		}
	}
}

// TestJoinColumn checks that batches over one array in order are shared, and that anything else — batches
// out of order, a gap between them, nulls, strings — is copied, each giving the rows in batch order.
func TestJoinColumn(t *testing.T) {
	tab := column.NewTable(column.Schema{{Name: "x", Type: column.Long}, {Name: "s", Type: column.String}})
	for i := range 10 {
		tab.Cols[0].AppendInt(int64(i))
		tab.Cols[1].AppendString(strconv.Itoa(i))
	}
	tab.N = 10
	whole := tab.Batch()
	cut := func(bounds ...int) []*column.Batch {
		var out []*column.Batch
		for i := 0; i+1 < len(bounds); i += 2 {
			out = append(out, whole.Slice(bounds[i], bounds[i+1]))
		}
		return out
	}
	withNull := cut(0, 5, 5, 10)
	withNull[1] = &column.Batch{Cols: []*column.Vector{withNull[1].Cols[0].Gather([]int32{0, -1, 2, 3, 4}), nil}, N: 5}
	for _, c := range []struct {
		name    string
		batches []*column.Batch
		shared  bool
		want    []int64
	}{
		{"in order", cut(0, 3, 3, 3, 3, 10), true, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"reversed", cut(5, 10, 0, 5), false, []int64{5, 6, 7, 8, 9, 0, 1, 2, 3, 4}},
		{"gap", cut(0, 3, 4, 10), false, []int64{0, 1, 2, 4, 5, 6, 7, 8, 9}},
		{"null", withNull, false, []int64{0, 1, 2, 3, 4, 5, 0, 7, 8, 9}},
	} {
		rows := 0
		for _, b := range c.batches {
			rows += b.N
		}
		v := joinColumn(c.batches, 0, column.Long, rows)
		if !slices.Equal(v.Ints[:rows], c.want) {
			t.Errorf("%s: got %v, want %v", c.name, v.Ints[:rows], c.want)
		}
		if shared := &v.Ints[0] == &tab.Cols[0].Ints[0]; shared != c.shared {
			t.Errorf("%s: shared %v, want %v", c.name, shared, c.shared)
		}
		if c.name == "null" && (!v.IsNull(6) || v.IsNull(5)) {
			t.Errorf("null: row 6 should be the only null")
		}
	}
	if v := joinColumn(cut(0, 4, 4, 10), 1, column.String, 10); v.Strs[9] != "9" || len(v.Strs) != 10 {
		t.Errorf("strings: got %v", v.Strs)
	}
	if v := joinColumn(withNull, 1, column.String, 10); v != nil {
		t.Errorf("a column dead in one batch should be dead, got %v", v)
	}
}

// TestSweepOwnKeyColumns checks that a pair's key columns, filled from the key number rather than gathered,
// are separate vectors on the two sides.
func TestSweepOwnKeyColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 41))
	c := ivCases()[4] // many overlaps
	lt, rt := genIntervals(r, c.left, "L"), genIntervals(r, c.right, "R")
	spec := ivSpec(t, Inner, lt, rt, false, false)
	b, err := NewSweep(spec, &tableOp{t: lt, size: 50}, &tableOp{t: rt, size: 50}, memory.NewBudget(0), nil, nil).Next(context.Background())
	if err != nil || b == nil || b.N == 0 {
		t.Fatalf("want a batch of pairs, got %v, %v", b, err)
	}
	lk, rk := b.Cols[spec.LeftOut[0]], b.Cols[spec.RightOut[0]]
	if &lk.Ints[0] == &rk.Ints[0] {
		t.Fatal("the two sides' key columns share one array")
	}
	if !slices.Equal(lk.Ints[:b.N], rk.Ints[:b.N]) {
		t.Fatal("the two sides' keys differ in an inner join")
	}
}
