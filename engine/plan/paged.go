package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/memory"
)

// The paged federated join (engine/join/paged.go) and the naive alternatives it replaces, kept as baselines
// so their failures can be shown: each is a strategy over two connector sources.
const (
	StrategyPaged        Strategy = "paged"
	StrategyFetchAll     Strategy = "fetchall"     // fetch the whole paged side in one request: hits the cap
	StrategyTimeWindow   Strategy = "timewindow"   // pages by fixed time windows: a window can exceed the cap
	StrategyDistinctKeys Strategy = "distinctkeys" // pages by distinct keys: breaks the global order
	StrategyKeysetLT     Strategy = "keyset-lt"    // keyset on the sort column with <: loses rows tied at edges
	StrategyKeysetLE     Strategy = "keyset-le"    // keyset on the sort column with <=: repeats rows, stalls
)

// pagedPriority puts the paged join before the Grace join (10): a side that cannot be fetched in one request
// cannot be partitioned either, since partitioning reads it whole.
const pagedPriority = 20

// pagedOperator makes a paged-family operator; cfg carries what the rewrite pass found above the join.
type pagedOperator func(spec *join.Spec, left, right *join.Remote, cfg join.PagedConfig, env *exec.Env) (exec.Operator, error)

// pagedFamily is every strategy of the family, with its operator and whether its output follows a sort on the
// given paged column (so the rewrite may drop the sort above it and let take stop it early).
var pagedFamily = map[Strategy]struct {
	open        pagedOperator
	claimsOrder func(col string, desc bool, info connector.TableInfo) bool
	label       string
}{}

func registerPaged(name Strategy, baseline bool, label string, open pagedOperator, claims func(string, bool, connector.TableInfo) bool) {
	pagedFamily[name] = struct {
		open        pagedOperator
		claimsOrder func(col string, desc bool, info connector.TableInfo) bool
		label       string
	}{open, claims, label}
	params := []string{pagedParamPageRows}
	if name == StrategyPaged {
		params = append(params, pagedParamFirstPage)
	}
	def := StrategyDef{
		Name:     name,
		Baseline: baseline,
		Params:   params,
		Check:    func(jp *JoinPlan) error { return checkPaged(jp, name) },
		Open: func(jp *JoinPlan, _, _ exec.Operator, env *exec.Env) (exec.Operator, error) {
			return openPaged(jp, name, join.PagedConfig{Limit: -1, PagedLeft: pagedLeft(jp)}, env)
		},
		Explain: func(jp *JoinPlan) string { return explainPaged(jp, label) },
	}
	if !baseline {
		def.Choose, def.Priority = choosePaged, pagedPriority
	}
	Register(def)
}

func init() {
	always := func(string, bool, connector.TableInfo) bool { return true }
	registerPaged(StrategyPaged, false, "thin keyset pages over (sort, key), dynamic filter, inclusive re-fetch",
		func(spec *join.Spec, l, r *join.Remote, cfg join.PagedConfig, env *exec.Env) (exec.Operator, error) {
			return join.NewPaged(spec, l, r, cfg, env)
		}, always)
	registerPaged(StrategyFetchAll, true, "BASELINE (limited): fetches the whole side in one request",
		func(spec *join.Spec, l, r *join.Remote, cfg join.PagedConfig, env *exec.Env) (exec.Operator, error) {
			return join.NewFetchAll(spec, l, r, cfg, env)
		}, always)
	registerPaged(StrategyTimeWindow, true, "BASELINE (limited): fixed time windows, no cap on a window's rows",
		func(spec *join.Spec, l, r *join.Remote, cfg join.PagedConfig, env *exec.Env) (exec.Operator, error) {
			return join.NewTimeWindow(spec, l, r, cfg, env)
		}, func(col string, desc bool, info connector.TableInfo) bool {
			return desc && join.TimeWindowColumn(info) == col
		})
	registerPaged(StrategyDistinctKeys, true, "BASELINE (wrong order): pages of distinct keys",
		func(spec *join.Spec, l, r *join.Remote, cfg join.PagedConfig, env *exec.Env) (exec.Operator, error) {
			return join.NewDistinctKeys(spec, l, r, cfg, env)
		}, always)
	registerPaged(StrategyKeysetLT, true, "BASELINE (wrong: loses rows): keyset on the sort column alone with <",
		func(spec *join.Spec, l, r *join.Remote, cfg join.PagedConfig, env *exec.Env) (exec.Operator, error) {
			return join.NewKeysetCursor(spec, l, r, cfg, env, false)
		}, always)
	registerPaged(StrategyKeysetLE, true, "BASELINE (wrong: repeats rows, stalls): keyset on the sort column alone with <=",
		func(spec *join.Spec, l, r *join.Remote, cfg join.PagedConfig, env *exec.Env) (exec.Operator, error) {
			return join.NewKeysetCursor(spec, l, r, cfg, env, true)
		}, always)
}

