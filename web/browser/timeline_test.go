package browser

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/ui"
	"github.com/joinlab/joinlab/web/walkthrough"
)

// nativeEvents runs r through the runner natively and returns the trace events it sends the page.
func nativeEvents(t *testing.T, r *protocol.Run) []trace.Event {
	t.Helper()
	var events []trace.Event
	runner.Stream(context.Background(), 1, r, func(m protocol.Message) {
		events = append(events, m.Events...)
		if m.Type == protocol.MessageError {
			t.Fatalf("native run: %s", m.Error.Message)
		}
	}, nil)
	return events
}

// timelineAt reads the timeline's position and length from the page.
func (p *page) timelineAt() (k, n int) {
	p.t.Helper()
	v := evaluate[[]int](p, `(() => { const tl = document.querySelector("#timeline");
		return tl === null ? [-1, -1] : [Number(tl.dataset.k), Number(tl.dataset.n)]; })()`)
	return v[0], v[1]
}

// waitAt waits until the timeline shows k events.
func (p *page) waitAt(k int) {
	p.t.Helper()
	p.waitFor(fmt.Sprintf("the timeline at event %d", k), fmt.Sprintf(`(() => { const tl = document.querySelector("#timeline");
		return tl !== null && tl.dataset.k === "%d"; })()`, k), runTimeout)
}

// graceFigures are the figures the Grace view and the metrics draw, read from the DOM.
func (p *page) graceFigures() []string {
	p.t.Helper()
	return evaluate[[]string](p, `["#grace-partitions", "#grace-spills", "#grace-pairs", "#m-events"].map(s =>
		(document.querySelector(s) || {textContent: "(none)"}).textContent)`)
}

// want is what the same figures are for a fold of events.
func graceWant(tv *ui.TraceView) []string {
	return []string{strconv.Itoa(tv.Grace.TopPartitions()), fmt.Sprint(tv.Grace.Spills), fmt.Sprint(tv.Grace.Pairs),
		fmt.Sprint(tv.Events)}
}

