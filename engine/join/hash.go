package join

import (
	"context"
	"fmt"
	"slices"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/dynfilter"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/expr"
	"github.com/joinlab/joinlab/engine/keymap"
	"github.com/joinlab/joinlab/engine/memory"
)

// Hash is the in-memory hash join.
//
// It holds the build side — the smaller input, chosen by the planner — as one table plus a hash table of its
// keys, and streams the probe side through it:
//
//	build ──► probe ──► unmatched ──► done
//
//	build      read the whole build input, account it against the budget, index its non-null keys
//	probe      for each probe batch, look every row's key up and emit pairs, unmatched probe rows (outer) or
//	           semi/anti probe rows; mark the build rows that matched
//	unmatched  emit the build rows the kind asks for at the end: never matched (outer, anti) or matched (semi)
//
// Output order: probe order, each probe row's matches in build order, then the build side's end rows in build
// order. Memory: the build input plus 4 bytes a row for chains, and the key map (hashtable.go): 16 bytes a slot
// for int64 keys (keymap.Ints) or 32 for any other key (keymap.Strs), two to four slots a build row. Cost: one
// pass over each input, O(B + P + output). When the build side does not fit the budget the join fails with
// *memory.ExceededError (a later strategy partitions instead).
//
// A table past radixProbeTableBytes is probed by windows (hash_radix.go): up to radixWindowRows probe rows are
// held, their lookups made partition by partition of the table's slots so each partition's slots stay in the
// L2 cache, and the rows then joined in probe order as above. The output order is therefore the same on both
// paths — nothing that relies on probe order changes (innerunique's first rows, the join aggregate's rows
// path, a top's bound and innerunique probing with the left, which keep the streaming path anyway: the top's
// cut moves batch by batch, the dedupe is a map in probe order) — and a
// limit above waits for the first window (radixMinWindowRows rows; windows then grow), never for the whole
// probe side. The window's batches and about 26 bytes a
// row count against the budget; a window that does not fit is cut short, down to one batch, which the
// streaming probe would hold too, so a query the budget runs streaming also runs partitioned.
//
// Late materialisation: the join loop produces row-id pairs and assemble copies out only the output columns
// read above (Spec.Live); a where directly above the join (SetWhere) is evaluated on those pairs first, so its
// own columns are gathered as it reads them and the others only for the pairs it keeps (pairs.go). A filter
// below on the probe side is not copied either: the probe takes its batches with their selections and drops
// the rows not selected (readProbe).
type Hash struct {
	spec      *Spec
	buildLeft bool
	build     exec.Operator
	probe     exec.Operator
	budget    *memory.Budget
	bs, ps    side // what the kind asks of the build and the probe side
	unique    bool // innerunique: the left side keeps one row per key

	state hashState
	table *column.Table
	next  []int32
	ints  keymap.IntMap // an int64 key's map: open addressing, or a dense array (keymap.NewIntMap)
	// intsWhy says why ints is the map it is (keymap.IntMapWhy), for explain.
	intsWhy string
	// pack packs a key of several int columns into one int64 that ints maps (keypack.go); packed says intKeys
	// decided it (pack stays nil when the key does not pack).
	pack   *keyPack
	packed bool
	strs   *keymap.Strs
	// touched lists a probe batch's chained rows for touchChains, and touchSum adds up what its loads read,
	// so that the compiler keeps them.
	touched  []int32
	touchSum int32
	// matched marks build rows that found a probe row, for the end phase; nil when the kind needs no end phase.
	matched []bool
	held    int64
	// seenInts and seenStrs hold the keys of the left rows already joined, when innerunique probes with the left.
	seenInts map[int64]struct{}
	seenStrs map[string]struct{}

	// The probe cursor: the current probe batch and its keys, the next row, and the rest of a chain that did not
	// fit the last output batch.
	pb    *column.Batch
	pkeys []*column.Vector
	pstrs []string // the current probe batch's keys as strings, for a keymap.Strs
	penc  []string // reused for pstrs when the keys are encoded (see encodedKeys)
	heads []int32  // per probe row: its chain head, noMatch or dropped (see lookupBatch)
	// pidx and bidx are the output's probe and build row indexes, reused for every output batch.
	pidx, bidx []int32
	prow       int
	chain      int32
	buf        []byte
	end        int // next build row to consider in the unmatched phase
	// maxOut bounds the rows of one output batch (outRows; tests shrink it to force chains to be cut).
	maxOut int
	// agg, when set, folds the output rows into aggregates instead of emitting them (hash_aggregate.go).
	agg *pairAggregator
	// top, when set, is the bound of the top N above this inner join, on probe column topCol (SetTopBound);
	// topKey and topLimit are that top's key, over the probe side, and its N (hash_topfirst.go); topSkipped
	// counts the probe rows the bound kept from being looked up (ProbeExplain).
	top        *exec.TopBound
	topCol     int
	topKey     exec.SortKey
	topLimit   int64
	topSkipped int64
	// where, when set, is the where directly above the join, evaluated on each output batch's row pairs
	// before their columns are copied (SetWhere, pairs.go).
	where expr.Expr
	// keys and handOver, when set, collect the build side's first key and receive them once the build side
	// is read (see HandBuildKeysTo).
	keys     *dynfilter.Collector
	handOver func(*dynfilter.Collector) error
	// radix, when set, is the partitioned lookup of the probe (hash_radix.go); buildHeld is what the
	// partitioned build holds of the budget while it runs (hash_radixbuild.go). Test knobs: noRadix keeps the
	// build in row order and the probe streaming; radixBits > 0 turns both partitioned paths on at any table
	// size with that many partition bits (at most the table's); radixWindow and radixMinWindow, when > 0,
	// replace radixWindowRows and radixMinWindowRows, so small inputs take every branch; noKeyFilter leaves
	// the partitioned probe without its key filter, as a budget that refuses it does.
	buildHeld                   int64
	radix                       *radixProbe
	noRadix, noKeyFilter        bool
	radixBits                   uint
	radixWindow, radixMinWindow int
	// skip is unselected's buffer; noSelection, a test knob, makes the probe read a filter's copies (Next)
	// instead of its selections.
	skip        []bool
	noSelection bool
}

