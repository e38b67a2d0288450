// Package skewed generates the skewed-listens dataset: song plays where a few viral songs take a large share
// of all listens, joined with a songs catalogue of one row per song. It is the input the salted skew join is
// shown on: a shuffle by song sends every play of a viral song to one worker.
package skewed

import (
	"fmt"
	"math/rand/v2"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/source"
)

// Config sizes the dataset.
type Config struct {
	Listens int // rows of Listens
	Songs   int // rows of Songs (song ids 1..Songs)
	// Viral is how many songs are viral, and ViralShare the fraction of all listens they take together.
	Viral      int
	ViralShare float64
	// Unknown is the fraction of listens whose song is missing from the catalogue (a left outer join keeps
	// them, null-extended).
	Unknown float64
	Users   int
}

// Dataset is the generated tables.
type Dataset struct {
	Listens, Songs *source.Table
}

// epoch is the first listen's time; listens spread over the following week.
const epoch = int64(1714521600) * 1e9 // 2024-05-01T00:00:00Z

const week = int64(7*24*3600) * 1e9

// Generate makes the dataset for seed: the same seed and config always give the same tables.
func Generate(seed uint64, c Config) (*Dataset, error) {
	if c.Listens < 0 || c.Songs < 1 || c.Viral < 0 || c.Viral > c.Songs || c.Users < 1 {
		return nil, fmt.Errorf("skewed: bad config %+v", c)
	}
	r := rand.New(rand.NewPCG(seed, seed^0x5EED))
	listens := column.NewTable(column.Schema{{Name: "listen_id", Type: column.Long}, {Name: "user_id", Type: column.Long},
		{Name: "song_id", Type: column.Long}, {Name: "ts", Type: column.DateTime}})
	// Background popularity is Zipf-like over the non-viral songs, as play counts are.
	var zipf *rand.Zipf
	if c.Songs > c.Viral+1 {
		zipf = rand.NewZipf(r, 1.1, 10, uint64(c.Songs-c.Viral-1))
	}
	for i := 0; i < c.Listens; i++ {
		var song int64
		switch x := r.Float64(); {
		case x < c.Unknown:
			song = int64(c.Songs + 1 + r.IntN(1000)) // not in the catalogue
		case x < c.Unknown+c.ViralShare && c.Viral > 0:
			song = int64(1 + r.IntN(c.Viral))
		case zipf != nil:
			// A permutation spreads the popular background songs over the id range.
			song = int64(c.Viral+1) + int64((zipf.Uint64()*2654435761)%uint64(c.Songs-c.Viral))
		default:
			song = int64(1 + r.IntN(c.Songs))
		}
		listens.Cols[0].AppendInt(int64(i + 1))
		listens.Cols[1].AppendInt(int64(1 + r.IntN(c.Users)))
		listens.Cols[2].AppendInt(song)
		listens.Cols[3].AppendInt(epoch + r.Int64N(week))
	}
	listens.N = c.Listens
	songs := column.NewTable(column.Schema{{Name: "song_id", Type: column.Long}, {Name: "title", Type: column.String},
		{Name: "artist", Type: column.String}})
	for s := 1; s <= c.Songs; s++ {
		songs.Cols[0].AppendInt(int64(s))
		title := fmt.Sprintf("Song %d", s)
		if s <= c.Viral {
			title = fmt.Sprintf("Viral Hit %d", s)
		}
		songs.Cols[1].AppendString(title)
		songs.Cols[2].AppendString(fmt.Sprintf("Artist %d", 1+(s*7919)%max(c.Songs/10, 1)))
	}
	songs.N = c.Songs
	return &Dataset{Listens: source.FromTable("Listens", listens), Songs: source.FromTable("Songs", songs)}, nil
}