// TestTimelineScrubsToAnEvent runs the Grace scenario, scrubs the timeline to the event before the first pair
// of partitions is joined and checks the figures the page draws there against a fresh fold of the same
// run's first k events, made natively; steps one event forward and back with the buttons; and opens a link
// made at that position in another browser, which runs to it and shows the same.
func TestTimelineScrubsToAnEvent(t *testing.T) {
	run := &protocol.Run{Query: "", Scenario: "users-listens-grace", Seed: 1}
	for _, sc := range runner.Catalogue().Scenarios {
		if sc.Name == run.Scenario {
			run.Query = sc.Query
		}
	}
	events := nativeEvents(t, run)
	k := -1
	for i, e := range events {
		if e.Kind() == joinevent.KindPairJoined {
			k = i // the events before the first pair joined
			break
		}
	}
	if k < 2 {
		t.Fatalf("the native run has no pair_joined after its start (%d events)", len(events))
	}

	p := openPlayground(t)
	defer p.screenshot("timeline")
	p.pick("#scenario", run.Scenario)
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	if _, n := p.timelineAt(); n != len(events) {
		t.Fatalf("the page's timeline has %d events, the native run %d", n, len(events))
	}
	// The axis is the event number here: the Grace scenario's sources keep no virtual clock.
	if axis := evaluate[string](p, `document.querySelector("#tl-axis").textContent`); !strings.Contains(axis, "event number") {
		t.Errorf("axis %q", axis)
	}
	evaluate[bool](p, fmt.Sprintf(`(() => { const r = document.querySelector("#tl-range"); r.value = "%d";
		r.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, k))
	p.waitAt(k)
	want := graceWant(ui.Fold(events[:k]))
	if got := p.graceFigures(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("at event %d the page draws partitions, spills, pairs, events %q; a fold of the first %d events %q", k, got, k, want)
	}
	if n := evaluate[string](p, `document.querySelector("#rowcount").textContent`); !strings.HasPrefix(n, "0 rows delivered up to event") {
		t.Errorf("the results at event %d say %q; no row is out before a pair is joined", k, n)
	}
	if rows := evaluate[int](p, `document.querySelectorAll("#results tr.row").length`); rows != 0 {
		t.Errorf("%d result rows drawn before any was delivered", rows)
	}

	p.do("one event forward", chromedp.Click(chromedp.CSS("#tl-forward")))
	p.waitAt(k + 1)
	if got, want := p.graceFigures(), graceWant(ui.Fold(events[:k+1])); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("one event on, the page draws %q, the fold %q", got, want)
	}
	p.do("one event back", chromedp.Click(chromedp.CSS("#tl-back")))
	p.waitAt(k)
	link := evaluate[string](p, `location.href`)

	q := openPlayground(t)
	defer q.screenshot("timeline-link")
	q.do("open the link", chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	q.waitFor("the restored scenario", fmt.Sprintf(`(() => { const s = document.querySelector("#scenario");
		return s && s.value === %q; })()`, run.Scenario), loadTimeout)
	q.waitFor("the engine to be ready", `!document.querySelector("#run").disabled`, loadTimeout)
	q.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	q.waitDone(runTimeout)
	q.waitAt(k)
	if got := q.graceFigures(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the link opened at event %d draws %q, want %q", k, got, want)
	}
	p.checkConsole()
	q.checkConsole()
}

// checkFrozen checks that the page under a walkthrough step that pauses draws the run as it stood at the
// pause point: the strategy view's figures equal a fold, made natively, of the step's events up to its pause
// (web/walkthrough's States), not the whole run's.
func (p *page) checkFrozen(w *walkthrough.Walkthrough, st *walkthrough.StepState) {
	p.t.Helper()
	if st == nil || st.Paused < 0 {
		return
	}
	tv := ui.Fold(st.Events)
	where := fmt.Sprintf("%s step %d (%s)", w.Name, st.Number, st.Step.ID)
	text := func(sel string) string {
		return evaluate[string](p, fmt.Sprintf(`(document.querySelector(%q) || {textContent: "(none)"}).textContent`, sel))
	}
	figures := map[string]string{}
	switch {
	case evaluate[bool](p, `document.querySelector("#view-paged") !== null`):
		figures["#paged-pages"] = strconv.Itoa(len(tv.Paged.Pages))
		figures["#paged-requests"] = fmt.Sprint(tv.Paged.Requests)
	case evaluate[bool](p, `document.querySelector("#view-grace") !== null`):
		figures["#grace-spills"] = fmt.Sprint(tv.Grace.Spills)
		figures["#grace-pairs"] = fmt.Sprint(tv.Grace.Pairs)
	case evaluate[bool](p, `document.querySelector("#view-salted") !== null`):
		figures["#salted-heavy"] = fmt.Sprint(tv.Salted.HeavyCount)
		figures["#salted-salts"] = fmt.Sprint(tv.Salted.Salts)
	case evaluate[bool](p, `document.querySelector("#view-sweep") !== null`):
		figures["#sweep-events"] = fmt.Sprint(tv.Sweep.Advances)
	}
	for sel, want := range figures {
		if got := strings.ReplaceAll(text(sel), ",", ""); got != want {
			p.t.Errorf("%s: %s says %q; the step's events up to its pause give %s", where, sel, got, want)
		}
	}
}

// TestTimelineSeeksToAClickedMarker runs the Grace scenario, clicks the first marker of the strip's spills lane
// and checks that the page then shows the run up to and including the first spill: the timeline's position,
// and the figures of a fresh fold of the same run's events up to it, made natively.
func TestTimelineSeeksToAClickedMarker(t *testing.T) {
	run := &protocol.Run{Query: "", Scenario: "users-listens-grace", Seed: 1}
	for _, sc := range runner.Catalogue().Scenarios {
		if sc.Name == run.Scenario {
			run.Query = sc.Query
		}
	}
	events := nativeEvents(t, run)
	k := -1
	for i, e := range events {
		if e.Kind() == joinevent.KindSpill {
			k = i + 1 // the events up to and including the first spill
			break
		}
	}
	if k < 1 {
		t.Fatalf("the native run has no spill (%d events)", len(events))
	}

	p := openPlayground(t)
	defer p.screenshot("timeline-click")
	p.pick("#scenario", run.Scenario)
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	if at, n := p.timelineAt(); at != n || n != len(events) {
		t.Fatalf("the page's timeline is at %d of %d events, the native run has %d", at, n, len(events))
	}
	// The spills lane's first stroke is "Mx.5 y…" in the strip's units: where it is on screen, in the middle of
	// its height.
	xy := evaluate[[]float64](p, `(() => { const svg = document.querySelector("#tl-strip");
		svg.scrollIntoView({block: "center"});
		const m = /M(\d+)\.5 (\d+)v(\d+)/.exec(document.querySelector("#tl-lane-spills").getAttribute("d"));
		const vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
		return [r.left + (Number(m[1]) + 0.5) / vb.width * r.width,
			r.top + (Number(m[2]) + Number(m[3]) / 2) / vb.height * r.height]; })()`)
	p.do("click the first spill's marker", chromedp.MouseClickXY(xy[0], xy[1]))
	p.waitAt(k)
	if got, want := p.graceFigures(), graceWant(ui.Fold(events[:k])); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("at the first spill (event %d) the page draws partitions, spills, pairs, events %q; a fold of the first %d events %q", k, got, k, want)
	}
	p.checkConsole()
}
