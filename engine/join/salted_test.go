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
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/skew"
	"github.com/joinlab/joinlab/engine/trace"
)

// saltCases are the harness's shapes plus the three the salted join must get right: heavy keys on one side
// (each side), on both, and on neither.
func saltCases() []pair {
	ints := func(name string, rows, domain int, skew float64) shape {
		return shape{name: name, rows: rows, domain: domain, skew: skew, keyType: column.Long}
	}
	out := []pair{
		{ints("heavyleft", 200, 40, 0.5), ints("ties", 120, 40, 0)},
		{ints("ties", 120, 40, 0), ints("heavyright", 200, 40, 0.5)},
		{ints("heavyboth", 150, 30, 0.4), ints("heavyboth", 150, 30, 0.4)},
		{ints("neither", 150, 2000, 0), ints("neither", 150, 2000, 0)},
		{func() shape { s := ints("heavynulls", 160, 30, 0.5); s.nullRate = 0.2; return s }(), ints("ties", 80, 60, 0)},
	}
	return append(out, cases()...)
}

// runSalted measures lt and rt, plans with o, and returns the join's operator and its env.
func runSalted(t testing.TB, spec *Spec, lt, rt *column.Table, size int, o SaltOptions) (*Salted, *exec.Env, *SaltPlan) {
	t.Helper()
	m, err := MeasureSkew(context.Background(), spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size})
	if err != nil {
		t.Fatal(err)
	}
	p := PlanSalt(spec, m, o)
	env := exec.NewEnv(memory.NewBudget(0), &trace.Recorder{})
	return NewSalted(spec, p, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, env), env, p
}

// TestSaltedMatchesNestedLoop checks the salted join against the nested-loop oracle for every kind, every
// shape, two widths (the rule's and an odd one), every batch size, and output batches small enough to cut
// chains.
func TestSaltedMatchesNestedLoop(t *testing.T) {
	eachKindCase(t, saltCases(), 5000, func(t *testing.T, c pair, kind Kind, spec *Spec, lt, rt *column.Table) {
		want, _ := rowsOf(t, NewNestedLoop(spec, &tableOp{t: lt, size: 1000}, &tableOp{t: rt, size: 1000}, memory.NewBudget(0)))
		checkOracle(t, kind, lt, rt, want)
		salted := 0
		// Two configurations per batch size: the rule's W with whole output batches, and an odd W with
		// output batches of 3 rows.
		configs := []struct{ w, maxOut int }{{0, outRows}, {7, 3}}
		for _, size := range batchSizes {
			for _, cfg := range configs {
				{
					w, maxOut := cfg.w, cfg.maxOut
					s, env, p := runSalted(t, spec, lt, rt, size, SaltOptions{Workers: w})
					s.maxOut = maxOut
					got, _ := rowsOf(t, s)
					if !slices.Equal(got, want) {
						t.Fatalf("batch=%d W=%d maxOut=%d spreadLeft=%v heavy=%v: salted join gave %d rows, oracle %d\nsalted: %v\noracle: %v",
							size, p.Workers, maxOut, p.SpreadLeft, p.Heavy, len(got), len(want), head(got), head(want))
					}
					if used := env.Budget.Peak(); used == 0 && lt.N+rt.N > 0 {
						t.Fatalf("the salted join held rows without accounting them")
					}
					salted += p.SaltedKeys()
				}
			}
		}
		heavySpread := strings.HasPrefix(c.left.name, "heavy") && saltSpreadsLeft(kind) ||
			strings.HasPrefix(c.right.name, "heavy") && !saltSpreadsLeft(kind) || c.left.name == "heavyboth"
		if heavySpread && salted == 0 {
			t.Fatalf("a heavy key on the spread side was never salted")
		}
		if c.left.name == "neither" && salted > 0 {
			t.Fatalf("uniform keys were salted")
		}
	})
}

