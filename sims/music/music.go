// Package music generates the users, listens, songs and follows of the hash-partition-join lessons: a
// listening service's users, the songs they play, one row per play and one per follow, from a seed, in any
// size. Listens reference users and songs by id, so Users ⋈ Listens ⋈ Songs is the three-way join of the
// source document; a knob makes one user hot (a share of all listens and of all follows) to show what skew
// does to partitioning. Listens ⋈ Follows on user_id is many-to-many, so that user is hot on both sides.
package music

import (
	"fmt"
	"math/rand/v2"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/source"
)

// Config sizes a dataset.
type Config struct {
	Users, Songs, Listens int
	// Follows is the number of follow rows (0: no Follows table rows).
	Follows int
	// HotShare is the fraction of listens by user 0, and of follows of user 0 (0: none beyond its fair share).
	HotShare float64
}

// Dataset is the generated tables.
type Dataset struct {
	Users, Listens, Songs, Follows *column.Table
}

var countries = []string{"US", "BR", "DE", "IN", "JP", "FR", "NG", "MX", "GB", "KR"}
var genres = []string{"pop", "rock", "jazz", "hip-hop", "classical", "electronic", "folk", "metal"}
var names = []string{"Mickey", "Minnie", "Pluto", "Daffy", "Donald", "Goofy", "Daisy", "Chip", "Dale", "Huey"}

// Users has user_id (0..Users-1), name and country; Songs has song_id, title, genre and year; Listens has
// user_id, song_id and rating (1 to 5); Follows has follower_id and user_id (the user followed). Song popularity
// is skewed (a few songs get most plays), as it is on any real service; user activity and followers are uniform
// apart from the hot user. Follows are drawn after listens, so adding follows leaves the other tables as they
// were for the same seed.
func Generate(seed uint64, c Config) (*Dataset, error) {
	if c.Users < 1 || c.Songs < 1 || c.Listens < 0 || c.Follows < 0 {
		return nil, fmt.Errorf("music: need at least one user and one song (users %d, songs %d)", c.Users, c.Songs)
	}
	if c.HotShare < 0 || c.HotShare > 1 {
		return nil, fmt.Errorf("music: hot share %g is outside [0, 1]", c.HotShare)
	}
	r := rand.New(rand.NewPCG(seed, seed^0x6d75736963))
	users := column.NewTable(column.Schema{{Name: "user_id", Type: column.Long}, {Name: "name", Type: column.String},
		{Name: "country", Type: column.String}})
	for u := 0; u < c.Users; u++ {
		users.Cols[0].AppendInt(int64(u))
		users.Cols[1].AppendString(fmt.Sprintf("%s %d", names[u%len(names)], u))
		users.Cols[2].AppendString(countries[r.IntN(len(countries))])
	}
	users.N = c.Users
	songs := column.NewTable(column.Schema{{Name: "song_id", Type: column.Long}, {Name: "title", Type: column.String},
		{Name: "genre", Type: column.String}, {Name: "year", Type: column.Long}})
	for s := 0; s < c.Songs; s++ {
		songs.Cols[0].AppendInt(int64(s))
		songs.Cols[1].AppendString(fmt.Sprintf("Song %d", s))
		songs.Cols[2].AppendString(genres[r.IntN(len(genres))])
		songs.Cols[3].AppendInt(int64(1960 + r.IntN(65)))
	}
	songs.N = c.Songs
	listens := column.NewTable(column.Schema{{Name: "user_id", Type: column.Long}, {Name: "song_id", Type: column.Long},
		{Name: "rating", Type: column.Long}})
	for i := 0; i < c.Listens; i++ {
		u := r.IntN(c.Users)
		if r.Float64() < c.HotShare {
			u = 0
		}
		// The square of a uniform number favours small song ids: popularity falls off like a power law.
		f := r.Float64()
		listens.Cols[0].AppendInt(int64(u))
		listens.Cols[1].AppendInt(int64(f * f * float64(c.Songs)))
		listens.Cols[2].AppendInt(int64(1 + r.IntN(5)))
	}
	listens.N = c.Listens
	follows := column.NewTable(column.Schema{{Name: "follower_id", Type: column.Long}, {Name: "user_id", Type: column.Long}})
	for i := 0; i < c.Follows; i++ {
		u := r.IntN(c.Users)
		if r.Float64() < c.HotShare {
			u = 0
		}
		follows.Cols[0].AppendInt(int64(r.IntN(c.Users)))
		follows.Cols[1].AppendInt(int64(u))
	}
	follows.N = c.Follows
	return &Dataset{Users: users, Listens: listens, Songs: songs, Follows: follows}, nil
}

// Sources names the tables Users, Listens and Songs (the three-way join's; Follows is left to whoever asks).
func (d *Dataset) Sources() map[string]source.Source {
	return map[string]source.Source{
		"Users":   source.FromTable("Users", d.Users),
		"Listens": source.FromTable("Listens", d.Listens),
		"Songs":   source.FromTable("Songs", d.Songs),
	}
}
