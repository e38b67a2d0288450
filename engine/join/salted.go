package join

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/dynfilter"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/skew"
	"github.com/joinlab/joinlab/engine/trace"
)

// Salted is the salted skew join: the join a shuffle over W workers computes, with its heavy keys spread.
//
// A shuffle sends every row to the worker that owns its key, so a key covering a large share of an input lands
// on one worker and that worker sets the step's duration. Salting appends a salt s in 0..W-1 to the key:
//
//   - the spread side gives each row of a heavy key exactly one salt, round-robin over the key's rows;
//   - the expanded side replicates each row of a heavy key W times, with salts 0..W-1;
//   - every other row, on both sides, carries the constant salt 0.
//
// A row goes to worker (h(key) + salt) mod W, a hash of (key, salt) built so that one key's W salts land on W
// distinct workers (a general hash of the pair would leave about a third of the workers without a share of
// the key, by collision). The invariant: a pair the plain join produces, between spread row L with salt s and
// expanded row R, meets at exactly one worker, the one of salt s, because L exists nowhere else and R exists
// under every salt; so the W workers' joins are disjoint and their concatenation is the join. Inside a worker
// a key only ever appears under one salt, so each worker joins on the plain key with the hash join.
//
// Outer joins are where this goes wrong, and the spread side is chosen to keep them right: the preserved side
// of an outer (and the output side of a semi or anti) join is the spread one, so each preserved row exists once
// and is null-extended at most once. Full outer has two preserved sides: the expanded side's rows whose key
// the spread side lacks are found once, while routing, kept apart from the workers, and null-extended after
// them; no copy of them is made. innerunique first keeps the first left row of each key (so the left side can
// never be heavy) and then joins as inner with the right side spread.
//
// Only keys measured heavy on the spread side are salted (see SaltPlan): a key heavy only on the expanded
// side would be copied to every worker and spread nothing. A key heavy on both sides is salted and reported:
// the pairs it produces are cL×cR whatever the salt, and salting spreads that work without reducing it.
//
// Phases:
//
//	route ──► join worker 0 … W-1 ──► apart ──► done
//
//	route  read the spread side, then the expanded side; salt, replicate and route each row; count each
//	       worker's rows, bytes and pairs with and without salting; emit the trace of heavy keys and loads
//	join   hash-join each worker's partitions in turn, releasing each when done
//	apart  (full outer) emit the expanded side's unmatched rows, null-extended
//
// Output order: worker by worker, then the apart rows. Memory: both inputs, plus the expanded side's heavy
// rows W-1 more times, plus one entry per distinct key for the counts, plus one worker's hash table at a time;
// all accounted, failing with *memory.ExceededError when over budget. Cost: one pass over each input, plus
// (W-1)×(heavy expanded rows) copies, plus the workers' hash joins: O(L + R + W·H + output).
//
// The teaching variant (SaltPlan.Naive) is deliberately wrong: it salts every heavy key, always spreads the
// left side, runs the kind as written on every worker and computes nothing apart. For rightouter (and fullouter, rightsemi, rightanti)
// the right side is then the expanded one, and every worker where a copy of a heavy right row finds no left
// row of its key null-extends that copy: up to W copies of an unmatched right row, and a matched one both
// matched and null-extended.
type Salted struct {
	spec  *Spec
	plan  *SaltPlan
	left  exec.Operator
	right exec.Operator
	env   *exec.Env
	// keys and handOver, when set, collect the spread side's first key while it is routed and receive them
	// before the expanded side is read (see HandBuildKeysTo).
	keys     *dynfilter.Collector
	handOver func(*dynfilter.Collector) error

	state   saltedState
	workers []*saltWorker
	apart   *column.Table // full outer: the expanded side's rows no spread row matches
	cur     int           // the worker being joined
	op      exec.Operator // its hash join
	keySize int64         // bytes held by the key counts
	// maxOut bounds the rows of the workers' output batches (tests shrink it).
	maxOut int
	// small lists the rows routed while both inputs may still be small (see smallRoute); nil once not.
	small *smallRoute
}

// smallRoute is the rows of a small run as they are routed, for the trace (joinevent.WorkerRows): per side
// (0 left, 1 right), per worker, and apart. Each row keeps its encoded key beside the label, to tell which
// rows find a partner on their worker: labels are cut, encodings are not. It holds at most SmallSideRows rows a
// side, an expanded row once per worker: a few kilobytes for the trace, not rows the join holds, so it is not
// grown on the budget.
type smallRoute struct {
	workers [2][][]smallRow
	apart   []smallRow
	read    [2]int // input rows read per side
	buf     []byte
}

type smallRow struct {
	key string // appendSaltKey's encoding; "" for a null key, which matches nothing
	row joinevent.SaltedRow
}

// note lists one routed row of side (0 left) at worker w (-1: apart).
func (r *smallRoute) note(side, w int, key string, row joinevent.SaltedRow) {
	if w < 0 {
		r.apart = append(r.apart, smallRow{key: key, row: row})
		return
	}
	r.workers[side][w] = append(r.workers[side][w], smallRow{key: key, row: row})
}

type saltedState int

const (
	saltRoute saltedState = iota // the inputs have not been read
	saltJoin                     // joining worker cur
	saltApart                    // emitting the apart rows
	saltDone
)

// The salted join's trace events (Op SaltedOp: HeavyKey, SaltAssigned, RowsReplicated, WorkerLoad) are declared
// in engine/join/joinevent.

