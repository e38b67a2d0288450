package join

import (
	"context"
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/dynfilter"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/keymap"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/partition"
	"github.com/joinlab/joinlab/engine/spill"
	"github.com/joinlab/joinlab/engine/trace"
)

// Grace is the Grace hash-partition join: the join for inputs whose build side does not fit the memory
// budget. It splits both inputs with one seeded hash of the key into P partitions spilled to a store, so that
// every row of a key lands in the same partition number on both sides, then joins each partition pair in
// memory with the hash join, building on the smaller side of that pair.
//
//	partition left ──► partition right ──► next pair ──┬──► hash pair ───┐
//	                                          ▲         ├──► hot blocks ──┤
//	                                          │         └──► re-partition ┤
//	                                          └───────────────────────────┘  (no pair left: done)
//
//	partition  read one input, hash each row's key (partition.Partitioner) and append it to its partition's
//	           page; a full page is written to the spill store. Rows with a null key never match: they are
//	           emitted at once when the kind keeps them (outer, anti) and dropped otherwise, never spilled.
//	next pair  take the next pair from a stack. It fits when its smaller side, with the hash table over it,
//	           fits what the budget has left: it is joined in memory (hash pair). Else it is split again with
//	           a new seed into sub-partitions pushed on the stack (re-partition), unless the last split barely
//	           shrank it (graceShrinkLimit): then its rows share a few hot keys that no hash can split, and
//	           it goes to the hot-key path.
//	hot blocks read the build side of the pair in blocks that fit memory, and for each block stream the whole
//	           probe side of the pair past it; a bitmap over the probe rows remembers which ever matched, so
//	           the probe side's unmatched (outer, anti) or matched (semi) rows are emitted once, in a last pass.
//
// Every kind is correct under partitioning because a key's rows, on both sides, meet in exactly one pair:
// a row unmatched in its pair is unmatched globally, and innerunique's first left row of a key is the first
// of its partition (partitioning keeps input order within a partition).
//
// Output order: null-key rows as they are read, then pair by pair (each in the hash join's order).
// Memory: P page buffers while partitioning, then one pair's smaller side and its hash table, or the hot-key
// path's reservation and one block (see hotJoin); everything is grown on the query's budget before it is held. Cost: the textbook 3(N+M) page I/Os — read both inputs,
// write their partitions, read them back — plus 2 more per re-partitioned page and, on the hot-key path, one
// read of the probe side per build block. The page counts are reported in the run's details.
type Grace struct {
	spec        *Spec
	left, right exec.Operator
	env         *exec.Env
	cfg         GraceConfig
	op          string // names the operator in trace events

	state graceState
	err   error // the error that ended the run, returned again by later calls

	store     spill.Store
	held      int64 // bytes grown on env.Budget and not yet shrunk
	pageBytes int
	fanout    int // level-0 partitions

	// The partitioning phase: which side, its writers and their codec.
	side    int
	writers []*spill.Writer
	codecs  [2]*spill.Codec
	assign  []int32
	nullIdx []int32
	runs    [2][]spill.Run
	inBytes [2]int64 // bytes of each input as written, the N and M of 3(N+M) once divided by pageBytes

	pairs             []*gracePair // the stack; the next pair is last
	pair              *gracePair   // the pair being joined
	hash              *Hash
	hot               func() (*column.Batch, error, bool)
	stop              func()
	pairHeld, pairOut int64
	pairBuildLeft     bool
	// keys and handOver, when set, collect the left side's first key while it is partitioned and receive
	// them before the right side is read (see HandBuildKeysTo).
	keys     *dynfilter.Collector
	handOver func(*dynfilter.Collector) error

	levels, hotKeys int

	// The keys of the side being written, per partition, while it may still be small enough to list
	// (joinevent.SmallSideRows): small is nil once it is not, or when nothing records the trace. At most
	// SmallSideRows labels of keyLabelBytes, for the trace: not grown on the budget.
	small     [][]string
	smallNull []string // level 0: the rows whose key is null, set aside
	smallRows int      // rows of the side seen so far
	keyBuf    []byte
}

