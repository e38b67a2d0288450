package scenario

import (
	"fmt"
	"testing"

	"github.com/joinlab/joinlab/sims/music"
)

// TestListensFollowsGraceHotKey: the listens-follows-grace scenario's hot_share knob decides whether the Grace
// join takes its hot-key path (none at 0; one key, user 0, when it is hot on both sides), and the feed count
// and rating sum are the exact Σ over users of plays × followers, computed here from the generated tables.
func TestListensFollowsGraceHotKey(t *testing.T) {
	for _, c := range []struct {
		set      map[string]float64
		strategy string
		hotKeys  any
	}{
		{map[string]float64{"hot_share": 0}, "grace", 0},
		{map[string]float64{}, "grace", 1}, // the default: 0.2
		{map[string]float64{"hot_share": 0.5, "listens": 4000, "follows": 6000}, "grace", 1},
		// No plays: the empty side is built in memory, whatever the follows.
		{map[string]float64{"listens": 0}, "hash", nil},
	} {
		const seed = 3
		sc, err := Get("listens-follows-grace")
		if err != nil {
			t.Fatal(err)
		}
		knobs, err := sc.Resolve(c.set)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := music.Generate(seed, music.Config{Users: int(knobs["users"]), Songs: 1,
			Listens: int(knobs["listens"]), Follows: int(knobs["follows"]), HotShare: knobs["hot_share"]})
		if err != nil {
			t.Fatal(err)
		}
		followers := map[int64]int64{}
		for _, u := range ds.Follows.Cols[1].Ints {
			followers[u]++
		}
		var items, rated int64
		for i, u := range ds.Listens.Cols[0].Ints {
			items += followers[u]
			rated += followers[u] * ds.Listens.Cols[2].Ints[i]
		}
		want := fmt.Sprintf("%d|%d|", items, rated)
		if items == 0 {
			want = "0|null|" // a sum over no rows is null
		}

		rows, st, err := runScenario(t, sc.Name, seed, c.set, sc.Query)
		if err != nil {
			t.Fatalf("knobs %v: %v", c.set, err)
		}
		if len(rows) != 1 || rows[0] != want {
			t.Errorf("knobs %v: rows %q, want [%q]", c.set, rows, want)
		}
		if st.Strategy != c.strategy {
			t.Errorf("knobs %v: strategy %q, want %s", c.set, st.Strategy, c.strategy)
		}
		if got := fmt.Sprint(st.Details["hot_keys"]); got != fmt.Sprint(c.hotKeys) {
			t.Errorf("knobs %v: hot_keys %s, want %v (details %v)", c.set, got, c.hotKeys, st.Details)
		}
	}
}
