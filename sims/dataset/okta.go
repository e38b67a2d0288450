package dataset

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
)

// OktaParams shape a virtual OktaSystemLogs table.
type OktaParams struct {
	// Rows is the table's size: thousands to 70 billion (a month of a large tenant).
	Rows int64
	// Users is the number of distinct actors; Skew is the Zipf exponent of their activity (> 1).
	Users int
	Skew  float64
	// TieRows is the mean number of rows sharing one published timestamp (>= 1). Blocks vary around it, and a
	// BurstFraction of blocks put all their rows on one timestamp: ties a cursor must get through.
	TieRows       float64
	BurstFraction float64
	// Storm makes one full block other than the newest, placed by the seed, a burst whatever BurstFraction
	// draws: a login storm of blockRows rows on one timestamp, which no time window can split. A small table
	// has too few blocks for BurstFraction alone to be sure of one; one of fewer than two full blocks
	// (2·blockRows rows) has no room for a storm and gets none.
	Storm bool
	// End is the newest timestamp; Span the time the table covers.
	End  time.Time
	Span time.Duration
	Seed uint64
}

// DefaultOkta is a month of a large tenant: 70 billion events.
var DefaultOkta = OktaParams{Rows: 70_000_000_000, Users: 200_000, Skew: 1.2, TieRows: 4, BurstFraction: 1.0 / 64,
	End: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), Span: 30 * 24 * time.Hour, Seed: 1}

// blockRows is the unit of the timestamp layout: each block of positions covers a fixed run of timestamp
// ticks, warped within the block, so a position's timestamp is computed in O(1) and a timestamp is found by
// binary search, and a tie group never spans blocks (it is at most blockRows rows).
const blockRows = 4096

// OktaLogs is a virtual table of Okta System Log events: row i is a pure function of i, and i is the row's
// rank in (published desc, actor.alternateId asc, uuid asc) order. Nothing is stored. A request seeks to its
// first position by binary search on the timestamps (O(log rows)) and one tie group (O(group)), then generates
// rows forward until it has its answer, so a keyset page costs work proportional to the rows it reads, not to
// the table. Generated counts every row made, for tests that check that cost.
type OktaLogs struct {
	p             OktaParams
	ticksPerBlock int64
	tickNs        int64
	endNs         int64
	stormBlock    int64 // the block Storm makes a burst; -1: none
	generated     atomic.Int64
	hotOnce       sync.Once
	hotLogins     []string
	hotRank       []int32
}

// NewOktaLogs makes the table.
func NewOktaLogs(p OktaParams) (*OktaLogs, error) {
	if p.Rows < 0 || p.Users < 1 || p.TieRows < 1 || p.Span <= 0 {
		return nil, fmt.Errorf("dataset: OktaSystemLogs: bad parameters (rows %d, users %d, ties %g, span %s)", p.Rows, p.Users, p.TieRows, p.Span)
	}
	t := &OktaLogs{p: p, endNs: p.End.UnixNano(), stormBlock: -1}
	t.ticksPerBlock = max(1, int64(blockRows/p.TieRows))
	blocks := (p.Rows + blockRows - 1) / blockRows
	if full := p.Rows / blockRows; p.Storm && full >= 2 {
		// A full block (the last may be short), never the newest: the table opens on ordinary traffic and a
		// reader meets the storm partway.
		t.stormBlock = 1 + int64(mix(p.Seed^stormSalt)%uint64(full-1))
	}
	t.tickNs = max(1, int64(p.Span)/max(1, blocks*t.ticksPerBlock))
	return t, nil
}

// Generated is the number of rows generated so far.
func (t *OktaLogs) Generated() int64 { return t.generated.Load() }

// OktaKey is the table's order, which has no ties.
var OktaKey = []connector.OrderKey{{Column: "published", Desc: true}, {Column: "actor.alternateId"}, {Column: "uuid"}}

