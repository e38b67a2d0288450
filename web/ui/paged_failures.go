package ui

import (
	"fmt"
	"strconv"

	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/trace"
)

// BaselineSummary is where a paged baseline goes wrong, folded from the events the baselines emit
// (engine/join's paged_keysetcursor.go, paged_distinctkeys.go, paged_timewindow.go, paged_fetchall.go) and the
// connectors' request events — never from the run's rows or its error text:
//
//   - keyset-lt: a page that came back full ends on a value V of the sort column alone (page_fetched's
//     window_to has one value), and the next page asks `sort < V` (`>` ascending): every row tied with V that
//     did not fit the page is skipped. Each such edge is a loss edge; how many rows it lost the events cannot
//     say (the compare's verdict counts them against the paged join).
//   - keyset-le: the next page asks `sort <= V`, so at least the page's last row — and every row tied with it
//     on the page — is read again: every full page's edge repeats rows. A page that ends on the value it
//     started from is a stall; after three the baseline stops (the run's error).
//   - distinctkeys: each page is a page of distinct join keys (page_fetched's distinct_keys) whose rows are
//     all re-fetched and emitted together, key by key: rows come out grouped by key, not in the sort order.
//   - timewindow: each window asked (page_requested, phase "window") is a page; a window whose answer a
//     source refused for good (request_failed, not retryable) is the window over the response cap.
//   - fetchall: its one request (purpose "fetch-all"), refused for good at the row cap.
//
// Cost: a few fields per event and at most maxPages edges; requests in flight are keyed by source and
// request number and forgotten once answered, so the map holds only the requests awaiting an answer.
type BaselineSummary struct {
	// Name is the baseline the run's strategy_chose named, "" for any other strategy.
	Name string
	// Edges are the page edges where the baseline loses or repeats rows (at most maxPages, in page order);
	// EdgeCount counts them all, drawn or not. Stalls counts the pages that ended where they started.
	Edges     []Edge
	EdgeCount int64
	Stalls    int64
	// KeyPages counts distinctkeys' pages of keys, KeyRows the keys they held.
	KeyPages, KeyRows int64
	// Windows counts the time windows asked; Window is the last one, as "(from, to]".
	Windows int64
	Window  string
	// Refused is the request a source refused for good, nil while none was.
	Refused *Refusal

	size     float64 // the rows the last page asked for
	lastTo   string  // the last full page's last value
	inFlight map[string]request
}

// Edge is one page edge a baseline mishandles: the page it ends, the cursor value it ends on, and what goes
// wrong there ("lost", "repeat" or "stall").
type Edge struct {
	Page  float64
	Value string
	Kind  string
}

// Refusal is a request refused for good: what it was for, the source's reason, the row cap it was held to,
// and, for the time-window baseline, the window and page it asked.
type Refusal struct {
	Purpose, Source, Error string
	MaxRows                float64
	Window                 string
	Page                   float64
}

type request struct {
	purpose string
	maxRows float64
}

// baselines are the strategies BaselineSummary reads.
var baselines = map[string]bool{"keyset-lt": true, "keyset-le": true, "distinctkeys": true, "timewindow": true, "fetchall": true}

func (b *BaselineSummary) add(p trace.Payload) {
	if c, ok := p.(trace.StrategyChose); ok {
		if baselines[c.Strategy] {
			b.Name = c.Strategy
		}
		return
	}
	if b.Name == "" {
		return
	}
	switch p := p.(type) {
	case connevent.RequestSent:
		if b.inFlight == nil {
			b.inFlight = map[string]request{}
		}
		b.inFlight[requestID(p.Source, p.Request)] = request{purpose: p.Purpose, maxRows: float64(p.MaxRows)}
	case connevent.PageReturned:
		delete(b.inFlight, requestID(p.Source, p.Request))
	case connevent.RequestFailed:
		if p.Retryable {
			return
		}
		id := requestID(p.Source, p.Request)
		rq := b.inFlight[id]
		delete(b.inFlight, id)
		if b.Refused == nil {
			b.Refused = &Refusal{Purpose: rq.purpose, Source: p.Source, Error: p.Error, MaxRows: rq.maxRows}
			if b.Name == "timewindow" {
				b.Refused.Window, b.Refused.Page = b.Window, float64(b.Windows)
			}
		}
	case joinevent.PageRequested:
		if p.Phase == "window" {
			b.Windows++
			b.Window = fmt.Sprintf("(%s, %s]", p.WindowFrom, p.WindowTo)
			return
		}
		b.size = float64(p.Size)
	case joinevent.PageFetched:
		page, rows := float64(p.Page), float64(p.Rows)
		switch b.Name {
		case "distinctkeys":
			b.KeyPages++
			b.KeyRows += int64(rows)
		case "keyset-lt", "keyset-le":
			if p.Short || b.size <= 0 || rows < b.size {
				return // the last page: nothing after its edge
			}
			to := tupleText(p.WindowTo)
			e := Edge{Page: page, Value: to, Kind: "lost"}
			if b.Name == "keyset-le" {
				e.Kind = "repeat"
				if to == b.lastTo {
					e.Kind = "stall"
					b.Stalls++
				}
			}
			b.lastTo = to
			b.EdgeCount++
			if len(b.Edges) < maxPages {
				b.Edges = append(b.Edges, e)
			}
		}
	}
}

