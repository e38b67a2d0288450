package plan

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"weak"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/memory"
)

// The salted skew join (engine/join/salted.go) and its deliberately wrong teaching variant.
const (
	StrategySalted Strategy = "salted"
	// StrategySaltedNaiveWrong is the teaching toggle: it always spreads the left side, so a right outer join
	// duplicates null-extended rows. Its name says so wherever it is shown.
	StrategySaltedNaiveWrong Strategy = "salted_naive_wrong"
)

const (
	// saltedPriority asks the salted join after the interval sweep (which an interval join needs) and before
	// the strategies chosen on memory alone: skew makes a hash join slow, never wrong, so it only wins when
	// measured.
	saltedPriority = 100
	// saltMinRows is the fewest estimated input rows for which the planner measures skew at all. Measuring
	// scans both inputs once more; under 16,384 rows (four workers of 4,096, the smallest shuffle the salted
	// join's W rule makes) the whole join takes a few milliseconds, so a skewed worker costs less than that.
	saltMinRows = 16_384
	// saltWhenSkewAbove is the measured skew at which the planner salts: the heaviest worker of a plain shuffle
	// predicted to carry at least twice the median worker's rows. The shuffle then takes at least twice as
	// long as a balanced one, while the cure costs W copies of the few expanded rows under heavy keys.
	saltWhenSkewAbove = 2.0
	// saltMinKeyWeight is the least weight of the salted keys (join.SaltPlan.HeavyWeight: their mean rows over
	// the mean key's) at which the planner salts. Skew is a few keys holding many times the rows of the others;
	// a key of few values spread evenly (a join on a category column of a hundred values) makes a plain shuffle
	// over more workers than values uneven too, but every key is equally heavy, and this engine's hash join,
	// which shuffles nothing, runs it several times faster than the salted join does (measured: 1M ⋈ 1K rows
	// on 100 values, 8 ms against 90). Four times the mean key leaves Zipf-shaped keys to the salted join (the
	// skewed-listens scenario's 69 salted keys weigh 49).
	saltMinKeyWeight = 4.0
	// saltExplainKeys is how many heavy keys explain lists by name.
	saltExplainKeys = 5
)

func init() {
	for _, naive := range []bool{false, true} {
		name := StrategySalted
		if naive {
			name = StrategySaltedNaiveWrong
		}
		d := StrategyDef{
			Name:     name,
			Baseline: naive,
			Check:    checkSalted,
			Open: func(jp *JoinPlan, l, r exec.Operator, env *exec.Env) (exec.Operator, error) {
				p, err := saltPlanOf(jp, naive)
				if err != nil {
					return nil, err
				}
				return join.NewSalted(jp.Spec, p, l, r, env), nil
			},
			Explain: func(jp *JoinPlan) string { return explainSalted(jp, naive) },
		}
		if !naive {
			d.Choose, d.Priority = chooseSalted, saltedPriority
		}
		Register(d)
	}
}

// checkSalted accepts every kind, each with its spread side: the preserved (or output) side of outer, semi
// and anti joins; the right side of innerunique (whose left side is reduced to one row per key); for inner
// and fullouter the side with more rows under heavy keys, fullouter computing the other side's unmatched rows
// apart.
func checkSalted(jp *JoinPlan) error {
	switch jp.Spec.Kind {
	case join.InnerUnique, join.Inner, join.LeftOuter, join.RightOuter, join.FullOuter, join.LeftSemi,
		join.LeftAnti, join.RightSemi, join.RightAnti:
		return nil
	}
	return fmt.Errorf("salted join: kind %s is not served", jp.Spec.Kind)
}

// chooseSalted salts a join whose inputs are large enough to shuffle, fit the budget (the salted join holds
// both), can be sampled cheaply (samplesCheaply), and whose measured skew is skew (skewed): keys many times
// heavier than the mean key, making a plain shuffle uneven.
func chooseSalted(jp *JoinPlan) (bool, string) {
	if jp.Left.Rows+jp.Right.Rows < saltMinRows {
		return false, ""
	}
	if jp.Left.Bytes+jp.Right.Bytes > float64(jp.Budget) {
		return false, ""
	}
	if !samplesCheaply(jp.left) || !samplesCheaply(jp.right) {
		return false, ""
	}
	if !sampleLooksSkewed(jp) {
		return false, ""
	}
	p, err := saltPlanOf(jp, false)
	if err != nil {
		jp.fail(err)
		return false, ""
	}
	if !skewed(p) {
		return false, ""
	}
	return true, fmt.Sprintf("measured skew: %d heavy key(s), %.0f× the mean key's rows; the heaviest of %d workers in a plain shuffle would carry %.1f× the median rows (salting from %.1f×)",
		p.SaltedKeys(), p.HeavyWeight(), p.Workers, p.Predict(0, 0).MaxOverMedianBefore, saltWhenSkewAbove)
}