type hashState int

const (
	hashBuild     hashState = iota // the build side has not been read
	hashProbe                      // streaming the probe side
	hashUnmatched                  // emitting the build side's end rows
	hashDone
)

// outRows bounds the rows of one output batch, so a key with many matches streams in pieces.
const outRows = 4096

// NewHash makes a hash join of left and right under spec, building on the left side when buildLeft.
func NewHash(spec *Spec, left, right exec.Operator, buildLeft bool, budget *memory.Budget) *Hash {
	h := &Hash{spec: spec, buildLeft: buildLeft, budget: budget, unique: spec.Kind == InnerUnique, maxOut: outRows}
	l, r := spec.Kind.sides()
	if buildLeft {
		h.build, h.probe, h.bs, h.ps = left, right, l, r
	} else {
		h.build, h.probe, h.bs, h.ps = right, left, r, l
	}
	return h
}

func (h *Hash) Schema() column.Schema { return h.spec.Schema }

// SetWhere makes the join drop the output rows at which pred, compiled against the join's output schema, is
// not true: the where above the join, evaluated on the row pairs before their columns are copied, so that only
// the columns pred reads are gathered for the pairs it drops (pairs.go). The output is the where's over the
// join's: every kind, null-extended rows included. Call before the first Next.
func (h *Hash) SetWhere(pred expr.Expr) { h.where = pred }

func (h *Hash) Next(ctx context.Context) (*column.Batch, error) {
	for {
		switch h.state {
		case hashBuild:
			if err := h.buildTable(ctx); err != nil {
				return nil, err
			}
			h.state = hashProbe
		case hashProbe:
			b, err := h.probeBatch(ctx)
			if b != nil && b.N == 0 && b != aggregatedBatch {
				continue // a where on the pairs kept none of them
			}
			if err != nil || b != nil {
				return b, err
			}
			h.state = hashUnmatched
		case hashUnmatched:
			if b := h.endRows(); b != nil {
				if b.N == 0 && b != aggregatedBatch {
					continue
				}
				return b, nil
			}
			h.budget.Shrink(h.held)
			h.held = 0
			h.state = hashDone
		case hashDone:
			return nil, nil
		default:
			return nil, fmt.Errorf("hash join: impossible state %d", h.state)
		}
	}
}

func (h *Hash) buildKeys() ([]int, []int) {
	if h.buildLeft {
		return h.spec.LeftKeys, h.spec.RightKeys
	}
	return h.spec.RightKeys, h.spec.LeftKeys
}

// buildTable reads the build side and indexes it, after narrowing both sides to the top's candidates when the
// join can pick them first (hash_topfirst.go).
func (h *Hash) buildTable(ctx context.Context) error {
	if err := h.readBuildSide(ctx); err != nil {
		return err
	}
	return h.indexBuild()
}

