package scenario

import (
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/sims/music"
)

// The users-listens-grace scenario (source document 003): Listens ⋈ Users on user_id, then ⋈ Songs on song_id,
// under a budget too small for either build side, so the planner picks the Grace join for both joins. Each
// partitions both of its inputs with one seeded hash, spills the partitions and joins them pair by pair; the
// upper join partitions the lower one's output as it streams out. The hot_share knob gives user 0 a share of
// the listens: a hot key on the probe side, which each pair streams past the Users rows it builds (one a
// user), so it costs a larger probe partition and never the hot-key path. That path needs a key hot on the
// side a pair builds, its smaller one, so on both sides of the join: listens-follows-grace has one.
func init() {
	Register(&Scenario{
		Name:  "users-listens-grace",
		Title: "Users ⋈ Listens ⋈ Songs under a tight memory budget (Grace hash-partition join)",
		Description: "A listening service's users, songs and plays. Neither Users nor Songs fits the 2 MiB " +
			"budget as a hash table, so both joins partition their inputs by a hash of the key, spill the " +
			"partitions and join each pair in memory; I/O is counted in pages against 3(N+M).",
		Query: usersListensGraceQuery,
		Knobs: []Knob{
			{Name: "users", Help: "users of the service", Default: 20000, Min: 1, Max: 5_000_000},
			{Name: "songs", Help: "songs in the catalogue", Default: 30000, Min: 1, Max: 5_000_000},
			{Name: "listens", Help: "plays (rows of Listens)", Default: 200000, Min: 0, Max: 50_000_000},
			{Name: "hot_share", Help: "fraction of plays by user 0 (hot on the probe side only; listens-follows-grace has a key hot on both)", Default: 0, Min: 0, Max: 1},
		},
		Sources: func(seed uint64, knobs map[string]float64) (map[string]source.Source, error) {
			ds, err := music.Generate(seed, music.Config{Users: int(knobs["users"]), Songs: int(knobs["songs"]),
				Listens: int(knobs["listens"]), HotShare: knobs["hot_share"]})
			if err != nil {
				return nil, err
			}
			return ds.Sources(), nil
		},
		MemoryBudget: 2 << 20,
	})
}

// usersListensGraceQuery plays per country and genre, with the average rating.
const usersListensGraceQuery = `@Listens
| join kind=inner (@Users) on user_id
| join kind=inner (@Songs) on song_id
| summarize plays = count(), rating = avg(rating) by country, genre
| sort by plays desc`
