package partition

import (
	"fmt"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
)

func ints(xs ...int64) *column.Vector {
	v := column.NewVector(column.Long, len(xs))
	for _, x := range xs {
		v.AppendInt(x)
	}
	return v
}

// TestEqualKeysSamePartition checks that equal keys meet whatever their representation path: the int fast
// path against the generic encoding, -0 against 0, and that nulls are set apart when asked.
func TestEqualKeysSamePartition(t *testing.T) {
	for seed := uint64(0); seed < 5; seed++ {
		p := Partitioner{Seed: seed, Fanout: 7}
		a := p.Assign([]*column.Vector{ints(1, 2, 3, 1000)}, 4, nil)
		var gen []int32
		for i := 0; i < 4; i++ {
			h, _ := Hash([]*column.Vector{ints(1, 2, 3, 1000)}, i, seed, nil)
			gen = append(gen, int32(reduce(h, 7)))
		}
		if fmt.Sprint(a) != fmt.Sprint(gen) {
			t.Fatalf("seed %d: fast path %v, generic %v", seed, a, gen)
		}
		r := column.NewVector(column.Real, 2)
		r.AppendReal(0)
		r.AppendReal(negZero())
		ra := p.Assign([]*column.Vector{r}, 2, nil)
		if ra[0] != ra[1] {
			t.Fatalf("seed %d: 0 and -0 in partitions %v", seed, ra)
		}
	}
	v := ints(5, 6)
	v.AppendNull()
	got := Partitioner{Seed: 1, Fanout: 4, NullsApart: true}.Assign([]*column.Vector{v}, 3, nil)
	if got[2] != NullKey || got[0] < 0 || got[1] < 0 {
		t.Fatalf("nulls apart: %v", got)
	}
}

func negZero() float64 { z := 0.0; return -z }

// TestSpreadAndReseed checks that sequential keys spread evenly and that a new seed re-splits one partition's
// keys over all partitions again (what re-partitioning relies on).
func TestSpreadAndReseed(t *testing.T) {
	const n, fan = 40000, 8
	keys := column.NewVector(column.Long, n)
	for i := 0; i < n; i++ {
		keys.AppendInt(int64(i * 16)) // multiples of the fanout: a weak hash would put them all in one place
	}
	a := Partitioner{Seed: 3, Fanout: fan}.Assign([]*column.Vector{keys}, n, nil)
	groups := Group(a, fan, nil)
	for p, g := range groups {
		if len(g) < n/fan*9/10 || len(g) > n/fan*11/10 {
			t.Fatalf("partition %d holds %d rows, want about %d", p, len(g), n/fan)
		}
	}
	sub := column.NewVector(column.Long, len(groups[0]))
	for _, i := range groups[0] {
		sub.AppendInt(keys.Ints[i])
	}
	b := Partitioner{Seed: LevelSeed(3, 1), Fanout: fan}.Assign([]*column.Vector{sub}, sub.Len(), nil)
	for p, g := range Group(b, fan, nil) {
		if want := len(groups[0]) / fan; len(g) < want*8/10 || len(g) > want*12/10 {
			t.Fatalf("re-split partition %d holds %d rows, want about %d", p, len(g), want)
		}
	}
}

func TestStringAndMultiKeys(t *testing.T) {
	s := column.NewVector(column.String, 3)
	s.AppendString("ab")
	s.AppendString("ab")
	s.AppendString("ba")
	h0, _ := Hash([]*column.Vector{s}, 0, 9, nil)
	h1, _ := Hash([]*column.Vector{s}, 1, 9, nil)
	h2, _ := Hash([]*column.Vector{s}, 2, 9, nil)
	if h0 != h1 || h0 == h2 {
		t.Fatalf("string hashes %x %x %x", h0, h1, h2)
	}
	m0, _ := Hash([]*column.Vector{ints(1, 1), s}, 0, 9, nil)
	m1, _ := Hash([]*column.Vector{ints(1, 1), s}, 1, 9, nil)
	if m0 != m1 {
		t.Fatal("equal multi-column keys hash differently")
	}
}