// pagedParamPageRows is the join parameter that fixes the page size of the paged family: hint.page_rows=N
// makes every thin page of the paged join exactly N rows (no adaptive sizing), and every page of the
// distinctkeys and keyset baselines N rows (distinct keys for distinctkeys); the paged join's first page is then
// thin too. fetchall and timewindow have no
// pages: they accept it and are unchanged. It exists for teaching (page size 1 shows the document's traps row by
// row) and for measuring a fixed page size against the adaptive one; the result never depends on it, only the
// requests do (and, for the baselines, how wrong they are).
const pagedParamPageRows = "hint.page_rows"

// pagedParamFirstPage is the paged join's parameter that says how its first page is read: hint.first_page=wide
// (the default) reads it at full width, so its windows need no re-fetch and the first rows come after two
// round trips instead of three; hint.first_page=thin reads it thin like every later page, the source
// document's thin page, probe and re-fetch (the walkthrough shows them). The result never depends on it.
const pagedParamFirstPage = "hint.first_page"

// pagedThinFirst reads hint.first_page: whether the first page is thin.
func pagedThinFirst(jp *JoinPlan) (bool, error) {
	switch v, ok := jp.Params[pagedParamFirstPage]; {
	case !ok || v == "wide":
		return false, nil
	case v == "thin":
		return true, nil
	default:
		return false, &ParamError{Name: pagedParamFirstPage, Err: fmt.Errorf("%s=%s: want wide (the default) or thin", pagedParamFirstPage, v)}
	}
}

// pagedMaxPageRows bounds hint.page_rows when the paged connector publishes no row cap: a page is held in
// memory whole, so a million rows (hundreds of MB at full width) is already past any sensible budget.
const pagedMaxPageRows = 1_000_000

