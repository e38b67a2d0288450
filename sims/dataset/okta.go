package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

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
	generated     atomic.Int64
}

// NewOktaLogs makes the table.
func NewOktaLogs(p OktaParams) (*OktaLogs, error) {
	if p.Rows < 0 || p.Users < 1 || p.TieRows < 1 || p.Span <= 0 {
		return nil, fmt.Errorf("dataset: OktaSystemLogs: bad parameters (rows %d, users %d, ties %g, span %s)", p.Rows, p.Users, p.TieRows, p.Span)
	}
	t := &OktaLogs{p: p, endNs: p.End.UnixNano()}
	t.ticksPerBlock = max(1, int64(blockRows/p.TieRows))
	blocks := (p.Rows + blockRows - 1) / blockRows
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
	return connector.TableInfo{Name: "OktaSystemLogs", Schema: OktaSchema, Rows: t.p.Rows, Key: OktaKey}
}

// tick is position pos's timestamp tick (published = End - tick·tickNs); non-decreasing in pos.
func (t *OktaLogs) tick(pos int64) int64 {
	k, j := pos/blockRows, pos%blockRows
	T := t.ticksPerBlock
	h := mix(t.p.Seed ^ uint64(k)*0x9e3779b97f4a7c15)
	var off int64
	if unit(h) < t.p.BurstFraction {
		off = int64(mix(h) % uint64(T))
	} else {
		e := math.Exp(math.Log(1.0/3) + unit(mix(h))*math.Log(9)) // warp exponent in [1/3, 3]
		off = min(T-1, int64(float64(T)*math.Pow(float64(j)/blockRows, e)))
	}
	return k*T + off
}

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
}

type byLogin struct{ g *group }

func (b byLogin) Len() int           { return len(b.g.users) }
func (b byLogin) Less(i, j int) bool { return b.g.logins[i] < b.g.logins[j] }
func (b byLogin) Swap(i, j int) {
	b.g.users[i], b.g.users[j] = b.g.users[j], b.g.users[i]
	b.g.logins[i], b.g.logins[j] = b.g.logins[j], b.g.logins[i]
}

// groupAt returns the tie group holding pos. Cost O(log blockRows + size·log size).
func (t *OktaLogs) groupAt(pos int64) *group {
	tk := t.tick(pos)
	k := pos / blockRows
	blo, bhi := k*blockRows, min((k+1)*blockRows, t.p.Rows)
	g := &group{tick: tk}
	g.lo = search(blo, bhi, func(p int64) bool { return t.tick(p) >= tk })
	g.hi = search(blo, bhi, func(p int64) bool { return t.tick(p) > tk })
	rng := rand.New(rand.NewPCG(t.p.Seed, uint64(tk)))
	z := newZipf(rng, t.p.Skew, t.p.Users)
	g.users = make([]int, g.hi-g.lo)
	g.logins = make([]string, len(g.users))
	for i := range g.users {
		g.users[i] = int(z.Uint64())
		g.logins[i] = Login(g.users[i])
	}
	sort.Sort(byLogin{g})
	return g
}