// The rule for W, the number of workers (and the salt range): one worker per rowsPerWorker input rows, rounded
// up to a power of two and kept within [minWorkers, MaxWorkers]; then halved while the copies the expansion
// makes would add more than maxExpansion of the inputs' rows.
const (
	// rowsPerWorker is the share of the input that makes a worker worth having: four source batches, enough
	// that a worker's fixed cost (a hash table, a batch of output) is small next to its rows.
	rowsPerWorker = 4096
	// minWorkers is the smallest shuffle: with fewer workers a heavy key has nowhere to be spread to, and the
	// playground's worker view needs something to show even for a handful of rows.
	minWorkers = 4
	// MaxWorkers bounds the salt range. The expanded side's heavy rows are copied W times, and the doc's
	// warning is that a width in the hundreds costs more than the imbalance it cures.
	MaxWorkers = 64
	// maxExpansion caps the expansion's copies at half the inputs' rows: beyond that, the bytes moved grow
	// more than a balanced shuffle saves on a skewed one.
	maxExpansion = 0.5
)

// WorkersFor is the W rule's first step for rows input rows: one worker per rowsPerWorker rows, a power of two
// within [minWorkers, MaxWorkers]. The salted join then halves it while its copies cost too much; the shuffle
// and broadcast joins use it as it is.
func WorkersFor(rows int64) int {
	w := minWorkers
	for w < MaxWorkers && int64(w)*rowsPerWorker < rows {
		w *= 2
	}
	return w
}

// SaltedOp names the operator in trace events.
const SaltedOp = "salted join"

// SkewMeasure is what measuring both inputs found: each side's key counts and size. Measure once, plan any
// number of times.
type SkewMeasure struct {
	Left, Right         *skew.Counter
	LeftRows, RightRows int64 // rows, null keys included (counters count non-null keys only)
	LeftBytes           int64 // bytes of the rows measured, of the columns the measuring scan read
	RightBytes          int64
}

// MeasureSkew drains both inputs and counts their keys, encoded as the join compares them (appendSaltKey).
// One int64-stored key is counted as an int64 (skew.NewIntCounter), without encoding a row: the counter
// encodes only the keys it reports, and reports what counting the encodings would.
func MeasureSkew(ctx context.Context, spec *Spec, left, right exec.Operator) (*SkewMeasure, error) {
	newCounter := skew.NewCounter
	if intKeyed(spec.KeyTypes) {
		newCounter = func() *skew.Counter { return skew.NewIntCounter(saltIntKeys) }
	}
	m := &SkewMeasure{Left: newCounter(), Right: newCounter()}
	count := func(op exec.Operator, keys []int, c *skew.Counter, rows, bytes *int64) error {
		var buf []byte
		return exec.Drain(ctx, op, func(b *column.Batch) error {
			kc := keyColumns(b, keys, spec.KeyTypes)
			*rows += int64(b.N)
			*bytes += b.Bytes()
			if intKeyed(spec.KeyTypes) {
				countInts(c, kc[0], b.N)
				return nil
			}
			for i := 0; i < b.N; i++ {
				if hasNullKey(kc, i) {
					continue
				}
				buf = appendSaltKey(buf[:0], kc, i)
				c.AddBytes(buf)
			}
			return nil
		})
	}
	if err := count(left, spec.LeftKeys, m.Left, &m.LeftRows, &m.LeftBytes); err != nil {
		return nil, fmt.Errorf("salted join: measure left side: %w", err)
	}
	if err := count(right, spec.RightKeys, m.Right, &m.RightRows, &m.RightBytes); err != nil {
		return nil, fmt.Errorf("salted join: measure right side: %w", err)
	}
	return m, nil
}

// saltIntKeys names an int counter's keys as appendSaltKey encodes one int64-stored key column.
var saltIntKeys = skew.IntKeys{Encode: column.AppendIntKey, Decode: column.ParseIntKey}

// countInts counts the first n rows of the int64-stored key column v into c, skipping nulls a bitmap word at
// a time.
func countInts(c *skew.Counter, v *column.Vector, n int) {
	ints := v.Ints[:n]
	if !v.HasNulls() {
		for _, k := range ints {
			c.AddInt(k)
		}
		return
	}
	nulls := v.Nulls
	for w := 0; w*64 < n; w++ {
		var word uint64
		if w < len(nulls) {
			word = nulls[w]
		}
		end := min(w*64+64, n)
		for i := w * 64; i < end; i++ {
			if word&(1<<(uint(i)&63)) == 0 {
				c.AddInt(ints[i])
			}
		}
	}
}

// appendSaltKey appends row i's key as the salted join identifies it: the encoding of every key column.
func appendSaltKey(dst []byte, keys []*column.Vector, i int) []byte {
	for _, k := range keys {
		dst = column.AppendKey(dst, k, i)
	}
	return dst
}

// HeavyKey is one measured heavy key.
type HeavyKey struct {
	Key   string // encoded as appendSaltKey does
	Label string // for people
	// Left and Right are the key's rows on each side (upper bounds when a sketch measured them).
	Left, Right int64
	// Salted is false for a key heavy only on the expanded side, which salting would copy without spreading.
	Salted bool
	// BothSides: heavy on both sides; salting spreads its cL×cR pairs but cannot make fewer of them.
	BothSides bool
}

// SaltPlan is how one join is salted: W, the side spread, the heavy keys. It is immutable and shared by every
// execution.
type SaltPlan struct {
	Workers    int
	SpreadLeft bool
	// Heavy lists the measured heavy keys, salted or not, by rows on the spread side, largest first.
	Heavy []HeavyKey
	// Naive selects the deliberately wrong teaching variant (see Salted).
	Naive bool
	// Exact is true when both sides were counted exactly.
	Exact bool
	// Why says how the spread side was chosen.
	Why string
	// The measure, kept for explain's figures.
	LeftRows, RightRows   int64
	LeftBytes, RightBytes int64
	// Threshold is the heavy-key row count on each side.
	LeftThreshold, RightThreshold int64

	salted map[string]bool
	// kind and measure are what Predict replays the run's routing from (measure is nil for the plans of the
	// shuffle and broadcast joins, which are not measured).
	kind    Kind
	measure *SkewMeasure
	// every salts every key, heavy or not: the broadcast join's plan (broadcast.go), whose expanded side is
	// copied whole to every worker.
	every bool
}

