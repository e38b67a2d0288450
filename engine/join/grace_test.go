package join

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/spill"
	"github.com/joinlab/joinlab/engine/trace"
)

// graceRun runs a Grace join to the end on a memory store, returning its rows, details and trace.
type graceRun struct {
	rows    []string
	details map[string]any
	events  []trace.Event
	store   *spill.MemStore
	budget  *memory.Budget
}

func runGrace(t *testing.T, spec *Spec, l, r exec.Operator, budget int64, cfg GraceConfig) graceRun {
	t.Helper()
	rec := &trace.Recorder{}
	env := exec.NewEnv(memory.NewBudget(budget), rec)
	store := spill.NewMemStore()
	cfg.NewStore = func(context.Context) (spill.Store, error) { return store, nil }
	g := NewGrace(spec, l, r, env, cfg)
	rows, _ := rowsOf(t, g)
	if store.Files() != 0 {
		t.Fatalf("%d spill files left after the join", store.Files())
	}
	if h := env.Budget.Available(); h != env.Budget.Limit() {
		t.Fatalf("the join still holds %d bytes after its end", env.Budget.Limit()-h)
	}
	return graceRun{rows: rows, details: env.Details.Map(), events: rec.Events(), store: store, budget: env.Budget}
}

func detail(d map[string]any, k string) int64 { v, _ := d[k].(int64); return v }

// graceModes are the paths the oracle test forces with the knobs, each with the re-partition levels and the
// hot-key path it must take (when the inputs are not empty).
var graceModes = []struct {
	name   string
	cfg    GraceConfig
	levels int64
	hot    bool
}{
	{"level0", GraceConfig{Partitions: 3, PageBytes: 64}, 0, false},
	{"level1", GraceConfig{Partitions: 2, PageBytes: 64, ForceLevels: 1, MaxFanout: 2}, 1, false},
	{"level2", GraceConfig{Partitions: 2, PageBytes: 48, ForceLevels: 2, MaxFanout: 3}, 2, false},
	{"hot", GraceConfig{Partitions: 2, PageBytes: 64, ForceHot: true, HotBlockRows: 5}, 0, true},
	{"split-then-hot", GraceConfig{Partitions: 1, PageBytes: 32, ForceLevels: 1, MaxFanout: 2, ForceHot: true, HotBlockRows: 3}, 1, true},
}

// TestGraceMatchesNestedLoop checks the Grace join against the oracle for every kind and input shape, across
// batch sizes, along every path the knobs force: no re-partitioning, one and two levels, and the hot-key path
// with several blocks (alone and after a split).
func TestGraceMatchesNestedLoop(t *testing.T) {
	// Every batch size on the plain path; a spread of them on the forced paths (and everywhere under js/wasm or
	// -short), which keeps the suite fast without losing a path.
	few := []int{1, 7, 50}
	slow := testing.Short() || runtime.GOOS == "js"
	for ci, c := range cases() {
		seed := uint64(2000 + ci)
		r := rand.New(rand.NewPCG(seed, seed))
		lt, rt := genTable(r, c.left, "L"), genTable(r, c.right, "R")
		for _, kind := range Kinds {
			t.Run(fmt.Sprintf("%s-%s/%s/seed=%d", c.left.name, c.right.name, kind, seed), func(t *testing.T) {
				spec, err := NewSpec(kind, lt.Schema, rt.Schema, keysOf(lt.Schema), keysOf(rt.Schema))
				if err != nil {
					t.Fatal(err)
				}
				want, _ := rowsOf(t, NewNestedLoop(spec, &tableOp{t: lt, size: 1000}, &tableOp{t: rt, size: 1000}, memory.NewBudget(0)))
				for mi, m := range graceModes {
					sizes := few
					if mi == 0 && !slow {
						sizes = batchSizes
					}
					for _, size := range sizes {
						got := runGrace(t, spec, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, 0, m.cfg)
						if !slices.Equal(got.rows, want) {
							t.Fatalf("%s batch=%d: grace gave %d rows, oracle %d\ngrace:  %v\noracle: %v",
								m.name, size, len(got.rows), len(want), head(got.rows), head(want))
						}
						if lt.N+rt.N == 0 {
							continue
						}
						if lv := detail(got.details, "repartition_levels"); lv != m.levels {
							t.Fatalf("%s: %d re-partition levels, want %d", m.name, lv, m.levels)
						}
						if hot := detail(got.details, "hot_keys") > 0; hot != m.hot {
							t.Fatalf("%s: hot-key path taken %v, want %v", m.name, hot, m.hot)
						}
					}
				}
			})
		}
	}
}

