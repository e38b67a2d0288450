package plan

import (
	"fmt"

	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/dynfilter"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join"
)

// dynamicFilters gives every hash, Grace or salted join whose probe side is a connector scan a dynamic filter:
// the join hands its build keys to the scan once the build side is read (HandBuildKeysTo), and the scan asks
// the connector only for rows with those keys (dynfilter.Probe: IN lists cut to the caps, ranges past
// dynfilter.MaxDistinctValues). The hash join reads its whole build side before its first probe row, Grace
// partitions its whole left side before it reads the right, and the salted join routes its whole spread side
// before the expanded one (whose plan, measured earlier, is cached), so the probe's first request follows the
// build. It applies only where dropping unmatched probe rows keeps the
// answer (join.ProbeMayBeFiltered), on the first key pair when both keys have one type, and to a probe that is
// a connector scan, possibly under a where the connector could not take. It changes what is fetched, never
// the result. It runs in Build after the other rewrites.
func dynamicFilters(n Node) {
	if j, ok := n.(*joinNode); ok {
		switch j.def.Name {
		case StrategyHash:
			planProbeFilter(j, j.jp.BuildLeft)
		case StrategyGrace: // Grace partitions the left side whole before it reads the right
			planProbeFilter(j, true)
		case StrategySalted: // the salted join routes its spread side whole before the expanded one
			if p, err := saltPlanOf(j.jp, false); err == nil {
				planProbeFilter(j, p.SpreadLeft)
			}
		}
	}
	for _, c := range n.Children() {
		dynamicFilters(c)
	}
}

// planProbeFilter marks j's probe scan (the right side when buildLeft, which j reads whole first) for a
// dynamic filter when the comment of dynamicFilters allows one.
func planProbeFilter(j *joinNode, buildLeft bool) {
	spec := j.jp.Spec
	probe, key, other := j.left, spec.LeftKeys[0], spec.Right[spec.RightKeys[0]]
	if buildLeft {
		probe, key, other = j.right, spec.RightKeys[0], spec.Left[spec.LeftKeys[0]]
	}
	if !join.ProbeMayBeFiltered(spec.Kind, buildLeft) {
		return
	}
	if w, ok := probe.(*whereNode); ok {
		probe = w.in // a where keeps the schema, so the key is the same column below it
	}
	scan, ok := probe.(*pushedScanNode)
	if !ok {
		return
	}
	if _, ok := scan.src.(*connector.Source); !ok {
		return
	}
	if f := scan.schema[key]; f.Type != other.Type {
		return // an IN list of the build side's type could miss probe keys compared after a conversion
	}
	scan.dynKey = scan.schema[key].Name
	j.dynProbe = scan
}

// dynFilterMaxDistinct is the IN set's threshold the probes use (0: dynfilter.MaxDistinctValues); a test knob
// that forces the compacted forms on small tables.
var dynFilterMaxDistinct int

// openProbe is the running operator of a scan with a dynamic filter. It is kept in n.opened for the join
// above, which open reaches right after its children (the probe under a where included); a plan is opened by
// one goroutine at a time.
func (n *pushedScanNode) openProbe(env *exec.Env) exec.Operator {
	n.opened = dynfilter.NewProbe(n.src.(*connector.Source), n.dynKey, n.schema, n.live, dynFilterMaxDistinct, env)
	n.ran = n.opened
	return n.opened
}

// probeFilterExplain describes a probe scan's dynamic filter for explain: as planned, and, once the plan has
// run, the filter that run made from its build keys.
func (n *pushedScanNode) probeFilterExplain() string {
	caps := n.src.(*connector.Source).Connector().Caps()
	threshold := dynfilter.MaxDistinctValues
	if dynFilterMaxDistinct > 0 {
		threshold = dynFilterMaxDistinct
	}
	streams := "one slice at a time"
	if caps.Concurrent > 1 {
		streams = fmt.Sprintf("up to %d slices' requests in flight at once", caps.Concurrent)
	}
	text := fmt.Sprintf(", dynamic filter on %s from the join's build keys: IN lists of at most %d values and %d query bytes each (0: no cap), one request stream per slice, %s; past %d keys, ranges or min/max",
		n.dynKey, caps.MaxInValues, caps.MaxQueryBytes, streams, threshold)
	if n.ran != nil && n.ran.Filter() != nil {
		text += "; last run: " + n.ran.Filter().Describe()
	}
	return text
}

// wireProbeFilter hands the build keys of op, j's running join, to the probe scan j's probe side just opened,
// when j has a dynamic filter.
func wireProbeFilter(j *joinNode, op exec.Operator) error {
	if j.dynProbe == nil {
		return nil
	}
	p := j.dynProbe.opened
	h, ok := op.(interface {
		HandBuildKeysTo(*dynfilter.Collector, func(*dynfilter.Collector) error)
	})
	if p == nil || !ok {
		return fmt.Errorf("plan: the dynamic filter of @%s has no join to feed it (%T)", j.dynProbe.src.Name(), op)
	}
	j.dynProbe.opened = nil
	h.HandBuildKeysTo(p.NewCollector(), p.SetKeys)
	return nil
}
