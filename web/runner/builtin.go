package runner

import (
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/sims/scenario"
)

// builtins are the playground's own scenarios, listed after the sims catalogue's. They are not registered
// in sims/scenario (that catalogue belongs to the simulations); they exist so the page has generated data of
// any size to join before, and besides, the simulated connectors.
var builtins = []*scenario.Scenario{playgroundUsersListens}

// ScenarioUsersListens is the name of the playground's generated users ⋈ listens scenario.
const ScenarioUsersListens = "playground-users-listens"

var playgroundUsersListens = &scenario.Scenario{
	Name:  ScenarioUsersListens,
	Title: "Users ⋈ Listens (generated, in memory)",
	Description: "Users and the songs they listened to, generated from the seed. Listens pick their user " +
		"with a skew knob: 0 spreads them evenly, 1 sends half of them to one user.",
	Query: "@Users | join kind=inner (@Listens) on user_id | project name, user_id, song_id",
	Knobs: []scenario.Knob{
		{Name: "users", Help: "rows of Users", Default: 1000, Min: 0, Max: 1_000_000},
		{Name: "listens", Help: "rows of Listens", Default: 20_000, Min: 0, Max: 5_000_000},
		{Name: "skew", Help: "share of listens by user 1 (0–1)", Default: 0, Min: 0, Max: 1},
	},
	Sources: usersListens,
}

// mix is splitmix64's finaliser: rows are a function of (seed, position), so any row can be generated on
// its own and a seed always gives the same tables.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// songsPerCatalogue is how many distinct song ids listens draw from.
const songsPerCatalogue = 5000

var firstNames = []string{"Ada", "Brian", "Chen", "Dana", "Emeka", "Freya", "Goran", "Hana", "Ines", "Jamal",
	"Kai", "Lena", "Mina", "Noor", "Olu", "Pia", "Quinn", "Ravi", "Sara", "Tomas"}

func usersListens(seed uint64, knobs map[string]float64) (map[string]source.Source, error) {
	nUsers, nListens, skew := int(knobs["users"]), int(knobs["listens"]), knobs["skew"]
	if nUsers == 0 && nListens > 0 {
		return nil, fmt.Errorf("listens need at least one user")
	}
	users := column.NewTable(column.Schema{{Name: "user_id", Type: column.Long}, {Name: "name", Type: column.String}})
	ids, names := column.NewVector(column.Long, nUsers), column.NewVector(column.String, nUsers)
	for i := range nUsers {
		ids.AppendInt(int64(i + 1))
		names.AppendString(fmt.Sprintf("%s %d", firstNames[mix(seed^uint64(i))%uint64(len(firstNames))], i+1))
	}
	users.Append(column.NewBatch([]*column.Vector{ids, names}, nUsers))

	listens := column.NewTable(column.Schema{{Name: "user_id", Type: column.Long}, {Name: "song_id", Type: column.Long}})
	uids, songs := column.NewVector(column.Long, nListens), column.NewVector(column.Long, nListens)
	heavy := uint64(skew * (1 << 32))
	for i := range nListens {
		h := mix(seed*0x100000001b3 + uint64(i))
		user := int64(1)
		if h&(1<<32-1) >= heavy/2 { // skew=1 gives user 1 half the listens
			user = int64((h>>32)%uint64(nUsers)) + 1
		}
		uids.AppendInt(user)
		songs.AppendInt(int64(mix(h)%songsPerCatalogue) + 1)
	}
	listens.Append(column.NewBatch([]*column.Vector{uids, songs}, nListens))
	return map[string]source.Source{
		"Users":   source.FromTable("Users", users),
		"Listens": source.FromTable("Listens", listens),
	}, nil
}

func isBuiltin(s *scenario.Scenario) bool {
	for _, b := range builtins {
		if b == s {
			return true
		}
	}
	return false
}
