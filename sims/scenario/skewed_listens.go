package scenario

import (
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/sims/skewed"
)

// The skewed-listens scenario (source document 001): listens joined with the songs catalogue by song, where
// a few viral songs take a large share of all plays. A plain shuffle sends each viral song's plays to one
// worker; the planner measures the key frequencies, finds the viral songs heavy and salts them: the listens
// (the preserved side of the left outer join) are spread, the viral songs' catalogue rows copied to every
// worker. The per-worker loads before and after are in the stats' details and the trace.
func init() {
	Register(&Scenario{
		Name:  "skewed-listens",
		Title: "Viral songs: listens ⋈ songs with heavy keys (salted skew join)",
		Description: "200,000 listens over 5,000 songs, 2 of them viral with 30% of all plays. The join by song " +
			"is a shuffle over W workers; the heavy songs are measured, their listens spread over W salts and " +
			"their catalogue rows replicated W times, so every worker carries about the same load. 1% of " +
			"listens name a song missing from the catalogue and are kept, null-extended, exactly once.",
		Query: skewedListensQuery,
		Knobs: []Knob{
			{Name: "listens", Help: "rows of Listens", Default: 200_000, Min: 0, Max: 5_000_000},
			{Name: "songs", Help: "rows of Songs", Default: 5_000, Min: 1, Max: 1_000_000},
			{Name: "viral", Help: "number of viral songs", Default: 2, Min: 0, Max: 100},
			{Name: "viral_share", Help: "fraction of listens on the viral songs", Default: 0.3, Min: 0, Max: 1},
			{Name: "unknown", Help: "fraction of listens of songs missing from the catalogue", Default: 0.01, Min: 0, Max: 1},
			{Name: "users", Help: "distinct listeners", Default: 20_000, Min: 1, Max: 10_000_000},
		},
		Sources: func(seed uint64, knobs map[string]float64) (map[string]source.Source, error) {
			ds, err := skewed.Generate(seed, skewed.Config{Listens: int(knobs["listens"]), Songs: int(knobs["songs"]),
				Viral: int(knobs["viral"]), ViralShare: knobs["viral_share"], Unknown: knobs["unknown"],
				Users: int(knobs["users"])})
			if err != nil {
				return nil, err
			}
			return map[string]source.Source{"Listens": ds.Listens, "Songs": ds.Songs}, nil
		},
	})
}

// skewedListensQuery counts plays per song title; unknown songs come out under an empty title.
const skewedListensQuery = `@Listens
| join kind=leftouter (@Songs) on song_id
| summarize plays = count(), listeners = dcount(user_id) by title
| top 10 by plays`
