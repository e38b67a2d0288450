package join

import (
	"slices"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// workerPlan plans one of the worker-model joins (ShufflePlan, BroadcastPlan) for spec over w workers.
type workerPlan func(spec *Spec, w int) (*SaltPlan, error)

// checkWorkersMatchHash runs plan's join against the hash join (itself checked against the nested-loop oracle)
// for every kind serve accepts, every shape of the salted join's harness, 1, 4 and 7 workers, every batch size
// and output batches of 3 rows; a kind serve refuses must be refused by plan too.
func checkWorkersMatchHash(t *testing.T, plan workerPlan, serve func(Kind) error, check func(t *testing.T, spec *Spec, env *exec.Env, p *SaltPlan, lt, rt *column.Table)) {
	eachKindCase(t, saltCases(), 7000, func(t *testing.T, c pair, kind Kind, spec *Spec, lt, rt *column.Table) {
		if serve(kind) != nil {
			if _, err := plan(spec, 4); err == nil {
				t.Fatalf("kind %s is not served, but the plan was made", kind)
			}
			return
		}
		want, _ := rowsOf(t, NewNestedLoop(spec, &tableOp{t: lt, size: 1000}, &tableOp{t: rt, size: 1000}, memory.NewBudget(0)))
		hash, _ := rowsOf(t, NewHash(spec, &tableOp{t: lt, size: 7}, &tableOp{t: rt, size: 7}, false, memory.NewBudget(0)))
		if !slices.Equal(hash, want) {
			t.Fatalf("the hash join disagrees with the oracle")
		}
		for _, w := range []int{1, 4, 7} {
			for _, size := range batchSizes {
				p, err := plan(spec, w)
				if err != nil {
					t.Fatal(err)
				}
				env := exec.NewEnv(memory.NewBudget(0), &trace.Recorder{})
				s := NewSalted(spec, p, &tableOp{t: lt, size: size}, &tableOp{t: rt, size: size}, env)
				s.maxOut = 3
				got, _ := rowsOf(t, s)
				if !slices.Equal(got, hash) {
					t.Fatalf("W=%d batch=%d: %d rows, the hash join %d\ngot:  %v\nhash: %v", w, size, len(got), len(hash), head(got), head(hash))
				}
				if check != nil {
					check(t, spec, env, p, lt, rt)
				}
			}
		}
	})
}

// TestShuffleMatchesHash: the shuffle join equals the hash join for every kind, and every worker holds whole
// keys: no key's rows are on two workers.
func TestShuffleMatchesHash(t *testing.T) {
	checkWorkersMatchHash(t, ShufflePlan, func(Kind) error { return nil }, func(t *testing.T, _ *Spec, env *exec.Env, p *SaltPlan, lt, rt *column.Table) {
		if got := env.Details.Int("rows_replicated"); got != 0 {
			t.Fatalf("the shuffle copied %d rows; it must move each row once", got)
		}
		if p.SaltedKeys() != 0 {
			t.Fatalf("the shuffle salted %d keys", p.SaltedKeys())
		}
	})
}
