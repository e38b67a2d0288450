package join

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/spill"
)

// tryGrace runs a Grace join under a budget of limit bytes on a memory store, returning its rows or its
// error. Success or failure, it must leave no spill file and no byte held, and never pass the budget.
func tryGrace(t *testing.T, spec *Spec, lt, rt *column.Table, limit int64, cfg GraceConfig) ([]string, map[string]any, error) {
	t.Helper()
	env := exec.NewEnv(memory.NewBudget(limit), nil)
	store := spill.NewMemStore()
	cfg.NewStore = func(context.Context) (spill.Store, error) { return store, nil }
	g := NewGrace(spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, env, cfg)
	tab, err := exec.Materialize(context.Background(), g)
	if store.Files() != 0 {
		t.Fatalf("budget %d: %d spill files left (err %v)", limit, store.Files(), err)
	}
	if env.Budget.Available() != limit {
		t.Fatalf("budget %d: %d bytes still held (err %v)", limit, limit-env.Budget.Available(), err)
	}
	if peak := env.Budget.Peak(); peak > limit {
		t.Fatalf("budget %d: peak %d", limit, peak)
	}
	if err != nil {
		return nil, nil, err
	}
	rows, _ := rowsOf(t, &tableOp{t: tab, size: 1 << 20})
	return rows, env.Details.Map(), nil
}

// TestGraceBudgetMonotone sweeps the memory budget from 1 KiB to far past the inputs' size, for every kind,
// over skewed inputs (int keys, two keys of which one a string, and real keys against long ones), along the
// paths the knobs force: every pair on the hot-key path, a split and then the hot-key path, the hot key found
// by measuring, and the partition count and page size planned from a right estimate and from none. Every run that succeeds must equal the
// nested-loop oracle, and once a budget succeeds every larger one must: a larger budget never fails where a
// smaller one succeeds. The largest budget must succeed.
func TestGraceBudgetMonotone(t *testing.T) {
	skewed := func(s shape) shape { s.rows, s.domain, s.skew, s.nullRate = 300, 2000, 0.3, 0.03; return s }
	shapes := []pair{
		{skewed(shape{name: "ints", keyType: column.Long}), skewed(shape{name: "ints", keyType: column.Long})},
		{skewed(shape{name: "multikey", keyType: column.String, multiKey: true}),
			skewed(shape{name: "multikey", keyType: column.String, multiKey: true})},
		{skewed(shape{name: "realkeys", keyType: column.Long, realKeys: true}), skewed(shape{name: "ints", keyType: column.Long})},
	}
	kib := []int64{1, 2, 3, 4, 6, 8, 10, 12, 16, 24, 32, 64, 96, 128, 256}
	if graceSlowTests() { // one shape and fewer steps keep every kind and mode
		shapes, kib = shapes[:1], []int64{1, 2, 3, 4, 6, 8, 16, 64, 256}
	}
	for ci, c := range shapes {
		seed := uint64(4200 + ci)
		r := rand.New(rand.NewPCG(seed, seed))
		lt, rt := genTable(r, c.left, "L"), genTable(r, c.right, "R")
		est := float64(min(lt.Batch().Bytes(), rt.Batch().Bytes()))
		modes := []struct {
			name string
			cfg  GraceConfig
			hot  bool // every success takes the hot-key path
		}{
			{"forced-hot", GraceConfig{Partitions: 2, PageBytes: 256, ForceHot: true}, true},
			{"split-then-hot", GraceConfig{Partitions: 1, PageBytes: 256, ForceLevels: 1, MaxFanout: 2, ForceHot: true}, true},
			{"measured", GraceConfig{Partitions: 2, PageBytes: 256}, false},
			{"planned", GraceConfig{EstimatedBuildBytes: est, EstimatedBuildRows: float64(c.left.rows)}, false},
			{"unplanned", GraceConfig{}, false}, // an estimate of nothing: one partition, pages from the budget
		}
		for _, kind := range Kinds {
			t.Run(fmt.Sprintf("%s-%s/%s/seed=%d", c.left.name, c.right.name, kind, seed), func(t *testing.T) {
				spec, err := NewSpec(kind, lt.Schema, rt.Schema, keysOf(lt.Schema), keysOf(rt.Schema))
				if err != nil {
					t.Fatal(err)
				}
				want, _ := rowsOf(t, NewNestedLoop(spec, &tableOp{t: lt, size: 1000}, &tableOp{t: rt, size: 1000}, memory.NewBudget(0)))
				for _, m := range modes {
					first := int64(0) // the smallest budget that succeeded
					for _, k := range kib {
						limit := k << 10
						got, details, err := tryGrace(t, spec, lt, rt, limit, m.cfg)
						if err != nil {
							if first > 0 {
								t.Fatalf("%s: budget %d KiB fails but %d KiB succeeded: %v", m.name, k, first>>10, err)
							}
							continue
						}
						if first == 0 {
							first = limit
							t.Logf("%s: smallest budget that succeeds %d KiB", m.name, k)
						}
						if !slices.Equal(got, want) {
							t.Fatalf("%s budget %d KiB: grace gave %d rows, oracle %d\ngrace:  %v\noracle: %v",
								m.name, k, len(got), len(want), head(got), head(want))
						}
						if m.hot && detail(details, "hot_keys") == 0 {
							t.Fatalf("%s budget %d KiB: the hot-key path was not taken", m.name, k)
						}
					}
					if first == 0 {
						t.Fatalf("%s: no budget up to %d KiB succeeds", m.name, kib[len(kib)-1])
					}
				}
			})
		}
	}
}