// GraceConfig tunes one Grace join: the planner's estimate of the smaller side, and test knobs.
type GraceConfig struct {
	// EstimatedBuildBytes and EstimatedBuildRows are the planner's estimate of the smaller input in memory;
	// the partition count is made from them and the budget.
	EstimatedBuildBytes, EstimatedBuildRows float64
	// Seed seeds the partitioning hash (0: graceSeed).
	Seed uint64
	// NewStore makes the spill store (nil: spill.StoreFor, a store of the run's spill.Space, which removes it
	// if the join is never pulled to its end).
	NewStore func(ctx context.Context) (spill.Store, error)

	// Test knobs, zero in production. Partitions and PageBytes override the computed partition count and page
	// size; MaxFanout caps a re-partition's fan-out; ForceLevels re-partitions every pair above that level even
	// when it fits; ForceHot sends every pair below ForceLevels to the hot-key path; HotBlockRows caps a
	// hot-key block's rows so a few rows make several blocks.
	Partitions, PageBytes, MaxFanout int
	ForceLevels                      int
	ForceHot                         bool
	HotBlockRows                     int
}

// gracePair is one partition of both inputs.
type gracePair struct {
	id    string // "3", or "3.1" for sub-partition 1 of partition 3
	level int
	runs  [2]spill.Run // left, right
	// parentNeed is the memory the smaller side of the pair this one was split from needed; 0 at level 0.
	parentNeed int64
}

type graceState int

const (
	gracePartition graceState = iota // reading input g.side into partitions
	gracePairs                       // choosing what to do with the next pair
	graceHashPair                    // streaming a pair's in-memory hash join
	graceHotPair                     // streaming a pair's hot-key block join
	graceDone
)

// The Grace join's trace events (Spill, PartitionWritten, PartitionRead, Repartition, HotKey, PairJoined) are
// declared in engine/join/joinevent.

// Thresholds, each with the reason for its value.
const (
	// graceSeed is the default hash seed; any fixed value makes runs reproducible.
	graceSeed = 0x6a09e667f3bcc908
	// graceBuildShare is the share of the available memory a level-0 partition's build side is planned to
	// take. Half leaves room for partitions that come out larger than average (hash variance, mild skew)
	// without re-partitioning them.
	graceBuildShare = 0.5
	// graceBufferShare is the share of the available memory the partition page buffers may take while
	// partitioning; the rest stays for whatever else the query holds at that time.
	graceBufferShare = 0.25
	// graceBudgetPages is the least number of pages the budget holds. A pair's readers hold two raw pages and
	// two decoded ones, and a decoded page can be several times its encoding (8-byte values from 1-byte
	// varints): pages of a 32nd of the budget leave most of it to the build side even then, where pages of a
	// quarter (one partition) would not fit next to each other.
	graceBudgetPages = 32
	// graceMaxPageBytes caps a page: 64 KiB amortizes a write or read request (one system call each) over
	// hundreds of rows, and 256 such buffers still take only 16 MiB.
	graceMaxPageBytes = 64 << 10
	// graceMaxFanout caps the partitions of one split: more buffers shrink each page below the point where
	// I/O stays efficient; a larger input is split again at the next level instead.
	graceMaxFanout = 256
	// graceRowOverhead is the planning estimate of the hash join's bytes per build row beyond the row itself:
	// 4 for its chain link and up to 64 for its share of the int64 table (16-byte slots, at most 4 per row).
	graceRowOverhead = 4 + 64
	// graceShrinkLimit: a pair whose smaller side still needs more than this share of what its parent needed
	// barely shrank when split — with a fan-out of at least 2, distinct keys would leave it at most about half
	// — so its rows share a hot key and splitting again would recurse forever. It goes to the hot-key path.
	graceShrinkLimit = 0.8
	// graceMaxLevels bounds re-partitioning whatever the sizes say: past it the hot-key path is taken.
	graceMaxLevels = 8
	// graceMapEntryBytes estimates one entry of a Go map of keys (a seen-key set), for accounting.
	graceMapEntryBytes = 48
	// graceOutCellBytes bounds what one output cell copies: a string header, the widest (a gather shares the
	// string's bytes with its input).
	graceOutCellBytes = 16
	// graceHotOutDivisor: the hot-key path's output batch takes this fraction of the memory its fixed part
	// leaves (bounded by one row and outRows). A larger batch only spreads a per-batch cost; a larger block
	// saves a whole read of the probe side, so blocks get the rest.
	graceHotOutDivisor = 8
)