var oracleCache = map[string][]string{}

// budgetCase generates a larger join and runs it under a real budget, with no knob but the partition count.
func budgetCase(t *testing.T, kind Kind, left, right shape, seed uint64, budget int64, cfg GraceConfig) (graceRun, []string) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	lt, rt := genTable(r, left, "L"), genTable(r, right, "R")
	spec, err := NewSpec(kind, lt.Schema, rt.Schema, []int{0}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprint(kind, left, right, seed)
	want, ok := oracleCache[key]
	if !ok {
		// The hash join, itself checked against the nested-loop oracle, is the reference at these sizes.
		want, _ = rowsOf(t, NewHash(spec, &tableOp{t: lt, size: 1000}, &tableOp{t: rt, size: 1000}, true, memory.NewBudget(0)))
		oracleCache[key] = want
	}
	got := runGrace(t, spec, &tableOp{t: lt, size: 64}, &tableOp{t: rt, size: 64}, budget, cfg)
	if !slices.Equal(got.rows, want) {
		t.Fatalf("%s seed=%d budget=%d: grace gave %d rows, oracle %d", kind, seed, budget, len(got.rows), len(want))
	}
	if peak := got.budget.Peak(); peak > budget {
		t.Fatalf("peak %d over the budget %d", peak, budget)
	}
	return got, want
}

// TestGraceBudgetForcesLevels shrinks the budget under an input the plan underestimated (one partition
// planned) until the join must re-partition once, then twice; the re-partition fan-out comes from the budget.
func TestGraceBudgetForcesLevels(t *testing.T) {
	left := shape{name: "users", rows: 1200, domain: 100000, keyType: column.Long, nullRate: 0.05}
	right := shape{name: "listens", rows: 2400, domain: 100000, keyType: column.Long, nullRate: 0.05}
	for _, c := range []struct {
		budget int64
		cfg    GraceConfig
		levels int64
	}{
		{200_000, GraceConfig{Partitions: 4, PageBytes: 512}, 0},
		{60_000, GraceConfig{Partitions: 1, PageBytes: 512}, 1},
		{40_000, GraceConfig{Partitions: 1, PageBytes: 512, MaxFanout: 2}, 2},
	} {
		for _, kind := range Kinds {
			got, _ := budgetCase(t, kind, left, right, 77, c.budget, c.cfg)
			if lv := detail(got.details, "repartition_levels"); lv != c.levels {
				t.Fatalf("%s budget=%d %+v: %d levels, want %d", kind, c.budget, c.cfg, lv, c.levels)
			}
			if detail(got.details, "hot_keys") != 0 {
				t.Fatalf("%s: distinct keys took the hot-key path", kind)
			}
		}
	}
}

// TestGraceHotKey gives one key a quarter of both sides' rows under a budget its partition cannot fit: the
// split barely shrinks it, so it must go to the hot-key path (found by measuring, not forced), for every kind.
func TestGraceHotKey(t *testing.T) {
	left := shape{name: "skew", rows: 600, domain: 5000, skew: 0.25, keyType: column.Long, nullRate: 0.02}
	right := shape{name: "skew", rows: 600, domain: 5000, skew: 0.25, keyType: column.Long, nullRate: 0.02}
	for _, kind := range Kinds {
		got, _ := budgetCase(t, kind, left, right, 91, 10_000, GraceConfig{Partitions: 2, PageBytes: 256})
		if detail(got.details, "hot_keys") == 0 {
			t.Fatalf("%s: the hot key was not found (details %v)", kind, got.details)
		}
		var found bool
		for _, e := range got.events {
			if h, ok := e.Payload.(joinevent.HotKey); ok && h.Key == "0" {
				found = true
			}
		}
		if !found {
			t.Fatalf("%s: no hot_key event names key 0", kind)
		}
	}
}