// saltSpreadsLeft says which side the correct plan spreads for kind on the test shapes (inner and fullouter spread
// the heavier side, which the heavyleft shape makes the left one).
func saltSpreadsLeft(k Kind) bool {
	switch k {
	case RightOuter, RightSemi, RightAnti, InnerUnique:
		return false
	}
	return true
}

// TestSaltedNaiveDuplicatesNullExtendedRows builds a right outer join where the teaching variant's fault is
// exact: key 1 has 2 left rows and 1 right row, key 2 has 10 right rows and no left row, both heavy, W = 4.
// The correct plan spreads the right side and gives the oracle's answer; the naive one spreads the left side,
// copies every heavy right row to the 4 workers, and every copy that finds no left row of its key comes out
// null-extended: the matched right row twice more (4 workers - the 2 holding a left row of key 1), each
// unmatched right row 3 more times.
func TestSaltedNaiveDuplicatesNullExtendedRows(t *testing.T) {
	schema := column.Schema{{Name: "k", Type: column.Long}, {Name: "id", Type: column.String}}
	mk := func(side string, keys ...int64) *column.Table {
		tab := column.NewTable(schema)
		for i, k := range keys {
			tab.Cols[0].AppendInt(k)
			tab.Cols[1].AppendString(fmt.Sprintf("%s%d", side, i))
		}
		tab.N = len(keys)
		return tab
	}
	// Left: key 1 twice, then 6 distinct light keys. Right: key 1 once, key 2 ten times, key 3 once.
	lt := mk("L", 1, 1, 10, 11, 12, 13, 14, 15)
	rt := mk("R", 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3)
	spec, err := NewSpec(RightOuter, lt.Schema, rt.Schema, []int{0}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := rowsOf(t, NewNestedLoop(spec, &tableOp{t: lt, size: 100}, &tableOp{t: rt, size: 100}, memory.NewBudget(0)))

	good, _, gp := runSalted(t, spec, lt, rt, 3, SaltOptions{Workers: 4})
	if got, _ := rowsOf(t, good); !slices.Equal(got, want) {
		t.Fatalf("the correct plan (spread %s) differs from the oracle:\n got %v\nwant %v", saltSide(gp.SpreadLeft), got, want)
	}

	naive, env, np := runSalted(t, spec, lt, rt, 3, SaltOptions{Workers: 4, Naive: true})
	if !np.SpreadLeft || np.SaltedKeys() != 2 {
		t.Fatalf("naive plan: spreadLeft=%v, %d salted keys (%v); want the left side spread, keys 1 and 2 salted",
			np.SpreadLeft, np.SaltedKeys(), np.Heavy)
	}
	got, _ := rowsOf(t, naive)
	count := func(rows []string) map[string]int {
		m := map[string]int{}
		for _, r := range rows {
			m[r]++
		}
		return m
	}
	// Rows are rendered as "k|id|k1|id1" (see rowsOf): a null-extended right row starts with ∅|∅.
	wantDup := map[string]int{
		"∅|∅|1 0|0 0R0": 2, // key 1's right row: matched on 2 workers, null-extended on the other 2
	}
	for i := 1; i <= 10; i++ {
		wantDup[fmt.Sprintf("∅|∅|2 0|0 0R%d", i)] = 3 // key 2's rows: null-extended on all 4 workers
	}
	gotCount, wantCount := count(got), count(want)
	extra := map[string]int{}
	for r, n := range gotCount {
		if d := n - wantCount[r]; d != 0 {
			extra[r] = d
		}
	}
	for r := range wantCount {
		if gotCount[r] < wantCount[r] {
			t.Fatalf("the naive plan lost row %q", r)
		}
	}
	if fmt.Sprint(extra) != fmt.Sprint(wantDup) {
		t.Fatalf("naive plan's extra rows = %v, want %v\nnaive: %v\noracle: %v", extra, wantDup, got, want)
	}
	if d := env.Details.Map(); d["naive"] != true {
		t.Fatalf("details do not label the naive run: %v", d)
	}
}

// TestSaltedNaiveDuplicatesUnmatchedHeavyRows is the other fault: right rows of a key heavy on the left whose
// left rows, spread round-robin, miss some workers. Key 5 has 3 left rows and 2 right rows at W = 4: each right
// row is matched on 3 workers (3 correct pairs) and null-extended on the 4th (1 wrong row each).
func TestSaltedNaiveDuplicatesUnmatchedHeavyRows(t *testing.T) {
	schema := column.Schema{{Name: "k", Type: column.Long}, {Name: "id", Type: column.String}}
	lt, rt := column.NewTable(schema), column.NewTable(schema)
	for i, k := range []int64{5, 5, 5, 1} {
		lt.Cols[0].AppendInt(k)
		lt.Cols[1].AppendString(fmt.Sprint("L", i))
	}
	lt.N = 4
	for i, k := range []int64{5, 5, 9} {
		rt.Cols[0].AppendInt(k)
		rt.Cols[1].AppendString(fmt.Sprint("R", i))
	}
	rt.N = 3
	spec, _ := NewSpec(RightOuter, schema, schema, []int{0}, []int{0})
	want, _ := rowsOf(t, NewNestedLoop(spec, &tableOp{t: lt, size: 10}, &tableOp{t: rt, size: 10}, memory.NewBudget(0)))
	naive, _, _ := runSalted(t, spec, lt, rt, 10, SaltOptions{Workers: 4, Naive: true})
	got, _ := rowsOf(t, naive)
	var nullExtended []string
	for _, r := range got {
		if strings.HasPrefix(r, "∅|∅|5 ") {
			nullExtended = append(nullExtended, r)
		}
	}
	if want := []string{"∅|∅|5 0|0 0R0", "∅|∅|5 0|0 0R1"}; !slices.Equal(nullExtended, want) {
		t.Fatalf("naive null-extended rows of key 5 = %v, want %v", nullExtended, want)
	}
	if len(got) != len(want)+2 {
		t.Fatalf("naive gave %d rows, the oracle %d: want exactly the 2 wrong rows more", len(got), len(want))
	}
}

// TestSaltedBalancesASkewedShuffle checks the loads the join measures on a listens-like input: one key holds
// 40% of 40,000 left rows; the right side has one row per key.
func TestSaltedBalancesASkewedShuffle(t *testing.T) {
	lt, rt := saltSkewedListens(40_000, 2_000, 0.4)
	for _, kind := range []Kind{Inner, LeftOuter, FullOuter} {
		spec, _ := NewSpec(kind, lt.Schema, rt.Schema, []int{0}, []int{0})
		s, env, p := runSalted(t, spec, lt, rt, 1024, SaltOptions{})
		rows, _ := exec.Materialize(context.Background(), s)
		d := env.Details.Map()
		before, after := d["load_max_over_median_before"].(float64), d["load_max_over_median_after"].(float64)
		t.Logf("%s: W=%d, %d salted keys, load max/median %.2f → %.2f, bytes %d → %d, %d rows out",
			kind, p.Workers, p.SaltedKeys(), before, after, d["bytes_moved_before"], d["bytes_moved_after"], rows.N)
		if p.Workers != 16 || !p.SpreadLeft {
			t.Fatalf("W=%d spreadLeft=%v, want the rule's 16 workers over 42,000 rows and the left side spread", p.Workers, p.SpreadLeft)
		}
		if before < 10 || after > 1.5 {
			t.Fatalf("load max/median %.2f → %.2f, want ≥ 10 before and ≤ 1.5 after", before, after)
		}
		if got, want := d["rows_replicated"].(int64), int64(p.Workers-1); got != want {
			t.Fatalf("rows_replicated = %d, want %d (one right row, W-1 extra copies)", got, want)
		}
	}
}

// saltSkewedListens makes a listens table (song, id) with hot of its rows on song 0, and a songs table with one row
// per song.
func saltSkewedListens(listens, songs int, hot float64) (*column.Table, *column.Table) {
	lt := column.NewTable(column.Schema{{Name: "song", Type: column.Long}, {Name: "id", Type: column.Long}})
	rt := column.NewTable(column.Schema{{Name: "song", Type: column.Long}, {Name: "title", Type: column.String}})
	for i := 0; i < listens; i++ {
		song := int64(mix(uint64(i)) % uint64(songs))
		if float64(mix(uint64(i)^0xabcdef)%1000) < hot*1000 {
			song = 0
		}
		lt.Cols[0].AppendInt(song)
		lt.Cols[1].AppendInt(int64(i))
	}
	lt.N = listens
	for i := 0; i < songs; i++ {
		rt.Cols[0].AppendInt(int64(i))
		rt.Cols[1].AppendString(fmt.Sprintf("song %d", i))
	}
	rt.N = songs
	return lt, rt
}

// TestSaltedReportsBothSidesHeavy checks that a key heavy on both sides is salted, reported, and that its
// pairs are spread but not reduced.
func TestSaltedReportsBothSidesHeavy(t *testing.T) {
	r := rand.New(rand.NewPCG(77, 77))
	s := shape{name: "both", rows: 400, domain: 50, skew: 0.4, keyType: column.Long}
	lt, rt := genTable(r, s, "L"), genTable(r, s, "R")
	spec, _ := NewSpec(Inner, lt.Schema, rt.Schema, []int{0}, []int{0})
	j, env, p := runSalted(t, spec, lt, rt, 50, SaltOptions{Workers: 8})
	if _, err := exec.Materialize(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	d := env.Details.Map()
	both, _ := d["both_sides_heavy"].([]string)
	if !slices.Contains(both, "0") {
		t.Fatalf("both_sides_heavy = %v, want key 0 (plan: %v)", both, p.Heavy)
	}
	var pairsBefore, pairsAfter, maxAfter int64
	for _, e := range env.Trace.(*trace.Recorder).Events() {
		if w, ok := e.Payload.(joinevent.WorkerLoad); ok {
			pairsBefore += w.PairsBefore
			pa := w.PairsAfter
			pairsAfter += pa
			maxAfter = max(maxAfter, pa)
		}
	}
	if pairsBefore != pairsAfter {
		t.Fatalf("pairs %d before, %d after: salting must not change how many pairs exist", pairsBefore, pairsAfter)
	}
	if maxAfter*2 > pairsAfter {
		t.Fatalf("one worker still forms %d of %d pairs", maxAfter, pairsAfter)
	}
}

// TestSaltedTrace checks the events the playground animates.
func TestSaltedTrace(t *testing.T) {
	lt, rt := saltSkewedListens(5_000, 300, 0.4)
	spec, _ := NewSpec(LeftOuter, lt.Schema, rt.Schema, []int{0}, []int{0})
	j, env, p := runSalted(t, spec, lt, rt, 1024, SaltOptions{})
	if _, err := exec.Materialize(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	kinds := map[trace.Kind]int{}
	var perSalt []int64
	for _, e := range env.Trace.(*trace.Recorder).Events() {
		kinds[e.Kind()]++
		if s, ok := e.Payload.(joinevent.SaltAssigned); ok && s.Key == "0" {
			perSalt = s.RowsPerSalt
		}
	}
	if kinds[joinevent.KindHeavyKey] == 0 || kinds[joinevent.KindSaltAssigned] != p.SaltedKeys() || kinds[joinevent.KindRowsReplicated] != p.SaltedKeys() ||
		kinds[joinevent.KindWorkerLoad] != p.Workers {
		t.Fatalf("events %v; want heavy keys, one salt and one replication event per salted key (%d), one load per worker (%d)",
			kinds, p.SaltedKeys(), p.Workers)
	}
	// Round-robin: the salts' row counts differ by at most one.
	if len(perSalt) != p.Workers || slices.Max(perSalt)-slices.Min(perSalt) > 1 {
		t.Fatalf("rows per salt of key 0 = %v, want %d salts within one row of each other", perSalt, p.Workers)
	}
}

func TestSaltedBudgetExceeded(t *testing.T) {
	lt, rt := saltSkewedListens(5_000, 300, 0.4)
	spec, _ := NewSpec(Inner, lt.Schema, rt.Schema, []int{0}, []int{0})
	m, _ := MeasureSkew(context.Background(), spec, &tableOp{t: lt, size: 100}, &tableOp{t: rt, size: 100})
	env := exec.NewEnv(memory.NewBudget(20_000), nil)
	j := NewSalted(spec, PlanSalt(spec, m, SaltOptions{}), &tableOp{t: lt, size: 100}, &tableOp{t: rt, size: 100}, env)
	_, err := exec.Materialize(context.Background(), j)
	if err == nil || !strings.Contains(err.Error(), "memory budget") {
		t.Fatalf("want a memory budget error, got %v", err)
	}
}

func TestMaxOverMedian(t *testing.T) {
	if got := MaxOverMedian([]int64{1, 2, 3, 10}); got != 4 {
		t.Fatalf("MaxOverMedian = %v, want 10/2.5 = 4", got)
	}
	if got := MaxOverMedian([]int64{0, 0, 5}); got != 5 {
		t.Fatalf("MaxOverMedian with a zero median = %v, want 5", got)
	}
}

// BenchmarkSalted joins 200,000 listens (30% on one song) with 5,000 songs, salted and with the plain hash join,
// and reports the loads and bytes the salted join measured.
func BenchmarkSalted(b *testing.B) {
	lt, rt := saltSkewedListens(200_000, 5_000, 0.3)
	spec, _ := NewSpec(Inner, lt.Schema, rt.Schema, []int{0}, []int{0})
	b.Run("salted", func(b *testing.B) {
		var d map[string]any
		for range b.N {
			m, err := MeasureSkew(context.Background(), spec, &tableOp{t: lt, size: 4096}, &tableOp{t: rt, size: 4096})
			if err != nil {
				b.Fatal(err)
			}
			env := exec.NewEnv(memory.NewBudget(0), nil)
			j := NewSalted(spec, PlanSalt(spec, m, SaltOptions{}), &tableOp{t: lt, size: 4096}, &tableOp{t: rt, size: 4096}, env)
			if err := exec.Drain(context.Background(), j, func(*column.Batch) error { return nil }); err != nil {
				b.Fatal(err)
			}
			d = env.Details.Map()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(lt.N+rt.N), "ns/row")
		b.ReportMetric(d["load_max_over_median_before"].(float64), "load_before")
		b.ReportMetric(d["load_max_over_median_after"].(float64), "load_after")
		b.ReportMetric(float64(d["extra_bytes"].(int64)), "extra_bytes")
		b.ReportMetric(float64(d["workers"].(int)), "workers")
	})
	b.Run("hash", func(b *testing.B) {
		for range b.N {
			h := NewHash(spec, &tableOp{t: lt, size: 4096}, &tableOp{t: rt, size: 4096}, false, memory.NewBudget(0))
			if err := exec.Drain(context.Background(), h, func(*column.Batch) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(lt.N+rt.N), "ns/row")
	})
}

// TestMeasureSkewCountsIntKeysAsEncoded checks that measuring one int64-stored key as an int64 reports what
// counting appendSaltKey's encodings reports: each side's totals, exactness, error bound, keys and counts,
// and the salt plan made from them. The sides have null keys, ties, one heavy key, and (the larger ones) more
// distinct keys than skew.ExactKeys; batch sizes cut the null bitmaps' words anywhere.
func TestMeasureSkewCountsIntKeysAsEncoded(t *testing.T) {
	const seed = 19
	t.Logf("seed=%d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	side := func(t column.Type, rows, domain int, nullRate, hot float64) *column.Table {
		tb := column.NewTable(column.Schema{{Name: "k", Type: t}})
		for range rows {
			switch x := r.Float64(); {
			case x < nullRate:
				tb.Cols[0].AppendNull()
			case x < nullRate+hot:
				tb.Cols[0].AppendInt(-3)
			default:
				tb.Cols[0].AppendInt(r.Int64N(int64(domain)) << 20)
			}
		}
		tb.N = rows
		return tb
	}
	for _, typ := range []column.Type{column.Long, column.DateTime} {
		for _, sz := range []struct{ left, right, domain int }{{300, 500, 40}, {20_000, 30_000, 5000}, {90_000, 150_000, 1 << 30}} {
			lt, rt := side(typ, sz.left, sz.domain, 0.1, 0.3), side(typ, sz.right, sz.domain, 0.2, 0.01)
			spec, err := NewSpec(Inner, lt.Schema, rt.Schema, []int{0}, []int{0})
			if err != nil {
				t.Fatal(err)
			}
			want := encodedMeasure(lt, rt, spec)
			for _, size := range []int{7, 64, 100, 1000} {
				got, err := MeasureSkew(context.Background(), spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size})
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s %d ⋈ %d, batches of %d", typ, sz.left, sz.right, size)
				sameCounter(t, name+", left", got.Left, want.Left)
				sameCounter(t, name+", right", got.Right, want.Right)
				if got.LeftRows != want.LeftRows || got.RightRows != want.RightRows {
					t.Fatalf("%s: rows %d and %d, want %d and %d", name, got.LeftRows, got.RightRows, want.LeftRows, want.RightRows)
				}
				gp, wp := PlanSalt(spec, got, SaltOptions{}), PlanSalt(spec, want, SaltOptions{})
				if !slices.Equal(gp.Heavy, wp.Heavy) || gp.Exact != wp.Exact || gp.Workers != wp.Workers {
					t.Fatalf("%s: plan W=%d exact=%v heavy %v, want W=%d exact=%v heavy %v", name, gp.Workers, gp.Exact, gp.Heavy,
						wp.Workers, wp.Exact, wp.Heavy)
				}
				if g, w := gp.Predict(8, 8), wp.Predict(8, 8); g != w {
					t.Fatalf("%s: prediction %+v, want %+v", name, g, w)
				}
			}
		}
	}
}

// encodedMeasure is MeasureSkew by the general path: every non-null key encoded by appendSaltKey.
func encodedMeasure(lt, rt *column.Table, spec *Spec) *SkewMeasure {
	m := &SkewMeasure{Left: skew.NewCounter(), Right: skew.NewCounter(), LeftRows: int64(lt.N), RightRows: int64(rt.N)}
	for _, s := range []struct {
		t *column.Table
		c *skew.Counter
	}{{lt, m.Left}, {rt, m.Right}} {
		var buf []byte
		for i := range s.t.N {
			if s.t.Cols[0].IsNull(i) {
				continue
			}
			buf = appendSaltKey(buf[:0], s.t.Cols, i)
			s.c.AddBytes(buf)
		}
	}
	return m
}

func sameCounter(t *testing.T, name string, got, want *skew.Counter) {
	t.Helper()
	if got.Total() != want.Total() || got.Exact() != want.Exact() || got.ErrorBound() != want.ErrorBound() {
		t.Fatalf("%s: total %d exact %v bound %d, want %d %v %d", name, got.Total(), got.Exact(), got.ErrorBound(),
			want.Total(), want.Exact(), want.ErrorBound())
	}
	if g, w := got.Above(1), want.Above(1); !slices.Equal(g, w) {
		t.Fatalf("%s: %d keys %.5v, want %d %.5v", name, len(g), g, len(w), w)
	}
	for _, it := range want.Above(1) {
		if n, e := got.Count(it.Key); n != it.Count || e != it.Err || got.Estimate(it.Key) != want.Estimate(it.Key) {
			t.Fatalf("%s: key %q counts %d±%d, want %d±%d", name, it.Key, n, e, it.Count, it.Err)
		}
	}
}
