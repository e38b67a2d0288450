package join

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/keymap"
	"github.com/joinlab/joinlab/engine/memory"
)

// pairAggs returns count() and a sum of every long or real output column of spec, as HashAggregate takes them
// and as exec.Summarize takes them, with the result schema.
func pairAggs(spec *Spec) ([]PairAgg, []exec.Agg, column.Schema) {
	pa := []PairAgg{{}}
	ea := []exec.Agg{{Func: "count", Type: column.Long}}
	schema := column.Schema{{Name: "n", Type: column.Long}}
	for o, f := range spec.Schema {
		if f.Type != column.Long && f.Type != column.Real {
			continue
		}
		pa = append(pa, PairAgg{Sum: true, Col: o})
		ea = append(ea, exec.Agg{Func: "sum", Arg: &expr.ColumnRef{Index: o, T: f.Type}, Type: f.Type})
		schema = append(schema, column.Field{Name: "sum_" + f.Name, Type: f.Type})
	}
	return pa, ea, schema
}

// aggPaths are the ways a HashAggregate can run, each forced so it runs on every kind and aggregate it can
// serve: the rows path with output batches cut at 4096 rows and at 3, and the radix path with the partitions it
// chooses, with 8 partitions, and with 8 partitions when the probe side stops being held after one batch and
// after none (the fallback to looking rows up in every partition's table). Only "dense" lets int keys of a dense
// range take the dense table (dense_aggregate.go); the other radix paths are kept off it.
var aggPaths = []struct {
	name                     string
	rows                     bool
	maxOut                   int
	radixBits, bufferBatches int
	dense                    bool
}{
	{name: "rows", rows: true, maxOut: outRows},
	{name: "rows-out3", rows: true, maxOut: 3},
	{name: "dense", radixBits: -1, bufferBatches: -1, dense: true},
	{name: "radix", radixBits: -1, bufferBatches: -1},
	{name: "radix-8parts", radixBits: 3, bufferBatches: -1},
	{name: "radix-8parts-hold1", radixBits: 3, bufferBatches: 1},
	{name: "radix-8parts-hold0", radixBits: 3, bufferBatches: 0},
	{name: "radix-1part", radixBits: 0, bufferBatches: -1},
}

// forcePath makes a run path p, reporting false when a cannot take it (the radix path on real sums or a semi
// or anti kind).
func forcePath(a *HashAggregate, p int) bool {
	path := aggPaths[p]
	a.h.maxOut = path.maxOut
	if path.rows {
		a.radix = nil
		return true
	}
	if a.radix == nil {
		return false
	}
	a.radix.forceBits, a.radix.bufferBatches, a.radix.noDense = path.radixBits, path.bufferBatches, !path.dense
	return true
}

// TestHashAggregateMatchesSummarize checks the aggregate mode of the hash join against summarize over the
// nested-loop oracle's output, for every kind and input shape, both build sides, every batch size and every
// path (aggPaths).
func TestHashAggregateMatchesSummarize(t *testing.T) {
	dense := 0
	defer func() {
		if dense == 0 {
			t.Error("no case took the dense path")
		}
	}()
	eachKindCase(t, cases(), 2000, func(t *testing.T, c pair, kind Kind, spec *Spec, lt, rt *column.Table) {
		pa, ea, schema := pairAggs(spec)
		checkAggregates(t, spec, lt, rt, pa, ea, schema, &dense)
		// count() alone sums no column, so no value's null sends an int key with nulls to the general loop.
		checkAggregates(t, spec, lt, rt, pa[:1], ea[:1], schema[:1], &dense)
	})
}

// checkAggregates runs one set of aggregates of TestHashAggregateMatchesSummarize on every batch size, build side and
// path, counting the runs that took the dense path.
func checkAggregates(t *testing.T, spec *Spec, lt, rt *column.Table, pa []PairAgg, ea []exec.Agg, schema column.Schema, dense *int) {
	t.Helper()
	oracle := exec.NewSummarize(NewNestedLoop(spec, &tableOp{t: lt, size: 1000}, &tableOp{t: rt, size: 1000}, memory.NewBudget(0)),
		schema, nil, ea, memory.NewBudget(0))
	want, _ := rowsOf(t, oracle)
	for _, size := range batchSizes {
		for _, buildLeft := range []bool{false, true} {
			for p := range aggPaths {
				a, err := NewHashAggregate(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, buildLeft, memory.NewBudget(0), pa, schema)
				if err != nil {
					t.Fatal(err)
				}
				if !forcePath(a, p) {
					continue
				}
				got, _ := rowsOf(t, a)
				if !slices.Equal(got, want) {
					t.Fatalf("batch=%d buildLeft=%v path=%s: hash aggregate gave %v, summarize over the oracle %v",
						size, buildLeft, aggPaths[p].name, got, want)
				}
				if a.radix != nil && a.radix.usedDense {
					*dense++
				}
			}
		}
	}
}

