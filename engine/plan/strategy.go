package plan

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/memory"
)

// Strategy names a join algorithm, as written in hint.strategy=NAME.
type Strategy string

const (
	StrategyHash       Strategy = "hash"
	StrategyNestedLoop Strategy = "nestedloop"
)

// JoinPlan is what a strategy sees of the join it is asked about: the validated spec, the planner's estimates
// of each side, the query's memory budget and the join's parameters.
type JoinPlan struct {
	Spec        *join.Spec
	Left, Right Estimate
	// BuildLeft is true when the left side is estimated smaller (the side an in-memory strategy holds).
	BuildLeft bool
	// Budget is the query's memory budget in bytes.
	Budget int64
	// Params are the join's name=value parameters other than kind (hint.strategy among them).
	Params map[string]string
	// Forced is true when hint.strategy named this strategy.
	Forced bool
	// Interval is the join's overlap condition when its on clause has one (an interval join, which only the
	// sweep runs: see sweep.go); nil for equality joins.
	Interval *join.SweepSpec
	// Top, when set, is the top N above the join whose bound filters its probe (a hash join of kind=inner:
	// see pushTopBounds).
	Top *TopInput
	// Where, when set, is the where directly above the join, compiled against the join's output schema, which
	// the join evaluates on its row pairs before copying their columns (see pushWheresIntoJoins); only a
	// strategy that declares TakesWhere is given one.
	Where expr.Expr

	left, right Node
	// ctx is the planning's context (see Context); err the first error a strategy's statistics met (see fail).
	ctx context.Context
	err error
}

// Estimate is the planner's guess at one side's size.
type Estimate struct {
	Rows  float64
	Bytes float64
}

// OpenSide makes a fresh running operator for one side of the join, so a strategy can measure its input
// (key frequencies, say) while planning. Sources can be scanned any number of times. Called while the plan
// is still being built (from Choose), before any node knows which of its columns are live, the side reads just
// Context is what a strategy's statistics read the sources under while planning: the caller's of Build, so a
// cancel stops them.
func (jp *JoinPlan) Context() context.Context {
	if jp.ctx == nil {
		return context.Background()
	}
	return jp.ctx
}

// fail records an error a strategy's statistics met while planning; the choice of strategy then fails with it
// instead of choosing as if the statistics had said nothing.
func (jp *JoinPlan) fail(err error) {
	if jp.err == nil {
		jp.err = err
	}
}

// its join keys; the liveness pass at the end of Build then replaces that with what the query reads.
func (jp *JoinPlan) OpenSide(ctx context.Context, left bool) (exec.Operator, error) {
	n, keys := jp.right, jp.Spec.RightKeys
	if left {
		n, keys = jp.left, jp.Spec.LeftKeys
	}
	if l, ok := n.(interface{ liveKnown() bool }); ok && !l.liveKnown() {
		live := make([]bool, len(n.Schema()))
		for _, k := range keys {
			live[k] = true
		}
		setLive(n, live)
	}
	return open(ctx, n, exec.NewEnv(memory.NewBudget(jp.Budget), nil))
}

// liveKnown reports whether the liveness pass has reached the node (see OpenSide).
func (b *base) liveKnown() bool { return b.live != nil }

// StrategyDef describes one join strategy to the planner. Each strategy registers itself from its own file.
type StrategyDef struct {
	Name Strategy
	// Baseline marks a deliberately naive alternative kept to show how it fails; it is never chosen
	// automatically and the UI labels it as such.
	Baseline bool
	// Check returns why the strategy cannot run this join (a kind it does not serve, a missing condition), or
	// nil. A forced strategy that fails Check is a query error, never a silent fallback.
	Check func(jp *JoinPlan) error
	// Choose, when not nil, is asked for unforced joins whether this strategy should run it, and why.
	// Strategies are asked in descending Priority; the hash join is the fallback.
	Choose   func(jp *JoinPlan) (bool, string)
	Priority int
	// TakesWhere marks a strategy whose operator evaluates JoinPlan.Where on its row pairs (join's pairs.go).
	TakesWhere bool
	// Open makes the running operator.
	Open func(jp *JoinPlan, left, right exec.Operator, env *exec.Env) (exec.Operator, error)
	// Explain, when not nil, adds strategy-specific detail to the physical plan line (partition count, W…).
	Explain func(jp *JoinPlan) string
	// Params are the join parameters, besides hint.strategy, that this strategy reads from JoinPlan.Params
	// (such as hint.partitions). The binder accepts a parameter some strategy declares and refuses it on a
	// join run by a strategy that does not, so a setting is never silently ignored.
	Params []string
}