// graceSlowTests reports a run where the budget tests take a sample: -short, or js/wasm (several times slower).
func graceSlowTests() bool { return testing.Short() || runtime.GOOS == "js" }

// TestGraceHotMinimum checks the minimum the hot-key path names when a budget is too small: on rows of one
// size, the budget it names is exactly the smallest that succeeds.
func TestGraceHotMinimum(t *testing.T) {
	schema := column.Schema{{Name: "k", Type: column.Long}, {Name: "v", Type: column.Long}}
	gen := func(rows int) *column.Table {
		tab := column.NewTable(schema)
		for i := range rows {
			tab.Cols[0].AppendInt(int64(i % 3))
			tab.Cols[1].AppendInt(int64(i))
		}
		tab.N = rows
		return tab
	}
	lt, rt := gen(200), gen(300)
	kinds := Kinds
	if graceSlowTests() { // the unique probe, marks and bitmap together, the bitmap alone, the marks alone
		kinds = []Kind{InnerUnique, FullOuter, LeftAnti, RightSemi}
	}
	for _, kind := range kinds {
		spec, err := NewSpec(kind, schema, schema, []int{0}, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		cfg := GraceConfig{Partitions: 1, PageBytes: 256, ForceHot: true}
		fails := func(limit int64) error { _, _, err := tryGrace(t, spec, lt, rt, limit, cfg); return err }
		// The smallest budget that succeeds, by bisection (the sweep above shows success is monotone).
		lo, hi := int64(1), int64(256<<10)
		if fails(hi) != nil {
			t.Fatalf("%s: even %d bytes fail: %v", kind, hi, fails(hi))
		}
		for lo < hi {
			if mid := (lo + hi) / 2; fails(mid) != nil {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		var hm *hotMemoryError
		if err := fails(lo - 1); !errors.As(err, &hm) {
			t.Fatalf("%s: %d bytes fail with %v, want the hot-key path's minimum", kind, lo-1, err)
		}
		if hm.Need != lo || hm.Free != lo-1 {
			t.Fatalf("%s: the error names %d bytes with %d free, but %d bytes is the smallest budget that succeeds: %v",
				kind, hm.Need, hm.Free, lo, hm)
		}
	}
}

// TestGraceErrorPrefixOnce checks that an error says "grace join:" once: a join too small for its hot-key
// path, and a Grace join over another (the three-way join) whose inner join fails.
func TestGraceErrorPrefixOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	s := shape{name: "skew", rows: 200, domain: 50, skew: 0.5, keyType: column.Long}
	lt, rt, st := genTable(r, s, "L"), genTable(r, s, "R"), genTable(r, s, "S")
	spec, _ := NewSpec(FullOuter, lt.Schema, rt.Schema, []int{0}, []int{0})
	cfg := GraceConfig{Partitions: 1, PageBytes: 256, ForceHot: true}
	check := func(t *testing.T, err error) {
		t.Helper()
		if err == nil || strings.Count(err.Error(), "grace join:") != 1 || !strings.HasPrefix(err.Error(), "grace join: ") {
			t.Fatalf("want one \"grace join:\" prefix, got %v", err)
		}
	}
	t.Run("hot-key", func(t *testing.T) {
		_, _, err := tryGrace(t, spec, lt, rt, 1<<10, cfg)
		check(t, err)
		if hm := (*hotMemoryError)(nil); !errors.As(err, &hm) {
			t.Fatalf("want the hot-key path's minimum, got %v", err)
		}
	})
	t.Run("nested", func(t *testing.T) {
		env := exec.NewEnv(memory.NewBudget(1<<10), nil)
		mem := func(context.Context) (spill.Store, error) { return spill.NewMemStore(), nil }
		inner := cfg
		inner.NewStore = mem
		in := NewGrace(spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, env, inner)
		outerSpec, err := NewSpec(Inner, spec.Schema, st.Schema, []int{0}, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		out := NewGrace(outerSpec, in, &tableOp{t: st, size: 64}, env, GraceConfig{Partitions: 1, PageBytes: 256, NewStore: mem})
		_, err = exec.Materialize(context.Background(), out)
		check(t, err)
	})
}