// readBuildSide reads the build side, hands its keys over to a dynamic filter when one waits for them, and
// narrows both sides to the top's candidates when the join can pick them first (hash_topfirst.go).
func (h *Hash) readBuildSide(ctx context.Context) error {
	if err := h.readBuild(ctx); err != nil {
		return err
	}
	if h.handOver != nil {
		bk, _ := h.buildKeys()
		h.keys.Add(h.table.Cols[bk[0]], h.table.N)
		if err := h.handOver(h.keys); err != nil {
			return fmt.Errorf("hash join: hand the build keys over: %w", err)
		}
	}
	if h.top != nil {
		return h.topFirst(ctx)
	}
	return nil
}

// indexBuild indexes the build side read and turns the partitioned probe on when the table is large.
func (h *Hash) indexBuild() error {
	if err := h.index(); err != nil {
		return err
	}
	h.startRadix()
	return nil
}

// readBuild reads the whole build side into h.table, accounting it against the budget.
func (h *Hash) readBuild(ctx context.Context) error {
	var batches []*column.Batch
	err := exec.Drain(ctx, h.build, func(b *column.Batch) error {
		n := b.Bytes() + int64(b.N)*4
		if err := h.budget.Grow("the build side", n); err != nil {
			return fmt.Errorf("hash join: %w", err)
		}
		h.held += n
		batches = append(batches, b)
		return nil
	})
	h.table = column.Concat(h.build.Schema(), batches)
	return err
}

// HandBuildKeysTo makes the join collect its build side's first key into keys and give them to f once the
// whole build side is read and before it reads a probe row, so that a dynamic filter (dynfilter.Probe) can
// narrow the probe's scan to the keys that can match. Only a join whose kind passes ProbeMayBeFiltered may
// be given a filtered probe.
func (h *Hash) HandBuildKeysTo(keys *dynfilter.Collector, f func(*dynfilter.Collector) error) {
	h.keys, h.handOver = keys, f
}

// ProbeMayBeFiltered reports whether a join of kind, building on the left side when buildLeft, gives the same
// answer when its probe side loses the rows whose key no build row has: true unless the kind outputs
// unmatched probe rows (an outer or anti kind preserving the probe side).
func ProbeMayBeFiltered(kind Kind, buildLeft bool) bool {
	l, r := kind.sides()
	ps := l
	if buildLeft {
		ps = r
	}
	return !ps.unmatched && !ps.anti
}

// index makes the hash table of h.table's keys and the chains of its rows.
func (h *Hash) index() error {
	n := h.table.N
	if n > maxBuildRows {
		return fmt.Errorf("hash join: %d build rows, more than the %d a hash table indexes", n, maxBuildRows)
	}
	intKeys := h.intKeys()
	keys := h.keyCols(h.table.Batch(), true)
	h.next = make([]int32, n)
	if h.bs.unmatched || h.bs.semi || h.bs.anti {
		h.matched = make([]bool, n)
	}
	// Unique builds keep the first row of a key, so they go forwards; chains are built backwards (see hashtable.go).
	unique := h.unique && h.buildLeft
	first, end, step := insertOrder(n, unique)
	if intKeys {
		k := keys[0]
		lo, hi, _ := keyRange(k, n, 1, 0, false)
		size := keymap.IntMapBytes(n, lo, hi)
		if err := h.budget.Grow("the hash table", size); err != nil {
			return fmt.Errorf("hash join: %w", err)
		}
		h.held += size
		h.ints, h.intsWhy = keymap.NewIntMap(n, lo, hi), keymap.IntMapWhy(n, lo, hi)
		if h.pack != nil {
			h.intsWhy = h.pack.String() + "; " + h.intsWhy
		}
		if m, ok := h.ints.(*keymap.Ints); ok {
			if bits := h.partitionBits(size, m.Shift()); bits > 0 {
				if rows, ikeys, _, ok := h.buildOrder(keys, unique, bits, true); ok {
					h.ints.PushTo(ikeys, rows, unique, h.next)
					h.releaseBuildOrder()
					return nil
				}
			}
		}
		for i := first; i != end; i += step {
			if k.IsNull(i) {
				h.next[i] = -1
				continue
			}
			h.next[i] = h.ints.Push(k.Ints[i], int32(i), unique)
		}
		return nil
	}
	// The map copies its long keys (keymap.Strs): their room, bounded by every build key's length, is counted
	// with its slots, and what repeated keys left of it is given back.
	long := longKeyBytes(keys, n)
	size := keymap.StrsBytes(n) + long
	if err := h.budget.Grow("the hash table", size); err != nil {
		return fmt.Errorf("hash join: %w", err)
	}
	h.held += size
	h.strs = keymap.NewStrs(n)
	h.strs.Reserve(long)
	h.indexStrs(keys, unique, first, end, step)
	unused := long - h.strs.KeyBytes()
	h.budget.Shrink(unused)
	h.held -= unused
	return nil
}