// salts reports whether the key (encoded as appendSaltKey does) is salted.
func (p *SaltPlan) salts(key string) bool { return p.every || p.salted[key] }

// SaltOptions tune PlanSalt; tests use them to force rare paths.
type SaltOptions struct {
	// Workers, when > 0, fixes W instead of the rule.
	Workers int
	// Naive selects the teaching variant.
	Naive bool
}

// PlanSalt decides W, the spread side and the heavy keys of a join of kind spec.Kind from m (see the W rule
// beside rowsPerWorker).
func PlanSalt(spec *Spec, m *SkewMeasure, o SaltOptions) *SaltPlan {
	total := m.LeftRows + m.RightRows
	w := o.Workers
	fixed := w > 0
	if !fixed {
		w = WorkersFor(total)
	}
	for {
		p := planSaltAt(spec, m, w, o.Naive)
		if fixed || w <= minWorkers || float64(p.copies()) <= maxExpansion*float64(total) {
			return p
		}
		w /= 2
	}
}

func planSaltAt(spec *Spec, m *SkewMeasure, w int, naive bool) *SaltPlan {
	p := &SaltPlan{Workers: w, Naive: naive, Exact: m.Left.Exact() && m.Right.Exact(),
		LeftRows: m.LeftRows, RightRows: m.RightRows, LeftBytes: m.LeftBytes, RightBytes: m.RightBytes,
		LeftThreshold: skew.Threshold(m.LeftRows, w), RightThreshold: skew.Threshold(m.RightRows, w),
		salted: map[string]bool{}, kind: spec.Kind, measure: m}
	unique := spec.Kind == InnerUnique && !naive // the left side keeps one row per key
	cand := map[string]bool{}
	if !unique {
		for _, it := range m.Left.Above(p.LeftThreshold) {
			cand[it.Key] = true
		}
	}
	for _, it := range m.Right.Above(p.RightThreshold) {
		cand[it.Key] = true
	}
	var heavy []HeavyKey
	var massL, massR int64
	for k := range cand {
		l, _ := m.Left.Count(k)
		r, _ := m.Right.Count(k)
		if unique {
			l = min(l, 1)
		}
		h := HeavyKey{Key: k, Label: saltKeyLabel(spec.KeyTypes, k), Left: l, Right: r}
		h.BothSides = l >= p.LeftThreshold && r >= p.RightThreshold
		if l >= p.LeftThreshold {
			massL += l
		}
		if r >= p.RightThreshold {
			massR += r
		}
		heavy = append(heavy, h)
	}
	switch k := spec.Kind; {
	case naive:
		p.SpreadLeft, p.Why = true, "teaching variant: always spreads the left side, whatever the kind"
	case k == LeftOuter || k == LeftSemi || k == LeftAnti:
		p.SpreadLeft, p.Why = true, "the left side is the preserved one of "+k.String()
	case k == RightOuter || k == RightSemi || k == RightAnti:
		p.SpreadLeft, p.Why = false, "the right side is the preserved one of "+k.String()
	case k == InnerUnique:
		p.SpreadLeft, p.Why = false, "innerunique keeps one left row per key, so only the right side can be heavy"
	default: // inner, fullouter: either side works; expand the one with fewer heavy rows
		p.SpreadLeft = massL >= massR
		p.Why = fmt.Sprintf("the %s side has more rows under heavy keys (%d vs %d)", saltSide(p.SpreadLeft),
			max(massL, massR), min(massL, massR))
		if k == FullOuter {
			p.Why += "; the other side's unmatched rows are computed apart"
		}
	}
	for i := range heavy {
		h := &heavy[i]
		switch {
		case naive: // the naive plan salts every heavy key, whichever side it is heavy on
			h.Salted = true
		case p.SpreadLeft:
			h.Salted = h.Left >= p.LeftThreshold
		default:
			h.Salted = h.Right >= p.RightThreshold
		}
		if h.Salted {
			p.salted[h.Key] = true
		}
	}
	sort.Slice(heavy, func(i, j int) bool {
		a, b := heavy[i].spreadRows(p.SpreadLeft), heavy[j].spreadRows(p.SpreadLeft)
		if a != b {
			return a > b
		}
		return heavy[i].Key < heavy[j].Key
	})
	p.Heavy = heavy
	return p
}

func (h HeavyKey) spreadRows(spreadLeft bool) int64 {
	if spreadLeft {
		return h.Left
	}
	return h.Right
}

func (h HeavyKey) expandedRows(spreadLeft bool) int64 {
	if spreadLeft {
		return h.Right
	}
	return h.Left
}

// copies is the number of extra rows the expansion makes: (W-1) per expanded row of a salted key.
func (p *SaltPlan) copies() int64 {
	var n int64
	for _, h := range p.Heavy {
		if h.Salted {
			n += h.expandedRows(p.SpreadLeft) * int64(p.Workers-1)
		}
	}
	return n
}

// SaltedKeys is the number of keys salted.
func (p *SaltPlan) SaltedKeys() int { return len(p.salted) }

// HeavyWeight is how many times the rows of its side's mean key a salted key holds, on average over the salted
// keys, on the spread side: the measure of skew as against few keys. A few viral keys among thousands weigh
// hundreds; a key column of a hundred values spread evenly, every one of them above the heavy threshold of a
// shuffle over more workers than that, weighs one (its shuffle is uneven because it has few keys, and salting
// them copies the expanded side's rows of every key to spread what no key concentrates). 0 with no salted key.
func (p *SaltPlan) HeavyWeight() float64 {
	c, rows := p.measure.Left, int64(0)
	if !p.SpreadLeft {
		c = p.measure.Right
	}
	for _, h := range p.Heavy {
		if h.Salted {
			rows += h.spreadRows(p.SpreadLeft)
		}
	}
	if rows == 0 || c.Total() == 0 {
		return 0
	}
	mean := float64(c.Total()) / float64(max(c.Distinct(), 1))
	return float64(rows) / float64(len(p.salted)) / mean
}