// NewGrace makes a Grace join of left and right under spec, charging env.Budget for what it holds and
// reporting to env.Trace and env.Details.
func NewGrace(spec *Spec, left, right exec.Operator, env *exec.Env, cfg GraceConfig) *Grace {
	if cfg.Seed == 0 {
		cfg.Seed = graceSeed
	}
	var keys []string
	for _, k := range spec.LeftKeys {
		keys = append(keys, spec.Left[k].Name)
	}
	return &Grace{spec: spec, left: left, right: right, env: env, cfg: cfg, op: "grace on " + strings.Join(keys, ",")}
}

func (g *Grace) Schema() column.Schema { return g.spec.Schema }

// HandBuildKeysTo makes the join collect the left side's first key into keys while it partitions that side,
// and give them to f before it reads a row of the right side, so a dynamic filter (dynfilter.Probe) can narrow
// the right side's scan. The left side is always partitioned first, so only a kind that passes
// ProbeMayBeFiltered with the build on the left may be given a filtered right side.
func (g *Grace) HandBuildKeysTo(keys *dynfilter.Collector, f func(*dynfilter.Collector) error) {
	g.keys, g.handOver = keys, f
}

// Next returns the next output batch. Any error ends the run and removes everything spilled, as does the end.
func (g *Grace) Next(ctx context.Context) (*column.Batch, error) {
	if g.err != nil {
		return nil, g.err
	}
	b, err := g.next(ctx)
	if err != nil {
		if in, ok := err.(inputError); ok {
			g.err = in.err
		} else {
			g.err = fmt.Errorf("grace join: %w", err)
		}
		g.finish()
		return nil, g.err
	}
	return b, nil
}

// inputError is an error of one of the join's inputs. Next returns it as it is, since the input names
// itself: a Grace join over another one fails with one "grace join:" prefix, the inner join's.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }

