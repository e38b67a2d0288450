package join

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/memory"
)

// TestShortStringAggregate checks the radix join's lean loops (radix_short.go) against summarize over the
// nested-loop oracle, on what they tell apart: keys of 8, 9, 15 and 16 bytes (the ends of the branch-free
// keyWords), with and without a few keys outside 8 to 16 bytes (whose batches and partitions take the general
// loops over the same partitions: rows 100 to 129 of each side) or null values (which keep every batch off
// them); no sum, one sum from each
// side (the fixed-width loops), and two from each side; sides that share no key (an outer join's sums over the
// other side must then be null); every kind the radix path serves, both build sides,
// several batch sizes, partition counts and the fallback that stops holding probe rows. Each run must take the
// lean loops exactly where its shape allows.
func TestShortStringAggregate(t *testing.T) {
	lengths := []int{8, 9, 15, 16}
	key := func(k, n int) string { return fmt.Sprintf("%0*d", n, k) }
	mk := func(r *rand.Rand, rows, domain, from int, odd, valueNulls bool) *column.Table {
		tab := column.NewTable(column.Schema{{Name: "k", Type: column.String}, {Name: "v", Type: column.Long}, {Name: "w", Type: column.Long}})
		for i := 0; i < rows; i++ {
			k := from + r.IntN(domain)
			s := key(k, lengths[k%len(lengths)])
			if odd && i >= 100 && i < 130 {
				s = []string{"k" + fmt.Sprint(k), strings.Repeat("x", 17) + fmt.Sprint(k)}[i%2] // 2 to 4 bytes, or 18+
			}
			tab.Cols[0].AppendString(s)
			for c := 1; c <= 2; c++ {
				if valueNulls && r.IntN(7) == 0 {
					tab.Cols[c].AppendNull()
				} else {
					tab.Cols[c].AppendInt(r.Int64N(1<<40) - 1<<39)
				}
			}
		}
		tab.N = rows
		return tab
	}
	shapes := []struct {
		name            string
		odd, valueNulls bool
		rightFrom       int // the right side's smallest key; 1000 matches no left key
	}{{"short", false, false, 0}, {"some-odd-keys", true, false, 0}, {"value-nulls", false, true, 0}, {"disjoint", false, false, 1000}}
	paths := []struct {
		name         string
		bits, buffer int
	}{{"8parts", 3, -1}, {"1part", 0, -1}, {"8parts-hold1", 3, 1}}
	for si, sh := range shapes {
		r := rand.New(rand.NewPCG(uint64(si), 91))
		lt, rt := mk(r, 700, 300, 0, sh.odd, sh.valueNulls), mk(r, 1100, 500, sh.rightFrom, sh.odd, sh.valueNulls)
		for _, kind := range []Kind{Inner, InnerUnique, LeftOuter, RightOuter, FullOuter} {
			spec, err := NewSpec(kind, lt.Schema, rt.Schema, []int{0}, []int{0})
			if err != nil {
				t.Fatal(err)
			}
			for _, sums := range [][]string{nil, {"v", "v1"}, {"v", "w", "v1", "w1"}} {
				pa, ea, schema := []PairAgg{{}}, []exec.Agg{{Func: "count", Type: column.Long}}, column.Schema{{Name: "n", Type: column.Long}}
				for o, f := range spec.Schema {
					if slices.Contains(sums, f.Name) {
						pa = append(pa, PairAgg{Sum: true, Col: o})
						ea = append(ea, exec.Agg{Func: "sum", Arg: &expr.ColumnRef{Index: o, T: f.Type}, Type: f.Type})
						schema = append(schema, column.Field{Name: "sum_" + f.Name, Type: f.Type})
					}
				}
				want, _ := rowsOf(t, exec.NewSummarize(NewNestedLoop(spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, memory.NewBudget(0)),
					schema, nil, ea, memory.NewBudget(0)))
				for _, size := range []int{1, 33, 1000} {
					for _, buildLeft := range []bool{false, true} {
						for _, path := range paths {
							name := fmt.Sprintf("%s %s sums=%v batch=%d buildLeft=%v %s", sh.name, kind, sums, size, buildLeft, path.name)
							a, err := NewHashAggregate(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, buildLeft, memory.NewBudget(0), pa, schema)
							if err != nil {
								t.Fatal(err)
							}
							if a.radix == nil {
								t.Fatalf("%s: not on the radix path", name)
							}
							a.radix.forceBits, a.radix.bufferBatches = path.bits, path.buffer
							if got, _ := rowsOf(t, a); !slices.Equal(got, want) {
								t.Errorf("%s: radix aggregate gave %v, summarize over the oracle %v", name, got, want)
							}
							// A batch leaves the shape when it holds an odd key or a null summed value (all but
							// single rows do, with nulls); a partition when it holds a long key or a null summed value.
							nullVals := sh.valueNulls && len(sums) > 0
							wantBatches := !(nullVals && size > 1)
							if got := a.radix.shortBatches > 0; got != wantBatches {
								t.Errorf("%s: %d batches took scatterShort, want some: %v", name, a.radix.shortBatches, wantBatches)
							}
							// The lean fold neither marks keys (a kind keeping unmatched build rows, or innerunique
							// probing with the left) nor keeps a key's first build row (innerunique building on it).
							marks := kind == FullOuter || kind == InnerUnique || kind == LeftOuter && buildLeft || kind == RightOuter && !buildLeft
							probeRows := lt.N
							if buildLeft {
								probeRows = rt.N
							}
							held := path.bits > 0 && (path.buffer < 0 || (probeRows+size-1)/size <= path.buffer)
							switch short := a.radix.shortParts; {
							case !held || marks || nullVals:
								if short != 0 {
									t.Errorf("%s: %d partitions folded short, want none", name, short)
								}
							case sh.odd:
								// This seed leaves one or two of the 8 partitions without a long key.
								if short == 0 || short == 8 {
									t.Errorf("%s: %d of 8 partitions folded short, want some but not all", name, short)
								}
							case short != 8:
								t.Errorf("%s: %d of 8 partitions folded short, want all", name, short)
							}
						}
					}
				}
			}
		}
	}
}

// TestShortSlotComparesEveryWord checks that the lean loops' probe tells keys apart by all three words, not by
// the tagged hash alone: data cannot make two short keys' hashes collide, so the test builds the table.
func TestShortSlotComparesEveryWord(t *testing.T) {
	const sw, h = 5, 0xABCD<<8 | 16
	tab := make([]uint64, 4*sw)             // four slots
	copy(tab[sw:], []uint64{h, 7, 8, 1, 0}) // slot 1: the key (h, 7, 8)
	for _, c := range []struct {
		x    []uint64
		want int
	}{
		{[]uint64{h, 7, 8}, 1 * sw}, // found
		{[]uint64{h, 7, 9}, 2 * sw}, // same hash, second word differs: the empty slot after
		{[]uint64{h, 6, 8}, 2 * sw}, // first word differs
		{[]uint64{h + 1<<8, 7, 8}, 2 * sw},
	} {
		if got := shortSlot(tab, c.x, 1, 3, sw); got != c.want {
			t.Errorf("shortSlot(%x) = %d, want %d", c.x, got, c.want)
		}
	}
}