// Lesson says in one sentence how the run's baseline goes wrong, with the figures its events give.
func (b *BaselineSummary) Lesson() string {
	switch b.Name {
	case "keyset-lt":
		return fmt.Sprintf("keyset-lt pages on the sort column alone with `<`: at each of the %s full pages' edges "+
			"(marked ▼), the rows tied with the page's last value that did not fit the page are skipped by the next page.",
			count(b.EdgeCount))
	case "keyset-le":
		s := fmt.Sprintf("keyset-le pages with `<=`: each of the %s full pages' edges (marked ▲) is read again by "+
			"the next page, its last row and the rows tied with it repeated", count(b.EdgeCount))
		if b.Stalls > 0 {
			s += fmt.Sprintf("; %s pages ended on the value they started from (the cursor stalled, marked ■)", count(b.Stalls))
		}
		return s + "."
	case "distinctkeys":
		return fmt.Sprintf("distinctkeys pages distinct join keys (%s pages, %s keys) and emits each key's rows together: "+
			"the rows are all there, grouped by key instead of in the query's order.", count(b.KeyPages), count(b.KeyRows))
	case "timewindow":
		s := fmt.Sprintf("timewindow asks fixed windows of time, one request each (%s windows)", count(b.Windows))
		if r := b.Refused; r != nil {
			s += fmt.Sprintf("; window %s, the %s, was refused: %s", r.Window, ordinal(int64(r.Page)), r.Error)
		}
		return s + "."
	case "fetchall":
		if r := b.Refused; r != nil {
			return fmt.Sprintf("fetchall asks @%s for every row in one request; the source refused it at its cap of %s rows: %s.",
				r.Source, count(int64(r.MaxRows)), r.Error)
		}
		return "fetchall asks for every row in one request: fine until the answer passes the source's row cap."
	}
	return ""
}

func ordinal(n int64) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return count(n) + suffix
}

// EdgeMark is an edge drawn on the pages strip: X is the page's right end.
type EdgeMark struct {
	X            float64
	Class, Glyph string
	Title        string
}

// EdgeMarks are the baseline's edges on the pages the view draws (an edge past the drawn pages is counted,
// not drawn).
func (c *PagedView) EdgeMarks() []EdgeMark {
	b := &c.Run.Trace.Baseline
	if len(b.Edges) == 0 {
		return nil
	}
	boxes := c.Pages()
	at := map[float64]int{}
	for i, p := range c.Run.Trace.Paged.Pages {
		at[p.N] = i
	}
	glyph := map[string]string{"lost": "▼", "repeat": "▲", "stall": "■"}
	what := map[string]string{
		"lost":   "the next page asks past %s with <: rows tied with it beyond this page are skipped",
		"repeat": "the next page asks from %s with <=: this page's last rows are read again",
		"stall":  "this page ended on %s, where it started: the cursor did not move",
	}
	var out []EdgeMark
	for _, e := range b.Edges {
		i, ok := at[e.Page]
		if !ok || i >= len(boxes) {
			continue
		}
		out = append(out, EdgeMark{X: boxes[i].X + boxes[i].W, Class: "edge " + e.Kind, Glyph: glyph[e.Kind],
			Title: fmt.Sprintf("page %s: ", count(int64(e.Page))) + fmt.Sprintf(what[e.Kind], e.Value)})
	}
	return out
}

// Refused reports whether a source refused one of the baseline's requests for good (drawn as a red box
// after the pages).
func (c *PagedView) Refused() bool { return c.Run.Trace.Baseline.Refused != nil }

// RefusedWidth is the refused request's box: the rest of the strip after the pages, at least a sliver.
func (c *PagedView) RefusedWidth() float64 { return max(6, 400-c.CursorX()) }

// EdgeVerb says what the baseline's edges do to rows.
func (c *PagedView) EdgeVerb() string {
	if c.Run.Trace.Baseline.Name == "keyset-le" {
		return "repeat"
	}
	return "may skip"
}

// requestID names a request in flight: its source and sequence number.
func requestID(source string, request int) string { return source + "#" + strconv.Itoa(request) }
