package join

import (
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
)

// TestBroadcastMatchesHash: the broadcast join equals the hash join for every kind it serves, refuses the
// left-preserving kinds, and copies the left side to every worker while dealing each right row to one.
func TestBroadcastMatchesHash(t *testing.T) {
	checkWorkersMatchHash(t, BroadcastPlan, BroadcastServes, func(t *testing.T, spec *Spec, env *exec.Env, p *SaltPlan, lt, rt *column.Table) {
		switch spec.Kind {
		case InnerUnique, FullOuter: // the left side is reduced, or partly set apart, before it is copied
			return
		}
		want := int64(lt.N-nullKeyRows(lt)) * int64(p.Workers-1)
		if got := env.Details.Int("rows_replicated"); got != want {
			t.Fatalf("W=%d: %d left rows copied, want every non-null-key left row on every worker (%d copies)", p.Workers, got, want)
		}
	})
}

// nullKeyRows counts the rows of t with a null join key (keysOf's columns).
func nullKeyRows(t *column.Table) int {
	n := 0
	for i := 0; i < t.N; i++ {
		for _, k := range keysOf(t.Schema) {
			if t.Cols[k].IsNull(i) {
				n++
				break
			}
		}
	}
	return n
}

func TestBroadcastRefusesLeftKinds(t *testing.T) {
	for _, k := range []Kind{LeftOuter, LeftSemi, LeftAnti} {
		err := BroadcastServes(k)
		if err == nil || !strings.Contains(err.Error(), "hint.strategy=shuffle") {
			t.Fatalf("%s: %v, want a refusal that points to the shuffle", k, err)
		}
	}
}
