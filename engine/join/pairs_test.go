package join

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/memory"
)

// pairWheres are predicates over a join's output, most over both sides; those that name a column a kind does
// not output (the other side of a semi or anti join) are skipped for that kind.
var pairWheres = []string{
	"v > v1", "isnull(v1) or v + v1 > 100", "v > 50 and id1 != 'R3'", "isnull(k1)", "v % 3 == 0 and v1 % 2 == 1",
	"v > 20", "isnotnull(id) and v < 90", "isnull(id) or isnull(id1)", "false", "v >= 0 or isnull(v)",
}

// TestHashWhereOnPairs checks a where evaluated on the hash join's row pairs (SetWhere) against the same where
// over the nested-loop oracle's output, for every kind, input shape (null keys, duplicates, empty sides), both
// build sides, several batch sizes, output batches cut to 3 rows, the streaming and the partitioned probe, and
// with every column live or only the ids (the columns the where reads are then gathered for it alone). The
// rows must be the same multiset.
func TestHashWhereOnPairs(t *testing.T) {
	checked := 0
	eachKindCase(t, cases(), 1000, func(t *testing.T, c pair, kind Kind, spec *Spec, lt, rt *column.Table) {
		for _, src := range pairWheres {
			pred := compileOn(t, src, spec.Schema)
			if pred == nil {
				continue
			}
			oracle := exec.NewFilter(NewNestedLoop(spec, &tableOp{t: lt, size: 1000}, &tableOp{t: rt, size: 1000}, memory.NewBudget(0)), pred)
			all := liveRows(t, oracle, nil)
			for _, ids := range []bool{false, true} {
				s := *spec
				s.Live = nil
				if ids {
					s.Live = make([]bool, len(s.Schema))
					for o, f := range s.Schema {
						s.Live[o] = strings.HasPrefix(f.Name, "id")
					}
				}
				want := project(all, s.Live)
				for _, size := range []int{1, 7, 50} {
					for _, buildLeft := range []bool{false, true} {
						for _, radix := range []bool{false, true} {
							h := NewHash(&s, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, buildLeft, memory.NewBudget(0))
							h.maxOut, h.noRadix = 3, !radix
							if radix {
								h.radixBits, h.radixWindow, h.radixMinWindow = 3, 20, 1
							}
							h.SetWhere(pred)
							got := liveRows(t, h, s.Live)
							if !slices.Equal(got, want) {
								t.Fatalf("where %s, ids only %v, batch=%d buildLeft=%v radix=%v: %d rows, oracle %d\nhash:   %v\noracle: %v",
									src, ids, size, buildLeft, radix, len(got), len(want), head(got), head(want))
							}
							checked++
						}
					}
				}
			}
		}
	})
	if checked == 0 {
		t.Fatal("no where compiled against any kind's output: the test compared nothing")
	}
}

// compileOn compiles a where's predicate against schema, or returns nil when it names a column schema lacks.
func compileOn(t *testing.T, src string, schema column.Schema) expr.Expr {
	t.Helper()
	q, err := kql.Parse("@T | where " + src)
	if err != nil {
		t.Fatalf("parse %s: %v", src, err)
	}
	e, err := expr.Compile(q.Ops[0].(*kql.Where).Pred, schema)
	if err != nil {
		return nil
	}
	return e
}