// indexStrs pushes the build rows' keys into h.strs: for one string column of a table larger than the cache,
// copied together in partition order first (buildOrder) and pushed in that order, so that the map's copies of
// a partition's long keys lie together and its inserts read the keys one after another; otherwise in row
// order, encoded a chunk at a time for any other key.
func (h *Hash) indexStrs(keys []*column.Vector, unique bool, first, end, step int) {
	n := h.table.N
	if singleStringKey(keys) {
		k := keys[0]
		if bits := h.partitionBits(keymap.StrsBytes(n), h.strs.Shift()); bits > 0 {
			if rows, _, skeys, ok := h.buildOrder(keys, unique, bits, false); ok {
				h.strs.PushTo(skeys, rows, unique, h.next)
				h.releaseBuildOrder()
				return
			}
		}
		for i := first; i != end; i += step {
			if k.IsNull(i) {
				h.next[i] = -1
				continue
			}
			h.next[i] = h.strs.Push(k.Strs[i], int32(i), unique)
		}
		return
	}
	// Encoded keys are made a chunk at a time (one allocation a chunk, dropped after), in the order's direction.
	var buf []byte
	var strs []string
	lo, hi := -1, -1 // the chunk of rows whose keys strs holds
	for i := first; i != end; i += step {
		if i < lo || i >= hi {
			lo, hi = i, i+1
			if unique && h.buildLeft {
				hi = min(n, i+encodeChunkRows)
			} else {
				lo = max(0, i+1-encodeChunkRows)
			}
			strs, buf = encodedKeys(keys, lo, hi, buf, strs)
		}
		if hasNullKey(keys, i) {
			h.next[i] = -1
			continue
		}
		h.next[i] = h.strs.Push(strs[i-lo], int32(i), unique)
	}
}

// intKeys reports whether the key map is an int64 one: one key stored as int64, or several that pack into
// one (keypack.go), which the first call decides from the build table; it must be read.
func (h *Hash) intKeys() bool {
	if !h.packed {
		bk, _ := h.buildKeys()
		h.pack, h.packed = packKeys(keyColumns(h.table.Batch(), bk, h.spec.KeyTypes), h.table.N), true
	}
	return h.pack != nil || intKeyed(h.spec.KeyTypes)
}

// keyCols returns the join key columns of b, a batch of the build side (build) or the probe side, as the key
// map reads them: keyColumns, or the one packed column of a packed key (intKeys decides).
func (h *Hash) keyCols(b *column.Batch, build bool) []*column.Vector {
	bk, pk := h.buildKeys()
	if !build {
		bk = pk
	}
	keys := keyColumns(b, bk, h.spec.KeyTypes)
	if h.pack == nil {
		return keys
	}
	return []*column.Vector{h.pack.column(keys, b.N)}
}

// notIndexed marks in next a build row a unique build left out of the table (its key's first row is there):
// no chain holds it. It is what a key map's Push returns for such a row, so next takes Push's answer as it is:
// the old chain head (-1 for none) as the row's next, or this.
const notIndexed = keymap.Kept

// encodeChunkRows is how many build rows' encoded keys are made at once: enough to amortise the allocation,
// few enough that the chunk stays in cache.
const encodeChunkRows = 4096

