package dataset

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
)

func bigOkta(t testing.TB) *OktaLogs {
	tab, err := NewOktaLogs(DefaultOkta)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

var keyCols = []string{"published", "actor.alternateId", "uuid"}

// TestOktaSeekCostIsTheAnswer: on the 70-billion-row table, a keyset page after a random cursor generates
// only its own rows (plus the one tie group the seek reads), and the page continues exactly where the
// previous one ended.
func TestOktaSeekCostIsTheAnswer(t *testing.T) {
	tab := bigOkta(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 5; trial++ {
		pos := rng.Int64N(DefaultOkta.Rows - 10_000)
		t.Logf("trial %d: position %d", trial, pos)
		g := tab.groupAt(pos)
		cursor := []column.Value{tab.keyValue(g, g.tick, pos, OktaKey[0].Column), tab.keyValue(g, g.tick, pos, OktaKey[1].Column), tab.keyValue(g, g.tick, pos, OktaKey[2].Column)}
		before := tab.Generated()
		const page = 2000
		b, err := tab.Answer(context.Background(), connector.Request{Table: "OktaSystemLogs", Columns: keyCols, OrderBy: OktaKey, Limit: page,
			Where: connector.Keyset{Keys: OktaKey, Values: cursor, Bound: connector.After}}, page)
		if err != nil {
			t.Fatal(err)
		}
		if cost := tab.Generated() - before; cost != page {
			t.Errorf("a %d-row page generated %d rows", page, cost)
		}
		if b.N != page {
			t.Fatalf("got %d rows", b.N)
		}
		// The first row is the one right after the cursor: position pos+1.
		g1 := tab.groupAt(pos + 1)
		for k, want := range []column.Value{tab.keyValue(g1, g1.tick, pos+1, OktaKey[0].Column), tab.keyValue(g1, g1.tick, pos+1, OktaKey[1].Column), tab.keyValue(g1, g1.tick, pos+1, OktaKey[2].Column)} {
			if got := b.Cols[k].Value(0); got != want {
				t.Errorf("key %d of the first row: %v, want %v", k, got, want)
			}
		}
		// Strictly increasing in the key order: no ties, so keyset paging is exact.
		for i := 1; i < b.N; i++ {
			ks := connector.Keyset{Keys: OktaKey, Values: []column.Value{b.Cols[0].Value(i - 1), b.Cols[1].Value(i - 1), b.Cols[2].Value(i - 1)}}
			if c, _ := ks.CompareRow(func(k int) column.Value { return b.Cols[k].Value(i) }); c <= 0 {
				t.Fatalf("row %d is not after row %d", i, i-1)
			}
		}
		// A window re-fetch by keyset bounds (cursor, last] with an IN filter reads only the window.
		last := []column.Value{b.Cols[0].Value(b.N - 1), b.Cols[1].Value(b.N - 1), b.Cols[2].Value(b.N - 1)}
		before = tab.Generated()
		w, err := tab.Answer(context.Background(), connector.Request{Table: "OktaSystemLogs", Columns: keyCols, OrderBy: OktaKey, Limit: 100_000,
			Where: connector.And{
				connector.Keyset{Keys: OktaKey, Values: cursor, Bound: connector.After},
				connector.Keyset{Keys: OktaKey, Values: last, Bound: connector.AtOrBefore},
				connector.In{Column: "actor.alternateId", Values: []column.Value{b.Cols[1].Value(0)}},
			}}, 100_000)
		if err != nil {
			t.Fatal(err)
		}
		if cost := tab.Generated() - before; cost > page+minChunk {
			t.Errorf("a re-fetch over a %d-row window generated %d rows", page, cost)
		}
		if w.N == 0 {
			t.Error("re-fetch lost the first row's user")
		}
	}
}

// TestOktaTies: burst blocks put thousands of rows on one timestamp, and the seek still lands exactly.
func TestOktaTies(t *testing.T) {
	p := DefaultOkta
	p.Rows, p.BurstFraction, p.TieRows = 50_000, 0.5, 16
	tab, err := NewOktaLogs(p)
	if err != nil {
		t.Fatal(err)
	}
	biggest := 0
	for pos := int64(0); pos < p.Rows; {
		g := tab.groupAt(pos)
		biggest = max(biggest, int(g.hi-g.lo))
		pos = g.hi
	}
	if biggest < 1000 {
		t.Fatalf("largest tie group %d rows: the burst knob does nothing", biggest)
	}
	var all [][]column.Value
	var cursor []column.Value
	for {
		req := connector.Request{Table: "OktaSystemLogs", Columns: keyCols, OrderBy: OktaKey, Limit: 997}
		if cursor != nil {
			req.Where = connector.Keyset{Keys: OktaKey, Values: cursor, Bound: connector.After}
		}
		b, err := tab.Answer(context.Background(), req, req.Limit)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < b.N; i++ {
			cursor = []column.Value{b.Cols[0].Value(i), b.Cols[1].Value(i), b.Cols[2].Value(i)}
			all = append(all, cursor)
		}
		if b.N < req.Limit {
			break
		}
	}
	if int64(len(all)) != p.Rows {
		t.Fatalf("paging read %d rows of %d", len(all), p.Rows)
	}
}

// BenchmarkOktaSeekPage: a random seek plus a 10,000-row keyset page of key columns on 70 billion rows.
func BenchmarkOktaSeekPage(b *testing.B) {
	tab := bigOkta(b)
	rng := rand.New(rand.NewPCG(3, 4))
	for b.Loop() {
		pos := rng.Int64N(DefaultOkta.Rows - 20_000)
		g := tab.groupAt(pos)
		cursor := []column.Value{tab.keyValue(g, g.tick, pos, OktaKey[0].Column), tab.keyValue(g, g.tick, pos, OktaKey[1].Column), tab.keyValue(g, g.tick, pos, OktaKey[2].Column)}
		if _, err := tab.Answer(context.Background(), connector.Request{Table: "OktaSystemLogs", Columns: keyCols, OrderBy: OktaKey, Limit: 10_000,
			Where: connector.Keyset{Keys: OktaKey, Values: cursor, Bound: connector.After}}, 10_000); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOktaStorm: Storm puts one full block on one timestamp for any seed, and the day's successful sign-ins in
// it alone exceed Okta's 1,000-row cap (okta-crowdstrike-small's filter), so no time window can hold them; the
// rest of the table is the one without a storm.
func TestOktaStorm(t *testing.T) {
	const oktaMaxRows = 1000
	for seed := uint64(1); seed <= 8; seed++ {
		p := DefaultOkta
		p.Rows, p.Users, p.Seed = 20_000, 2_000, seed
		plain, err := NewOktaLogs(p)
		if err != nil {
			t.Fatal(err)
		}
		p.Storm = true
		tab, err := NewOktaLogs(p)
		if err != nil {
			t.Fatal(err)
		}
		var storm *group
		for pos := int64(0); pos < p.Rows; {
			g := tab.groupAt(pos)
			if g.hi-g.lo == blockRows {
				c := *g
				storm = &c
			} else if want := plain.groupAt(pos); want.lo != g.lo || want.hi != g.hi || want.tick != g.tick {
				t.Fatalf("seed %d: the group at %d moved outside the storm: [%d, %d) tick %d, want [%d, %d) tick %d",
					seed, pos, g.lo, g.hi, g.tick, want.lo, want.hi, want.tick)
			}
			pos = g.hi
		}
		if storm == nil {
			t.Fatalf("seed %d: no tie group of %d rows", seed, blockRows)
		}
		ts := column.Value{Type: column.DateTime, Int: tab.endNs - storm.tick*tab.tickNs}
		str := func(s string) column.Value { return column.Value{Type: column.String, Str: s} }
		b, err := tab.Answer(context.Background(), connector.Request{Table: "OktaSystemLogs", Columns: keyCols, Limit: blockRows, Where: connector.And{
			connector.Compare{Column: "published", Op: "==", Value: ts},
			connector.Compare{Column: "eventType", Op: "==", Value: str("user.session.start")},
			connector.Compare{Column: "outcome.result", Op: "==", Value: str("SUCCESS")},
		}}, blockRows)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: storm at %s, %d successful sign-ins of %d rows", seed, connector.Literal(ts), b.N, blockRows)
		if b.N <= oktaMaxRows {
			t.Errorf("seed %d: %d successful sign-ins on the storm's timestamp, want more than Okta's %d-row cap", seed, b.N, oktaMaxRows)
		}
	}
}

// TestOktaStormNeedsTwoBlocks: a table of fewer than two full blocks has no room for a storm beside its
// ordinary opening, so Storm leaves it as it is rather than putting the whole table on one timestamp.
func TestOktaStormNeedsTwoBlocks(t *testing.T) {
	p := DefaultOkta
	p.Rows, p.Users = 2*blockRows-1, 2_000
	plain, err := NewOktaLogs(p)
	if err != nil {
		t.Fatal(err)
	}
	p.Storm = true
	tab, err := NewOktaLogs(p)
	if err != nil {
		t.Fatal(err)
	}
	for pos := int64(0); pos < p.Rows; {
		g, want := tab.groupAt(pos), plain.groupAt(pos)
		if g.lo != want.lo || g.hi != want.hi || g.tick != want.tick {
			t.Fatalf("the group at %d is [%d, %d) tick %d, want the plain table's [%d, %d) tick %d", pos, g.lo, g.hi, g.tick, want.lo, want.hi, want.tick)
		}
		pos = g.hi
	}
}

// TestOktaSeeksTheUUIDOrder: ordered by (published desc, uuid asc, actor.alternateId asc) — a query's sort
// with the join key as tiebreaker — the table answers in position order, and a keyset page after a random
// cursor in that order starts at the next position and generates only its own rows, on a tie group of a
// burst block too.
func TestOktaSeeksTheUUIDOrder(t *testing.T) {
	tab := bigOkta(t)
	order := []connector.OrderKey{{Column: "published", Desc: true}, {Column: "uuid"}, {Column: "actor.alternateId"}}
	cols := []string{"published", "uuid", "actor.alternateId"}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 5; trial++ {
		pos := rng.Int64N(DefaultOkta.Rows - 10_000)
		t.Logf("trial %d: position %d", trial, pos)
		g := tab.groupAt(pos)
		cursor := make([]column.Value, len(order))
		for k, key := range order {
			cursor[k] = tab.keyValue(g, g.tick, pos, key.Column)
		}
		for _, bound := range []connector.Bound{connector.After, connector.AtOrAfter} {
			before := tab.Generated()
			const page = 500
			b, err := tab.Answer(context.Background(), connector.Request{Table: "OktaSystemLogs", Columns: cols, OrderBy: order, Limit: page,
				Where: connector.Keyset{Keys: order, Values: cursor, Bound: bound}}, page)
			if err != nil {
				t.Fatal(err)
			}
			if cost := tab.Generated() - before; cost != page || b.N != page {
				t.Errorf("a %d-row page generated %d rows and returned %d", page, cost, b.N)
			}
			first := pos + 1
			if bound == connector.AtOrAfter {
				first = pos
			}
			for i := 0; i < b.N; i++ {
				gi := tab.groupAt(first + int64(i))
				for k, key := range order {
					if want := tab.keyValue(gi, gi.tick, first+int64(i), key.Column); b.Cols[k].Value(i) != want {
						t.Fatalf("bound %d, row %d, %s: %v, want position %d's %v", bound, i, key.Column, b.Cols[k].Value(i), first+int64(i), want)
					}
				}
			}
			if i := b.N - 1; i > 0 {
				ks := connector.Keyset{Keys: order, Values: []column.Value{b.Cols[0].Value(i - 1), b.Cols[1].Value(i - 1), b.Cols[2].Value(i - 1)}}
				if c, _ := ks.CompareRow(func(k int) column.Value { return b.Cols[k].Value(i) }); c <= 0 {
					t.Fatalf("the last row is not after the one before it in the uuid order")
				}
			}
		}
	}
	if _, err := tab.Answer(context.Background(), connector.Request{Table: "OktaSystemLogs", Columns: cols, Limit: 1,
		OrderBy: []connector.OrderKey{{Column: "uuid"}}}, 1); err == nil {
		t.Fatal("ordered by uuid alone (not the position order): want an error")
	}
}

// TestOktaAnswerStopsOnCancel: a request whose filter keeps almost nothing of 70 billion rows would generate
// rows for as long as it runs; once its context is cancelled it stops within one chunk with ctx's error.
func TestOktaAnswerStopsOnCancel(t *testing.T) {
	tab := bigOkta(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := tab.Generated()
	_, err := tab.Answer(ctx, connector.Request{Table: "OktaSystemLogs", Columns: keyCols, OrderBy: OktaKey, Limit: 10,
		Where: connector.Compare{Column: "eventType", Op: "==", Value: column.Value{Type: column.String, Str: "no.such.event"}}}, 10)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	if cost := tab.Generated() - before; cost != 0 {
		t.Errorf("generated %d rows after the cancel; want 0", cost)
	}
}