// Prediction is the planner's estimate of the shuffle the run will make, computed from the measure alone.
type Prediction struct {
	// MaxOverMedianBefore and MaxOverMedianAfter are the busiest worker's load over the median worker's, as
	// a plain shuffle and with salting: the run's load_max_over_median_before and _after.
	MaxOverMedianBefore, MaxOverMedianAfter float64
	// CopiedRows is the extra rows the expansion makes: the run's rows_replicated.
	CopiedRows int64
	// BytesBefore and BytesAfter are the bytes routed without and with salting: the run's bytes_moved_before
	// and bytes_moved_after.
	BytesBefore, BytesAfter int64
}

// Predict replays the run's routing (route) on the measured key counts instead of the rows: each key goes to
// worker saltHash(key) mod W and adds its rows and its pairs (left × right) there, the load the run counts; a
// salted key's spread rows are dealt round-robin over its W salts, the run's own order, and its expanded rows
// reach every worker; null keys are dealt round-robin; innerunique keeps one left row a key, and full outer
// routes expanded rows whose key the spread side lacks apart. So with exact counts the loads are the run's
// loads exactly. With a sketch, only the heavy keys are replayed; the rows of the other keys are spread evenly,
// pairing like a key join (min of the two sides' rows), which the sketch cannot see beyond.
//
// leftRowBytes and rightRowBytes are the average bytes of a row of each side as the run reads it (the
// columns the query needs, not just the keys): bytes are routed rows times those widths, and a copy costs a
// row of the expanded side. Cost: one pass over the measured keys (at most skew.ExactKeys), O(W) memory.
func (p *SaltPlan) Predict(leftRowBytes, rightRowBytes float64) Prediction {
	W := p.Workers
	before, after := make([]float64, W), make([]float64, W)
	unique := p.kind == InnerUnique && !p.Naive
	fullApart := p.kind == FullOuter && !p.Naive
	var spreadRouted, expRouted float64
	var copies int64
	addKey := func(key string, l, r int64) {
		if unique {
			l = min(l, 1)
		}
		spread, exp := l, r
		if !p.SpreadLeft {
			spread, exp = r, l
		}
		home := int(saltHash([]byte(key)) % uint64(W))
		spreadRouted += float64(spread)
		expRouted += float64(exp)
		if fullApart && spread == 0 {
			before[home] += float64(exp) // unmatched, routed apart: a plain shuffle would have sent it home
			return
		}
		before[home] += float64(l + r + l*r)
		if !p.salts(key) {
			after[home] += float64(l + r + l*r)
			return
		}
		for salt := range W {
			n := spread / int64(W)
			if int64(salt) < spread%int64(W) {
				n++
			}
			after[(home+salt)%W] += float64(n + n*exp)
		}
		for w := range after {
			after[w] += float64(exp)
		}
		copies += exp * int64(W-1)
	}
	var spreadNonNull, expNonNull int64 // rows with a key, per side
	m := p.measure
	if m != nil {
		spreadNonNull, expNonNull = m.Left.Total(), m.Right.Total()
		if !p.SpreadLeft {
			spreadNonNull, expNonNull = expNonNull, spreadNonNull
		}
	}
	if m != nil && p.Exact {
		counts := map[string][2]int64{}
		m.Left.Each(func(k string, n int64) { c := counts[k]; c[0] = n; counts[k] = c })
		m.Right.Each(func(k string, n int64) { c := counts[k]; c[1] = n; counts[k] = c })
		for k, c := range counts {
			addKey(k, c[0], c[1])
		}
	} else {
		var heavySpread, heavyExp int64
		for _, h := range p.Heavy {
			// Point estimates, not the plan's upper bounds: a key the sketch lost on the expanded side
			// would otherwise count the sketch's whole error bound in rows, and its pairs with them.
			l, r := h.Left, h.Right
			if m != nil {
				l, r = int64(math.Round(m.Left.Estimate(h.Key))), int64(math.Round(m.Right.Estimate(h.Key)))
			}
			addKey(h.Key, l, r)
			if p.SpreadLeft {
				heavySpread, heavyExp = heavySpread+l, heavyExp+r
			} else {
				heavySpread, heavyExp = heavySpread+r, heavyExp+l
			}
		}
		restSpread := float64(max(spreadNonNull-heavySpread, 0))
		restExp := float64(max(expNonNull-heavyExp, 0))
		if unique && !p.SpreadLeft {
			restExp = min(restExp, restSpread) // at most one left row per key
		}
		share := (restSpread + restExp + min(restSpread, restExp)) / float64(W)
		for w := range W {
			before[w] += share
			after[w] += share
		}
		spreadRouted += restSpread
		expRouted += restExp
	}
	// Null keys: the spread side's (and, in the naive variant, both sides') are dealt round-robin from worker
	// 0, in reading order; full outer's expanded null keys are counted where a plain shuffle would deal them.
	spreadRows, expRows := p.LeftRows, p.RightRows
	if !p.SpreadLeft {
		spreadRows, expRows = expRows, spreadRows
	}
	rr := 0
	deal := func(n int64, routed bool) {
		for range n {
			before[rr%W]++
			if routed {
				after[rr%W]++
			}
			rr++
		}
	}
	if m != nil {
		spreadNull, expNull := max(spreadRows-spreadNonNull, 0), max(expRows-expNonNull, 0)
		deal(spreadNull, true)
		spreadRouted += float64(spreadNull)
		if p.Naive || fullApart {
			deal(expNull, p.Naive)
			expRouted += float64(expNull)
		}
	}
	spreadWidth, expWidth := leftRowBytes, rightRowBytes
	if !p.SpreadLeft {
		spreadWidth, expWidth = rightRowBytes, leftRowBytes
	}
	pr := Prediction{CopiedRows: copies,
		MaxOverMedianBefore: MaxOverMedian(roundLoads(before)), MaxOverMedianAfter: MaxOverMedian(roundLoads(after))}
	pr.BytesBefore = int64(spreadRouted*spreadWidth + expRouted*expWidth)
	pr.BytesAfter = pr.BytesBefore + int64(float64(copies)*expWidth)
	return pr
}