// TestHashAggregateChainSums checks the radix path where it counts pairs it never enumerates: one key with
// many rows on both sides, values with nulls on both sides, and sums that overflow int64 (they must wrap exactly
// as adding each pair would), on every radix variant of aggPaths.
func TestHashAggregateChainSums(t *testing.T) {
	mk := func(rows int, val func(i int) (int64, bool)) *column.Table {
		tab := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "v", Type: column.Long}})
		for i := 0; i < rows; i++ {
			tab.Cols[0].AppendInt(int64(i % 3))
			if x, ok := val(i); ok {
				tab.Cols[1].AppendInt(x)
			} else {
				tab.Cols[1].AppendNull()
			}
		}
		tab.N = rows
		return tab
	}
	big := func(i int) (int64, bool) { return 1<<62 + int64(i), i%5 != 0 }
	lt, rt := mk(300, big), mk(200, big)
	for _, kind := range []Kind{Inner, LeftOuter, RightOuter, FullOuter, InnerUnique} {
		spec, err := NewSpec(kind, lt.Schema, rt.Schema, []int{0}, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		pa, ea, schema := pairAggs(spec)
		want, _ := rowsOf(t, exec.NewSummarize(NewNestedLoop(spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, memory.NewBudget(0)),
			schema, nil, ea, memory.NewBudget(0)))
		for _, buildLeft := range []bool{false, true} {
			for p, path := range aggPaths {
				if path.rows {
					continue
				}
				a, err := NewHashAggregate(spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, buildLeft, memory.NewBudget(0), pa, schema)
				if err != nil {
					t.Fatal(err)
				}
				if !forcePath(a, p) {
					t.Fatalf("%s: expected the radix path", kind)
				}
				if got, _ := rowsOf(t, a); !slices.Equal(got, want) {
					t.Fatalf("%s buildLeft=%v path=%s: hash aggregate gave %v, summarize over the oracle %v", kind, buildLeft, path.name, got, want)
				}
			}
		}
	}
}

// TestHashAggregateStringKeys checks the radix path's string keys against the oracle: keys that a row holds in
// its three key words (0 to 16 bytes: empty, under 8, 8 to 15 with an overlapping second load, exactly 16),
// longer keys compared in full (17 bytes up, past the 255 a length tag holds), keys that share a prefix of 16
// bytes or more or differ only in a trailing zero byte, nulls, duplicates, a key on one side only and empty
// sides; every kind, both build sides and every radix variant of aggPaths (which force the filter on).
//
// A second pool has no key longer than maxInlineKeyBytes but on the left, where "only-left" is a 100-byte key:
// building on the right, every key is held whole in the rows (inlineKeyWords), keys that differ in their last
// byte past 16, 24 and 56 bytes are told apart by words alone, and the left's longer key is dropped as matching
// nothing; building on the left, the keys go by reference again.
func TestHashAggregateStringKeys(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 20) // 320 bytes
	var pool []string
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 255, 256, 300} {
		pool = append(pool, long[:n])
	}
	pool = append(pool, "a", "a\x00", "\x00", "\x00\x00", long[:16]+"x", long[:16]+"y", long[:300]+"x", long[:300]+"y",
		long[:255]+"\x00", long[:8]+"\x00", "only-left", "only-right")
	var inline []string
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 40, 63, 64} {
		inline = append(inline, long[:n])
	}
	inline = append(inline, "a", "a\x00", long[:16]+"x", long[:16]+"y", long[:24]+"\x00", long[:24]+"\x01",
		long[:56]+"x", long[:56]+"y", long[:63]+"\x00", long[100:164], long[:100], "only-right")
	inlined := 0
	checkStringKeys(t, pool, "only-left", "only-right", &inlined)
	checkStringKeys(t, inline, long[:100], "only-right", &inlined)
	if inlined == 0 {
		t.Error("no join held its keys inline")
	}
}

