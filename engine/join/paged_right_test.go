package join

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/memory"
)

// rightOracle is the nested loop over the whole tables with Dets on the left and Logs (the paged side) on the
// right, in the order the paged join promises: the paged side's sort (ts desc, nulls last), its key, its
// table key, then the other side's.
func rightOracle(t *testing.T, spec *Spec, c pagedCase) []string {
	t.Helper()
	nl := NewNestedLoop(spec, &tableOp{t: sortTable(c.dets, detKey), size: 7}, &tableOp{t: c.logs, size: 7}, memory.NewBudget(0))
	tab, err := exec.Materialize(context.Background(), nl)
	if err != nil {
		t.Fatal(err)
	}
	return render(sortTable(tab, pagedOrder(tab)))
}

// TestPagedRightOracle pages the right side (Logs) of Dets ⋈ Logs for the kinds served that way — inner,
// innerunique, rightsemi — against the nested loop: identical rows in identical order over dense ties, skewed
// and null keys, null timestamps, tiny caps, fixed pages of 1, 2 and 7 rows and adaptive ones, with and without
// 10% injected faults.
func TestPagedRightOracle(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		r := rand.New(rand.NewPCG(seed, 77))
		n := []int{0, 1, 40, 150, 260}[seed-1]
		logs := logTable(genLogs(r, n, 9))
		var dets []string
		for i := 0; i < 20; i++ {
			dets = append(dets, fmt.Sprintf("u%02d", r.IntN(12)))
		}
		for _, kind := range []Kind{Inner, InnerUnique, RightSemi} {
			for _, page := range []int{1, 2, 7, 0} {
				for _, faults := range []float64{0, 0.1} {
					name := fmt.Sprintf("seed=%d/rows=%d/%s/page=%d/faults=%g", seed, n, kind, page, faults)
					t.Run(name, func(t *testing.T) {
						c := pagedCase{logs: logs, dets: detTable(dets...), faults: faults, seed: seed,
							logCaps: connector.Caps{MaxRows: 50, MaxInValues: 3, MaxQueryBytes: 4096},
							detCaps: connector.Caps{MaxRows: 4, MaxInValues: 2}}
						spec, err := NewSpec(kind, detSchema, logSchema, []int{0}, []int{1})
						if err != nil {
							t.Fatal(err)
						}
						want := rightOracle(t, spec, c)
						l, rr, _, _ := c.remotes()
						env := exec.NewEnv(memory.NewBudget(0), nil)
						cfg := PagedConfig{PagedLeft: false, Limit: -1, FirstPage: max(page, 1), FixedPage: page > 0,
							Sort: []SortColumn{{Column: "ts", Desc: true}}}
						op, err := NewPaged(spec, rr, l, cfg, env)
						got, err := runPaged(t, op, err)
						if err != nil {
							t.Fatal(err)
						}
						if strings.Join(got, "\n") != strings.Join(want, "\n") {
							t.Fatalf("got %d rows, want %d\ngot:\n%s\nwant:\n%s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
						}
					})
				}
			}
		}
	}
}
