package plan

import (
	"fmt"

	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/memory"
)

// StrategyGrace is the Grace hash-partition join (engine/join/grace.go).
const StrategyGrace Strategy = "grace"

// graceHashShare is the share of the budget an unforced in-memory hash join may plan to take with its build
// side and hash table: past it the planner partitions instead, leaving the rest for the query's other holders
// and for the estimate being low.
const graceHashShare = 0.8

// graceBuild is the estimate of the smaller side: its bytes in memory and rows.
func graceBuild(jp *JoinPlan) join.BuildEstimate {
	if jp.BuildLeft {
		return join.BuildEstimate{Bytes: jp.Left.Bytes, Rows: jp.Left.Rows}
	}
	return join.BuildEstimate{Bytes: jp.Right.Bytes, Rows: jp.Right.Rows}
}

func init() {
	Register(StrategyDef{
		Name: StrategyGrace,
		// Every kind and key type works under partitioning; an overlap condition is not an equality to hash.
		Check: func(jp *JoinPlan) error {
			if jp.Interval != nil {
				return fmt.Errorf("the Grace join needs equality keys, not an interval condition")
			}
			return nil
		},
		Choose: func(jp *JoinPlan) (bool, string) {
			b := graceBuild(jp)
			need := join.HashBuildEstimate(b.Bytes, b.Rows)
			if need <= graceHashShare*float64(jp.Budget) {
				return false, ""
			}
			return true, fmt.Sprintf("the build side needs an estimated %s with its hash table, over %.0f%% of the %s budget",
				memory.Bytes(int64(need)), graceHashShare*100, memory.Bytes(jp.Budget))
		},
		Priority: 10,
		Open: func(jp *JoinPlan, l, r exec.Operator, env *exec.Env) (exec.Operator, error) {
			b := graceBuild(jp)
			return join.NewGrace(jp.Spec, l, r, env, join.GraceConfig{EstimatedBuildBytes: b.Bytes, EstimatedBuildRows: b.Rows}), nil
		},
		Explain: func(jp *JoinPlan) string {
			b := graceBuild(jp)
			parts, page := join.GracePartitions(b.Bytes, b.Rows, jp.Budget)
			return fmt.Sprintf("build estimate %s (%.0f rows), budget %s, %d partitions of %s pages",
				memory.Bytes(int64(join.HashBuildEstimate(b.Bytes, b.Rows))), b.Rows, memory.Bytes(jp.Budget), parts,
				memory.Bytes(int64(page)))
		},
	})
}