func (g *Grace) next(ctx context.Context) (*column.Batch, error) {
	if g.store == nil && g.state != graceDone {
		if err := g.start(ctx); err != nil {
			return nil, err
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch g.state {
		case gracePartition:
			b, err := g.partitionStep(ctx)
			if err != nil || b != nil {
				return b, err
			}
		case gracePairs:
			if len(g.pairs) == 0 {
				g.finish()
				g.state = graceDone
				continue
			}
			if err := g.nextPair(ctx); err != nil {
				return nil, err
			}
		case graceHashPair:
			b, err := g.hash.Next(ctx)
			if err != nil {
				return nil, fmt.Errorf("partition %s: %w", g.pair.id, err)
			}
			if b != nil {
				g.pairOut += int64(b.N)
				return b, nil
			}
			g.hash = nil
			if err := g.pairDone("hash"); err != nil {
				return nil, err
			}
		case graceHotPair:
			b, err, ok := g.hot()
			if err != nil {
				return nil, fmt.Errorf("partition %s: %w", g.pair.id, err)
			}
			if ok {
				g.pairOut += int64(b.N)
				return b, nil
			}
			g.stop()
			g.hot, g.stop = nil, nil
			if err := g.pairDone("blocks"); err != nil {
				return nil, err
			}
		case graceDone:
			return nil, nil
		default:
			return nil, fmt.Errorf("impossible state %d", g.state)
		}
	}
}

// start opens the store and fixes the partition count and page size from the budget and the estimate.
func (g *Grace) start(ctx context.Context) error {
	newStore := g.cfg.NewStore
	if newStore == nil {
		newStore = spill.StoreFor
	}
	st, err := newStore(ctx)
	if err != nil {
		return err
	}
	g.store = st
	avail := g.env.Budget.Available()
	g.fanout, g.pageBytes = GracePartitions(g.cfg.EstimatedBuildBytes, g.cfg.EstimatedBuildRows, avail)
	if g.cfg.Partitions > 0 {
		g.fanout = g.cfg.Partitions
	}
	if g.cfg.PageBytes > 0 {
		g.pageBytes = g.cfg.PageBytes
	}
	g.env.Details.Add("partitions", int64(g.fanout))
	g.env.Details.Set("page_bytes", int64(g.pageBytes))
	return g.startSide(0)
}

// GracePartitions is the level-0 partition count and page size for a build side estimated at estBytes and
// estRows when avail bytes of memory are free: enough partitions that each one's build side and hash table
// take graceBuildShare of the memory, and pages as large as graceBufferShare of it allows for that many
// buffers, up to a graceBudgetPages-th of the memory and graceMaxPageBytes.
func GracePartitions(estBytes, estRows float64, avail int64) (partitions, pageBytes int) {
	need := estBytes + estRows*graceRowOverhead
	parts := int(math.Ceil(need / (float64(avail) * graceBuildShare)))
	parts = min(max(parts, 1), graceMaxFanout)
	buffers := float64(avail) * graceBufferShare
	parts = max(min(parts, int(buffers/spill.MinPageBytes)), 1)
	page := min(int(buffers/float64(parts)), int(avail/graceBudgetPages), graceMaxPageBytes)
	return parts, max(page, spill.MinPageBytes)
}

func (g *Grace) grow(what string, n int64) error {
	if err := g.env.Budget.Grow(what, n); err != nil {
		return err
	}
	g.held += n
	return nil
}

func (g *Grace) shrink(n int64) {
	g.env.Budget.Shrink(n)
	g.held -= n
}

func sideName(s int) string { return [2]string{"left", "right"}[s] }

func (g *Grace) emit(p trace.Payload) {
	g.env.Trace.Emit(trace.Event{Op: g.op, Payload: p})
}

func (g *Grace) input(s int) exec.Operator {
	if s == 0 {
		return g.left
	}
	return g.right
}

func (g *Grace) sideKeys(s int) []int {
	if s == 0 {
		return g.spec.LeftKeys
	}
	return g.spec.RightKeys
}

func (g *Grace) sideSchema(s int) column.Schema {
	if s == 0 {
		return g.spec.Left
	}
	return g.spec.Right
}

// startSide reserves the page buffers for partitioning input s.
func (g *Grace) startSide(s int) error {
	g.side = s
	g.writers = nil
	g.listKeys(g.fanout)
	return g.grow("partition page buffers", int64(g.fanout)*int64(g.pageBytes))
}

// partitionStep partitions one batch of the current input, returning the rows with a null key the kind
// emits, if any; at the end of the input it finishes the side.
func (g *Grace) partitionStep(ctx context.Context) (*column.Batch, error) {
	s := g.side
	b, err := g.input(s).Next(ctx)
	if err != nil {
		return nil, inputError{err}
	}
	if b == nil {
		runs, err := g.finishWriters(0, 0, "")
		if err != nil {
			return nil, err
		}
		g.runs[s] = runs
		for _, r := range runs {
			g.inBytes[s] += r.Bytes
		}
		g.shrink(int64(g.fanout) * int64(g.pageBytes))
		if s == 0 {
			if g.handOver != nil {
				if err := g.handOver(g.keys); err != nil {
					return nil, fmt.Errorf("hand the left keys over: %w", err)
				}
			}
			return nil, g.startSide(1)
		}
		for p := g.fanout - 1; p >= 0; p-- {
			g.pairs = append(g.pairs, &gracePair{id: strconv.Itoa(p), runs: [2]spill.Run{g.runs[0][p], g.runs[1][p]}})
		}
		g.state = gracePairs
		return nil, nil
	}
	if b.N == 0 {
		return nil, nil
	}
	if g.writers == nil {
		g.codecs[s] = spill.NewCodec(g.sideSchema(s), spill.LiveOf(b))
		if err := g.openWriters(s, g.fanout); err != nil {
			return nil, err
		}
	}
	if s == 0 && g.keys != nil {
		g.keys.Add(b.Cols[g.spec.LeftKeys[0]], b.N)
	}
	keys := keyColumns(b, g.sideKeys(s), g.spec.KeyTypes)
	g.assign = partition.Partitioner{Seed: g.cfg.Seed, Fanout: g.fanout, NullsApart: true}.Assign(keys, b.N, g.assign)
	g.nullIdx = g.nullIdx[:0]
	for i, p := range g.assign {
		if p == partition.NullKey {
			g.nullIdx = append(g.nullIdx, int32(i))
			continue
		}
		if err := g.writers[p].Append(b, i); err != nil {
			return nil, err
		}
	}
	g.noteKeys(keys, b.N, g.assign)
	ls, rs := g.spec.Kind.sides()
	keep := ls.unmatched || ls.anti
	if s == 1 {
		keep = rs.unmatched || rs.anti
	}
	if len(g.nullIdx) == 0 || !keep {
		return nil, nil
	}
	if s == 0 {
		return g.assemble(b, g.nullIdx, nil, nil, len(g.nullIdx)), nil
	}
	return g.assemble(nil, nil, b, g.nullIdx, len(g.nullIdx)), nil
}

func (g *Grace) openWriters(s, fanout int) error {
	g.writers = make([]*spill.Writer, fanout)
	for p := range g.writers {
		f, err := g.store.Create()
		if err != nil {
			return err
		}
		g.writers[p] = spill.NewWriter(f, g.codecs[s], g.pageBytes)
	}
	return nil
}

// finishWriters completes the partitions of side g.side being written at level (children of parent, "" at
// level 0) and traces them. A side with no rows at all has no writers: its partitions are empty runs.
func (g *Grace) finishWriters(level, fanout int, parent string) ([]spill.Run, error) {
	if fanout == 0 {
		fanout = g.fanout
	}
	runs := make([]spill.Run, fanout)
	var rows, bytes, pages int64
	for p, w := range g.writers {
		r, err := w.Finish()
		if err != nil {
			return nil, err
		}
		runs[p] = r
		rows, bytes, pages = rows+r.Rows, bytes+r.Bytes, pages+r.Pages
	}
	for p, r := range runs {
		g.emit(joinevent.PartitionWritten{Side: sideName(g.side), Partition: childID(parent, p),
			Level: level, Rows: r.Rows, Bytes: r.Bytes, Pages: r.Pages})
		if g.small != nil && len(g.small[p]) > 0 {
			g.emit(joinevent.PartitionKeys{Side: sideName(g.side), Partition: childID(parent, p), Level: level,
				Keys: g.small[p]})
		}
	}
	if g.small != nil && len(g.smallNull) > 0 {
		g.emit(joinevent.PartitionKeys{Side: sideName(g.side), Level: level, Keys: g.smallNull})
	}
	g.small, g.smallNull = nil, nil
	g.emit(joinevent.Spill{Side: sideName(g.side), Level: level, Partitions: fanout,
		Rows: rows, Bytes: bytes, Pages: pages, PageBytes: g.pageBytes})
	g.writers = nil
	return runs, nil
}

// listKeys starts listing the keys of the side about to be written into fanout partitions, for the trace of
// a small run (joinevent.PartitionKeys); without a trace to record them there is nothing to list.
func (g *Grace) listKeys(fanout int) {
	g.small, g.smallNull, g.smallRows = nil, nil, 0
	if g.env.Trace != nil {
		g.small = make([][]string, fanout)
	}
}

// noteKeys lists the keys of a batch of n rows assigned to partitions (partition.NullKey: set aside), until
// the side passes joinevent.SmallSideRows rows: then it lists nothing more, so a large side costs one
// comparison a batch and the trace never carries its keys.
func (g *Grace) noteKeys(keys []*column.Vector, n int, assign []int32) {
	if g.small == nil {
		return
	}
	if g.smallRows += n; g.smallRows > joinevent.SmallSideRows {
		g.small, g.smallNull = nil, nil
		return
	}
	var label string
	for i, p := range assign[:n] {
		label, g.keyBuf = rowKeyLabel(g.spec.KeyTypes, keys, i, g.keyBuf)
		if p == partition.NullKey {
			g.smallNull = append(g.smallNull, label)
			continue
		}
		g.small[p] = append(g.small[p], label)
	}
}

func childID(parent string, p int) string {
	if parent == "" {
		return strconv.Itoa(p)
	}
	return parent + "." + strconv.Itoa(p)
}

// buildNeed is what the hash join grows to build on run: its decoded rows, 4 bytes a row of chain links and
// the hash table (see Hash.index), whose copies of long keys the rows' own bytes bound (a key's encoding is
// no longer than its columns).
func (g *Grace) buildNeed(r spill.Run) int64 {
	table := keymap.StrsBytes(int(r.Rows)) + r.MemBytes
	if intKeyed(g.spec.KeyTypes) {
		table = keymap.IntsBytes(int(r.Rows))
	}
	return r.MemBytes + 4*r.Rows + table
}

// readerNeed is what reading a pair holds besides the build: a raw page buffer per side and the decoded probe
// page in flight, plus, for innerunique probing with the left side, the hash join's set of left keys seen.
func (g *Grace) readerNeed(p *gracePair, buildLeft bool) int64 {
	probe := p.runs[0]
	if buildLeft {
		probe = p.runs[1]
	}
	n := 2*int64(g.pageBytes) + probe.MaxPageMem
	if g.spec.Kind == InnerUnique && !buildLeft {
		n += graceMapEntryBytes * p.runs[0].Rows
	}
	return n
}

// nextPair pops a pair and joins it in memory, splits it again, or starts its hot-key path.
func (g *Grace) nextPair(ctx context.Context) error {
	p := g.pairs[len(g.pairs)-1]
	g.pairs = g.pairs[:len(g.pairs)-1]
	if p.runs[0].Rows == 0 && p.runs[1].Rows == 0 {
		return g.removeRuns(p)
	}
	buildLeft := p.runs[0].MemBytes <= p.runs[1].MemBytes
	build := p.runs[1]
	if buildLeft {
		build = p.runs[0]
	}
	need := g.buildNeed(build)
	total := need + g.readerNeed(p, buildLeft)
	avail := g.env.Budget.Available()
	forced := p.level < g.cfg.ForceLevels
	shrink := 0.0
	if p.parentNeed > 0 {
		shrink = float64(need) / float64(p.parentNeed)
	}
	g.pair, g.pairOut, g.pairBuildLeft = p, 0, buildLeft
	switch {
	case !forced && !g.cfg.ForceHot && total <= avail:
		if err := g.grow("partition "+p.id, total); err != nil {
			return err
		}
		g.pairHeld = total
		// The hash join gets its own budget, exactly what was reserved for its build on the query's budget.
		g.hash = NewHash(g.spec, g.runOp(p, 0), g.runOp(p, 1), buildLeft, memory.NewBudget(need))
		g.state = graceHashPair
	case !forced && (g.cfg.ForceHot || p.level >= graceMaxLevels || shrink > graceShrinkLimit):
		g.hotKeys++
		g.env.Details.Add("hot_keys", 1)
		g.pairHeld = 0
		if g.spec.Kind == InnerUnique { // its blocks are of the right side (see hotJoin)
			g.pairBuildLeft = false
		}
		g.hot, g.stop = iter.Pull2(g.hotJoin(ctx, p, g.pairBuildLeft, shrink))
		g.state = graceHotPair
	default:
		return g.repartition(ctx, p, need, avail)
	}
	return nil
}

// repartition splits pair p with the next level's seed into sub-pairs pushed on the stack.
func (g *Grace) repartition(ctx context.Context, p *gracePair, need, avail int64) error {
	level := p.level + 1
	fanout := int(math.Ceil(float64(need) / (float64(avail) * graceBuildShare)))
	fanout = min(max(fanout, 2), graceMaxFanout)
	if g.cfg.MaxFanout > 0 {
		fanout = min(fanout, max(g.cfg.MaxFanout, 2))
	}
	seed := partition.LevelSeed(g.cfg.Seed, level)
	g.emit(joinevent.Repartition{Partition: p.id, Level: level, Fanout: fanout, Seed: seed,
		Need: need, Available: avail})
	g.levels = max(g.levels, level)
	var out [2][]spill.Run
	for s := range 2 {
		r := p.runs[s]
		held := int64(fanout)*int64(g.pageBytes) + int64(g.pageBytes) + r.MaxPageMem
		if err := g.grow("re-partition buffers", held); err != nil {
			return err
		}
		g.side = s
		if err := g.openWriters(s, fanout); err != nil {
			return err
		}
		g.small = nil
		if r.Rows <= joinevent.SmallSideRows {
			g.listKeys(fanout)
		}
		g.traceRead(p, s)
		rd := spill.NewReader(r, g.codecs[s])
		part := partition.Partitioner{Seed: seed, Fanout: fanout}
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			b, err := rd.Next()
			if err != nil {
				return err
			}
			if b == nil {
				break
			}
			keys := keyColumns(b, g.sideKeys(s), g.spec.KeyTypes)
			g.assign = part.Assign(keys, b.N, g.assign)
			for i, q := range g.assign {
				if err := g.writers[q].Append(b, i); err != nil {
					return err
				}
			}
			g.noteKeys(keys, b.N, g.assign)
		}
		runs, err := g.finishWriters(level, fanout, p.id)
		if err != nil {
			return err
		}
		out[s] = runs
		g.shrink(held)
		if r.File != nil {
			if err := r.File.Remove(); err != nil {
				return err
			}
		}
	}
	for q := fanout - 1; q >= 0; q-- {
		g.pairs = append(g.pairs, &gracePair{id: childID(p.id, q), level: level, parentNeed: need,
			runs: [2]spill.Run{out[0][q], out[1][q]}})
	}
	return nil
}

