package scenario

import (
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/sims/music"
)

// The listens-follows-grace scenario (source document 003, "Handling Skew"): every play is delivered to the
// feed of each follower of the user who played it, so Listens ⋈ Follows on user_id is many-to-many. User 0 is a
// radio account: hot_share of all plays are its own and hot_share of all follows are of it, so its key is hot
// on both sides. Under the small budget, the partition pair that holds user 0 does not fit; re-partitioning with
// a new seed keeps every copy of the key together, so the pair goes to the hot-key path: the build side in
// memory-sized blocks, the probe side read once per block. At hot_share 0 no pair needs it. Key 0's pairs are
// (hot_share·listens)·(hot_share·follows): the default 0.2 of 10,000 each gives about 4 million of them.
func init() {
	Register(&Scenario{
		Name:  "listens-follows-grace",
		Title: "Listens ⋈ Follows with a key hot on both sides (Grace join's hot-key path)",
		Description: "Each play goes to the feed of every follower of its player. User 0, a radio account, has a " +
			"fifth of all plays and a fifth of all followers, so its rows fill one partition pair on both sides. " +
			"No hash can split one key: the Grace join re-partitions once, sees the pair barely shrink, and joins " +
			"that key in memory-sized blocks, reading its probe rows once per block.",
		Query: listensFollowsGraceQuery,
		Knobs: []Knob{
			{Name: "users", Help: "users of the service", Default: 1000, Min: 1, Max: 1_000_000},
			{Name: "listens", Help: "plays (rows of Listens)", Default: 10_000, Min: 0, Max: maxListensFollows},
			{Name: "follows", Help: "follows (rows of Follows)", Default: 10_000, Min: 0, Max: maxListensFollows},
			{Name: "hot_share", Help: "fraction of plays by user 0 and of follows of user 0 (a key hot on both sides)",
				Default: 0.2, Min: 0, Max: 1},
		},
		Sources: func(seed uint64, knobs map[string]float64) (map[string]source.Source, error) {
			ds, err := music.Generate(seed, music.Config{Users: int(knobs["users"]), Songs: 1,
				Listens: int(knobs["listens"]), Follows: int(knobs["follows"]), HotShare: knobs["hot_share"]})
			if err != nil {
				return nil, err
			}
			return map[string]source.Source{
				"Listens": source.FromTable("Listens", ds.Listens),
				"Follows": source.FromTable("Follows", ds.Follows),
			}, nil
		},
		MemoryBudget: listensFollowsBudget,
	})
}

// maxListensFollows bounds both tables: at hot_share 1 the join forms listens × follows pairs, 2.5·10⁹ at this
// size, about a minute and a half natively.
const maxListensFollows = 50_000

// listensFollowsBudget is small enough that user 0's rows on the smaller side of its pair (about 2,000 at the
// defaults, some 80 bytes each with their hash-table share) do not fit, and large enough for every other pair
// and for the grouped count above the join.
const listensFollowsBudget = 128 << 10

// listensFollowsGraceQuery counts the feed items all plays make and sums their ratings. Its aggregate holds
// a fixed few bytes, so all the budget the join leaves goes to the hot key's blocks.
const listensFollowsGraceQuery = `@Listens
| join kind=inner (@Follows) on user_id
| summarize feed_items = count(), rated = sum(rating)`
