package ui

import (
	"github.com/joinlab/joinlab/engine/trace"

	"regexp"
	"strings"
	"testing"
)

// checkUniqueIDs fails when two elements of the rendered page share an id.
func checkUniqueIDs(t *testing.T, html string) {
	t.Helper()
	seen := map[string]int{}
	for _, m := range regexp.MustCompile(`\sid="([^"]*)"`).FindAllStringSubmatch(html, -1) {
		seen[m[1]]++
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("%d elements have id %q", n, id)
		}
	}
}

// TestCompareSharesOneTimeline plays a preset whose A and B both draw the paged view, scrubs A's timeline,
// and checks that B stands at the event the shared axis maps A's position to, drawn as a fresh fold of B's
// events up to it; that the two views' ids are unique in the page; and that A's metrics are drawn.
func TestCompareSharesOneTimeline(t *testing.T) {
	p := *PresetByID("keyset-lt")
	s := comparePreset(t, p)
	a, b := s.Run, s.CompareRun
	if !a.Tape.virtualClock() || !b.Tape.virtualClock() {
		t.Fatal("the preset's runs keep no virtual clock: this test is about the virtual-time axis")
	}
	for _, k := range []int{1, a.Tape.Len() / 3, a.Tape.Len() / 2, a.Tape.Len() - 1} {
		s.SeekTo(k)
		want := comparePosition(a.Tape, b.Tape, k)
		if got := b.Position(); got != want {
			t.Fatalf("A at %d: B at %d, want %d", k, got, want)
		}
		// B's events up to its position are all at or before A's virtual time, the next one after it.
		at := a.Tape.playTime(k - 1)
		if want > 0 && b.Tape.playTime(want-1) > at || want < b.Tape.Len() && b.Tape.playTime(want) <= at {
			t.Errorf("A at %d (virtual %v): B's position %d is not the last of its events by then", k, at, want)
		}
		fresh := Fold(tapeEvents(b.Tape, want))
		if len(b.Trace.Paged.Pages) != len(fresh.Paged.Pages) || b.Trace.Output != fresh.Output {
			t.Errorf("B at %d draws %d pages, %d rows out; a fresh fold of its first %d events %d, %d", want,
				len(b.Trace.Paged.Pages), b.Trace.Output, want, len(fresh.Paged.Pages), fresh.Output)
		}
		html, _ := render(t, s)
		checkUniqueIDs(t, html)
		for _, id := range []string{`id="a-view-paged"`, `id="b-view-paged"`, `id="cmp-metrics"`, `id="m-rows"`, `id="cmp-timeline"`} {
			if !strings.Contains(html, id) {
				t.Errorf("A at %d: the page has no %s", k, id)
			}
		}
	}
	(&Timeline{State: s}).Live()
	if b.Timeline.Fixed || b.Trace != b.Tape.Live() {
		t.Error("A shown whole again, B is not")
	}
}

func tapeEvents(t *Tape, k int) []trace.Event {
	out := make([]trace.Event, k)
	for i := range out {
		out[i] = t.Event(i)
	}
	return out
}