// roundLoads turns predicted loads into the whole rows and pairs the run counts.
func roundLoads(loads []float64) []int64 {
	out := make([]int64, len(loads))
	for i, l := range loads {
		out[i] = int64(math.Round(l))
	}
	return out
}

func saltSide(left bool) string {
	if left {
		return "left"
	}
	return "right"
}

// saltKeyLabel renders an encoded key for people, using the key types to read the encoding (see column.AppendKey).
func saltKeyLabel(types []column.Type, k string) string {
	var parts []string
	b := []byte(k)
	for _, t := range types {
		if len(b) == 0 {
			break
		}
		tag := b[0]
		b = b[1:]
		switch tag {
		case 0:
			parts = append(parts, "null")
		case 1:
			x := int64(binary.LittleEndian.Uint64(b))
			b = b[8:]
			if t == column.DateTime {
				parts = append(parts, column.FormatDateTime(x))
			} else {
				parts = append(parts, strconv.FormatInt(x, 10))
			}
		case 2:
			parts = append(parts, strconv.FormatFloat(math.Float64frombits(binary.LittleEndian.Uint64(b)), 'g', -1, 64))
			b = b[8:]
		case 3:
			parts = append(parts, strconv.FormatBool(b[0] == 1))
			b = b[1:]
		default:
			n, w := binary.Uvarint(b)
			parts = append(parts, strconv.Quote(string(b[w:w+int(n)])))
			b = b[w+int(n):]
		}
	}
	return strings.Join(parts, ", ")
}

// saltWorker is one worker's share of the shuffle and its measured load.
type saltWorker struct {
	left, right *column.Table
	held        int64
	// The worker's figures with salting (after) and as a plain shuffle would have loaded it (before).
	rowsBefore, rowsAfter   int64
	bytesBefore, bytesAfter int64
	pairsBefore, pairsAfter int64
}

// saltKeyStat is one key's rows on each side, and for a salted key the spread rows given each salt.
type saltKeyStat struct {
	left, right           int64
	leftBytes, rightBytes int64
	salts                 []int64
	next                  int // the next salt to hand out, round-robin
}

// saltKeyStatBytes is what one distinct key's entry costs in memory besides its text: the map entry and saltKeyStat.
const saltKeyStatBytes = 96

// NewSalted makes a salted join of left and right under spec, routed by plan.
func NewSalted(spec *Spec, plan *SaltPlan, left, right exec.Operator, env *exec.Env) *Salted {
	return &Salted{spec: spec, plan: plan, left: left, right: right, env: env, maxOut: outRows}
}

func (s *Salted) Schema() column.Schema { return s.spec.Schema }

// HandBuildKeysTo makes the join collect the spread side's first key into keys while it routes that side, and
// give them to f before it reads a row of the expanded side, so a dynamic filter (dynfilter.Probe) can narrow
// the expanded side's scan. Only a kind that passes ProbeMayBeFiltered with the spread side as the build may be
// given a filtered expanded side, and never the teaching variant, whose wrong answer is the point.
func (s *Salted) HandBuildKeysTo(keys *dynfilter.Collector, f func(*dynfilter.Collector) error) {
	s.keys, s.handOver = keys, f
}

func (s *Salted) Next(ctx context.Context) (*column.Batch, error) {
	for {
		switch s.state {
		case saltRoute:
			if err := s.route(ctx); err != nil {
				return nil, err
			}
			s.state = saltJoin
		case saltJoin:
			if s.cur >= len(s.workers) {
				s.state = saltApart
				continue
			}
			if s.op == nil {
				s.op = s.workerJoin(s.workers[s.cur])
			}
			b, err := s.op.Next(ctx)
			if err != nil {
				return nil, fmt.Errorf("salted join: worker %d: %w", s.cur, err)
			}
			if b != nil {
				return b, nil
			}
			w := s.workers[s.cur]
			s.env.Budget.Shrink(w.held)
			s.workers[s.cur] = nil
			s.op = nil
			s.cur++
		case saltApart:
			s.state = saltDone
			if s.apart != nil && s.apart.N > 0 {
				return s.nullExtendApart(), nil
			}
		case saltDone:
			if s.keySize > 0 {
				s.env.Budget.Shrink(s.keySize)
				s.keySize = 0
			}
			return nil, nil
		default:
			return nil, fmt.Errorf("salted join: impossible state %d", s.state)
		}
	}
}

// workerKind is the kind each worker runs.
func (s *Salted) workerKind() Kind {
	k := s.spec.Kind
	if s.plan.Naive {
		return k
	}
	switch k {
	case InnerUnique:
		return Inner // the left side was reduced to one row per key while routing
	case FullOuter:
		if s.plan.SpreadLeft {
			return LeftOuter
		}
		return RightOuter
	}
	return k
}

func (s *Salted) workerJoin(w *saltWorker) exec.Operator {
	spec := *s.spec
	spec.Kind = s.workerKind()
	buildLeft := w.left.N < w.right.N
	h := NewHash(&spec, &tableStream{t: w.left}, &tableStream{t: w.right}, buildLeft, s.env.Budget)
	h.maxOut = s.maxOut
	return h
}

