package dynfilter

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
)

func longKeys(vals ...int64) []column.Value {
	out := make([]column.Value, len(vals))
	for i, v := range vals {
		out[i] = column.Value{Type: column.Long, Int: v}
	}
	return out
}

// holds evaluates a filter's predicate on one long key.
func holds(t *testing.T, p connector.Predicate, col string, v int64) bool {
	t.Helper()
	vec := column.NewVector(column.Long, 0)
	vec.AppendInt(v)
	keep, err := connector.Eval(p, []string{col}, column.NewBatch([]*column.Vector{vec}, 1))
	if err != nil {
		t.Fatal(err)
	}
	return keep[0]
}

// TestCompactCoversEveryKey: the ranges of random key sets (seeded, logged) keep every key, number at most
// MaxRanges, and put the cuts at the widest gaps, so a key set of few clusters excludes the space between them.
func TestCompactCoversEveryKey(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		var vals []int64
		for c := 0; c < 1+r.IntN(12); c++ {
			base := r.Int64N(1 << 40)
			for k := 0; k < 1+r.IntN(30); k++ {
				vals = append(vals, base+r.Int64N(100))
			}
		}
		keys := Distinct(vecOf(vals), len(vals))
		f, err := Compact("k", keys, "test", connector.Caps{}, render)
		if err != nil || f.Kind != Ranges || len(f.Slices) != 1 {
			t.Fatalf("seed %d: %v %+v", seed, err, f)
		}
		if or, ok := f.Slices[0].Pred.(connector.Or); ok && len(or) > MaxRanges {
			t.Fatalf("seed %d: %d ranges", seed, len(or))
		}
		for _, v := range vals {
			if !holds(t, f.Slices[0].Pred, "k", v) {
				t.Fatalf("seed %d: key %d is outside %s", seed, v, f.Slices[0].Pred)
			}
		}
	}
	f, err := Compact("k", longKeys(1, 2, 3, 1000, 1001, 5000), "test", connector.Caps{}, render)
	if err != nil {
		t.Fatal(err)
	}
	if holds(t, f.Slices[0].Pred, "k", 500) || holds(t, f.Slices[0].Pred, "k", 3000) {
		t.Fatalf("three clusters, yet a gap between them is kept: %s", f.Slices[0].Pred)
	}
}

func vecOf(vals []int64) *column.Vector {
	v := column.NewVector(column.Long, 0)
	for _, x := range vals {
		v.AppendInt(x)
	}
	return v
}

// TestCompactOverCaps: string keys compact to min/max; a min/max over the query cap gives no filter, saying so.
func TestCompactOverCaps(t *testing.T) {
	f, err := Compact("user", keys(50), "many", connector.Caps{}, render)
	if err != nil || f.Kind != MinMax || !strings.Contains(f.Slices[0].Pred.String(), `user >= "user000@corp.example"`) {
		t.Fatalf("%v %+v", err, f)
	}
	f, err = Compact("user", keys(50), "many", connector.Caps{MaxQueryBytes: 20}, render)
	if err != nil || f.Kind != None || !strings.Contains(f.Why, "even the min/max range is over the query cap") {
		t.Fatalf("%v %+v", err, f)
	}
}

// TestCollectorLimit: the collector keeps distinct keys in first-seen order up to its limit and then only the
// bounds; nulls never count.
func TestCollectorLimit(t *testing.T) {
	c := NewCollector(3)
	v := vecOf([]int64{5, 3, 5, 9})
	v.AppendNull()
	c.Add(v, v.Len())
	if c.Over() || len(c.Keys()) != 3 || c.Keys()[0].Int != 5 {
		t.Fatalf("keys %v over %v", c.Keys(), c.Over())
	}
	c.Add(vecOf([]int64{-4}), 1)
	lo, hi, ok := c.Bounds()
	if !c.Over() || c.Keys() != nil || !ok || lo.Int != -4 || hi.Int != 9 {
		t.Fatalf("past the limit: keys %v over %v bounds %v %v", c.Keys(), c.Over(), lo, hi)
	}
}