// OktaSchema is the event's shape: top-level fields, nested objects as dynamic JSON, and their leaves.
var OktaSchema = column.Schema{
	{Name: "uuid", Type: column.String},
	{Name: "published", Type: column.DateTime},
	{Name: "eventType", Type: column.String},
	{Name: "displayMessage", Type: column.String},
	{Name: "severity", Type: column.String},
	{Name: "actor", Type: column.Dynamic},
	{Name: "client", Type: column.Dynamic},
	{Name: "outcome", Type: column.Dynamic},
	{Name: "actor.id", Type: column.String, Hidden: true},
	{Name: "actor.type", Type: column.String, Hidden: true},
	{Name: "actor.alternateId", Type: column.String, Hidden: true},
	{Name: "actor.displayName", Type: column.String, Hidden: true},
	{Name: "client.ipAddress", Type: column.String, Hidden: true},
	{Name: "client.geographicalContext.country", Type: column.String, Hidden: true},
	{Name: "client.geographicalContext.city", Type: column.String, Hidden: true},
	{Name: "outcome.result", Type: column.String, Hidden: true},
	{Name: "outcome.reason", Type: column.String, Hidden: true},
}

func (t *OktaLogs) Info() connector.TableInfo {
	return connector.TableInfo{Name: "OktaSystemLogs", Schema: OktaSchema, Rows: t.p.Rows, Key: OktaKey, NeverNull: orderColumns(OktaKey)}
}

// blockShape is how one block lays its timestamps out: a burst puts the whole block on one tick (off); otherwise
// position j of the block sits at tick offset min(T-1, floor(T·(j/blockRows)^e)), a warp that makes some tie
// groups long and others single rows. It is computed once per block, so walking a block costs one pow per
// position and no hash, exp or log.
type blockShape struct {
	k     int64
	burst bool
	off   int64   // the burst's tick offset
	e     float64 // the warp exponent, in [1/3, 3]
}

func (t *OktaLogs) shape(k int64) blockShape {
	h := mix(t.p.Seed ^ uint64(k)*0x9e3779b97f4a7c15)
	if unit(h) < t.p.BurstFraction || k == t.stormBlock {
		return blockShape{k: k, burst: true, off: int64(mix(h) % uint64(t.ticksPerBlock))}
	}
	e := math.Exp(math.Log(1.0/3) + unit(mix(h))*math.Log(9)) // warp exponent in [1/3, 3]
	return blockShape{k: k, e: e}
}

// stormSalt separates the storm's placement from the blocks' own hashes of the seed.
const stormSalt = 0x5f0e7a11c0ffee01

// tickIn is the tick of position pos, which lies in block s.k.
func (t *OktaLogs) tickIn(s blockShape, pos int64) int64 {
	T := t.ticksPerBlock
	if s.burst {
		return s.k*T + s.off
	}
	j := pos % blockRows
	return s.k*T + min(T-1, int64(float64(T)*math.Pow(float64(j)/blockRows, s.e)))
}

// tick is position pos's timestamp tick (published = End - tick·tickNs); non-decreasing in pos.
func (t *OktaLogs) tick(pos int64) int64 { return t.tickIn(t.shape(pos/blockRows), pos) }

func (t *OktaLogs) published(pos int64) int64 { return t.endNs - t.tick(pos)*t.tickNs }