// SetTopBound makes the probe skip the rows that cannot enter the top N above the join, of key key (a column
// of the probe side): before a probe batch's keys are looked up, each row's value of that column is
// checked against the top's current cut b, and a row that does not sort strictly before it is neither looked
// up nor joined. Every output row of a skipped probe row would reach the top after the rows that made the cut,
// so the top would drop it anyway; nothing else changes. With first = N > 0 — allowed only when every
// output row of the join reaches the top, nothing between them dropping any — and dense int64 keys, the join
// goes further and picks the top's candidates before it builds (hash_topfirst.go).
//
// Only an inner join can do this. In the other kinds a probe row's fate changes other output rows: an
// innerunique probe with the left side must see every left row to know which is first of its key, an outer
// join would null-extend a skipped row or its unmatched build rows, semi and anti joins mark build rows. It
// returns an error for any other kind, or a column the probe side lacks.
func (h *Hash) SetTopBound(b *exec.TopBound, key exec.SortKey, first int64) error {
	if h.spec.Kind != Inner {
		return fmt.Errorf("hash join: a top's bound can only filter an inner join's probe, not kind=%s", h.spec.Kind)
	}
	ref, ok := key.Expr.(*expr.ColumnRef)
	if !ok {
		return fmt.Errorf("hash join: a top's bound must be on a probe column, not %T", key.Expr)
	}
	if ps := h.probe.Schema(); ref.Index < 0 || ref.Index >= len(ps) || ps[ref.Index].Type != ref.T {
		return fmt.Errorf("hash join: top bound on probe column %d (%s) of %d", ref.Index, ref.T, len(ps))
	}
	h.top, h.topCol, h.topKey, h.topLimit = b, ref.Index, key, first
	return nil
}

// nextProbe reads the next probe batch and finds its rows' chain heads (h.pb, h.pkeys, h.heads), or reports
// false at the end of the probe side.
func (h *Hash) nextProbe(ctx context.Context) (bool, error) {
	if h.radix != nil {
		return h.nextRadix(ctx)
	}
	b, sel, err := h.readProbe(ctx)
	if err != nil || b == nil {
		return false, err
	}
	h.pb, h.pkeys = b, h.keyCols(b, false)
	h.lookupBatch(h.unselected(sel, b.N))
	return true, nil
}

// readProbe reads the next probe batch. When the probe side is a filter (exec.Selector: a where below the
// join, on the probe side), it takes the filter's batch uncopied with the rows the filter keeps, sel (nil:
// every row); the join then marks the others dropped (unselected), so they are neither looked up nor output,
// exactly as if the filter had copied the kept rows out. The batch is held a little longer than the copy
// would be (its dropped rows too), which the radix window accounts for.
func (h *Hash) readProbe(ctx context.Context) (*column.Batch, []int32, error) {
	if f, ok := h.probe.(exec.Selector); ok && !h.noSelection {
		return f.NextSelected(ctx)
	}
	b, err := h.probe.Next(ctx)
	return b, nil, err
}

// unselected returns, for a batch of n rows whose live rows are sel, which rows are not live (true), in a
// buffer reused from batch to batch; nil when sel is nil (every row live).
func (h *Hash) unselected(sel []int32, n int) []bool {
	if sel == nil {
		return nil
	}
	h.skip = markUnselected(growTo(h.skip, n), sel)
	return h.skip
}

// markUnselected sets skip[r] to whether row r is left out of sel, and returns skip. It fills skip with true
// by copies that double (a memmove each, where a loop storing a byte a turn is a jump a row under js/wasm),
// then clears the rows of sel.
func markUnselected(skip []bool, sel []int32) []bool {
	if len(skip) == 0 {
		return skip
	}
	skip[0] = true
	for k := 1; k < len(skip); k *= 2 {
		copy(skip[k:], skip[:k])
	}
	for _, r := range sel {
		skip[r] = false
	}
	return skip
}

// dropUnselected marks the rows skip lists dropped in heads, with no branch on the data: a skipped row's head
// is replaced whole by a mask, the others are written back as they were.
func dropUnselected(heads []int32, skip []bool) {
	heads = heads[:len(skip)]
	for i, s := range skip {
		m := -int32(b2u(s)) // all ones for a skipped row
		heads[i] = heads[i]&^m | dropped&m
	}
}

// Marks in heads for probe rows that have no chain head. A head found is a build row, with chainMore set when
// its chain has more rows (see hashtable.go).
const (
	noMatch = -1 // a null key, or a key the build side lacks
	// dropped is not a row of the join's input at all: innerunique's left row whose key an earlier left row
	// had; inner: a row the top above cannot keep; any kind: a row the filter below did not select.
	dropped = -2
)