// TestGraceDocumentExample is the source document's figure: 4 users and 8 listens split into 3 partitions,
// R 2+1+1 rows and S 4+2+2, joined pair by pair into 4 + 2 + 2 output rows. The seed is the one under which
// this hash puts the figure's keys where the figure does (42 and 99 in 0, 7 in 1, 13 in 2).
func TestGraceDocumentExample(t *testing.T) {
	const figureSeed = 51
	users := column.NewTable(column.Schema{{Name: "user_id", Type: column.Long}, {Name: "name", Type: column.String}})
	for _, u := range []struct {
		id   int64
		name string
	}{{7, "Mickey"}, {13, "Minnie"}, {42, "Pluto"}, {99, "Daffy"}} {
		users.Cols[0].AppendInt(u.id)
		users.Cols[1].AppendString(u.name)
		users.N++
	}
	listens := column.NewTable(column.Schema{{Name: "user_id", Type: column.Long}, {Name: "song_id", Type: column.Long}})
	for _, l := range [][2]int64{{42, 100}, {7, 200}, {13, 100}, {42, 300}, {7, 100}, {13, 200}, {42, 400}, {99, 500}} {
		listens.Cols[0].AppendInt(l[0])
		listens.Cols[1].AppendInt(l[1])
		listens.N++
	}
	spec, err := NewSpec(Inner, users.Schema, listens.Schema, []int{0}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	got := runGrace(t, spec, &tableOp{t: users, size: 4}, &tableOp{t: listens, size: 8}, 0,
		GraceConfig{Partitions: 3, Seed: figureSeed})
	if len(got.rows) != 8 {
		t.Fatalf("%d output rows, want 8", len(got.rows))
	}
	written := map[string][]int64{}
	joined := map[string]int64{}
	for _, e := range got.events {
		switch p := e.Payload.(type) {
		case joinevent.PartitionWritten:
			written[p.Side] = append(written[p.Side], p.Rows)
		case joinevent.PairJoined:
			joined[p.Partition] = p.Rows
			if p.Build != "left" {
				t.Errorf("pair %s built on the %s side, want the smaller, users", p.Partition, p.Build)
			}
		}
	}
	if fmt.Sprint(written["left"]) != "[2 1 1]" || fmt.Sprint(written["right"]) != "[4 2 2]" {
		t.Fatalf("partition sizes: users %v, listens %v; want [2 1 1] and [4 2 2]", written["left"], written["right"])
	}
	if fmt.Sprint(joined) != "map[0:4 1:2 2:2]" {
		t.Fatalf("pair outputs %v, want 4 + 2 + 2", joined)
	}
}

// TestGraceIOBound checks the page counts on a join without skew: every spilled page is written once and
// read once, so the total stays within 1.1 of 3(N+M) (partial last pages are the only excess).
func TestGraceIOBound(t *testing.T) {
	left := shape{name: "build", rows: 4000, domain: 1 << 30, keyType: column.Long}
	right := shape{name: "probe", rows: 12000, domain: 1 << 30, keyType: column.Long}
	got, _ := budgetCase(t, Inner, left, right, 5, 400_000, GraceConfig{EstimatedBuildBytes: 4000 * 40, EstimatedBuildRows: 4000})
	d := got.details
	io := detail(d, "io_pages_read") + detail(d, "io_pages_written")
	bound := detail(d, "io_pages_bound")
	t.Logf("partitions=%d page_bytes=%d io=%d bound=%d ratio=%.3f", detail(d, "partitions"), detail(d, "page_bytes"), io, bound, float64(io)/float64(bound))
	if detail(d, "partitions") < 2 {
		t.Fatalf("the budget should have asked for several partitions: %v", d)
	}
	if float64(io) > 1.1*float64(bound) || io < bound*9/10 {
		t.Fatalf("io %d pages against a bound of %d", io, bound)
	}
}

// failingOp returns its table's batches, then an error.
type failingOp struct {
	tableOp
	after int
}

func (o *failingOp) Next(ctx context.Context) (*column.Batch, error) {
	if o.after == 0 {
		return nil, errors.New("source failed")
	}
	o.after--
	return o.tableOp.Next(ctx)
}

// TestGraceRemovesSpillFiles runs the join on a file store and checks that its folder is gone after success,
// after an input error, after a cancellation seen by Next, and after the run's end when the join was never pulled to its end.
func TestGraceRemovesSpillFiles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	s := shape{name: "ties", rows: 300, domain: 40, keyType: column.Long}
	lt, rt := genTable(r, s, "L"), genTable(r, s, "R")
	spec, _ := NewSpec(FullOuter, lt.Schema, rt.Schema, []int{0}, []int{0})
	run := func(t *testing.T, ctx context.Context, right exec.Operator, pulls int) (string, error) {
		dir := t.TempDir()
		env := exec.NewEnv(memory.NewBudget(0), nil)
		cfg := GraceConfig{Partitions: 4, PageBytes: 128,
			NewStore: func(context.Context) (spill.Store, error) { return spill.NewFileStore(dir) }}
		g := NewGrace(spec, &tableOp{t: lt, size: 16}, right, env, cfg)
		var err error
		for i := 0; pulls < 0 || i < pulls; i++ {
			var b *column.Batch
			if b, err = g.Next(ctx); b == nil || err != nil {
				break
			}
		}
		return dir, err
	}
	empty := func(t *testing.T, dir string) bool {
		t.Helper()
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return len(ents) == 0
	}
	t.Run("success", func(t *testing.T) {
		dir, err := run(t, context.Background(), &tableOp{t: rt, size: 16}, -1)
		if err != nil || !empty(t, dir) {
			t.Fatalf("err %v, folder empty %v", err, empty(t, dir))
		}
	})
	t.Run("error", func(t *testing.T) {
		dir, err := run(t, context.Background(), &failingOp{tableOp{t: rt, size: 16}, 5}, -1)
		if err == nil || !empty(t, dir) {
			t.Fatalf("err %v, folder empty %v", err, empty(t, dir))
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		dir, err := run(t, ctx, &cancelOp{tableOp{t: rt, size: 16}, 10, cancel}, -1)
		if !errors.Is(err, context.Canceled) || !empty(t, dir) {
			t.Fatalf("err %v, folder empty %v", err, empty(t, dir))
		}
	})
	t.Run("abandoned", func(t *testing.T) {
		// Pulled once and then left (a take above it, an error elsewhere in the plan), the join never sees its
		// end: its store belongs to the run's space, which removes it, before Close returns.
		// (In the browser the space's stores are in memory and the folder stays empty throughout.)
		dir := t.TempDir()
		space := spill.NewSpace(dir)
		env := exec.NewEnv(memory.NewBudget(0), nil)
		var st spill.Store
		g := NewGrace(spec, &tableOp{t: lt, size: 16}, &tableOp{t: rt, size: 16}, env,
			GraceConfig{Partitions: 4, PageBytes: 128, NewStore: func(ctx context.Context) (spill.Store, error) {
				s, err := spill.StoreFor(ctx) // the default, kept to look at
				st = s
				return s, err
			}})
		if _, err := g.Next(spill.WithSpace(context.Background(), space)); err != nil {
			t.Fatal(err)
		}
		if st == nil || st.IO().PagesWritten == 0 {
			t.Fatal("the join had spilled nothing: the test would not show the cleanup")
		}
		if err := space.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Create(); !errors.Is(err, spill.ErrClosed) {
			t.Fatalf("the join's store is still open after the run's space was closed: Create gave %v", err)
		}
		if !empty(t, dir) {
			t.Fatal("the spill folder is still there after the run's space was closed")
		}
	})
}

// cancelOp cancels the run after a number of batches.
type cancelOp struct {
	tableOp
	after  int
	cancel func()
}

func (o *cancelOp) Next(ctx context.Context) (*column.Batch, error) {
	if o.after == 0 {
		o.cancel()
		return nil, ctx.Err()
	}
	o.after--
	return o.tableOp.Next(ctx)
}