// pagedPageRows reads hint.page_rows: 0 when it is not set. A page must be at least one row and fit one
// response of the paged side's connector — for the paged join one row less than its row cap, since each thin
// request asks one row past the page to see whether the edge cuts a tie group.
func pagedPageRows(jp *JoinPlan, name Strategy) (int, error) {
	v, ok := jp.Params[pagedParamPageRows]
	if !ok {
		return 0, nil
	}
	most := pagedMaxPageRows
	why := "the paged family's bound"
	if cs, ok := sideSource(pagedSideNode(jp)); ok {
		if caps := cs.src.Connector().Caps(); caps.MaxRows > 0 {
			most, why = caps.MaxRows, fmt.Sprintf("@%s's %d rows per response", cs.src.Name(), caps.MaxRows)
			if name == StrategyPaged {
				most, why = max(1, caps.MaxRows-1), why+" less the one row each thin page asks past its edge"
			}
		}
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > most {
		return 0, &ParamError{Name: pagedParamPageRows, Err: fmt.Errorf("%s=%s: want a whole number of rows in 1…%d (%s)",
			pagedParamPageRows, v, most, why)}
	}
	return n, nil
}

// connectorSide is a join side that is a table behind a connector, with the conditions over it (pushed, or to
// be pushed by the pushdown pass).
type connectorSide struct {
	src *connector.Source
	// unpushable is the first conjunct over the scan that no connector could compute: the paged join applies it
	// in the engine (see join.EngineCond), the baselines do not serve the side.
	unpushable string
	// engine are the wheres over the scan: after the pushdown pass, the conditions the connector refused, which
	// the paged join applies itself (before it, every where, pushable or not).
	engine []*whereNode
	// scan is the pushed scan under the wheres (nil before the pushdown pass).
	scan *pushedScanNode
	node Node
}

// sideSource finds the connector source under a join side: a scan (before the pushdown pass) or a pushed scan
// (after it), possibly under wheres.
func sideSource(n Node) (connectorSide, bool) {
	switch n := n.(type) {
	case *scanNode:
		s, ok := n.src.(*connector.Source)
		return connectorSide{src: s, node: n}, ok
	case *pushedScanNode:
		s, ok := n.src.(*connector.Source)
		return connectorSide{src: s, node: n, scan: n}, ok
	case *whereNode:
		cs, ok := sideSource(n.in)
		if !ok {
			return cs, false
		}
		for _, c := range conjuncts(n.cond, nil) {
			if _, ok := connector.Translate(c, cs.src.Info().Schema); !ok && cs.unpushable == "" {
				cs.unpushable = kql.String(c)
			}
		}
		cs.engine = append(cs.engine, n)
		cs.node = n
		return cs, true
	}
	return connectorSide{}, false
}

// oneRequest reports whether one response can carry the whole side, by the source's size estimate.
func oneRequest(s *connector.Source, est Estimate) (bool, string) {
	caps := s.Connector().Caps()
	rows := s.Info().Rows
	if caps.MaxRows > 0 && rows > int64(caps.MaxRows) {
		return false, fmt.Sprintf("@%s holds %d rows, over the %d one response may carry", s.Name(), rows, caps.MaxRows)
	}
	if caps.MaxBytes > 0 && est.Bytes > float64(caps.MaxBytes) {
		return false, fmt.Sprintf("@%s holds an estimated %s, over the %s one response may carry", s.Name(),
			memory.Bytes(int64(est.Bytes)), memory.Bytes(caps.MaxBytes))
	}
	return true, ""
}

// pagedLeft picks the side to page: the one a single request cannot fetch (the larger when both or neither).
func pagedLeft(jp *JoinPlan) bool {
	l, lok := sideSource(jp.left)
	r, rok := sideSource(jp.right)
	if !lok || !rok {
		return jp.Left.Rows >= jp.Right.Rows
	}
	l1, _ := oneRequest(l.src, jp.Left)
	r1, _ := oneRequest(r.src, jp.Right)
	if l1 != r1 {
		return !l1
	}
	return l.src.Info().Rows >= r.src.Info().Rows
}

// checkPaged says why the paged family cannot run a join: it needs two connector sources (the pager builds
// its own requests) — the paged join applies a condition their connectors cannot compute itself (see
// join.EngineCond), a baseline needs every condition pushed — one equality key of one type on both sides (the key is
// the cursor's tiebreaker and the IN list's column), and a kind the strategy serves with that side paged. The
// paged join serves every kind but innerunique with the left side paged and the probe side's semi join
// (join.PagedKinds: both would output a row once whose first match may come pages later); the baselines page
// keyed rows only and keep nothing across pages, so they serve inner and the paged side's semi join, and
// innerunique when the right side is paged (join.BaselineKinds).
func checkPaged(jp *JoinPlan, name Strategy) error {
	if jp.Interval != nil {
		return fmt.Errorf("%s joins on equality keys, not an interval condition", name)
	}
	if len(jp.Spec.LeftKeys) != 1 {
		return fmt.Errorf("%s needs exactly one key pair (the key is the cursor's tiebreaker), this join has %d", name, len(jp.Spec.LeftKeys))
	}
	for i, n := range []Node{jp.left, jp.right} {
		side := [2]string{"left", "right"}[i]
		cs, ok := sideSource(n)
		if !ok {
			return fmt.Errorf("%s needs both sides to be connector sources (with only pushable wheres); the %s side is not", name, side)
		}
		if cs.unpushable != "" && name != StrategyPaged {
			return fmt.Errorf("%s needs every condition on the %s side pushed to its connector; %q cannot be (only the paged join applies conditions in the engine)", name, side, cs.unpushable)
		}
	}
	if lt, rt := jp.Spec.Left[jp.Spec.LeftKeys[0]].Type, jp.Spec.Right[jp.Spec.RightKeys[0]].Type; lt != rt {
		return fmt.Errorf("%s needs the same key type on both sides (the IN list is typed), found %s and %s", name, lt, rt)
	}
	left := pagedLeft(jp)
	served, why := join.PagedKinds(left), "the others output a row once, and its first match may come in any page"
	if name != StrategyPaged {
		served, why = join.BaselineKinds(left), "a baseline pages keyed rows only and keeps nothing across pages, so it cannot output unmatched rows"
	}
	for _, k := range served {
		if k == jp.Spec.Kind {
			if _, err := pagedPageRows(jp, name); err != nil {
				return err
			}
			_, err := pagedThinFirst(jp)
			return err
		}
	}
	side := "right"
	if left {
		side = "left"
	}
	var kinds []string
	for _, k := range served {
		kinds = append(kinds, k.String())
	}
	return fmt.Errorf("%s serves kinds %s when the %s side is paged, not %s: %s",
		name, strings.Join(kinds, ", "), side, jp.Spec.Kind, why)
}

// choosePaged picks the paged join when a side cannot come back in one request, or would not fit the budget.
func choosePaged(jp *JoinPlan) (bool, string) {
	for i, n := range []Node{jp.left, jp.right} {
		cs, ok := sideSource(n)
		if !ok {
			continue
		}
		est := [2]Estimate{jp.Left, jp.Right}[i]
		if fits, why := oneRequest(cs.src, est); !fits {
			return true, why + ": paged by keyset, the other side filtered by each page's keys"
		}
		if est.Bytes > float64(jp.Budget) {
			return true, fmt.Sprintf("@%s is estimated at %s, over the %s budget: paged, one page held at a time",
				cs.src.Name(), memory.Bytes(int64(est.Bytes)), memory.Bytes(jp.Budget))
		}
	}
	return false, ""
}

// remoteOf makes the join's view of one side, after pushdown and liveness: the wheres the connector refused
// become the side's engine conditions when the strategy applies them (engine), and an error otherwise.
func remoteOf(n Node, key int, engine bool) (*join.Remote, error) {
	cs, ok := sideSource(n)
	if !ok || cs.scan == nil {
		return nil, fmt.Errorf("paged join: a side is not a connector source")
	}
	if len(cs.engine) > 0 && !engine {
		return nil, fmt.Errorf("paged join: a condition over @%s could not be pushed into its connector (caps), and only the paged join applies conditions in the engine", cs.src.Name())
	}
	opts := cs.src.Options()
	r := &join.Remote{Name: cs.src.Name(), Conn: cs.src.Connector(), Info: cs.src.Info(), Where: cs.src.Where(),
		Key: key, Clock: opts.Clock, Retry: opts.Retry, Seed: opts.Seed, Pacer: opts.Pacer}
	for _, w := range cs.engine {
		r.Engine = append(r.Engine, join.EngineCond{Text: w.text, Pred: w.pred})
	}
	live := cs.scan.live
	for i, f := range n.Schema() {
		r.Columns = append(r.Columns, f.Name)
		r.Live = append(r.Live, live == nil || live[i])
	}
	return r, nil
}

func openPaged(jp *JoinPlan, name Strategy, cfg join.PagedConfig, env *exec.Env) (exec.Operator, error) {
	l, err := remoteOf(jp.left, jp.Spec.LeftKeys[0], name == StrategyPaged)
	if err != nil {
		return nil, err
	}
	r, err := remoteOf(jp.right, jp.Spec.RightKeys[0], name == StrategyPaged)
	if err != nil {
		return nil, err
	}
	rows, err := pagedPageRows(jp, name)
	if err != nil {
		return nil, err
	}
	if rows > 0 {
		cfg.FirstPage, cfg.FixedPage = rows, name == StrategyPaged
	}
	if cfg.ThinFirst, err = pagedThinFirst(jp); err != nil {
		return nil, err
	}
	cfg.Op = string(name)
	env.Details.Set(join.DetailPagedStrategy, string(name))
	return pagedFamily[name].open(jp.Spec, l, r, cfg, env)
}

func explainPaged(jp *JoinPlan, label string) string {
	side := "right"
	if pagedLeft(jp) {
		side = "left"
	}
	out := label + ", paging the " + side + " side"
	if v, ok := jp.Params[pagedParamPageRows]; ok {
		out += ", pages of " + v + " rows (" + pagedParamPageRows + ")"
	}
	if thin, _ := pagedThinFirst(jp); thin {
		out += ", the first page thin (" + pagedParamFirstPage + ")"
	}
	return out + explainEngineConds(jp)
}