// search is the first position in [lo, hi) for which f holds, f being false then true along positions.
func search(lo, hi int64, f func(int64) bool) int64 {
	for lo < hi {
		mid := lo + (hi-lo)/2
		if f(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// firstBelow is the first position whose published is < ns (or <= ns when orEqual).
func (t *OktaLogs) firstBelow(ns int64, orEqual bool) int64 {
	return search(0, t.p.Rows, func(pos int64) bool {
		p := t.published(pos)
		return p < ns || (orEqual && p == ns)
	})
}

// group is one tie group: the positions sharing a timestamp, with their actors in alternateId order.
type group struct {
	lo, hi int64
	tick   int64
	users  []int
	logins []string // Login(users[i]), sorted
	head   [24]byte // the uuid's first four fields and dashes, a function of the tick alone
}

// sortByLogin orders a group's actors by login: insertion sort for the usual handful, sort.Sort beyond. Two hot
// users compare by rank, others by string. Equal logins are the same user, so any correct sort leaves the same
// rows.
func (gg *groupGen) sortByLogin(g *group) {
	const insertionMax = 12
	if len(g.users) > insertionMax {
		sort.Sort(byLogin{g})
		return
	}
	less := func(a, b int) bool {
		ua, ub := g.users[a], g.users[b]
		if ua < len(gg.rank) && ub < len(gg.rank) {
			return gg.rank[ua] < gg.rank[ub]
		}
		return g.logins[a] < g.logins[b]
	}
	for i := 1; i < len(g.users); i++ {
		for j := i; j > 0 && less(j, j-1); j-- {
			g.users[j], g.users[j-1] = g.users[j-1], g.users[j]
			g.logins[j], g.logins[j-1] = g.logins[j-1], g.logins[j]
		}
	}
}

type byLogin struct{ g *group }

func (b byLogin) Len() int           { return len(b.g.users) }
func (b byLogin) Less(i, j int) bool { return b.g.logins[i] < b.g.logins[j] }
func (b byLogin) Swap(i, j int) {
	b.g.users[i], b.g.users[j] = b.g.users[j], b.g.users[i]
	b.g.logins[i], b.g.logins[j] = b.g.logins[j], b.g.logins[i]
}

// groupGen makes tie groups. A group's actors are Zipf draws from a PCG seeded by (table seed, tick); the
// Zipf's constants depend only on the table, so one Zipf over one PCG, reseeded per group, draws exactly what a
// fresh generator per group would, without its construction (a few exp/log and two allocations, ~2,500
// times per 10,000-row page). The group it returns is its own buffer, valid until the next call. Not safe for
// concurrent use: each request makes its own.
type groupGen struct {
	t     *OktaLogs
	pcg   *rand.PCG
	zipf  *rand.Zipf
	shape blockShape
	hot   []string // the table's hot logins
	rank  []int32  // their ranks in login order
	g     group
	have  bool // g holds a group
	// nextPos is the position where the last walk stopped, the first of the next group, and nextTick its
	// tick (nextPos -1: none known).
	nextPos, nextTick int64
}

// hotLogins is how many logins a table builds once and shares (read-only) with every request, with each one's
// rank in login order: Zipf activity puts most rows on the lowest-numbered users (at skew 1.2 over 200,000
// users, ~94% of draws fall on the first 16,384), so most rows take a ready login instead of building one, and
// sorting a tie group compares ranks instead of strings. ~900 KiB per table, built on first use.
const hotLogins = 16384

func (t *OktaLogs) newGroupGen() *groupGen {
	pcg := rand.NewPCG(0, 0)
	hot, rank := t.hot()
	return &groupGen{t: t, pcg: pcg, hot: hot, rank: rank, zipf: newZipf(rand.New(pcg), t.p.Skew, t.p.Users), shape: blockShape{k: -1}, nextPos: -1}
}

// groupAt returns the tie group holding pos (a fresh generator; requests use groupGen.at).
func (t *OktaLogs) groupAt(pos int64) *group { return t.newGroupGen().at(pos) }

func (gg *groupGen) login(u int) string {
	if u < len(gg.hot) {
		return gg.hot[u]
	}
	return Login(u)
}

// hot returns the table's shared logins of users [0, hotLogins) and their ranks in login order.
func (t *OktaLogs) hot() ([]string, []int32) {
	t.hotOnce.Do(func() {
		n := min(hotLogins, t.p.Users)
		t.hotLogins = make([]string, n)
		byName := make([]int32, n)
		for u := range t.hotLogins {
			t.hotLogins[u] = Login(u)
			byName[u] = int32(u)
		}
		sort.Slice(byName, func(i, j int) bool { return t.hotLogins[byName[i]] < t.hotLogins[byName[j]] })
		t.hotRank = make([]int32, n)
		for r, u := range byName {
			t.hotRank[u] = int32(r)
		}
	})
	return t.hotLogins, t.hotRank
}

// at returns the tie group holding pos. The group's edges are found by walking out from pos inside its block
// (ticks are non-decreasing, and a group never leaves its block), so the cost is O(size·log size): one tick
// per member, one Zipf draw per member, one sort.
func (gg *groupGen) at(pos int64) *group {
	g := &gg.g
	if gg.have && pos >= g.lo && pos < g.hi {
		return g
	}
	t := gg.t
	k := pos / blockRows
	if gg.shape.k != k {
		gg.shape = t.shape(k)
	}
	s := gg.shape
	blo, bhi := k*blockRows, min((k+1)*blockRows, t.p.Rows)
	// Walking forward group after group, the previous group's walk already evaluated this position's tick
	// (it is where that walk stopped) and showed the position before it to be in another group.
	next := gg.have && pos == g.hi && gg.nextPos == pos
	var tk int64
	if next {
		tk = gg.nextTick
	} else {
		tk = t.tickIn(s, pos)
	}
	g.tick, g.lo, g.hi = tk, blo, bhi
	gg.nextPos = -1
	if !s.burst {
		g.lo, g.hi = pos, pos+1
		for !next && g.lo > blo && t.tickIn(s, g.lo-1) == tk {
			g.lo--
		}
		g.hi = gg.groupEnd(s, pos, bhi, tk)
	}
	t.uuidHead(&g.head, tk)
	gg.pcg.Seed(t.p.Seed, uint64(tk))
	n := int(g.hi - g.lo)
	g.users, g.logins = slices.Grow(g.users[:0], n)[:n], slices.Grow(g.logins[:0], n)[:n]
	for i := range g.users {
		g.users[i] = int(gg.zipf.Uint64())
		g.logins[i] = gg.login(g.users[i])
	}
	gg.sortByLogin(g)
	gg.have = true
	return g
}

// groupEnd is the first position after pos (whose tick is tk) in [pos+1, bhi) with another tick, or bhi.
// An exponential search then a binary one: O(log size) ticks for a group, where a walk would cost one per row
// (warped blocks hold groups of hundreds of rows). It records the tick it saw at the end for the next group.
func (gg *groupGen) groupEnd(s blockShape, pos, bhi, tk int64) int64 {
	t := gg.t
	if c, ok := gg.predictEnd(s, pos, bhi, tk); ok {
		return c
	}
	inside := pos // the last position known to have tick tk
	end := bhi    // the first position known to have another tick (or bhi)
	gg.nextPos = -1
	for step := int64(1); ; step *= 2 {
		p := pos + step
		if p >= bhi {
			break
		}
		if x := t.tickIn(s, p); x != tk {
			end, gg.nextPos, gg.nextTick = p, p, x
			break
		}
		inside = p
	}
	for lo := inside + 1; lo < end; {
		mid := lo + (end-lo)/2
		if x := t.tickIn(s, mid); x != tk {
			end, gg.nextPos, gg.nextTick = mid, mid, x
		} else {
			lo = mid + 1
		}
	}
	return end
}

// predictMargin is the relative distance from the warp's boundary beyond which float rounding cannot move a
// row to the other side of it.
const predictMargin = 1e-9

// predictEnd inverts the warp: offset o covers the positions j with T·(j/blockRows)^e < o+1, so the group
// ends near blockRows·((o+1)/T)^(1/e). Floating point may put that a row off, so the guess is kept only when
// the exact ticks on both sides of it agree (two evaluations instead of a search's ~2·log size); otherwise
// groupEnd searches.
func (gg *groupGen) predictEnd(s blockShape, pos, bhi, tk int64) (int64, bool) {
	t := gg.t
	T := t.ticksPerBlock
	if s.burst {
		return 0, false
	}
	o := tk - s.k*T
	if o >= T-1 { // the capped last offset runs to the block's end
		return bhi, true
	}
	x := blockRows * math.Pow(float64(o+1)/float64(T), 1/s.e)
	j := int64(math.Ceil(x))
	c := s.k*blockRows + j
	// Row c-1 is in the group for certain when it sits clearly below the boundary: a relative margin of 1e-9 on
	// j is ≥ 3e-10 on T·(j/blockRows)^e (e ≥ 1/3), a million times the few ulps pow and the products can err
	// by. Only a row that close to the boundary costs an exact check.
	if c <= pos || c > bhi || (c-1 > pos && float64(j-1) > x*(1-predictMargin) && t.tickIn(s, c-1) != tk) {
		return 0, false
	}
	if c == bhi {
		return c, true
	}
	next := t.tickIn(s, c)
	if next == tk {
		return 0, false
	}
	gg.nextPos, gg.nextTick = c, next
	return c, true
}

// positionOrder reports whether ordering by keys is the table's position order (on the keys' prefix): a prefix
// of OktaKey, or published desc (and alternateId asc) then uuid asc and anything after it. The second holds
// because a tie group's ids sort in position order (see uuid) and ids are unique, so keys after uuid never
// decide; it lets a query sort by (published desc, uuid asc) and page by it at the cost of any key prefix.
func positionOrder(keys []connector.OrderKey) bool {
	uuid := connector.OrderKey{Column: "uuid"}
	for i, k := range keys {
		if i > 0 && k == uuid {
			return true
		}
		if i >= len(OktaKey) || k != OktaKey[i] {
			return false
		}
	}
	return true
}

// neverNull reports whether every row has a value in column c: the key columns, which place the row in the
// order (Info declares them NeverNull). A request for their nulls is answered empty at once, not by
// generating the table to find none.
func neverNull(c string) bool { return slices.Contains(orderColumns(OktaKey), c) }

func orderColumns(keys []connector.OrderKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Column
	}
	return out
}

// seek returns the first position whose key is on the kept side of the keyset's lower bound (for After and
// AtOrAfter) or the first past its upper bound (for Before and AtOrBefore): the start or the end of the range.
// The keyset must be in position order (positionOrder) with a timestamp first; the cost is a binary search on
// the timestamps, then one inside the cursor's tie group: O(log rows) ticks and O(log group) ids, plus one
// group's logins when the keyset compares alternateId.
func (t *OktaLogs) seek(p connector.Keyset) (int64, bool) {
	if len(p.Keys) == 0 || len(p.Values) != len(p.Keys) || !positionOrder(p.Keys) {
		return 0, false
	}
	for _, v := range p.Values {
		if v.Null {
			return 0, false
		}
	}
	if p.Values[0].Type != column.DateTime {
		return 0, false
	}
	ns := p.Values[0].Int
	a, b := t.firstBelow(ns, true), t.firstBelow(ns, false) // [a, b) has published == ns
	// Inside [a, b), find the first position past (strict) or at (inclusive) the cursor.
	strict := p.Bound == After || p.Bound == AtOrBefore
	if len(p.Keys) == 1 || a == b {
		if strict {
			return b, true
		}
		return a, true
	}
	tick := t.tick(a)
	var g *group
	for _, k := range p.Keys {
		if k.Column == "actor.alternateId" {
			g = t.groupAt(a)
		}
	}
	fine := true
	pos := search(a, b, func(pos int64) bool {
		c, ok := p.CompareRow(func(k int) column.Value { return t.keyValue(g, tick, pos, p.Keys[k].Column) })
		fine = fine && ok
		return c > 0 || (!strict && c == 0)
	})
	return pos, fine
}

// keyValue is key column name's value at pos, in the tie group g (needed only for alternateId) of tick.
func (t *OktaLogs) keyValue(g *group, tick, pos int64, name string) column.Value {
	switch name {
	case "published":
		return column.Value{Type: column.DateTime, Int: t.endNs - tick*t.tickNs}
	case "actor.alternateId":
		return column.Value{Type: column.String, Str: g.logins[pos-g.lo]}
	}
	return column.Value{Type: column.String, Str: t.uuid(tick, pos)}
}

// uuid is a row's id: its first fields hash the timestamp, its last is the position, so ids of one tie group
// sort in position order. The same text as fmt's "%08x-%04x-4%03x-%04x-%012x", written by hand: this is the
// generator's hottest string, and a group writes the fields before the position once (uuidHead).
func (t *OktaLogs) uuid(tick, pos int64) string {
	var head [24]byte
	t.uuidHead(&head, tick)
	return uuidAt(&head, pos)
}

func (t *OktaLogs) uuidHead(b *[24]byte, tick int64) {
	h := mix(t.p.Seed ^ uint64(tick)*0xd1b54a32d192ed03)
	putHex(b[0:8], uint64(uint32(h)))
	b[8] = '-'
	putHex(b[9:13], (h>>32)&0xffff)
	b[13], b[14] = '-', '4'
	putHex(b[15:18], (h>>48)&0xfff)
	b[18] = '-'
	putHex(b[19:23], 0x8000|((h>>20)&0x3fff))
	b[23] = '-'
}

// uuidAt appends position pos to a head as 12 hex digits (more for a position of 2^48 or beyond, as %012x does).
func uuidAt(head *[24]byte, pos int64) string {
	if pos >= 0 && pos < 1<<48 {
		var b [uuidLen]byte
		copy(b[:24], head[:])
		putHex(b[24:], uint64(pos))
		return string(b[:])
	}
	return string(head[:]) + fmt.Sprintf("%012x", pos)
}

// uuidLen is the length of an id whose position is below 2^48.
const uuidLen = 36

// putHex writes v as len(b) lowercase hex digits, zero-padded; v must fit.
func putHex(b []byte, v uint64) {
	const digits = "0123456789abcdef"
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
}

// scanChunk is the most positions generated and filtered at once; a chunk is no larger than the rows still
// wanted (but at least minChunk, so a selective filter does not cost a call per row), so an unfiltered page
// generates exactly its own rows.
const (
	scanChunk = 1024
	minChunk  = 64
)

// maxPrealloc caps the rows an answer reserves room for up front: a page's rows without regrowing, but not a
// 500,000-row cap's worth for a request that a filter will leave nearly empty.
const maxPrealloc = 16_384

func countTrue(keep []bool) int {
	n := 0
	for _, k := range keep {
		if k {
			n++
		}
	}
	return n
}

// Answer seeks to the request's range, then generates and filters rows forward.
func (t *OktaLogs) Answer(ctx context.Context, req connector.Request, limit int) (*column.Batch, error) {
	if !positionOrder(req.OrderBy) {
		return nil, &connector.InvalidRequestError{Reason: "OktaSystemLogs can only be ordered by published desc, actor.alternateId asc, uuid asc " +
			"(or published desc, uuid asc)"}
	}
	if limit < 0 {
		return nil, &connector.InvalidRequestError{Reason: "OktaSystemLogs needs a row limit"}
	}
	for _, c := range connector.Columns(req.Where, append([]string(nil), req.Columns...)) {
		if OktaSchema.Index(c) < 0 {
			return nil, &connector.InvalidRequestError{Reason: fmt.Sprintf("OktaSystemLogs has no column %q", c)}
		}
	}
	lo, hi, rest := t.bounds(req.Where)
	need := connector.Columns(rest, append([]string(nil), req.Columns...))
	out := make([]*column.Vector, len(req.Columns))
	capacity := int(min(int64(limit), hi-lo, maxPrealloc))
	for i, c := range req.Columns {
		out[i] = column.NewVector(OktaSchema[OktaSchema.Index(c)].Type, capacity)
	}
	n := 0
	gg := t.newGroupGen()
	for pos := lo; pos < hi && n < limit; {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("OktaSystemLogs: answer stopped at row %d: %w", pos, err)
		}
		end := min(hi, pos+int64(min(scanChunk, max(minChunk, limit-n))))
		if rest == nil && len(need) == len(out) {
			// Nothing left to check: every row is kept, so it is generated straight into the answer (no more
			// than the rows still wanted).
			end = min(end, pos+int64(limit-n))
			t.generate(need, pos, end, gg, out)
			n += int(end - pos)
			pos = end
			continue
		}
		b := t.generate(need, pos, end, gg, nil)
		keep, err := connector.Eval(rest, need, b)
		if err != nil {
			return nil, err
		}
		if kept := countTrue(keep); kept == b.N && n+kept <= limit {
			for c := range out {
				out[c].AppendVector(b.Cols[c])
			}
			n += kept
			pos = end
			continue
		}
		for i, k := range keep {
			if !k || n >= limit {
				continue
			}
			for c := range out {
				out[c].AppendFrom(b.Cols[c], i)
			}
			n++
		}
		pos = end
	}
	return column.NewBatch(out, n), nil
}

// bounds narrows [0, rows) by the top-level conjuncts that constrain the order: published comparisons,
// keysets in position order (see positionOrder) and isnull of a key column (no row). Those it applies are exact (positions are the order), so they are left
// out of rest, the predicate still checked row by row (nil when nothing is left).
func (t *OktaLogs) bounds(p connector.Predicate) (lo, hi int64, rest connector.Predicate) {
	lo, hi = 0, t.p.Rows
	var left connector.And
	var walk func(connector.Predicate)
	walk = func(p connector.Predicate) {
		switch p := p.(type) {
		case connector.And:
			for _, x := range p {
				walk(x)
			}
			return
		case connector.Compare:
			if p.Column != "published" || p.Value.Type != column.DateTime || p.Value.Null {
				break
			}
			v := p.Value.Int
			switch p.Op {
			case "<":
				lo = max(lo, t.firstBelow(v, false))
			case "<=":
				lo = max(lo, t.firstBelow(v, true))
			case ">":
				hi = min(hi, t.firstBelow(v, true))
			case ">=":
				hi = min(hi, t.firstBelow(v, false))
			case "==":
				lo, hi = max(lo, t.firstBelow(v, true)), min(hi, t.firstBelow(v, false))
			default:
				left = append(left, p)
			}
			return
		case connector.Not:
			if nn, ok := p.X.(connector.NotNull); ok && neverNull(nn.Column) {
				hi = lo // isnull of a key column: no row
				return
			}
		case connector.Keyset:
			pos, ok := t.seek(p)
			if !ok {
				break
			}
			if p.Bound == After || p.Bound == AtOrAfter {
				lo = max(lo, pos)
			} else {
				hi = min(hi, pos)
			}
			return
		case nil:
			return
		}
		left = append(left, p)
	}
	walk(p)
	switch len(left) {
	case 0:
		rest = nil
	case 1:
		rest = left[0]
	default:
		rest = left
	}
	return lo, max(lo, hi), rest
}

// The keyset bounds, named short for bounds and seek.
const (
	After      = connector.After
	AtOrAfter  = connector.AtOrAfter
	Before     = connector.Before
	AtOrBefore = connector.AtOrBefore
)

var eventTypes = []struct {
	name, message string
	weight        float64
}{
	{"user.session.start", "User login to Okta", 0.35},
	{"user.authentication.sso", "User single sign on to app", 0.25},
	{"user.authentication.auth_via_mfa", "Authentication of user via MFA", 0.15},
	{"policy.evaluate_sign_on", "Evaluation of sign-on policy", 0.10},
	{"user.session.end", "User logout from Okta", 0.08},
	{"system.push.send_factor_verify_push", "A push was sent to the user's device", 0.05},
	{"user.account.lock", "Max sign in attempts exceeded", 0.02},
}

var failureReasons = []string{"INVALID_CREDENTIALS", "VERIFICATION_ERROR", "LOCKED_OUT", "FastPass declined"}

// generate makes the named columns for positions [lo, hi), appended to cols (new vectors when nil). gg keeps
// the current tie group between calls.
func (t *OktaLogs) generate(names []string, lo, hi int64, gg *groupGen, cols []*column.Vector) *column.Batch {
	n := int(hi - lo)
	t.generated.Add(int64(n))
	if cols == nil {
		cols = make([]*column.Vector, len(names))
		for i, name := range names {
			cols[i] = column.NewVector(OktaSchema[OktaSchema.Index(name)].Type, n)
		}
	}
	// The order's columns come straight from the group; the rest from the row, built only when asked for.
	const (
		other = iota
		published
		login
		uuid
	)
	kinds := make([]int, len(names))
	rowNeeded := false
	// uuids are written into one buffer and become one string that each row's id is a slice of: one
	// allocation per chunk instead of one per row. (Positions past 2^48 have longer ids: the per-row path.)
	bulk := hi <= 1<<48
	var ids []byte
	for i, name := range names {
		switch name {
		case "published":
			kinds[i] = published
		case "actor.alternateId":
			kinds[i] = login
		case "uuid":
			kinds[i] = uuid
			if bulk {
				ids = make([]byte, 0, n*uuidLen)
			}
		default:
			rowNeeded = true
		}
	}
	for pos := lo; pos < hi; pos++ {
		g := gg.at(pos)
		var r oktaRow
		if rowNeeded {
			r = t.row(g, pos)
		}
		for i, name := range names {
			switch kinds[i] {
			case published:
				cols[i].AppendInt(t.endNs - g.tick*t.tickNs)
			case login:
				cols[i].AppendString(g.logins[pos-g.lo])
			case uuid:
				if !bulk {
					cols[i].AppendString(uuidAt(&g.head, pos))
				} else if len(ids) < int(pos-lo+1)*uuidLen { // once per row, however often it is named
					ids = append(ids, g.head[:]...)
					ids = ids[:len(ids)+12]
					putHex(ids[len(ids)-12:], uint64(pos))
				}
			default:
				r.append(cols[i], name)
			}
		}
	}
	if bulk && ids != nil {
		all := unsafe.String(unsafe.SliceData(ids), len(ids)) // ids is never written again
		for i, k := range kinds {
			if k == uuid {
				for j := 0; j < n; j++ {
					cols[i].AppendString(all[j*uuidLen : (j+1)*uuidLen])
				}
			}
		}
	}
	return column.NewBatch(cols, n)
}

// oktaRow is one event's fields, computed from its position.
type oktaRow struct {
	t     *OktaLogs
	pos   int64
	tick  int64
	user  int
	login string
	event int
	fail  bool
	h     uint64
}

func (t *OktaLogs) row(g *group, pos int64) oktaRow {
	h := mix(t.p.Seed ^ uint64(pos)*0xa0761d6478bd642f)
	x := unit(h)
	ev := len(eventTypes) - 1
	for i, e := range eventTypes {
		if x < e.weight {
			ev = i
			break
		}
		x -= e.weight
	}
	fail := eventTypes[ev].name == "user.account.lock" || unit(mix(h)) < 0.08
	return oktaRow{t: t, pos: pos, tick: g.tick, user: g.users[pos-g.lo], login: g.logins[pos-g.lo], event: ev, fail: fail, h: h}
}

func (r oktaRow) str(name string) (string, bool) {
	u := r.user
	geo := countries[mix(uint64(u)*0x2545f4914f6cdd1d)%uint64(len(countries))]
	switch name {
	case "uuid":
		return r.t.uuid(r.tick, r.pos), true
	case "eventType":
		return eventTypes[r.event].name, true
	case "displayMessage":
		return eventTypes[r.event].message, true
	case "severity":
		if r.fail {
			return "WARN", true
		}
		return "INFO", true
	case "actor.id":
		return OktaID(u), true
	case "actor.type":
		return "User", true
	case "actor.alternateId":
		return r.login, true
	case "actor.displayName":
		return DisplayName(u), true
	case "client.ipAddress":
		ip := mix(uint64(u)<<20 ^ uint64(r.pos>>24))
		return fmt.Sprintf("%d.%d.%d.%d", []int{73, 98, 185, 203, 34, 52}[ip%6], (ip>>8)&0xff, (ip>>16)&0xff, 1+(ip>>24)%254), true
	case "client.geographicalContext.country":
		return geo.country, true
	case "client.geographicalContext.city":
		return geo.city, true
	case "outcome.result":
		if r.fail {
			return "FAILURE", true
		}
		return "SUCCESS", true
	case "outcome.reason":
		if r.fail {
			return failureReasons[mix(r.h)%uint64(len(failureReasons))], true
		}
		return "", false
	case "actor":
		return jsonObject("id", OktaID(u), "type", "User", "alternateId", r.login, "displayName", DisplayName(u)), true
	case "client":
		ip, _ := r.str("client.ipAddress")
		return `{"ipAddress":` + strconv.Quote(ip) + `,"geographicalContext":` +
			jsonObject("country", geo.country, "city", geo.city) + `}`, true
	case "outcome":
		res, _ := r.str("outcome.result")
		if reason, ok := r.str("outcome.reason"); ok {
			return jsonObject("result", res, "reason", reason), true
		}
		return `{"result":` + strconv.Quote(res) + `,"reason":null}`, true
	}
	return "", false
}

func (r oktaRow) append(v *column.Vector, name string) {
	if name == "published" {
		v.AppendInt(r.t.endNs - r.tick*r.t.tickNs)
		return
	}
	if s, ok := r.str(name); ok {
		v.AppendString(s)
		return
	}
	v.AppendNull()
}

// jsonObject writes string pairs as a JSON object.
func jsonObject(kv ...string) string {
	b := []byte{'{'}
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, kv[i])
		b = append(b, ':')
		b = strconv.AppendQuote(b, kv[i+1])
	}
	return string(append(b, '}'))
}
