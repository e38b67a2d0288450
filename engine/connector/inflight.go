package connector

import (
	"sort"
	"time"

	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/trace"
)

// MaxInFlight reads from a trace the most requests to each source that were in flight at once: a send is in
// flight from its RequestSent to its PageReturned or RequestFailed, and an end at the time of a start frees its
// slot first. Tests hold it to Caps.Concurrent; a view can draw it.
func MaxInFlight(events []trace.Event) map[string]int {
	type edge struct {
		at    time.Duration
		delta int
	}
	edges := map[string][]edge{}
	for _, e := range events {
		switch p := e.Payload.(type) {
		case connevent.RequestSent:
			edges[p.Source] = append(edges[p.Source], edge{e.At, +1})
		case connevent.PageReturned:
			edges[p.Source] = append(edges[p.Source], edge{e.At, -1})
		case connevent.RequestFailed:
			edges[p.Source] = append(edges[p.Source], edge{e.At, -1})
		}
	}
	out := map[string]int{}
	for src, es := range edges {
		sort.SliceStable(es, func(a, b int) bool {
			if es[a].at != es[b].at {
				return es[a].at < es[b].at
			}
			return es[a].delta < es[b].delta
		})
		n := 0
		for _, e := range es {
			n += e.delta
			out[src] = max(out[src], n)
		}
	}
	return out
}