// skewed reports whether plan p salts keys that are skew: heavy against the others (saltMinKeyWeight), and
// making a plain shuffle uneven enough to salt (saltWhenSkewAbove; only the loads matter, not the bytes).
func skewed(p *join.SaltPlan) bool {
	return p.SaltedKeys() > 0 && p.HeavyWeight() >= saltMinKeyWeight && p.Predict(0, 0).MaxOverMedianBefore >= saltWhenSkewAbove
}

// saltSampleRows is how many leading rows of each side the planner counts before it commits to measuring
// both inputs whole. Counting every key of a million-row side costs more than the hash join it would replace
// (measured: about 80% of a 1M ⋈ 5M unforced join), so a join whose sample shows no skew is not measured
// further. A sample of 65,536 rows finds any key holding more than a few percent of the rows, which is the
// skew salting is for; a heavy key that appears only after the first 65,536 rows of both sides is missed, and the
// join runs as a hash join (hint.strategy=salted still salts it).
const saltSampleRows = 1 << 16

// samplesCheaply reports whether the first rows of n come without reading any input whole: a scan, and the
// filters, projections and takes over one. The first row of a join, a summarize, a sort or a distinct comes only
// once a whole input is read (a join's build side), so sampling such a side would cost what running it costs —
// in a chain of joins, every lower join's table built once more for each join above it (measured: a quarter of
// a four-way join's time). The planner does not sample it, and such a join is salted only when forced.
func samplesCheaply(n Node) bool {
	switch n := n.(type) {
	case *scanNode, *prunedScanNode, *pushedScanNode:
		return true
	case *whereNode:
		return samplesCheaply(n.in)
	case *projectNode:
		return samplesCheaply(n.in)
	case *takeNode:
		return samplesCheaply(n.in)
	}
	return false
}

// sampleLooksSkewed measures the first saltSampleRows rows of each side and reports whether salting them would
// pass saltWhenSkewAbove. An input no larger than the sample is measured whole here, and saltPlanOf then
// measures it again: cheap at that size, and it keeps one code path for the plan itself.
func sampleLooksSkewed(jp *JoinPlan) bool {
	ctx := jp.Context()
	l, err := jp.OpenSide(ctx, true)
	if err != nil {
		jp.fail(fmt.Errorf("skew sample: open left side: %w", err))
		return false
	}
	r, err := jp.OpenSide(ctx, false)
	if err != nil {
		jp.fail(fmt.Errorf("skew sample: open right side: %w", err))
		return false
	}
	m, err := join.MeasureSkew(ctx, jp.Spec, exec.NewTake(l, saltSampleRows), exec.NewTake(r, saltSampleRows))
	if err != nil {
		jp.fail(err)
		return false
	}
	return skewed(join.PlanSalt(jp.Spec, m, join.SaltOptions{}))
}

// The measure of a join is taken once, when first asked for (by Choose while planning, else by Explain or
// Open), and kept for as long as its JoinPlan lives: the key is a weak pointer, and a cleanup drops the entry
// when the plan is collected.
type saltKey struct {
	jp    weak.Pointer[JoinPlan]
	naive bool
}

type saltEntry struct {
	once sync.Once
	plan *join.SaltPlan
	err  error

	widthOnce             sync.Once
	leftWidth, rightWidth float64
	widthErr              error
}

var saltPlans sync.Map // saltKey → *saltEntry

func saltEntryOf(jp *JoinPlan, naive bool) *saltEntry {
	key := saltKey{weak.Make(jp), naive}
	v, loaded := saltPlans.LoadOrStore(key, &saltEntry{})
	if !loaded {
		runtime.AddCleanup(jp, func(k saltKey) { saltPlans.Delete(k) }, key)
	}
	return v.(*saltEntry)
}

func saltPlanOf(jp *JoinPlan, naive bool) (*join.SaltPlan, error) {
	e := saltEntryOf(jp, naive)
	e.once.Do(func() { e.plan, e.err = measureSalt(jp, naive) })
	return e.plan, e.err
}

// saltRowWidths is the average bytes of a row of each side as the run will read it, measured over the first
// saltSampleRows rows of each. The skew measure cannot give it: when the planner measures (from Choose), the
// sides read only their keys, and the run reads every column the query needs. Explain asks for it after the
// liveness pass, so the sample reads those columns. Rows of one input have about the same width, so a sample
// is enough; a side with no rows is 0 bytes wide.
func saltRowWidths(jp *JoinPlan, naive bool) (left, right float64, err error) {
	e := saltEntryOf(jp, naive)
	e.widthOnce.Do(func() {
		e.leftWidth, e.widthErr = sampleRowWidth(jp, true)
		if e.widthErr == nil {
			e.rightWidth, e.widthErr = sampleRowWidth(jp, false)
		}
	})
	return e.leftWidth, e.rightWidth, e.widthErr
}

