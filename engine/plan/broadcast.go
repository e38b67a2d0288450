package plan

import (
	"fmt"
	"math"

	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/memory"
)

// StrategyBroadcast is Kusto's broadcast join (engine/join/broadcast.go): the small left side copied to every
// logical worker, the right side dealt out among them. Kusto means it for a left side of up to a few tens of
// megabytes; the fetch-all baseline that once had this name is StrategyFetchAll.
const StrategyBroadcast Strategy = "broadcast"

// broadcastMaxLeftBytes is the largest left side broadcast copies: Kusto fails a broadcast join whose left side
// is over "several tens of megabytes", since every node receives a copy; 64 MiB is that bound here.
const broadcastMaxLeftBytes = 64 << 20

// fetchAllPointer is what a broadcast refusal adds when the query looks written for the old meaning of the
// name (fetch a connector side whole in one request).
const fetchAllPointer = "; the fetch-all baseline that this name used to select is hint.strategy=fetchall"

func init() {
	Register(StrategyDef{
		Name:  StrategyBroadcast,
		Check: checkBroadcast,
		Open: func(jp *JoinPlan, l, r exec.Operator, env *exec.Env) (exec.Operator, error) {
			p, err := join.BroadcastPlan(jp.Spec, workersOf(jp))
			if err != nil {
				return nil, err
			}
			return join.NewSalted(jp.Spec, p, l, r, env), nil
		},
		Explain: func(jp *JoinPlan) string {
			w := workersOf(jp)
			return fmt.Sprintf("W=%d logical workers; the left side (est. %.0f rows) is copied to each of them, %.0f rows in all, and each joins its share of the right side (est. %.0f rows); held: est. %s",
				w, jp.Left.Rows, jp.Left.Rows*float64(w), jp.Right.Rows, memory.Bytes(int64(min(broadcastHeld(jp, w), math.MaxInt64))))
		},
	})
}

// checkBroadcast refuses the kinds a copied left side cannot decide and a left side too large to copy.
func checkBroadcast(jp *JoinPlan) error {
	if err := join.BroadcastServes(jp.Spec.Kind); err != nil {
		return err
	}
	if jp.Left.Bytes > broadcastMaxLeftBytes {
		return fmt.Errorf("the left side (est. %.0f rows, %s) is over the %s a broadcast copies to every worker: broadcast is for a small left side%s",
			jp.Left.Rows, memory.Bytes(int64(min(jp.Left.Bytes, math.MaxInt64))), memory.Bytes(broadcastMaxLeftBytes), fetchAllPointer)
	}
	w := workersOf(jp)
	if held := broadcastHeld(jp, w); jp.Budget > 0 && held > float64(jp.Budget) {
		return fmt.Errorf("it copies the left side (est. %.0f rows) to %d workers, %s in all with the right side, over the %s budget: broadcast is for a small left side%s",
			jp.Left.Rows, w, memory.Bytes(int64(min(held, math.MaxInt64))), memory.Bytes(jp.Budget), fetchAllPointer)
	}
	return nil
}

// broadcastHeld is what the broadcast join holds: W copies of the left side and the right side once.
func broadcastHeld(jp *JoinPlan, w int) float64 {
	return jp.Left.Bytes*float64(w) + jp.Right.Bytes
}

// workersOf is the logical workers of a broadcast or shuffle join: hint.num_partitions when set (checked by
// shuffleParams), else the worker rule of the salted join for the estimated rows.
func workersOf(jp *JoinPlan) int {
	if n, err := shufflePartitions(jp); err == nil && n > 0 {
		return n
	}
	return join.WorkersFor(int64(min(jp.Left.Rows+jp.Right.Rows, math.MaxInt64/2)))
}