// lookupBatch finds the chain head of every row of the current probe batch, before any row is joined. Doing
// all the lookups in one tight loop lets the processor overlap their cache misses, which dominate a probe
// against a table larger than the cache (measured on the int64 benchmark: about 15% faster than looking up
// row by row inside the join loop).
//
// The rows skip marks (not selected by a filter below, see readProbe) are dropped: never looked up, never seen
// by innerunique's dedupe, never output.
func (h *Hash) lookupBatch(skip []bool) {
	n := h.pb.N
	h.heads = h.heads[:0]
	if h.top != nil && h.top.Active() && h.markBelowTop() {
		dropUnselected(h.heads, skip)
		h.lookupKept()
		return
	}
	dedupe := h.unique && !h.buildLeft
	if h.ints != nil && !dedupe {
		k := h.pkeys[0]
		h.heads = slices.Grow(h.heads, n)[:n]
		h.ints.FindEach(k.Ints[:n], h.heads)
		markNullKeys(h.pkeys, h.heads)
		dropUnselected(h.heads, skip)
		return
	}
	if h.ints == nil {
		if singleStringKey(h.pkeys) {
			h.pstrs = h.pkeys[0].Strs[:n]
		} else {
			h.penc, h.buf = encodedKeys(h.pkeys, 0, n, h.buf, h.penc)
			h.pstrs = h.penc
		}
		if !dedupe {
			h.heads = slices.Grow(h.heads, n)[:n]
			h.strs.FindEach(h.pstrs, h.heads)
			markNullKeys(h.pkeys, h.heads)
			dropUnselected(h.heads, skip)
			return
		}
	}
	for i := 0; i < n; i++ {
		if skip != nil && skip[i] {
			h.heads = append(h.heads, dropped)
			continue
		}
		if hasNullKey(h.pkeys, i) {
			h.heads = append(h.heads, noMatch)
			continue
		}
		if h.ints != nil {
			k := h.pkeys[0].Ints[i]
			if _, ok := h.seenInts[k]; ok {
				h.heads = append(h.heads, dropped)
				continue
			}
			h.seenInts[k] = struct{}{}
			h.heads = append(h.heads, h.ints.Find(k))
			continue
		}
		s := h.pstrs[i]
		if _, ok := h.seenStrs[s]; ok {
			h.heads = append(h.heads, dropped)
			continue
		}
		h.seenStrs[s] = struct{}{}
		h.heads = append(h.heads, h.strs.Find(s))
	}
}

// markBelowTop sets heads to dropped for the current probe batch's rows that cannot enter the top above (see
// SetTopBound) and to 0 for the others, reading the bound once for the batch. It reports false, leaving heads
// empty, when the batch lacks the column.
func (h *Hash) markBelowTop() bool {
	v := h.pb.Cols[h.topCol]
	if v == nil {
		return false
	}
	n := h.pb.N
	h.heads = slices.Grow(h.heads[:0], n)[:n]
	heads := h.heads
	if lo, hi, nulls, ok := h.top.IntRange(v.Type); ok {
		for i, x := range v.Ints[:n] {
			heads[i] = 0
			if x < lo || x > hi {
				heads[i] = dropped
			}
		}
		if v.HasNulls() {
			for i := range heads {
				if v.IsNull(i) {
					heads[i] = 0
					if !nulls {
						heads[i] = dropped
					}
				}
			}
		}
		h.countSkipped()
		return true
	}
	for i := range heads {
		heads[i] = 0
		if !h.top.Keeps(v, i) {
			heads[i] = dropped
		}
	}
	h.countSkipped()
	return true
}

// countSkipped adds the current batch's rows that markBelowTop dropped to topSkipped.
func (h *Hash) countSkipped() {
	for _, x := range h.heads {
		if x == dropped {
			h.topSkipped++
		}
	}
}

// lookupKept finds the chain heads of the probe rows markBelowTop kept, leaving the others dropped. The join
// is inner (SetTopBound), so no row needs innerunique's dedupe.
func (h *Hash) lookupKept() {
	heads := h.heads
	if h.ints != nil {
		k := h.pkeys[0]
		for i, x := range k.Ints[:len(heads)] {
			if heads[i] != dropped {
				heads[i] = h.ints.Find(x)
			}
		}
		if k.HasNulls() {
			for i := range heads {
				if heads[i] != dropped && k.IsNull(i) {
					heads[i] = noMatch
				}
			}
		}
		return
	}
	if singleStringKey(h.pkeys) {
		h.pstrs = h.pkeys[0].Strs[:len(heads)]
	} else {
		h.penc, h.buf = encodedKeys(h.pkeys, 0, len(heads), h.buf, h.penc)
		h.pstrs = h.penc
	}
	for i, s := range h.pstrs {
		switch {
		case heads[i] == dropped:
		case hasNullKey(h.pkeys, i):
			heads[i] = noMatch
		default:
			heads[i] = h.strs.Find(s)
		}
	}
}