// seek returns the first position whose key is on the kept side of the keyset's lower bound (for After and
// AtOrAfter) or the first past its upper bound (for Before and AtOrBefore): the start or the end of the range.
func (t *OktaLogs) seek(p connector.Keyset) (int64, bool) {
	if len(p.Keys) == 0 || len(p.Keys) > len(OktaKey) || len(p.Values) != len(p.Keys) {
		return 0, false
	}
	for i, k := range p.Keys {
		if k != OktaKey[i] || p.Values[i].Null {
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
	g := t.groupAt(a)
	for pos := a; pos < b; pos++ {
		c, ok := p.CompareRow(func(k int) column.Value { return t.keyValue(g, pos, k) })
		if !ok {
			return 0, false
		}
		if c > 0 || (!strict && c == 0) {
			return pos, true
		}
	}
	return b, true
}

func (t *OktaLogs) keyValue(g *group, pos int64, k int) column.Value {
	switch k {
	case 0:
		return column.Value{Type: column.DateTime, Int: t.endNs - g.tick*t.tickNs}
	case 1:
		return column.Value{Type: column.String, Str: g.logins[pos-g.lo]}
	}
	return column.Value{Type: column.String, Str: t.uuid(g.tick, pos)}
}

// uuid is a row's id: its first fields hash the timestamp, its last is the position, so ids of one tie group
// sort in position order.
func (t *OktaLogs) uuid(tick, pos int64) string {
	h := mix(t.p.Seed ^ uint64(tick)*0xd1b54a32d192ed03)
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", uint32(h), (h>>32)&0xffff, (h>>48)&0xfff, 0x8000|((h>>20)&0x3fff), pos)
}

// scanChunk is the most positions generated and filtered at once; a chunk is no larger than the rows still
// wanted (but at least minChunk, so a selective filter does not cost a call per row), so an unfiltered page
// generates exactly its own rows.
const (
	scanChunk = 1024
	minChunk  = 64
)

// Answer seeks to the request's range, then generates and filters rows forward.
func (t *OktaLogs) Answer(req connector.Request, limit int) (*column.Batch, error) {
	for i, k := range req.OrderBy {
		if i >= len(OktaKey) || k != OktaKey[i] {
			return nil, &connector.InvalidRequestError{Reason: "OktaSystemLogs can only be ordered by published desc, actor.alternateId asc, uuid asc"}
		}
	}
	if limit < 0 {
		return nil, &connector.InvalidRequestError{Reason: "OktaSystemLogs needs a row limit"}
	}
	need := append([]string(nil), req.Columns...)
	need = connector.Columns(req.Where, need)
	for _, c := range need {
		if OktaSchema.Index(c) < 0 {
			return nil, &connector.InvalidRequestError{Reason: fmt.Sprintf("OktaSystemLogs has no column %q", c)}
		}
	}
	lo, hi := t.bounds(req.Where)
	out := make([]*column.Vector, len(req.Columns))
	for i, c := range req.Columns {
		out[i] = column.NewVector(OktaSchema[OktaSchema.Index(c)].Type, 0)
	}
	n := 0
	var g *group
	for pos := lo; pos < hi && n < limit; {
		end := min(hi, pos+int64(min(scanChunk, max(minChunk, limit-n))))
		b := t.generate(need, pos, end, &g)
		keep, err := connector.Eval(req.Where, need, b)
		if err != nil {
			return nil, err
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

// bounds narrows [0, rows) by the top-level conjuncts that constrain the order: published comparisons and
// keysets over a prefix of the key. The rest is checked row by row.
func (t *OktaLogs) bounds(p connector.Predicate) (lo, hi int64) {
	lo, hi = 0, t.p.Rows
	var walk func(connector.Predicate)
	walk = func(p connector.Predicate) {
		switch p := p.(type) {
		case connector.And:
			for _, x := range p {
				walk(x)
			}
		case connector.Compare:
			if p.Column != "published" || p.Value.Type != column.DateTime || p.Value.Null {
				return
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
			}
		case connector.Keyset:
			pos, ok := t.seek(p)
			if !ok {
				return
			}
			if p.Bound == After || p.Bound == AtOrAfter {
				lo = max(lo, pos)
			} else {
				hi = min(hi, pos)
			}
		}
	}
	walk(p)
	return lo, max(lo, hi)
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

// generate makes the named columns for positions [lo, hi). g caches the current tie group between calls.
func (t *OktaLogs) generate(names []string, lo, hi int64, g **group) *column.Batch {
	n := int(hi - lo)
	t.generated.Add(int64(n))
	cols := make([]*column.Vector, len(names))
	for i, name := range names {
		cols[i] = column.NewVector(OktaSchema[OktaSchema.Index(name)].Type, n)
	}
	for pos := lo; pos < hi; pos++ {
		if *g == nil || pos < (*g).lo || pos >= (*g).hi {
			*g = t.groupAt(pos)
		}
		r := t.row(*g, pos)
		for i, name := range names {
			r.append(cols[i], name)
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
	return oktaRow{t: t, pos: pos, tick: g.tick, user: g.users[pos-g.lo], event: ev, fail: fail, h: h}
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
		return Login(u), true
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
		return jsonObject("id", OktaID(u), "type", "User", "alternateId", Login(u), "displayName", DisplayName(u)), true
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
