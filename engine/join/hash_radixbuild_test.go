package join

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// TestPartitionedBuildMakesTheSameChains builds each generated side's table in row order and partition by
// partition (hash_radixbuild.go), int64 and string keys, ties, nulls and skew, for every kind on both sides
// (innerunique builds keep a key's first row): next[], every key's chain and the marks of rows left out must
// be the same. A budget that cannot hold the partitioned build's rows makes it build in row order, with the
// same chains, and hand every byte back.
func TestPartitionedBuildMakesTheSameChains(t *testing.T) {
	for i, s := range []shape{
		{name: "unique", rows: 500, domain: 100_000, keyType: column.Long},
		{name: "ties", rows: 500, domain: 30, keyType: column.Long, nullRate: 0.2},
		{name: "skew", rows: 500, domain: 50, keyType: column.Long, skew: 0.6},
		{name: "strings", rows: 500, domain: 40, keyType: column.String, nullRate: 0.1},
		{name: "empty", rows: 0, domain: 10, keyType: column.Long},
	} {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		side := genTable(r, s, "B")
		other := genTable(r, shape{name: "other", rows: 3, domain: 10, keyType: s.keyType}, "P")
		for _, kind := range Kinds {
			for _, buildLeft := range []bool{false, true} {
				l, rt := other, side
				if buildLeft {
					l, rt = side, other
				}
				spec, err := NewSpec(kind, l.Schema, rt.Schema, keysOf(l.Schema), keysOf(rt.Schema))
				if err != nil {
					t.Fatal(err)
				}
				build := func(bits uint, budget *memory.Budget) *Hash {
					h := NewHash(spec, &tableOp{t: l, size: 64}, &tableOp{t: rt, size: 64}, buildLeft, budget)
					h.noRadix, h.radixBits = bits == 0, bits
					if err := h.readBuild(context.Background()); err != nil {
						t.Fatal(err)
					}
					if err := h.index(); err != nil {
						t.Fatal(err)
					}
					return h
				}
				what := fmt.Sprintf("%s/%s/buildLeft=%v", s.name, kind, buildLeft)
				rowOrder := memory.NewBudget(0)
				want := build(0, rowOrder)
				for _, bits := range []uint{1, 4, 10} {
					got := build(bits, memory.NewBudget(0))
					if !slices.Equal(got.next, want.next) {
						t.Fatalf("%s bits=%d: next differs\npartitioned: %v\nrow order:   %v", what, bits, head32(got.next), head32(want.next))
					}
					if got.buildHeld != 0 {
						t.Fatalf("%s bits=%d: the partitioned build still holds %d bytes", what, bits, got.buildHeld)
					}
					for row := range side.N {
						if a, b := chainOf(got, row), chainOf(want, row); !slices.Equal(a, b) {
							t.Fatalf("%s bits=%d: row %d's key looks up %v, row order %v", what, bits, row, a, b)
						}
					}
				}
				// A budget with room for the table as the row-order build needed it at its peak (the string map's
				// room for long keys before repeated keys give part of it back), but not for the partitioned
				// build's rows.
				tight := memory.NewBudget(rowOrder.Peak() + int64(side.N)*radixBuildRowBytes/2)
				got := build(4, tight)
				if side.N > 0 && !slices.Equal(got.next, want.next) {
					t.Fatalf("%s: the fallback's next differs", what)
				}
				if used := tight.Limit() - tight.Available(); used != got.held {
					t.Fatalf("%s: the budget holds %d bytes after the build, the join %d", what, used, got.held)
				}
			}
		}
	}
}

// chainOf lists the rows of the chain that build row row's key looks up, or nil for a null key.
func chainOf(h *Hash, row int) []int32 {
	bk, _ := h.buildKeys()
	keys := keyColumns(h.table.Batch(), bk, h.spec.KeyTypes)
	if hasNullKey(keys, row) {
		return nil
	}
	var head int32
	switch {
	case h.ints != nil:
		head = h.ints.Find(keys[0].Ints[row])
	case singleStringKey(keys):
		head = h.strs.Find(keys[0].Strs[row])
	default:
		s, _ := encodedKeys(keys, row, row+1, nil, nil)
		head = h.strs.Find(s[0])
	}
	var out []int32
	for r := head &^ chainMore; r >= 0; r = h.next[r] {
		out = append(out, r)
	}
	return out
}

func head32(s []int32) []int32 { return s[:min(len(s), 40)] }

// TestEncodedIntsMatchesJoinKeys checks encodedKeys' path for int keys (encodedInts) against the row-by-row
// encoding (appendJoinKey) it replaces: one to three columns of long, datetime and timespan, any range of rows,
// extreme values and nulls included ("" for a row with a null key).
func TestEncodedIntsMatchesJoinKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	types := []column.Type{column.Long, column.DateTime, column.Timespan}
	for trial := range 50 {
		n := 1 + r.IntN(300)
		var keys []*column.Vector
		for range 1 + trial%3 {
			v := column.NewVector(types[r.IntN(len(types))], n)
			for range n {
				switch r.IntN(7) {
				case 6:
					v.AppendNull()
				case 0:
					v.AppendInt(math.MinInt64)
				case 1:
					v.AppendInt(math.MaxInt64)
				default:
					v.AppendInt(r.Int64() - r.Int64())
				}
			}
			keys = append(keys, v)
		}
		lo := r.IntN(n)
		hi := lo + r.IntN(n-lo+1)
		got, _ := encodedKeys(keys, lo, hi, nil, nil)
		if len(got) != hi-lo {
			t.Fatalf("trial %d: %d keys for rows [%d, %d)", trial, len(got), lo, hi)
		}
		for i := lo; i < hi; i++ {
			var want []byte
			for _, k := range keys {
				want = appendJoinKey(want, k, i)
			}
			if hasNullKey(keys, i) {
				want = nil // a row with a null key gets ""
			}
			if got[i-lo] != string(want) {
				t.Fatalf("trial %d row %d: %x, want %x", trial, i, got[i-lo], want)
			}
		}
	}
}
