package plan

import (
	"fmt"
	"strconv"

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

// Join parameters of the Grace join: hint.partitions=P fixes the level-0 partition count (instead of the
// one the budget asks for) and hint.seed=S seeds the partitioning hash, so a teaching example can put each key
// in the partition its figure shows (the walkthroughs do). Both leave the result unchanged.
const (
	graceParamPartitions = "hint.partitions"
	graceParamSeed       = "hint.seed"
	// graceMaxPartitions is the most partitions hint.partitions may ask for: the join's own fan-out cap
	// (graceMaxFanout in engine/join/grace.go), past which page buffers crowd out the build side.
	graceMaxPartitions = 256
)

// graceParams reads the Grace join's parameters.
func graceParams(jp *JoinPlan) (partitions int, seed uint64, err error) {
	if v, ok := jp.Params[graceParamPartitions]; ok {
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 || n > graceMaxPartitions {
			return 0, 0, fmt.Errorf("%s=%s: want a whole number of partitions in 1…%d", graceParamPartitions, v, graceMaxPartitions)
		}
		partitions = n
	}
	if v, ok := jp.Params[graceParamSeed]; ok {
		n, perr := strconv.ParseUint(v, 10, 64)
		if perr != nil || n == 0 {
			return 0, 0, fmt.Errorf("%s=%s: want a positive whole number", graceParamSeed, v)
		}
		seed = n
	}
	return partitions, seed, nil
}

func init() {
	Register(StrategyDef{
		Name:   StrategyGrace,
		Params: []string{graceParamPartitions, graceParamSeed},
		// Every kind and key type works under partitioning; an overlap condition is not an equality to hash.
		Check: func(jp *JoinPlan) error {
			if jp.Interval != nil {
				return fmt.Errorf("the Grace join needs equality keys, not an interval condition")
			}
			_, _, err := graceParams(jp)
			return err
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
			parts, seed, err := graceParams(jp)
			if err != nil {
				return nil, err
			}
			return join.NewGrace(jp.Spec, l, r, env, join.GraceConfig{EstimatedBuildBytes: b.Bytes, EstimatedBuildRows: b.Rows,
				Partitions: parts, Seed: seed}), nil
		},
		Explain: func(jp *JoinPlan) string {
			b := graceBuild(jp)
			parts, page := join.GracePartitions(b.Bytes, b.Rows, jp.Budget)
			if p, _, _ := graceParams(jp); p > 0 {
				parts = p
			}
			return fmt.Sprintf("build estimate %s (%.0f rows), budget %s, %d partitions of %s pages",
				memory.Bytes(int64(join.HashBuildEstimate(b.Bytes, b.Rows))), b.Rows, memory.Bytes(jp.Budget), parts,
				memory.Bytes(int64(page)))
		},
	})
}