func sampleRowWidth(jp *JoinPlan, left bool) (float64, error) {
	ctx := jp.Context()
	op, err := jp.OpenSide(ctx, left)
	if err != nil {
		return 0, fmt.Errorf("salted join: open %s side: %w", saltSideName(left), err)
	}
	var rows, bytes int64
	err = exec.Drain(ctx, exec.NewTake(op, saltSampleRows), func(b *column.Batch) error {
		rows += int64(b.N)
		bytes += b.Bytes()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("salted join: sample %s side's rows: %w", saltSideName(left), err)
	}
	if rows == 0 {
		return 0, nil
	}
	return float64(bytes) / float64(rows), nil
}

// measureSalt scans both sides for their key frequencies and plans the salting. The assumption, stated where
// the next reader looks: the sources are finite and do not change between planning and running, so what is
// measured now is what the run will route (the run re-counts every key and reports the real loads).
func measureSalt(jp *JoinPlan, naive bool) (*join.SaltPlan, error) {
	ctx := jp.Context()
	l, err := jp.OpenSide(ctx, true)
	if err != nil {
		return nil, fmt.Errorf("salted join: open left side: %w", err)
	}
	r, err := jp.OpenSide(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("salted join: open right side: %w", err)
	}
	m, err := join.MeasureSkew(ctx, jp.Spec, l, r)
	if err != nil {
		return nil, err
	}
	return join.PlanSalt(jp.Spec, m, join.SaltOptions{Naive: naive}), nil
}

// explainSalted describes the salting: W, the spread side and why, the heavy keys with their counts, the
// predicted loads and bytes, and the source document's cost table with this join's numbers.
func explainSalted(jp *JoinPlan, naive bool) string {
	p, err := saltPlanOf(jp, naive)
	if err != nil {
		return "skew not measured: " + err.Error()
	}
	var b strings.Builder
	if naive {
		b.WriteString("TEACHING VARIANT, WRONG for rightouter/fullouter/rightsemi/rightanti: ")
	}
	fmt.Fprintf(&b, "W=%d workers, spread %s side (%s)", p.Workers, saltSideName(p.SpreadLeft), p.Why)
	exact := "exact counts"
	if !p.Exact {
		exact = "sketch estimates"
	}
	fmt.Fprintf(&b, "; heavy above %d left / %d right rows (%s):", p.LeftThreshold, p.RightThreshold, exact)
	var spreadRows, expRows int64
	var both []string
	for i, h := range p.Heavy {
		if h.Salted {
			if p.SpreadLeft {
				spreadRows, expRows = spreadRows+h.Left, expRows+h.Right
			} else {
				spreadRows, expRows = spreadRows+h.Right, expRows+h.Left
			}
		}
		if h.BothSides {
			both = append(both, h.Label)
		}
		if i >= saltExplainKeys {
			continue
		}
		note := ""
		if !h.Salted {
			note = ", not salted: heavy on the expanded side only"
		}
		fmt.Fprintf(&b, " %s (left %d, right %d%s)", h.Label, h.Left, h.Right, note)
	}
	if len(p.Heavy) == 0 {
		b.WriteString(" none")
	}
	if n := len(p.Heavy) - saltExplainKeys; n > 0 {
		fmt.Fprintf(&b, " and %d more", n)
	}
	if len(both) > 0 {
		fmt.Fprintf(&b, "; heavy on both sides: %s (salting spreads their pairs but cannot make fewer)", strings.Join(both, ", "))
	}
	lw, rw, err := saltRowWidths(jp, naive)
	if err != nil {
		return b.String() + "; bytes not estimated: " + err.Error()
	}
	pr := p.Predict(lw, rw)
	fmt.Fprintf(&b, "; predicted load max/median %.1f → %.1f; bytes moved est. %s → %s (%d copied rows)",
		pr.MaxOverMedianBefore, pr.MaxOverMedianAfter, memory.Bytes(pr.BytesBefore), memory.Bytes(pr.BytesAfter), pr.CopiedRows)
	spreadWidth, expWidth := lw, rw
	if !p.SpreadLeft {
		spreadWidth, expWidth = rw, lw
	}
	spreadBytes, expBytes := int64(float64(spreadRows)*spreadWidth), int64(float64(expRows)*expWidth)
	b.WriteString("\n        cost of salting, this join:")
	b.WriteString("\n        |                            | spread side          | expanded side")
	for _, row := range join.CostTable(p.Workers, spreadRows, expRows, spreadBytes, expBytes) {
		fmt.Fprintf(&b, "\n        | %-26s | %-20s | %s", row[""], row["spread side"], row["expanded side"])
	}
	b.WriteString("\n       ")
	return b.String()
}

func saltSideName(left bool) string {
	if left {
		return "left"
	}
	return "right"
}