// probeBatch returns the next output batch of the probe phase, or nil when the probe side is exhausted.
func (h *Hash) probeBatch(ctx context.Context) (*column.Batch, error) {
	if h.unique && !h.buildLeft && h.seenInts == nil {
		h.seenInts, h.seenStrs = map[int64]struct{}{}, map[string]struct{}{}
	}
	// The index buffers are reused from batch to batch: assemble copies the rows out before returning.
	if h.pidx == nil {
		h.pidx, h.bidx = make([]int32, 0, h.maxOut+1), make([]int32, 0, h.maxOut+1)
	}
	pidx, bidx := h.pidx[:0], h.bidx[:0]
	for {
		if h.pb == nil || h.prow >= h.pb.N {
			if len(pidx) > 0 {
				return h.assemble(h.pb, pidx, bidx), nil
			}
			if ok, err := h.nextProbe(ctx); err != nil || !ok {
				return nil, err
			}
			h.prow, h.chain = 0, -1
		}
		if h.chain >= 0 { // resume a chain cut by the last batch
			i := int32(h.prow)
			for ; h.chain >= 0 && len(pidx) < h.maxOut; h.chain = h.next[h.chain] {
				if h.matched != nil {
					h.matched[h.chain] = true
				}
				pidx, bidx = append(pidx, i), append(bidx, h.chain)
			}
			if h.chain >= 0 {
				return h.assemble(h.pb, pidx, bidx), nil
			}
			h.prow++
		}
		var full bool
		if pidx, bidx, full = h.joinRows(pidx, bidx); full {
			return h.assemble(h.pb, pidx, bidx), nil
		}
	}
}

// joinRows joins the current probe batch's rows from h.prow on, as the kind asks, appending the output's probe
// and build rows to pidx and bidx (-1 null-extends a side) until the batch ends or the output holds maxOut
// rows: then it reports full, with h.prow (and h.chain, for a chain cut short) where to resume. The kind's
// branch is taken once per batch, and the loops read only locals, so the compiler keeps them in registers —
// under js/wasm, where every field read is a load from linear memory, that halves the loop's time. pidx and bidx
// have room for maxOut+1 rows (probeBatch allocates them so).
func (h *Hash) joinRows(pidx, bidx []int32) (_, _ []int32, full bool) {
	heads, next, matched, maxOut := h.heads, h.next, h.matched, h.maxOut
	prow, n := h.prow, h.pb.N
	switch {
	case h.ps.semi || h.ps.anti:
		want := h.ps.semi // semi outputs the probe rows that matched, anti those that did not
		for ; prow < n; prow++ {
			head := heads[prow]
			if head == dropped || (head >= 0) != want {
				continue
			}
			pidx, bidx = append(pidx, int32(prow)), append(bidx, -1)
			if len(pidx) >= maxOut {
				h.prow = prow + 1
				return pidx, bidx, true
			}
		}
	case h.bs.semi || h.bs.anti:
		// Only the build rows are marked; a chain is marked whole, so a marked head means the whole chain is.
		for ; prow < n; prow++ {
			if head := heads[prow]; head >= 0 && !matched[head&^chainMore] {
				h.markChain(head)
			}
		}
	case matched == nil: // pairs, marking no build row
		// The rows whose head is one build row or none (almost all, unless keys repeat on the build side)
		// go through a loop with no branch on the head: each writes its pair at k and advances k by one
		// when the pair is kept (a match; a miss when unmatched probe rows are output, its build row being
		// noMatch, -1, which null-extends). A head with more rows leaves the loop for its chain.
		keepMiss := b2u(h.ps.unmatched)
		for prow < n {
			k := len(pidx)
			pi, bi := pidx[:cap(pidx)], bidx[:cap(bidx)]
			bi = bi[:len(pi)]
			// Four rows a turn while all four heads are single rows or misses. The Go compiler's js/wasm code
			// takes every jump (a loop's back-edge, a skipped if) through a dispatch on a table of the
			// function's blocks, dearer than the pair itself (BenchmarkJoinRows).
			for lim := min(maxOut, len(pi)); prow+4 <= n && k+4 <= lim; prow += 4 {
				hs := heads[prow : prow+4 : prow+4]
				h0, h1, h2, h3 := hs[0], hs[1], hs[2], hs[3]
				if max(h0, h1, h2, h3) >= chainMore {
					break
				}
				p := int32(prow)
				pi[k], bi[k] = p, h0
				k += int(uint32(^h0)>>31 | uint32(b2u(h0 == noMatch)&keepMiss))
				pi[k], bi[k] = p+1, h1
				k += int(uint32(^h1)>>31 | uint32(b2u(h1 == noMatch)&keepMiss))
				pi[k], bi[k] = p+2, h2
				k += int(uint32(^h2)>>31 | uint32(b2u(h2 == noMatch)&keepMiss))
				pi[k], bi[k] = p+3, h3
				k += int(uint32(^h3)>>31 | uint32(b2u(h3 == noMatch)&keepMiss))
			}
			for ; prow < n && k < maxOut && k < len(pi); prow++ {
				head := heads[prow]
				if head >= chainMore {
					break
				}
				pi[k], bi[k] = int32(prow), head
				k += int(uint32(^head)>>31 | uint32(b2u(head == noMatch)&keepMiss))
			}
			pidx, bidx = pi[:k], bi[:k]
			if k >= maxOut || k >= len(pi) {
				h.prow = prow
				return pidx, bidx, true
			}
			if prow >= n {
				break
			}
			for r := heads[prow] &^ chainMore; r >= 0; r = next[r] {
				if len(pidx) >= maxOut {
					h.prow, h.chain = prow, r
					return pidx, bidx, true
				}
				pidx, bidx = append(pidx, int32(prow)), append(bidx, r)
			}
			prow++
			if len(pidx) >= maxOut {
				h.prow = prow
				return pidx, bidx, true
			}
		}
	default: // pairs, marking the build rows matched
		unmatched := h.ps.unmatched
		for ; prow < n; prow++ {
			switch head := heads[prow]; {
			case head < 0:
				if head == noMatch && unmatched {
					pidx, bidx = append(pidx, int32(prow)), append(bidx, -1)
				}
			case head&chainMore == 0: // a single-row chain: next[] is not read
				matched[head] = true
				pidx, bidx = append(pidx, int32(prow)), append(bidx, head)
			default:
				for r := head &^ chainMore; r >= 0; r = next[r] {
					matched[r] = true
					if len(pidx) >= maxOut {
						h.prow, h.chain = prow, r
						return pidx, bidx, true
					}
					pidx, bidx = append(pidx, int32(prow)), append(bidx, r)
				}
			}
			if len(pidx) >= maxOut {
				h.prow = prow + 1
				return pidx, bidx, true
			}
		}
	}
	h.prow = prow
	return pidx, bidx, false
}

