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

// orderedRows renders every output row as text, in output order.
func orderedRows(t *testing.T, op exec.Operator) []string {
	t.Helper()
	tab, err := exec.Materialize(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	return renderedRows(tab)
}

// TestHashRadixMatchesNestedLoop runs the hash join's oracle test with the partitioned lookup forced on small
// inputs (hash_radix.go): every kind, every input shape, both build sides, several batch sizes, partition
// counts and window sizes, windows sorted and windows looked up in probe order, with the key filter and
// without. The output must be the oracle's rows and, row for row, the streaming probe's order.
func TestHashRadixMatchesNestedLoop(t *testing.T) {
	eachKindCase(t, cases(), 1000, func(t *testing.T, c pair, kind Kind, spec *Spec, lt, rt *column.Table) {
		want, _ := rowsOf(t, NewNestedLoop(spec, &tableOp{t: lt, size: 1000}, &tableOp{t: rt, size: 1000}, memory.NewBudget(0)))
		for _, size := range []int{1, 7, 50} {
			for _, buildLeft := range []bool{false, true} {
				stream := NewHash(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, buildLeft, memory.NewBudget(0))
				stream.noRadix = true
				streamed := orderedRows(t, stream)
				for _, bits := range []uint{1, 3, 10} {
					for _, window := range []int{1, 20, 1000} {
						for _, minWindow := range []int{1, 30} {
							h := NewHash(spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, buildLeft, memory.NewBudget(0))
							h.radixBits, h.radixWindow, h.radixMinWindow, h.maxOut = bits, window, minWindow, 3
							h.noKeyFilter = bits == 3 // sortWindow's loops without the filter too
							got := orderedRows(t, h)
							what := fmt.Sprintf("batch=%d buildLeft=%v bits=%d window=%d minWindow=%d filter=%v",
								size, buildLeft, bits, window, minWindow, !h.noKeyFilter)
							if !slices.Equal(got, streamed) {
								i := 0
								for i < len(got) && got[i] == streamed[i] {
									i++
								}
								t.Fatalf("at %d: %s: partitioned probe gave %d rows, streaming %d, or another order\npartitioned: %v\nstreaming:   %v", i,
									what, len(got), len(streamed), head(got[i:]), head(streamed[i:]))
							}
							slices.Sort(got)
							if !slices.Equal(got, want) {
								t.Fatalf("%s: partitioned probe gave %d rows, oracle %d", what, len(got), len(want))
							}
						}
					}
				}
			}
		}
	})
}

// radixInputs makes a build side of n int64 keys and a probe side of 4n rows over the same domain, the keys
// scattered over all of int64 so that the table is open addressing, not a dense array.
func radixInputs(n int) (*Spec, *column.Table, *column.Table) { return radixInputsOf(n, true) }

// radixInputsOf is radixInputs with the keys scattered or left in their dense range [0, 8n).
func radixInputsOf(n int, scatter bool) (*Spec, *column.Table, *column.Table) {
	r := rand.New(rand.NewPCG(19, 2))
	lt := genTable(r, shape{name: "build", rows: n, domain: 8 * n, keyType: column.Long, scatter: scatter}, "L")
	rt := genTable(r, shape{name: "probe", rows: 4 * n, domain: 8 * n, keyType: column.Long, nullRate: 0.1, scatter: scatter}, "R")
	spec, _ := NewSpec(LeftOuter, rt.Schema, lt.Schema, []int{0}, []int{0})
	return spec, rt, lt
}

// TestHashRadixTaken checks that a build table past radixProbeTableBytes takes the partitioned lookup with
// its own thresholds (no knob), sorts its windows, and says so in ProbeExplain; and that a small one streams.
func TestHashRadixTaken(t *testing.T) {
	n := 70_000 // 262,144 slots of 16 bytes: 4 MiB
	spec, pt, bt := radixInputs(n)
	h := NewHash(spec, &tableOp{t: pt, size: 1024}, &tableOp{t: bt, size: 1024}, false, memory.NewBudget(0))
	got := orderedRows(t, h)
	if h.radix == nil || h.radix.sorted == 0 {
		t.Fatalf("a %d-row build side should take the partitioned lookup: %s", n, h.ProbeExplain())
	}
	if x := h.ProbeExplain(); !strings.Contains(x, "int64 open addressing") || !strings.Contains(x, "16 partitions") {
		t.Fatalf("explain should name the key map and 16 partitions, got %q", x)
	}
	s := NewHash(spec, &tableOp{t: pt, size: 1024}, &tableOp{t: bt, size: 1024}, false, memory.NewBudget(0))
	s.noRadix = true
	if want := orderedRows(t, s); !slices.Equal(got, want) {
		t.Fatalf("partitioned probe gave %d rows, streaming %d, or another order", len(got), len(want))
	}
	small := NewHash(spec, &tableOp{t: pt, size: 1024}, &tableOp{t: column.Concat(bt.Schema, []*column.Batch{bt.Batch().Slice(0, 1000)}), size: 1024}, false, memory.NewBudget(0))
	orderedRows(t, small)
	if small.radix != nil || !strings.Contains(small.ProbeExplain(), "streamed") {
		t.Fatalf("a 1,000-row build side should stream: %s", small.ProbeExplain())
	}
}

// TestHashRadixBudget checks the fallback: under a budget that holds the build side but not a window, the
// windows are cut to what fits (down to one batch, looked up as the streaming probe does), the query still
// runs, with the streaming probe's output, and the budget is all given back.
func TestHashRadixBudget(t *testing.T) {
	spec, pt, bt := radixInputs(2000)
	s := NewHash(spec, &tableOp{t: pt, size: 100}, &tableOp{t: bt, size: 100}, false, memory.NewBudget(0))
	s.noRadix = true
	want := orderedRows(t, s)
	// Find the least budget the streaming probe runs under, then run the partitioned one under it.
	limit := int64(0)
	for l := int64(100_000); ; l += 5_000 {
		s := NewHash(spec, &tableOp{t: pt, size: 100}, &tableOp{t: bt, size: 100}, false, memory.NewBudget(l))
		s.noRadix = true
		if _, err := exec.Materialize(context.Background(), s); err == nil {
			limit = l
			break
		}
	}
	budget := memory.NewBudget(limit)
	h := NewHash(spec, &tableOp{t: pt, size: 100}, &tableOp{t: bt, size: 100}, false, budget)
	h.radixBits, h.radixMinWindow = 4, 300
	got := orderedRows(t, h)
	if !slices.Equal(got, want) {
		t.Fatalf("under a %d-byte budget the partitioned probe gave %d rows, streaming %d, or another order", limit, len(got), len(want))
	}
	if h.radix == nil || !h.radix.overBudget {
		t.Fatalf("the windows should have been cut by the budget: %s", h.ProbeExplain())
	}
	if h.radix.windows < 10 {
		t.Fatalf("under a tight budget windows should hold about one batch: %d windows", h.radix.windows)
	}
	if used := limit - budget.Available(); used != 0 {
		t.Fatalf("the join should give its whole budget back, %d bytes still held", used)
	}
}

// countingOp counts the rows its input has given.
type countingOp struct {
	exec.Operator
	rows int
}

func (o *countingOp) Next(ctx context.Context) (*column.Batch, error) {
	b, err := o.Operator.Next(ctx)
	if b != nil {
		o.rows += b.N
	}
	return b, err
}

// TestHashRadixFirstWindowSmall checks that the partitioned probe's first output waits for its first, small
// window, not the whole probe side, so a limit above the join stops reading it early; and that the windows
// then grow.
func TestHashRadixFirstWindowSmall(t *testing.T) {
	spec, pt, bt := radixInputs(70_000) // 280,000 probe rows
	probe := &countingOp{Operator: &tableOp{t: pt, size: 1024}}
	h := NewHash(spec, probe, &tableOp{t: bt, size: 1024}, false, memory.NewBudget(0))
	b, err := h.Next(context.Background())
	if err != nil || b == nil || b.N == 0 {
		t.Fatalf("want a first batch, got %v, %v", b, err)
	}
	if h.radix == nil || probe.rows > radixMinWindowRows+1024 {
		t.Fatalf("the first batch read %d probe rows, want at most %d (%s)", probe.rows, radixMinWindowRows+1024, h.ProbeExplain())
	}
	if _, err := exec.Materialize(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	// Windows of 16K, 64K and up to 256K rows cover 280,000 rows in three, not 280,000/16K = 18.
	if w := h.radix.windows; w != 3 {
		t.Fatalf("want 3 growing windows over %d probe rows, got %d", pt.N, w)
	}
}

// TestHashDenseKeysTakeTheArray checks the key map's choice from the build keys' range: keys of a dense range
// (70,000 build rows over 560,000 values, a tenth of the probe keys null) are held in a dense array, looked up
// in probe order with no partitions, and pair the same rows as the same keys scattered over int64, which take
// open addressing and the partitioned probe.
func TestHashDenseKeysTakeTheArray(t *testing.T) {
	run := func(scatter bool) (*Hash, []string) {
		spec, pt, bt := radixInputsOf(70_000, scatter)
		s := *spec
		s.Live = make([]bool, len(s.Schema))
		for o, f := range s.Schema {
			s.Live[o] = strings.HasPrefix(f.Name, "id") // the rows' ids: the keys themselves differ
		}
		h := NewHash(&s, &tableOp{t: pt, size: 1024}, &tableOp{t: bt, size: 1024}, false, memory.NewBudget(0))
		return h, liveRows(t, h, s.Live)
	}
	dense, got := run(false)
	sparse, want := run(true)
	if x := dense.ProbeExplain(); !strings.Contains(x, "int64 dense array over [") || !strings.Contains(x, "streamed") || dense.radix != nil {
		t.Fatalf("keys of a dense range should take the array, looked up in probe order: %s", x)
	}
	if x := sparse.ProbeExplain(); !strings.Contains(x, "int64 open addressing") || sparse.radix == nil {
		t.Fatalf("scattered keys should take open addressing and the partitioned probe: %s", x)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("dense keys paired %d rows, the same keys scattered %d, or other rows", len(got), len(want))
	}
}

// TestHashRadixStringFilter checks the key filter on string keys and on encoded ones (two columns, one a
// string): a probe side whose keys mostly miss the build side's has most rows proved unmatched without a
// lookup, and the output is the streaming probe's, row for row.
func TestHashRadixStringFilter(t *testing.T) {
	for _, multi := range []bool{false, true} {
		r := rand.New(rand.NewPCG(23, 5))
		lt := genTable(r, shape{name: "build", rows: 2000, domain: 16000, keyType: column.String, multiKey: multi}, "L")
		rt := genTable(r, shape{name: "probe", rows: 8000, domain: 16000, keyType: column.String, multiKey: multi, nullRate: 0.1}, "R")
		spec, err := NewSpec(LeftOuter, rt.Schema, lt.Schema, keysOf(rt.Schema), keysOf(lt.Schema))
		if err != nil {
			t.Fatal(err)
		}
		s := NewHash(spec, &tableOp{t: rt, size: 512}, &tableOp{t: lt, size: 512}, false, memory.NewBudget(0))
		s.noRadix = true
		want := orderedRows(t, s)
		h := NewHash(spec, &tableOp{t: rt, size: 512}, &tableOp{t: lt, size: 512}, false, memory.NewBudget(0))
		h.radixBits, h.radixWindow, h.radixMinWindow = 3, 2000, 1
		if got := orderedRows(t, h); !slices.Equal(got, want) {
			t.Fatalf("multi=%v: partitioned probe gave %d rows, streaming %d, or another order", multi, len(got), len(want))
		}
		// About 7,200 non-null probe keys, of which some 7,000 miss; the filter passes an eighth of those.
		if h.radix == nil || h.radix.filter == nil || h.radix.filtered < 4000 {
			t.Fatalf("multi=%v: the filter proved too few probe rows unmatched: %s", multi, h.ProbeExplain())
		}
	}
}

// TestAnyChained checks the test that lets the partitioned probe skip touchChains: only a row with a next row
// (a value of 0 or more) makes a chain; -1 (a chain's end) and notIndexed do not.
func TestAnyChained(t *testing.T) {
	for _, c := range []struct {
		next []int32
		want bool
	}{
		{nil, false},
		{[]int32{-1, -1, notIndexed}, false},
		{[]int32{-1, 0, -1}, true},
		{[]int32{notIndexed, -1, 1 << 30}, true},
	} {
		if got := anyChained(c.next); got != c.want {
			t.Errorf("anyChained(%v) = %v, want %v", c.next, got, c.want)
		}
	}
}
