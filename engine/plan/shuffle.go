package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join"
)

// StrategyShuffle is Kusto's shuffle join (engine/join/shuffle.go): both sides partitioned by the key over
// the logical workers, each worker joining its pair of partitions.
const StrategyShuffle Strategy = "shuffle"

// Join parameters of the shuffle join, as Kusto spells them. hint.shufflekey=KEY names the key to partition
// by (one of the join's keys; alone, without hint.strategy, it selects the shuffle, as in Kusto) and
// hint.num_partitions=N fixes the number of workers.
const (
	shuffleParamKey        = "hint.shufflekey"
	shuffleParamPartitions = "hint.num_partitions"
	// shuffleMaxPartitions bounds hint.num_partitions: the salted join's widest shuffle, whose workers the
	// shuffle runs on.
	shuffleMaxPartitions = join.MaxWorkers
)

func init() {
	Register(StrategyDef{
		Name:   StrategyShuffle,
		Params: []string{shuffleParamKey, shuffleParamPartitions},
		Check:  checkShuffle,
		Open: func(jp *JoinPlan, l, r exec.Operator, env *exec.Env) (exec.Operator, error) {
			p, err := join.ShufflePlan(jp.Spec, workersOf(jp))
			if err != nil {
				return nil, err
			}
			return join.NewSalted(jp.Spec, p, l, r, env), nil
		},
		Explain: func(jp *JoinPlan) string {
			by := "all the join keys"
			if k, ok := jp.Params[shuffleParamKey]; ok {
				by = k
			}
			return fmt.Sprintf("W=%d logical workers; both sides partitioned by %s (est. %.0f + %.0f rows, each moved once), each worker joins its pair of partitions",
				workersOf(jp), by, jp.Left.Rows, jp.Right.Rows)
		},
	})
}

// checkShuffle checks the shuffle's parameters: the shuffle key must be one of the join's keys (a hash of all
// of them co-locates rows equal on any one, so the partitioning is the same), the partition count in range.
func checkShuffle(jp *JoinPlan) error {
	if k, ok := jp.Params[shuffleParamKey]; ok {
		var names []string
		found := false
		for i, lk := range jp.Spec.LeftKeys {
			l, r := jp.Spec.Left[lk].Name, jp.Spec.Right[jp.Spec.RightKeys[i]].Name
			names = append(names, l)
			found = found || strings.EqualFold(k, l) || strings.EqualFold(k, r)
		}
		if !found {
			return &ParamError{Name: shuffleParamKey, Err: fmt.Errorf("%s=%s: want one of the join's keys (%s)", shuffleParamKey, k, strings.Join(names, ", "))}
		}
	}
	_, err := shufflePartitions(jp)
	return err
}

// shufflePartitions reads hint.num_partitions: 0 when it is not set.
func shufflePartitions(jp *JoinPlan) (int, error) {
	v, ok := jp.Params[shuffleParamPartitions]
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > shuffleMaxPartitions {
		return 0, &ParamError{Name: shuffleParamPartitions, Err: fmt.Errorf("%s=%s: want a whole number of partitions in 1…%d", shuffleParamPartitions, v, shuffleMaxPartitions)}
	}
	return n, nil
}