func (g *Grace) traceRead(p *gracePair, s int) {
	r := p.runs[s]
	g.emit(joinevent.PartitionRead{Side: sideName(s), Partition: p.id, Level: p.level,
		Rows: r.Rows, Bytes: r.Bytes, Pages: r.Pages})
}

// pairDone traces a joined pair and lets its memory and files go.
func (g *Grace) pairDone(method string) error {
	p := g.pair
	b, pr := 1, 0
	if g.pairBuildLeft {
		b, pr = 0, 1
	}
	g.emit(joinevent.PairJoined{Partition: p.id, Level: p.level, Method: method,
		Build: sideName(b), BuildRows: p.runs[b].Rows, ProbeRows: p.runs[pr].Rows, Rows: g.pairOut})
	g.shrink(g.pairHeld)
	g.pairHeld, g.pair = 0, nil
	g.state = gracePairs
	return g.removeRuns(p)
}

func (g *Grace) removeRuns(p *gracePair) error {
	for _, r := range p.runs {
		if r.File != nil {
			if err := r.File.Remove(); err != nil {
				return err
			}
		}
	}
	return nil
}

// finish reports the run's figures and releases everything: memory, the hot-key iterator, the store.
func (g *Grace) finish() {
	if g.stop != nil {
		g.stop()
		g.hot, g.stop = nil, nil
	}
	if g.held != 0 {
		g.shrink(g.held)
	}
	if g.store == nil {
		return
	}
	io := g.store.IO()
	inPages := pagesOf(g.inBytes[0], g.pageBytes) + pagesOf(g.inBytes[1], g.pageBytes)
	d := g.env.Details
	d.Add("io_pages_written", io.PagesWritten)
	d.Add("io_pages_read", io.PagesRead+inPages)
	d.Add("io_pages_bound", 3*inPages)
	old, _ := d.Map()["repartition_levels"].(int64)
	d.Set("repartition_levels", max(old, int64(g.levels)))
	if g.hotKeys == 0 {
		d.Add("hot_keys", 0)
	}
	g.store.Close()
	g.store = nil
	g.state = graceDone
}

