package browser

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/ui"
)

// TestCompareSharesTimelineAndDrawsFailures clicks the keyset-lt preset and reads what the compare draws:
// every id in the page unique though A and B both draw the paged view, A's metrics beside them, B's loss
// edges marked on its pages (one per page but the last, every page of the preset coming back full) and its
// lesson; then scrubs the one timeline to half the run's virtual time and sees B held there too, drawing
// fewer pages than it ends with. Then the fetchall preset: its one request drawn as refused at the row cap.
// Screenshots: compare-timeline.png (the scrubbed compare), baseline-fetchall.png.
func TestCompareSharesTimelineAndDrawsFailures(t *testing.T) {
	p := openPlayground(t)
	p.waitFor("the first screen's presets", `document.querySelector("#preset-keyset-lt") !== null`, loadTimeout)
	p.do("click the keyset-lt preset", chromedp.Click(chromedp.CSS("#preset-keyset-lt")))
	p.waitFor("the verdict", `(() => { const v = document.querySelector("#cmp-verdict");
		return v !== null && !v.textContent.startsWith("Comparing"); })()`, 2*runTimeout)

	uniqueIDs := `(() => { const ids = [...document.querySelectorAll("[id]")].map(e => e.id);
		return ids.filter((id, i) => ids.indexOf(id) !== i); })()`
	if dup := evaluate[[]string](p, uniqueIDs); len(dup) > 0 {
		t.Errorf("ids used twice: %q", dup)
	}
	for _, sel := range []string{"#cmp-view-a #a-view-paged", "#cmp-view-b #b-view-paged", "#cmp-metrics #m-rows", "#cmp-timeline"} {
		if !evaluate[bool](p, fmt.Sprintf(`document.querySelector(%q) !== null`, sel)) {
			t.Errorf("no %s", sel)
		}
	}
	num := func(sel string) int {
		s := evaluate[string](p, fmt.Sprintf(`(document.querySelector(%q) || {textContent: "-1"}).textContent`, sel))
		n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		if err != nil {
			t.Fatalf("%s reads %q", sel, s)
		}
		return n
	}
	pages, edges := num("#b-paged-pages"), num("#b-paged-edges")
	if edges != pages-1 {
		t.Errorf("B draws %d pages and %d loss edges: want one edge per page but the last", pages, edges)
	}
	if n := evaluate[int](p, `document.querySelectorAll("#b-view-paged svg.pages text.edge.lost").length`); n != edges {
		t.Errorf("%d loss marks on B's pages, %d edges counted", n, edges)
	}
	if evaluate[bool](p, `document.querySelector("#a-paged-failure") !== null`) ||
		evaluate[string](p, `document.querySelector("#b-paged-failure").dataset.baseline`) != "keyset-lt" {
		t.Error("want B's view, and only B's, to say how keyset-lt fails")
	}

	evaluate[bool](p, `(() => { const r = document.querySelector("#tl-range"); r.value = String(Math.floor(Number(r.max) / 2));
		r.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
	p.waitFor("B held on the shared timeline", `document.querySelector("#cmp-timeline").textContent.startsWith("At virtual time")`, runTimeout)
	if half := num("#b-paged-pages"); half >= pages || half == 0 {
		t.Errorf("at half the run's virtual time B draws %d pages of its %d: want B held partway", half, pages)
	}
	p.screenshot("compare-timeline")

	p.do("click the fetchall preset", chromedp.Click(chromedp.CSS("#preset-fetchall")))
	p.waitFor("B refused", `document.querySelector("#b-paged-refused") !== null`, 2*runTimeout)
	if got := evaluate[string](p, `document.querySelector("#b-paged-refused").textContent`); got != "fetch-all" {
		t.Errorf("refused %q, want the fetch-all request", got)
	}
	if !evaluate[bool](p, `document.querySelector("#b-view-paged svg.pages rect.refused") !== null`) {
		t.Error("the refused request is not drawn on B's strip")
	}
	p.screenshot("baseline-fetchall")
}

// smallPagedJoin is a paged join of 55 rows (seed 1) in pages of 8: small enough to draw row by row.
const smallPagedJoin = `@OktaSystemLogs
| where eventType == "user.session.start" and outcome.result == "SUCCESS" and published >= datetime(2024-05-31T15:00:00Z)
| join kind=inner hint.page_rows=8 (@CrowdStrikeDetections | where severity >= 100) on $left.actor.alternateId == $right.user_name
| project published, user = actor.alternateId, tactic
| sort by published desc`

// TestSmallPagedRunDrawsRowsByPage runs a small paged join in the page and reads the rows its view lays out
// by page — each page's number, row count, cursor tuple and cut tie group — against a native fold of the same
// run's events; the rows listed add up to the run's. Screenshot: view-paged-rows.png.
func TestSmallPagedRunDrawsRowsByPage(t *testing.T) {
	r := &protocol.Run{Query: smallPagedJoin, Scenario: "okta-crowdstrike-small", Seed: 1, Strategy: "paged"}
	f := ui.Fold(nativeEvents(t, r))
	cursors, ties := map[float64]string{}, map[float64]string{}
	for _, pg := range f.Paged.Pages {
		cursors[pg.N], ties[pg.N] = pg.Cursor, pg.TieTuple
	}
	var want []string
	total := 0
	for _, e := range f.Paged.Emitted {
		want = append(want, fmt.Sprintf("%d:%d:%s:%s", int64(e.Page), int64(e.Rows), cursors[e.Page], ties[e.Page]))
		total += int(e.Rows)
	}
	if len(want) < 2 || total > 60 {
		t.Fatalf("natively %d rows over %d pages: the query is no longer a small run over several pages", total, len(want))
	}

	p := openPlayground(t)
	defer p.screenshot("view-paged-rows")
	p.pick("#scenario", r.Scenario)
	p.waitFor("the scenario's knobs", `document.querySelector("#knob-okta_max_in_values") !== null`, runTimeout)
	p.pick("#seed", "1")
	p.setQuery(smallPagedJoin)
	p.pick("#strategy", "paged")
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(2 * runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	p.waitFor("the rows by page", `document.querySelector("#paged-rows") !== null`, runTimeout)
	got := evaluate[[]string](p, `[...document.querySelectorAll("#paged-rows tbody")].map(b =>
		[b.dataset.page, b.dataset.rows, b.dataset.cursor, b.dataset.tie || ""].join(":"))`)
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("pages drawn (page:rows:cursor:tie)\n%q\na native fold of the run's events\n%q", got, want)
	}
	if n := evaluate[int](p, `document.querySelectorAll("#paged-rows tbody tr:not(.page-head)").length`); n != total {
		t.Errorf("%d rows listed by page, the run has %d", n, total)
	}
}
