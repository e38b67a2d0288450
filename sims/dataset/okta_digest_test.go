package dataset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
)

// oktaDigests pin the generated rows: a SHA-256 over every column of the rows each case reads, taken before the
// generator was optimised. A change to the generator that changes any row (a field, an order, a tie group's
// actors) changes a digest; speed-ups must leave them alone (same seed, same rows).
var oktaDigests = map[string]string{
	"default-seeks": "7f29602d125336b2c16ff03b1c57f5d194eedd4aa104ffe0cb4146e3fb861657",
	"bursty-scan":   "fbfc29ce4aae80d0e44edea1632ff199e1ee149b662d346997f774c302cc0fe5",
	"tie1-scan":     "12b22044929dcc768220908f6c4f8b62e49903a76b5488bea8ac2fd3ad5dd519",
	"seed7-seeks":   "fe9d6f445ad3df7cbf307925e40b494ae414bd51d184189072cf3eb52304e207",
}

func TestOktaRowsArePinned(t *testing.T) {
	all := make([]string, len(OktaSchema))
	for i, f := range OktaSchema {
		all[i] = f.Name
	}
	digestSeeks := func(p OktaParams, seeds uint64) string {
		tab, err := NewOktaLogs(p)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		rng := rand.New(rand.NewPCG(seeds, 9))
		for trial := 0; trial < 6; trial++ {
			pos := rng.Int64N(p.Rows - 5_000)
			g := tab.groupAt(pos)
			cursor := []column.Value{tab.keyValue(g, g.tick, pos, OktaKey[0].Column), tab.keyValue(g, g.tick, pos, OktaKey[1].Column), tab.keyValue(g, g.tick, pos, OktaKey[2].Column)}
			b, err := tab.Answer(context.Background(), connector.Request{Table: "OktaSystemLogs", Columns: all, OrderBy: OktaKey, Limit: 1500,
				Where: connector.Keyset{Keys: OktaKey, Values: cursor, Bound: connector.After}}, 1500)
			if err != nil {
				t.Fatal(err)
			}
			writeBatch(h, b)
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	digestScan := func(p OktaParams) string {
		tab, err := NewOktaLogs(p)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		b, err := tab.Answer(context.Background(), connector.Request{Table: "OktaSystemLogs", Columns: all, OrderBy: OktaKey, Limit: int(p.Rows)}, int(p.Rows))
		if err != nil {
			t.Fatal(err)
		}
		if int64(b.N) != p.Rows {
			t.Fatalf("scan read %d rows of %d", b.N, p.Rows)
		}
		writeBatch(h, b)
		return hex.EncodeToString(h.Sum(nil))
	}
	bursty := DefaultOkta
	bursty.Rows, bursty.BurstFraction, bursty.TieRows = 30_000, 0.5, 16
	tie1 := DefaultOkta
	tie1.Rows, tie1.TieRows, tie1.Users, tie1.Skew = 20_000, 1, 500, 1.5
	seed7 := DefaultOkta
	seed7.Seed, seed7.Rows = 7, 1_000_000_000
	got := map[string]string{
		"default-seeks": digestSeeks(DefaultOkta, 1),
		"bursty-scan":   digestScan(bursty),
		"tie1-scan":     digestScan(tie1),
		"seed7-seeks":   digestSeeks(seed7, 2),
	}
	for name, want := range oktaDigests {
		if got[name] != want {
			t.Errorf("%s: rows digest %s, want %s", name, got[name], want)
		}
	}
}

func writeBatch(h interface{ Write([]byte) (int, error) }, b *column.Batch) {
	for i := 0; i < b.N; i++ {
		for _, c := range b.Cols {
			fmt.Fprintf(h, "%v\x1f", c.Value(i))
		}
		h.Write([]byte{'\n'})
	}
}

// TestOktaBoundsAreExact: the keyset and published bounds the table applies by position (and no longer checks
// row by row) keep exactly the rows the predicate keeps, for every bound, key prefix and cursor kind (a row of
// the table, a value between rows), on a table whose tie groups run to thousands of rows.
func TestOktaBoundsAreExact(t *testing.T) {
	p := DefaultOkta
	p.Rows, p.BurstFraction, p.TieRows = 6_000, 0.3, 8
	tab, err := NewOktaLogs(p)
	if err != nil {
		t.Fatal(err)
	}
	all, err := tab.Answer(context.Background(), connector.Request{Table: "OktaSystemLogs", Columns: keyCols, OrderBy: OktaKey, Limit: int(p.Rows)}, int(p.Rows))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		i := rng.IntN(all.N)
		vals := []column.Value{all.Cols[0].Value(i), all.Cols[1].Value(i), all.Cols[2].Value(i)}
		if trial%4 == 3 { // between rows: a login no user has, a timestamp no row has
			vals[1].Str += "~"
			vals[2].Str = "zz"
		}
		if trial%8 == 7 {
			vals[0].Int -= 1
		}
		nk := 1 + rng.IntN(3)
		ks := connector.Keyset{Keys: OktaKey[:nk], Values: vals[:nk], Bound: connector.Bound(rng.IntN(4))}
		ops := []string{"<", "<=", ">", ">=", "==", "!="}
		var where connector.Predicate = ks
		if trial%3 == 0 {
			where = connector.And{ks, connector.Compare{Column: "published", Op: ops[rng.IntN(len(ops))], Value: all.Cols[0].Value(rng.IntN(all.N))}}
		}
		keep, err := connector.Eval(where, keyCols, all)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tab.Answer(context.Background(), connector.Request{Table: "OktaSystemLogs", Columns: keyCols, OrderBy: OktaKey, Where: where, Limit: int(p.Rows)}, int(p.Rows))
		if err != nil {
			t.Fatal(err)
		}
		j := 0
		for r, k := range keep {
			if !k {
				continue
			}
			if j >= got.N || got.Cols[2].Value(j) != all.Cols[2].Value(r) {
				t.Fatalf("trial %d (%+v): row %d of the answer is not row %d of the table", trial, where, j, r)
			}
			j++
		}
		if j != got.N {
			t.Fatalf("trial %d (%+v): %d rows, want %d", trial, where, got.N, j)
		}
	}
}

// TestOktaLimitIsExact: an answer never has more rows than its limit, for limits below, at and above the
// chunk sizes, with and without a filter left to check row by row.
func TestOktaLimitIsExact(t *testing.T) {
	tab := bigOkta(t)
	for _, limit := range []int{0, 1, 7, minChunk - 1, minChunk, minChunk + 1, scanChunk + 3} {
		for _, where := range []connector.Predicate{nil, connector.NotNull{Column: "uuid"}} {
			b, err := tab.Answer(context.Background(), connector.Request{Table: "OktaSystemLogs", Columns: keyCols, OrderBy: OktaKey, Where: where, Limit: limit}, limit)
			if err != nil {
				t.Fatal(err)
			}
			if b.N != limit {
				t.Errorf("limit %d (where %v): %d rows", limit, where, b.N)
			}
		}
	}
}