// ParamError is a strategy's refusal of one of its declared parameters (a value out of range): the binder
// positions it at that parameter, and an unforced join reports it instead of quietly choosing another strategy.
type ParamError struct {
	Name string
	Err  error
}

func (e *ParamError) Error() string { return e.Err.Error() }
func (e *ParamError) Unwrap() error { return e.Err }

var strategies = map[Strategy]StrategyDef{}

// Register adds a strategy. It panics on a duplicate name: registration happens in init functions, so that
// is a programming error found by any test.
func Register(d StrategyDef) {
	if _, dup := strategies[d.Name]; dup {
		panic("plan: strategy registered twice: " + string(d.Name))
	}
	strategies[d.Name] = d
}

// declaredBy lists the strategies that declare the join parameter name, sorted.
func declaredBy(name string) []string {
	var out []string
	for n, d := range strategies {
		for _, p := range d.Params {
			if p == name {
				out = append(out, string(n))
			}
		}
	}
	sort.Strings(out)
	return out
}

// declaredParams lists every join parameter some strategy declares, sorted.
func declaredParams() []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range strategies {
		for _, p := range d.Params {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// StrategyNames lists the registered strategies, sorted.
func StrategyNames() []string {
	var names []string
	for n := range strategies {
		names = append(names, string(n))
	}
	sort.Strings(names)
	return names
}

func init() {
	Register(StrategyDef{
		Name:       StrategyHash,
		TakesWhere: true,
		Open: func(jp *JoinPlan, l, r exec.Operator, env *exec.Env) (exec.Operator, error) {
			h := join.NewHash(jp.Spec, l, r, jp.BuildLeft, env.Budget)
			if jp.Where != nil {
				h.SetWhere(jp.Where)
			}
			if t := jp.Top; t != nil {
				if err := h.SetTopBound(env.TopBound(t), t.Key, t.first()); err != nil {
					return nil, fmt.Errorf("plan: %w", err)
				}
			}
			return h, nil
		},
		Explain: func(jp *JoinPlan) string {
			if jp.BuildLeft {
				return "build left side"
			}
			return "build right side"
		},
	})
	Register(StrategyDef{
		Name: StrategyNestedLoop,
		Open: func(jp *JoinPlan, l, r exec.Operator, env *exec.Env) (exec.Operator, error) {
			return join.NewNestedLoop(jp.Spec, l, r, env.Budget), nil
		},
	})
}

// chooseStrategy picks the strategy for a join: the forced one when hint.strategy names one (checked), else
// the first registered strategy, by priority, that wants it, else the hash join.
func chooseStrategy(jp *JoinPlan, forced string) (StrategyDef, string, error) {
	sizes := fmt.Sprintf("left est. %.0f rows, right est. %.0f rows", jp.Left.Rows, jp.Right.Rows)
	if forced != "" {
		d, ok := strategies[Strategy(strings.ToLower(forced))]
		if !ok {
			return StrategyDef{}, "", fmt.Errorf("unknown join strategy %q (available: %s)", forced, strings.Join(StrategyNames(), ", "))
		}
		jp.Forced = true
		if d.Check != nil {
			if err := d.Check(jp); err != nil {
				if pe := (*ParamError)(nil); errors.As(err, &pe) {
					return StrategyDef{}, "", err
				}
				return StrategyDef{}, "", fmt.Errorf("hint.strategy=%s cannot run this join: %w", d.Name, err)
			}
		}
		return d, fmt.Sprintf("forced by hint.strategy=%s (%s)", d.Name, sizes), nil
	}
	var defs []StrategyDef
	for _, d := range strategies {
		if d.Choose != nil && !d.Baseline {
			defs = append(defs, d)
		}
	}
	sort.Slice(defs, func(i, j int) bool {
		if defs[i].Priority != defs[j].Priority {
			return defs[i].Priority > defs[j].Priority
		}
		return defs[i].Name < defs[j].Name
	})
	for _, d := range defs {
		if d.Check != nil {
			if err := d.Check(jp); err != nil {
				var pe *ParamError
				if errors.As(err, &pe) {
					return StrategyDef{}, "", err
				}
				continue
			}
		}
		ok, why := d.Choose(jp)
		if jp.err != nil {
			return StrategyDef{}, "", fmt.Errorf("the %s join's statistics: %w", d.Name, jp.err)
		}
		if ok {
			return d, why, nil
		}
	}
	return strategies[StrategyHash], "default strategy; the build side is the smaller one (" + sizes + ")", nil
}

// rowBytes estimates the bytes of one row of schema in memory.
func rowBytes(s column.Schema) float64 {
	var n float64
	for _, f := range s {
		switch f.Type {
		case column.Bool:
			n++
		case column.String, column.Dynamic:
			n += 16 + 16
		default:
			n += 8
		}
	}
	return n
}