// pagesOf is the pages n bytes fill.
func pagesOf(n int64, pageBytes int) int64 { return (n + int64(pageBytes) - 1) / int64(pageBytes) }

// runOp streams one side of a pair from the store, as the hash join's input.
type runOp struct {
	g      *Grace
	p      *gracePair
	s      int
	r      *spill.Reader
	schema column.Schema
}

func (g *Grace) runOp(p *gracePair, s int) *runOp {
	return &runOp{g: g, p: p, s: s, schema: g.sideSchema(s)}
}

func (o *runOp) Schema() column.Schema { return o.schema }

func (o *runOp) Next(ctx context.Context) (*column.Batch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.r == nil {
		o.g.traceRead(o.p, o.s)
		o.r = spill.NewReader(o.p.runs[o.s], o.g.codecs[o.s])
	}
	return o.r.Next()
}

// assemble builds an output batch of n rows from rows lidx of left and ridx of right; a nil batch gives
// nulls for that side, and -1 in an index a null row.
func (g *Grace) assemble(left *column.Batch, lidx []int32, right *column.Batch, ridx []int32, n int) *column.Batch {
	cols := make([]*column.Vector, len(g.spec.Schema))
	place := func(out []int, b *column.Batch, idx []int32) {
		for c, o := range out {
			switch {
			case o < 0 || !g.spec.Outputs(o):
			case b == nil:
				cols[o] = column.NullVector(g.spec.Schema[o].Type, n)
			case b.Cols[c] != nil:
				cols[o] = b.Cols[c].Gather(idx)
			}
		}
	}
	place(g.spec.LeftOut, left, lidx)
	place(g.spec.RightOut, right, ridx)
	return column.NewBatch(cols, n)
}

// BuildEstimate is a planner's estimate of one input: bytes in memory and rows.
type BuildEstimate struct{ Bytes, Rows float64 }

// HashBuildEstimate is what an in-memory hash join is planned to hold to build on an input estimated at
// bytes and rows: the rows and graceRowOverhead a row for its chain link and table slots.
func HashBuildEstimate(bytes, rows float64) float64 { return bytes + rows*graceRowOverhead }