// markChain marks every row of the chain head starts (chainMore may be set).
func (h *Hash) markChain(head int32) {
	r := head &^ chainMore
	if head&chainMore == 0 {
		h.matched[r] = true
		return
	}
	for ; r >= 0; r = h.next[r] {
		h.matched[r] = true
	}
}

// endRows returns the next batch of build rows the kind emits after the probe phase, or nil.
func (h *Hash) endRows() *column.Batch {
	if h.matched == nil {
		return nil
	}
	want := !(h.bs.unmatched || h.bs.anti) // semi wants the matched rows
	var bidx []int32
	for ; h.end < len(h.matched) && len(bidx) < h.maxOut; h.end++ {
		if h.matched[h.end] == want {
			bidx = append(bidx, int32(h.end))
		}
	}
	if len(bidx) == 0 {
		return nil
	}
	return h.assemble(nil, nil, bidx)
}

// assemble builds an output batch from probe rows pidx of pb and build rows bidx (-1 null-extends a side).
// With pb nil, the probe side's columns are all null. A where set by SetWhere is evaluated on the pairs first
// (pairs.go), so the batch may have no rows; Next skips those.
func (h *Hash) assemble(pb *column.Batch, pidx, bidx []int32) *column.Batch {
	p := &pairs{spec: h.spec, n: len(bidx)}
	if h.buildLeft {
		p.left, p.lidx, p.right, p.ridx = h.table.Batch(), bidx, pb, pidx
	} else {
		p.left, p.lidx, p.right, p.ridx = pb, pidx, h.table.Batch(), bidx
	}
	if h.agg != nil { // aggregate mode: fold the rows in instead of copying them out (see hash_aggregate.go)
		if h.where != nil {
			if sel := p.keep(h.where); sel != nil {
				pidx, bidx = compact(pidx, sel), compact(bidx, sel)
			}
		}
		h.agg.addRows(h, pb, pidx, bidx)
		return aggregatedBatch
	}
	return p.assemble(h.where)
}

// b2u is 1 for true and 0 for false; the compiler makes it a flag set (a select under wasm), not a branch.
func b2u(t bool) uint8 {
	var u uint8
	if t {
		u = 1
	}
	return u
}