// route reads both inputs, the spread side first, and distributes them over the workers.
func (s *Salted) route(ctx context.Context) error {
	p := s.plan
	W := p.Workers
	s.workers = make([]*saltWorker, W)
	for i := range s.workers {
		s.workers[i] = &saltWorker{left: column.NewTable(s.spec.Left), right: column.NewTable(s.spec.Right)}
	}
	for _, h := range p.Heavy {
		side := "left"
		switch {
		case h.BothSides:
			side = "both"
		case h.Right > h.Left:
			side = "right"
		}
		s.emit(joinevent.HeavyKey{Key: h.Label, Side: side, LeftRows: h.Left,
			RightRows: h.Right, Salted: h.Salted, BothSides: h.BothSides})
	}
	stats := map[string]*saltKeyStat{}
	fullApart := s.spec.Kind == FullOuter && !p.Naive
	if fullApart {
		es := s.spec.Left
		if p.SpreadLeft {
			es = s.spec.Right
		}
		s.apart = column.NewTable(es)
	}
	if s.env.Trace != nil {
		s.small = &smallRoute{workers: [2][][]smallRow{make([][]smallRow, W), make([][]smallRow, W)}}
	}
	var nullRR int // round-robin for null-key rows: they match nothing, so any worker may hold them
	var bytesBefore, bytesAfter, apartBytes int64
	readSide := func(left, spread bool) error {
		op, keys := s.right, s.spec.RightKeys
		if left {
			op, keys = s.left, s.spec.LeftKeys
		}
		dedupe := left && s.spec.Kind == InnerUnique && !p.Naive
		idx := make([][]int32, W)
		var buf []byte
		var apartIdx []int32
		err := exec.Drain(ctx, op, func(b *column.Batch) error {
			if spread && s.keys != nil {
				s.keys.Add(b.Cols[keys[0]], b.N)
			}
			kc := keyColumns(b, keys, s.spec.KeyTypes)
			rb := saltRowBytes(b)
			for i := range idx {
				idx[i] = idx[i][:0]
			}
			apartIdx = apartIdx[:0]
			sideNo := 1
			if left {
				sideNo = 0
			}
			small := s.small
			if small != nil {
				if small.read[sideNo] += b.N; small.read[sideNo] > joinevent.SmallSideRows {
					s.small, small = nil, nil
				}
			}
			// noteRow lists row i at worker w (-1: apart) under salt (and as a copy) when the run is small.
			noteRow := func(i, w, salt int, copied bool, key string) {
				if small == nil {
					return
				}
				var label string
				label, small.buf = rowKeyLabel(s.spec.KeyTypes, kc, i, small.buf)
				small.note(sideNo, w, key, joinevent.SaltedRow{Row: small.read[sideNo] - b.N + i + 1, Key: label,
					Salt: salt, Copy: copied})
			}
			for i := 0; i < b.N; i++ {
				row := int32(i)
				if hasNullKey(kc, i) {
					switch {
					case spread || p.Naive:
						w := nullRR % W
						nullRR++
						noteRow(i, w, 0, false, "")
						idx[w] = append(idx[w], row)
						s.workers[w].addBefore(rb[i])
						s.workers[w].add(1, rb[i])
						bytesBefore += rb[i]
						bytesAfter += rb[i]
					case fullApart:
						noteRow(i, -1, 0, false, "")
						apartIdx = append(apartIdx, row)
						s.workers[nullRR%W].addBefore(rb[i])
						nullRR++
						bytesBefore += rb[i]
						apartBytes += rb[i]
					}
					// Otherwise an expanded-side row with a null key can neither match nor be output.
					continue
				}
				buf = appendSaltKey(buf[:0], kc, i)
				home := int(saltHash(buf) % uint64(W))
				st, ok := stats[string(buf)]
				if !ok {
					if !spread && fullApart {
						// No spread row has this key: the row is unmatched, output once, apart.
						noteRow(i, -1, 0, false, string(buf))
						apartIdx = append(apartIdx, row)
						s.workers[home].addBefore(rb[i])
						bytesBefore += rb[i]
						apartBytes += rb[i]
						continue
					}
					st = &saltKeyStat{}
					if p.salts(string(buf)) {
						st.salts = make([]int64, W)
					}
					key := string(buf)
					stats[key] = st
					if err := s.env.Budget.Grow("the salted join's key counts", int64(len(key))+saltKeyStatBytes); err != nil {
						return err // readSide adds "salted join: route … side"
					}
					s.keySize += int64(len(key)) + saltKeyStatBytes
				}
				if dedupe && st.left > 0 {
					continue // innerunique: a later left row of a key already kept
				}
				if left {
					st.left++
					st.leftBytes += rb[i]
				} else {
					st.right++
					st.rightBytes += rb[i]
				}
				s.workers[home].addBefore(rb[i])
				bytesBefore += rb[i]
				switch {
				case st.salts == nil:
					noteRow(i, home, 0, false, string(buf))
					idx[home] = append(idx[home], row)
					s.workers[home].add(1, rb[i])
					bytesAfter += rb[i]
				case spread:
					salt := st.next
					st.next = (st.next + 1) % W
					st.salts[salt]++
					w := (home + salt) % W
					noteRow(i, w, salt, false, string(buf))
					idx[w] = append(idx[w], row)
					s.workers[w].add(1, rb[i])
					bytesAfter += rb[i]
				default: // expanded: one copy per salt, so one per worker
					for w := range idx {
						noteRow(i, w, (w-home+W)%W, true, string(buf))
						idx[w] = append(idx[w], row)
						s.workers[w].add(1, rb[i])
					}
					bytesAfter += rb[i] * int64(W)
				}
			}
			for w, rows := range idx {
				if len(rows) == 0 {
					continue
				}
				if err := s.workers[w].take(b.Gather(rows), left, s.env.Budget); err != nil {
					return err
				}
			}
			if len(apartIdx) > 0 {
				g := b.Gather(apartIdx)
				if err := s.env.Budget.Grow("the salted join's apart rows", g.Bytes()); err != nil {
					return err // readSide adds "salted join: route … side"
				}
				s.keySize += g.Bytes()
				s.apart.Append(g)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("salted join: route %s side: %w", saltSide(left), err)
		}
		return nil
	}
	if err := readSide(p.SpreadLeft, true); err != nil {
		return err
	}
	if s.handOver != nil {
		if err := s.handOver(s.keys); err != nil {
			return fmt.Errorf("salted join: hand the spread side's keys over: %w", err)
		}
	}
	if err := readSide(!p.SpreadLeft, false); err != nil {
		return err
	}
	// Pairs: a plain key's pairs all form at its home worker; a salted key's spread rows of salt s pair with
	// every expanded row at worker home+s.
	for k, st := range stats {
		home := int(saltHash([]byte(k)) % uint64(W))
		s.workers[home].pairsBefore += st.left * st.right
		if st.salts == nil {
			s.workers[home].pairsAfter += st.left * st.right
			continue
		}
		exp := st.right
		if !p.SpreadLeft {
			exp = st.left
		}
		for salt, n := range st.salts {
			s.workers[(home+salt)%W].pairsAfter += n * exp
		}
	}
	s.report(stats, bytesBefore, bytesAfter+apartBytes)
	s.reportSmall()
	return nil
}

// reportSmall emits the rows each worker received, side by side, when both inputs were small
// (joinevent.WorkerRows), marking each row that no row of the other side on its worker matches.
func (s *Salted) reportSmall() {
	r := s.small
	s.small = nil
	if r == nil {
		return
	}
	ls, rs := s.workerKind().sides()
	keeps := [2]bool{ls.unmatched || ls.anti, rs.unmatched || rs.anti}
	for w := range s.workers {
		var keys [2]map[string]bool
		for side := range 2 {
			keys[side] = map[string]bool{}
			for _, x := range r.workers[side][w] {
				keys[side][x.key] = x.key != ""
			}
		}
		for side := range 2 {
			rows := r.workers[side][w]
			if len(rows) == 0 {
				continue
			}
			out := make([]joinevent.SaltedRow, len(rows))
			for i, x := range rows {
				out[i] = x.row
				out[i].Alone = !keys[1-side][x.key]
			}
			s.emit(joinevent.WorkerRows{Worker: w, Side: saltSide(side == 0), Rows: out, KeepsUnmatched: keeps[side]})
		}
	}
	if len(r.apart) > 0 {
		out := make([]joinevent.SaltedRow, len(r.apart))
		for i, x := range r.apart {
			out[i] = x.row
			out[i].Alone = true
		}
		s.emit(joinevent.WorkerRows{Worker: -1, Side: saltSide(!s.plan.SpreadLeft), Rows: out, KeepsUnmatched: true})
	}
}

// addBefore counts one row a plain shuffle would have sent the worker.
func (w *saltWorker) addBefore(bytes int64) {
	w.rowsBefore++
	w.bytesBefore += bytes
}

// add counts one row received by the worker.
func (w *saltWorker) add(rows, bytes int64) {
	w.rowsAfter += rows
	w.bytesAfter += bytes
}

// take appends rows routed to the worker, accounting them.
func (w *saltWorker) take(b *column.Batch, left bool, budget *memory.Budget) error {
	n := b.Bytes()
	if err := budget.Grow("a salted join worker's rows", n); err != nil {
		return err // its one caller, readSide, adds "salted join: route … side"
	}
	w.held += n
	if left {
		w.left.Append(b)
	} else {
		w.right.Append(b)
	}
	return nil
}

func (w *saltWorker) loadBefore() int64 { return w.rowsBefore + w.pairsBefore }
func (w *saltWorker) loadAfter() int64  { return w.rowsAfter + w.pairsAfter }

// report emits the salts, copies and loads, and records the run's details.
func (s *Salted) report(stats map[string]*saltKeyStat, bytesBefore, bytesAfter int64) {
	p := s.plan
	W := p.Workers
	heavyList := []map[string]any{}
	both := []string{}
	var replicated, extraBytes int64
	var spreadRows, expRows, spreadBytes, expBytes int64
	for _, h := range p.Heavy {
		st := stats[h.Key]
		entry := map[string]any{"key": h.Label, "left_rows": h.Left, "right_rows": h.Right, "salted": h.Salted,
			"both_sides": h.BothSides}
		heavyList = append(heavyList, entry)
		if h.BothSides {
			both = append(both, h.Label)
		}
		if st == nil || st.salts == nil {
			continue
		}
		entry["left_rows"], entry["right_rows"] = st.left, st.right // exact, from the run
		exp, spr, eb, sb := st.right, st.left, st.rightBytes, st.leftBytes
		if !p.SpreadLeft {
			exp, spr, eb, sb = st.left, st.right, st.leftBytes, st.rightBytes
		}
		spreadRows += spr
		expRows += exp
		spreadBytes += sb
		expBytes += eb
		s.emit(joinevent.SaltAssigned{Key: h.Label, Side: saltSide(p.SpreadLeft),
			RowsPerSalt: append([]int64(nil), st.salts...)})
		s.emit(joinevent.RowsReplicated{Key: h.Label, Side: saltSide(!p.SpreadLeft), Rows: exp,
			Copies: W, ExtraBytes: eb * int64(W-1)})
		replicated += exp * int64(W-1)
	}
	if p.every { // no key is listed heavy: every expanded row was copied to every worker
		var rows, bytes int64
		for _, st := range stats {
			if p.SpreadLeft {
				rows, bytes = rows+st.right, bytes+st.rightBytes
			} else {
				rows, bytes = rows+st.left, bytes+st.leftBytes
			}
		}
		replicated = rows * int64(W-1)
		// One event for all the keys (key "*"), so the view's count is the run's.
		s.emit(joinevent.RowsReplicated{Key: "*", Side: saltSide(!p.SpreadLeft), Rows: rows,
			Copies: W, ExtraBytes: bytes * int64(W-1)})
	}
	extraBytes = bytesAfter - bytesBefore
	before, after := make([]int64, W), make([]int64, W)
	for i, w := range s.workers {
		before[i], after[i] = w.loadBefore(), w.loadAfter()
		s.emit(joinevent.WorkerLoad{Worker: i, RowsBefore: w.rowsBefore, RowsAfter: w.rowsAfter,
			BytesBefore: w.bytesBefore, BytesAfter: w.bytesAfter, PairsBefore: w.pairsBefore,
			PairsAfter: w.pairsAfter, LoadBefore: before[i], LoadAfter: after[i]})
	}
	d := s.env.Details
	d.Set("workers", W)
	d.Set("heavy_keys", heavyList)
	d.Set("salted_keys", p.SaltedKeys())
	d.Set("spread_side", saltSide(p.SpreadLeft))
	d.Set("both_sides_heavy", both)
	d.Set("load_max_over_median_before", MaxOverMedian(before))
	d.Set("load_max_over_median_after", MaxOverMedian(after))
	d.Set("worker_load_before", before)
	d.Set("worker_load_after", after)
	d.Set("bytes_moved_before", bytesBefore)
	d.Set("bytes_moved_after", bytesAfter)
	d.Set("rows_replicated", replicated)
	d.Set("extra_bytes", extraBytes)
	if s.apart != nil {
		d.Set("apart_rows", s.apart.N)
	}
	if p.Naive {
		d.Set("naive", true)
	}
	d.Set("cost_table", CostTable(W, spreadRows, expRows, spreadBytes, expBytes))
}

// CostTable fills in the source document's cost table for salted keys holding spreadRows rows (spreadBytes
// bytes) on the spread side and expRows rows (expBytes bytes) on the expanded side, at W workers.
func CostTable(w int, spreadRows, expRows, spreadBytes, expBytes int64) []map[string]string {
	row := func(what, spread, exp string) map[string]string {
		return map[string]string{"": what, "spread side": spread, "expanded side": exp}
	}
	return []map[string]string{
		row("rows under a spread key", fmt.Sprintf("%d (unchanged)", spreadRows),
			fmt.Sprintf("%d × %d = %d", expRows, w, expRows*int64(w))),
		row("bytes moved for those keys", fmt.Sprintf("%s (unchanged)", memory.Bytes(spreadBytes)),
			fmt.Sprintf("%s × %d = %s", memory.Bytes(expBytes), w, memory.Bytes(expBytes*int64(w)))),
		row("destinations reached", fmt.Sprintf("up to %d", w), fmt.Sprintf("%d", w)),
		row("output rows", "unchanged", "unchanged"),
	}
}

// MaxOverMedian is the largest load over the median load (the mean of the middle two for an even count; a
// median of 0 counts as 1, so an idle majority still gives a finite figure).
func MaxOverMedian(loads []int64) float64 {
	if len(loads) == 0 {
		return 0
	}
	s := append([]int64(nil), loads...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	n := len(s)
	med := float64(s[n/2])
	if n%2 == 0 {
		med = float64(s[n/2-1]+s[n/2]) / 2
	}
	return float64(s[n-1]) / math.Max(med, 1)
}

func (s *Salted) emit(p trace.Payload) {
	if s.env.Trace != nil {
		s.env.Trace.Emit(trace.Event{Op: SaltedOp, Payload: p})
	}
}

// nullExtendApart returns the apart rows joined with nulls on the spread side.
func (s *Salted) nullExtendApart() *column.Batch {
	n := s.apart.N
	cols := make([]*column.Vector, len(s.spec.Schema))
	spreadOut, expOut := s.spec.LeftOut, s.spec.RightOut
	if !s.plan.SpreadLeft {
		spreadOut, expOut = expOut, spreadOut
	}
	for _, o := range spreadOut {
		if o >= 0 {
			cols[o] = column.NullVector(s.spec.Schema[o].Type, n)
		}
	}
	for c, o := range expOut {
		if o >= 0 {
			cols[o] = s.apart.Cols[c]
		}
	}
	return column.NewBatch(cols, n)
}

// saltHash is h(key): FNV-1a over the key's encoding, finished with a multiply-xorshift so its low bits (the
// ones mod W keeps) depend on every byte. It is fixed, so a run routes the same way on every machine.
func saltHash(key []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range key {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// saltRowBytes returns each row's bytes in b, counted as Vector.Bytes counts them, over the live columns.
func saltRowBytes(b *column.Batch) []int64 {
	out := make([]int64, b.N)
	for _, v := range b.Cols {
		if v == nil {
			continue
		}
		switch v.Type {
		case column.Bool:
			for i := range out {
				out[i]++
			}
		case column.String, column.Dynamic:
			for i := range out {
				out[i] += 16 + int64(len(v.Strs[i]))
			}
		default:
			for i := range out {
				out[i] += 8
			}
		}
	}
	return out
}

// tableStream streams a held table in output-sized batches (a salted worker's sides, top-first's candidates).
type tableStream struct {
	t   *column.Table
	pos int
}

func (o *tableStream) Schema() column.Schema { return o.t.Schema }
func (o *tableStream) Next(ctx context.Context) (*column.Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.pos >= o.t.N {
		return nil, nil
	}
	hi := min(o.pos+outRows, o.t.N)
	b := o.t.Batch().Slice(o.pos, hi)
	o.pos = hi
	return b, nil
}