// liveRows renders every output row of op as text over the columns live marks (all when nil), sorted. A live
// column must be filled; the others are not read.
func liveRows(t *testing.T, op exec.Operator, live []bool) []string {
	t.Helper()
	var rows []string
	err := exec.Drain(context.Background(), op, func(b *column.Batch) error {
		for r := 0; r < b.N; r++ {
			var s strings.Builder
			for c, v := range b.Cols {
				if live != nil && !live[c] {
					continue
				}
				if v == nil {
					return fmt.Errorf("live column %d not filled", c)
				}
				if v.IsNull(r) {
					s.WriteString("∅|")
				} else {
					fmt.Fprint(&s, v.Value(r).Int, v.Value(r).Real, v.Value(r).Str, "|")
				}
			}
			rows = append(rows, s.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rows)
	return rows
}

// project keeps the live fields of rows rendered by liveRows over every column; rows stays as is when live is nil.
func project(rows []string, live []bool) []string {
	if live == nil {
		return rows
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		var s strings.Builder
		for c, f := range strings.Split(strings.TrimSuffix(r, "|"), "|") {
			if live[c] {
				s.WriteString(f + "|")
			}
		}
		out[i] = s.String()
	}
	slices.Sort(out)
	return out
}

// sideWheres are filters over one input side (k, [k2,] id, v), placed below the join on both sides.
var sideWheres = []string{"v > 30", "isnull(v) or v % 3 == 0", "false", "id != 'L3' and id != 'R5'", "isnotnull(k)"}

// TestHashProbeTakesSelection checks a hash join whose probe side is a filter: the join takes the filter's
// batches uncopied with their selections (readProbe) and drops the rows not selected. For every kind, input
// shape, both build sides, several batch sizes, output batches cut to 3 rows, the streaming and the
// partitioned probe, with a filter on each side: the rows must be, in order, those the join gives reading the
// filter's copies, and as a multiset those of the nested-loop oracle over the filtered sides.
func TestHashProbeTakesSelection(t *testing.T) {
	eachKindCase(t, cases(), 1000, func(t *testing.T, c pair, kind Kind, spec *Spec, lt, rt *column.Table) {
		for _, src := range sideWheres {
			lp, rp := compileOn(t, src, lt.Schema), compileOn(t, src, rt.Schema)
			side := func(tab *column.Table, p expr.Expr, size int) *exec.Filter {
				return exec.NewFilter(&tableOp{t: tab, size: size}, p)
			}
			want, _ := rowsOf(t, NewNestedLoop(spec, side(lt, lp, 1000), side(rt, rp, 1000), memory.NewBudget(0)))
			for _, size := range []int{1, 7, 50} {
				for _, buildLeft := range []bool{false, true} {
					for _, radix := range []bool{false, true} {
						run := func(selections bool) []string {
							h := NewHash(spec, side(lt, lp, size), side(rt, rp, size), buildLeft, memory.NewBudget(0))
							h.maxOut, h.noRadix, h.noSelection = 3, !radix, !selections
							if radix {
								h.radixBits, h.radixWindow, h.radixMinWindow = 3, 20, 1
							}
							return orderedRows(t, h)
						}
						got, copied := run(true), run(false)
						what := fmt.Sprintf("where %s, batch=%d buildLeft=%v radix=%v", src, size, buildLeft, radix)
						if !slices.Equal(got, copied) {
							t.Fatalf("%s: %d rows with selections, %d with copies, or another order\nselections: %v\ncopies:     %v",
								what, len(got), len(copied), head(got), head(copied))
						}
						slices.Sort(got)
						if !slices.Equal(got, want) {
							t.Fatalf("%s: %d rows, oracle %d", what, len(got), len(want))
						}
					}
				}
			}
		}
	})
}

// TestHashPassesProbeRunsThrough checks the join to a table of unique keys that every probe row finds (a fact
// table's foreign key into a dimension): the probe side's columns pass through as slices of the probe's
// batches (gatherRows), with their nulls, and the output is the oracle's, in order, for the inner and the
// outer kinds, several batch sizes and output batches cut short; and that a probe with misses still gathers.
func TestHashPassesProbeRunsThrough(t *testing.T) {
	dim := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "id", Type: column.String}, {Name: "v", Type: column.Long}})
	for k := range 50 {
		dim.Cols[0].AppendInt(int64(k))
		dim.Cols[1].AppendString(fmt.Sprintf("D%d", k))
		dim.Cols[2].AppendInt(int64(k * 3))
	}
	dim.N = 50
	for _, domain := range []int{50, 60} { // every probe key found; a sixth missing
		r := rand.New(rand.NewPCG(uint64(domain), 7))
		facts := genTable(r, shape{name: "facts", rows: 400, domain: domain, keyType: column.Long}, "F")
		for _, kind := range []Kind{Inner, LeftOuter, LeftSemi} {
			spec, err := NewSpec(kind, facts.Schema, dim.Schema, []int{0}, []int{0})
			if err != nil {
				t.Fatal(err)
			}
			want := orderedRows(t, NewNestedLoop(spec, &tableOp{t: facts, size: 1000}, &tableOp{t: dim, size: 1000}, memory.NewBudget(0)))
			for _, size := range []int{1, 7, 64, 100} {
				for _, maxOut := range []int{outRows, 3} {
					h := NewHash(spec, &tableOp{t: facts, size: size}, &tableOp{t: dim, size: size}, false, memory.NewBudget(0))
					h.maxOut = maxOut
					out, err := exec.Materialize(context.Background(), &sharedCounter{Operator: h, of: facts.Cols[2]})
					if err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("domain=%d %s batch=%d maxOut=%d", domain, kind, size, maxOut)
					if got := renderedRows(out); !slices.Equal(got, want) {
						t.Fatalf("%s: %d rows, oracle %d, or another order\nhash:   %v\noracle: %v", what, len(got), len(want), head(got), head(want))
					}
				}
			}
		}
	}
}

// sharedCounter fails the test's premise loudly: it checks, batch by batch, whether the output's column 2 (the
// probe's v) shares the memory of the probe table's column of, which it must when the batch's pairs are one
// run of probe rows each found once, and must not otherwise.
type sharedCounter struct {
	exec.Operator
	of *column.Vector
}

func (s *sharedCounter) Next(ctx context.Context) (*column.Batch, error) {
	b, err := s.Operator.Next(ctx)
	if b == nil || err != nil || b.N == 0 {
		return b, err
	}
	v := b.Cols[2]
	lo, hi := unsafe.Pointer(unsafe.SliceData(s.of.Ints)), unsafe.Pointer(&s.of.Ints[len(s.of.Ints)-1])
	p := unsafe.Pointer(unsafe.SliceData(v.Ints))
	shared := uintptr(p) >= uintptr(lo) && uintptr(p) <= uintptr(hi)
	// The ids (column 1) say which probe rows the batch holds: "F<row>".
	run := true
	var first int
	for i := range b.N {
		var row int
		fmt.Sscanf(b.Cols[1].Strs[i], "F%d", &row)
		if i == 0 {
			first = row
		}
		run = run && row == first+i
	}
	if shared != run {
		return nil, fmt.Errorf("a batch of %d rows, one run of probe rows %v, shares the probe's column %v", b.N, run, shared)
	}
	return b, nil
}