// checkStringKeys runs TestHashAggregateStringKeys over keys drawn from pool, of which onlyLeft is left out of
// the right side and onlyRight out of the left.
func checkStringKeys(t *testing.T, pool []string, onlyLeft, onlyRight string, inlined *int) {
	t.Helper()
	seed := uint64(4242)
	r := rand.New(rand.NewPCG(seed, seed))
	mk := func(rows int, avoid string) *column.Table {
		tab := column.NewTable(column.Schema{{Name: "k", Type: column.String}, {Name: "v", Type: column.Long}})
		for i := 0; i < rows; i++ {
			switch k := pool[r.IntN(len(pool))]; {
			case r.IntN(10) == 0:
				tab.Cols[0].AppendNull()
			case k == avoid:
				tab.Cols[0].AppendString(pool[0])
			default:
				tab.Cols[0].AppendString(k)
			}
			if r.IntN(7) == 0 {
				tab.Cols[1].AppendNull()
			} else {
				tab.Cols[1].AppendInt(r.Int64N(1000) - 300)
			}
		}
		tab.N = rows
		return tab
	}
	shapes := []struct {
		name        string
		left, right *column.Table
	}{
		{"both", mk(300, onlyRight), mk(200, onlyLeft)},
		{"empty-left", mk(0, ""), mk(100, "")},
		{"empty-right", mk(100, ""), mk(0, "")},
	}
	for _, sh := range shapes {
		for _, kind := range []Kind{Inner, InnerUnique, LeftOuter, RightOuter, FullOuter} {
			spec, err := NewSpec(kind, sh.left.Schema, sh.right.Schema, []int{0}, []int{0})
			if err != nil {
				t.Fatal(err)
			}
			pa, ea, schema := pairAggs(spec)
			want, _ := rowsOf(t, exec.NewSummarize(NewNestedLoop(spec, &tableOp{t: sh.left, size: 64}, &tableOp{t: sh.right, size: 64}, memory.NewBudget(0)),
				schema, nil, ea, memory.NewBudget(0)))
			for _, size := range []int{1, 7, 64} {
				for _, buildLeft := range []bool{false, true} {
					for p, path := range aggPaths {
						if path.rows {
							continue
						}
						a, err := NewHashAggregate(spec, &tableOp{t: sh.left, size: size}, &tableOp{t: sh.right, size: size}, buildLeft, memory.NewBudget(0), pa, schema)
						if err != nil {
							t.Fatal(err)
						}
						if !forcePath(a, p) {
							t.Fatalf("%s: expected the radix path", kind)
						}
						if got, _ := rowsOf(t, a); !slices.Equal(got, want) {
							t.Fatalf("seed=%d %s %s batch=%d buildLeft=%v path=%s: hash aggregate gave %v, summarize over the oracle %v",
								seed, sh.name, kind, size, buildLeft, path.name, got, want)
						}
						if a.radix.inline {
							*inlined++
						}
					}
				}
			}
		}
	}
}

// TestKeyTagAndLongCompare checks what keeps string keys exact when hashes collide, which data cannot be made
// to do: the tag keeps lengths up to keyLenMask apart and marks exactly the keys longer than keymap.InlineBytes, and
// two long keys with the same tag and first 16 bytes are told apart by their full compare.
func TestKeyTagAndLongCompare(t *testing.T) {
	const h = 0xDEADBEEFCAFEF00D
	for n := 0; n < 300; n++ {
		tag := keyTag(h, n)
		if tag&^keyLenMask != h&^keyLenMask {
			t.Fatalf("keyTag(h, %d) changed the hash's high bits", n)
		}
		if long := tag&keyLenMask > keymap.InlineBytes; long != (n > keymap.InlineBytes) {
			t.Fatalf("keyTag(h, %d) marks the key long=%v", n, long)
		}
		if m := n + 1; m < keyLenMask && keyTag(h, m) == tag {
			t.Fatalf("keyTag(h, %d) = keyTag(h, %d)", n, m)
		}
	}
	a, b := strings.Repeat("x", 40)+"a", strings.Repeat("x", 40)+"b"
	w0, w1 := keymap.KeyWords(a)
	r := &radixAggregate{strKeys: true, tlong: []string{a}}
	slot := []uint64{keyTag(h, len(a)), w0, w1, 1}
	row := []uint64{keyTag(h, len(b)), w0, w1}
	if !r.sameStr(slot, 0, 0, row, a) {
		t.Fatal("sameStr: a long key does not match itself")
	}
	if r.sameStr(slot, 0, 0, row, b) {
		t.Fatal("sameStr: two long keys with the same tag and first 16 bytes match")
	}

	// Inline keys (inlineKeyWords): words alone decide, up to the last, whoever's tag matched.
	r = &radixAggregate{strKeys: true, keyW: 6, inline: true}
	words := func(k string) []uint64 {
		w := make([]uint64, 7)
		w[0] = keyTag(h, len(k))
		w[1], w[2] = keymap.KeyWords(k)
		inlineTail(w[3:], k)
		return w
	}
	for _, k := range []string{"", "x", a, a[:17], a[:24] + "\x00", a[:41] + "\x00\x00\x00\x00\x00\x00\x00"} {
		if !r.sameStr(words(k), 0, 0, words(k), "") {
			t.Fatalf("sameStr: inline key %q does not match itself", k)
		}
	}
	for _, p := range [][2]string{{a, b}, {a[:17], a[:16] + "y"}, {a[:25], a[:24] + "y"}, {a[:24] + "\x00", a[:24] + "\x01"}} {
		if r.sameStr(words(p[0]), 0, 0, words(p[1]), "") {
			t.Fatalf("sameStr: inline keys %q and %q with the same tag match", p[0], p[1])
		}
	}
}
