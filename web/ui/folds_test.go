package ui

import (
	"testing"

	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// The paged join sends a page's tie_group_cut before that page's page_fetched: the mark goes on the page
// the cut names, never on the one before it.
func TestTieCutMarksThePageItCuts(t *testing.T) {
	page := func(n float64) trace.Event {
		return ev(joinevent.KindPageFetched, 0, "", map[string]any{"page": n, "rows": 10.0})
	}
	cut := func(n float64) trace.Event {
		return ev(joinevent.KindTieGroupCut, 0, "", map[string]any{"page": n, "tuple": "t"})
	}
	events := []trace.Event{page(1), cut(2), page(2), page(3), cut(4), page(4), cut(5), page(5), page(6)}
	p := Fold(events).Paged
	var marked []float64
	for _, pg := range p.Pages {
		if pg.Tie {
			marked = append(marked, pg.N)
		}
	}
	if len(marked) != 3 || marked[0] != 2 || marked[1] != 4 || marked[2] != 5 || p.TiesCut != 3 || p.TieMarks() != 3 {
		t.Errorf("marked pages %v, %d cuts counted", marked, p.TiesCut)
	}
	// Folded up to the cut of page 2 but not its page: counted, not yet drawn.
	if p := Fold(events[:2]).Paged; p.TiesCut != 1 || p.TieMarks() != 0 || p.Pages[0].Tie {
		t.Errorf("before page 2 arrives: %d cuts, %d marks", p.TiesCut, p.TieMarks())
	}
}

// A query may run several sweeps; each reports totals from zero, and the view adds them up.
func TestSweepTotalsAcrossSweeps(t *testing.T) {
	adv := func(l, r int, activeMax, expired, overlaps int64) trace.Event {
		return trace.Event{Payload: joinevent.SweepAdvanced{ActiveLeft: l, ActiveRight: r, ActiveMax: activeMax,
			Expired: expired, Overlaps: overlaps}}
	}
	s := Fold([]trace.Event{adv(1, 1, 2, 3, 2), adv(0, 0, 2, 10, 7), adv(2, 1, 3, 1, 1), adv(0, 0, 3, 4, 5)}).Sweep
	if s.Expired != 14 || s.Overlaps != 12 || s.ActiveMax != 3 || s.Advances != 4 {
		t.Errorf("sweep %+v", s)
	}
	// The engine's running largest stands even where no sampled event showed it.
	s = Fold([]trace.Event{adv(1, 0, 7, 0, 0)}).Sweep
	if s.ActiveMax != 7 {
		t.Errorf("with the engine's running largest: %+v", s)
	}
}

// The page draws the view the engine's started message names; before it comes, the view of the strategy the
// run asked for.
func TestViewFromStarted(t *testing.T) {
	for _, c := range []struct {
		started, drawn, asked, want string
	}{
		{protocol.ViewSweep, "sweep", "", protocol.ViewSweep},
		{protocol.ViewSalted, "salted_naive_wrong", "salted", protocol.ViewSalted},
		{"", "", "keyset-lt", protocol.ViewPaged},
		{"", "", "", protocol.ViewGeneric},
		{"", "", "mystery", protocol.ViewGeneric},
	} {
		r := &Run{Trace: NewTraceView(), Strategy: c.asked, ViewName: c.started, Drawn: c.drawn}
		if got := r.View(); got != c.want || r.DrawnStrategy() != cmp(c.drawn, c.asked) {
			t.Errorf("started %q asked %q: the %s view drawing %s, want %s", c.started, c.asked, got, r.DrawnStrategy(), c.want)
		}
	}
}
