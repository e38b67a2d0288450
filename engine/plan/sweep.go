package plan

import (
	"fmt"
	"strings"

	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/kql"
)

// StrategySweep is the interval join (engine/join/sweep.go). It runs every join whose on clause holds an
// overlap condition, and only those: no other strategy evaluates the comparisons, so the binder never hands
// them an interval join, and a hint naming another strategy for one is a query error.
const StrategySweep Strategy = "sweep"

// sweepPriority puts the sweep before every other strategy: an interval join has no other way to run.
const sweepPriority = 1000

func init() {
	Register(StrategyDef{
		Name: StrategySweep,
		Check: func(jp *JoinPlan) error {
			if jp.Interval == nil {
				return fmt.Errorf("the sweep needs an overlap condition in the on clause, such as " +
					"$left.start < $right.end and $right.start < $left.end")
			}
			return nil
		},
		Choose: func(jp *JoinPlan) (bool, string) {
			return jp.Interval != nil, "the on clause has an overlap condition"
		},
		Priority: sweepPriority,
		Open: func(jp *JoinPlan, l, r exec.Operator, env *exec.Env) (exec.Operator, error) {
			return join.NewSweep(jp.Interval, l, r, env.Budget, env.Trace, env.Details), nil
		},
		Explain: func(jp *JoinPlan) string {
			o := jp.Interval.Overlap
			bound := func(incl bool) string {
				if incl {
					return "inclusive"
				}
				return "exclusive"
			}
			return fmt.Sprintf("sweep by start per key, active sets expired by end; left.start vs right.end %s, "+
				"right.start vs left.end %s", bound(o.InclusiveLeftStart), bound(o.InclusiveRightStart))
		},
	})
}

// chooseSweep picks the strategy of an interval join: the sweep, unless a hint names another, which is an
// error rather than a silent wrong answer (the other strategies would ignore the overlap condition).
func chooseSweep(jp *JoinPlan, forced string) (StrategyDef, string, error) {
	if forced != "" && !strings.EqualFold(forced, string(StrategySweep)) {
		if _, ok := strategies[Strategy(strings.ToLower(forced))]; !ok {
			return StrategyDef{}, "", fmt.Errorf("unknown join strategy %q (available: %s)", forced, strings.Join(StrategyNames(), ", "))
		}
		return StrategyDef{}, "", fmt.Errorf("hint.strategy=%s cannot run this join: its on clause has an overlap "+
			"condition, which only hint.strategy=sweep evaluates", forced)
	}
	if forced != "" {
		return chooseStrategy(jp, forced)
	}
	d := strategies[StrategySweep]
	_, why := d.Choose(jp)
	return d, fmt.Sprintf("%s (left est. %.0f rows, right est. %.0f rows)", why, jp.Left.Rows, jp.Right.Rows), nil
}

// bindOverlap reads an on clause's comparisons as an overlap condition: exactly one `$left.a < $right.b` (the
// left interval starts before the right one ends) and one `$right.c < $left.d` (the right starts before the
// left ends), each with < (exclusive) or <= (inclusive). It resolves the four columns as keyColumn does.
func bindOverlap(left, right Node, conds []kql.JoinCond, pos kql.Pos) (Node, Node, join.Overlap, []string, error) {
	const want = "an interval join's on clause needs exactly two comparisons, " +
		"$left.start < $right.end and $right.start < $left.end (or <=)"
	var o join.Overlap
	var texts []string
	var haveStart, haveEnd bool
	for _, c := range conds {
		var err error
		var li, ri int
		if left, li, err = keyColumn(left, c.Left, c.Pos, "$left"); err != nil {
			return nil, nil, o, nil, err
		}
		if right, ri, err = keyColumn(right, c.Right, c.Pos, "$right"); err != nil {
			return nil, nil, o, nil, err
		}
		switch c.Op {
		case "<", "<=": // $left.start < $right.end
			if haveStart {
				return nil, nil, o, nil, kql.Errorf(c.Pos, "%s; found a second $left < $right comparison", want)
			}
			haveStart, o.LeftStart, o.RightEnd, o.InclusiveLeftStart = true, li, ri, c.Op == "<="
			texts = append(texts, fmt.Sprintf("$left.%s %s $right.%s", c.Left, c.Op, c.Right))
		case ">", ">=": // $left.end > $right.start, i.e. $right.start < $left.end
			if haveEnd {
				return nil, nil, o, nil, kql.Errorf(c.Pos, "%s; found a second $right < $left comparison", want)
			}
			haveEnd, o.LeftEnd, o.RightStart, o.InclusiveRightStart = true, li, ri, c.Op == ">="
			texts = append(texts, fmt.Sprintf("$right.%s %s $left.%s", c.Right, strings.Replace(c.Op, ">", "<", 1), c.Left))
		default:
			return nil, nil, o, nil, kql.Errorf(c.Pos, "unsupported join comparison %q", c.Op)
		}
	}
	if !haveStart || !haveEnd {
		return nil, nil, o, nil, kql.Errorf(pos, "%s", want)
	}
	return left, right, o, texts, nil
}

// intervalJoinNode is a join node whose strategy also reads the four interval columns, so they stay live even
// when nothing downstream uses them (a leftsemi join outputs no right column, yet the sweep needs its bounds).
type intervalJoinNode struct {
	*joinNode
}

func (n *intervalJoinNode) need(out []bool) [][]bool {
	need := n.joinNode.need(out)
	o := n.jp.Interval.Overlap
	need[0][o.LeftStart], need[0][o.LeftEnd] = true, true
	need[1][o.RightStart], need[1][o.RightEnd] = true, true
	return need
}
