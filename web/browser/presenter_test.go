package browser

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/share"
	"github.com/joinlab/joinlab/web/ui"
)

// lostRows counts the rows of want that got lacks, as multisets.
func lostRows(want, got [][]string) int {
	left := map[string]int{}
	for _, r := range want {
		left[strings.Join(r, "\x00")]++
	}
	for _, r := range got {
		left[strings.Join(r, "\x00")]--
	}
	n := 0
	for _, c := range left {
		n += max(0, c)
	}
	return n
}

// TestComparePresetDrawsBothViews clicks the keyset-lt preset on the first screen and sees both runs drawn by
// the paged view side by side, the verdict counting the rows the same two runs lose natively, and the
// differing rows marked in both tables: lost in A's, the gap where they belong in B's. Then the keyset-le
// preset: B fails on its stalled cursor after repeating rows, marked in both tables; then the salted trap.
func TestComparePresetDrawsBothViews(t *testing.T) {
	pre := ui.PresetByID("keyset-lt")
	r := &protocol.Run{Query: pre.Query, Scenario: pre.Scenario, Seed: 1, Strategy: pre.Strategy}
	_, want := native(t, r)
	b := *r
	b.Strategy = pre.Compare
	_, lossy := native(t, &b)
	lost := lostRows(want, lossy)
	if lost == 0 {
		t.Fatalf("natively %s loses no row of %s's %d: the preset shows nothing", pre.Compare, pre.Strategy, len(want))
	}

	p := openPlayground(t)
	defer p.screenshot("compare-preset")
	p.waitFor("the first screen's presets", `document.querySelector("#start") !== null &&
		document.querySelector("#preset-keyset-lt") !== null`, loadTimeout)
	p.do("click the keyset-lt preset", chromedp.Click(chromedp.CSS("#preset-keyset-lt")))
	p.waitFor("the verdict", `(() => { const v = document.querySelector("#cmp-verdict");
		return v !== null && !v.textContent.startsWith("Comparing"); })()`, 2*runTimeout)
	if v := evaluate[string](p, `document.querySelector("#cmp-verdict").textContent`); !strings.Contains(v, count(lost)+" rows lost") {
		t.Errorf("verdict %q, want %s rows lost as natively", v, count(lost))
	}
	if l := evaluate[string](p, `document.querySelector("#cmp-lesson").textContent`); l != pre.Lesson {
		t.Errorf("lesson %q", l)
	}
	for _, side := range []string{"a", "b"} {
		if !evaluate[bool](p, fmt.Sprintf(`document.querySelector("#cmp-view-%s #%s-view-paged svg.pages rect.page") !== null`, side, side)) {
			t.Errorf("#cmp-view-%s draws no paged view with pages", side)
		}
	}
	if evaluate[bool](p, `document.querySelector("section.live") !== null`) {
		t.Error("the main view is drawn too, beside the compare panel")
	}
	marks := func(side string) []string {
		return evaluate[[]string](p, fmt.Sprintf(`[...document.querySelectorAll("#cmp-rows-%s tr.marked")].map(tr => tr.dataset.mark)`, side))
	}
	if a, b := marks("a"), marks("b"); !slices.Contains(a, "lost") || !slices.Contains(b, "gap") {
		t.Errorf("marks in A's table %q, in B's %q: want lost rows in A's and their gap in B's", a, b)
	}

	p.do("click the keyset-le preset", chromedp.Click(chromedp.CSS("#preset-keyset-le")))
	p.waitFor("B's failure", `(() => { const v = document.querySelector("#cmp-verdict");
		return v !== null && v.textContent.startsWith("B failed"); })()`, 2*runTimeout)
	v := evaluate[string](p, `document.querySelector("#cmp-verdict").textContent`)
	if !strings.Contains(v, "has not advanced") || !strings.Contains(v, "repeated") {
		t.Errorf("verdict %q, want the stalled cursor and the rows it repeated", v)
	}
	if a, b := marks("a"), marks("b"); !slices.Contains(a, "doubled") || !slices.Contains(b, "doubled") {
		t.Errorf("marks in A's table %q, in B's %q: want the repeated rows marked in both", a, b)
	}

	// The outer-join trap: both drawn by the salted view, B's null-extended copies marked extra in its table
	// and listed as wrong by its view.
	p.do("click the salted preset", chromedp.Click(chromedp.CSS("#preset-salted-naive")))
	p.waitFor("the salted verdict", `(() => { const v = document.querySelector("#cmp-verdict");
		return v !== null && v.textContent.includes("extra") &&
			document.querySelector("#cmp-b-name").textContent.includes("salted_naive_wrong"); })()`, 2*runTimeout)
	for _, side := range []string{"a", "b"} {
		if !evaluate[bool](p, fmt.Sprintf(`document.querySelector("#cmp-view-%s #%s-view-salted") !== null`, side, side)) {
			t.Errorf("#cmp-view-%s is not drawn by the salted view", side)
		}
	}
	if !evaluate[bool](p, `document.querySelector("#cmp-view-b #b-salted-wrong-rows") !== null`) ||
		evaluate[bool](p, `document.querySelector("#cmp-view-a #a-salted-wrong-rows") !== null`) {
		t.Error("want the wrong rows listed by B's salted view, and none by A's")
	}
	if b := marks("b"); !slices.Contains(b, "extra") {
		t.Errorf("marks in B's table %q: want its null-extended copies marked extra", b)
	}
	p.checkConsole()
}

// TestShortLinkNeedsTheWorker presses the short-link button on a page served by a plain file server, which has
// no API: the page says short links need the Worker, and offers no link.
func TestShortLinkNeedsTheWorker(t *testing.T) {
	p := openPlayground(t)
	defer p.screenshot("short-link-no-worker")
	p.do("click Short link", chromedp.Click(chromedp.CSS("#short-link")))
	p.waitFor("the note", `(() => { const n = document.querySelector("#short-link-note");
		return n !== null && !n.textContent.startsWith("Asking"); })()`, runTimeout)
	if n := evaluate[string](p, `document.querySelector("#short-link-note").textContent`); !strings.Contains(n, "Short links need the Worker") {
		t.Errorf("note %q", n)
	}
	if evaluate[bool](p, `document.querySelector("#short-link-url") !== null`) {
		t.Error("a short link is offered without the Worker")
	}
}

// TestShortLinkThroughWorker sets up a run in the playground served by the Worker in workerd, presses the
// short-link button and gets a /s/ link from the real API; opening it shows the query, scenario, strategy
// and knobs and runs nothing until Run it, which gives the rows the same run gives natively. A second link made
// with "runs when opened" runs as soon as it opens.
func TestShortLinkThroughWorker(t *testing.T) {
	origin := serveWorker(t)
	const query = "@Users | join kind=inner (@Listens) on user_id | project name, user_id, song_id | sort by user_id asc, song_id asc | take 25"
	p := startBrowser(t)
	defer p.screenshot("short-link-worker")
	p.open(origin + "/")
	p.pick("#scenario", runner.ScenarioUsersListens)
	p.waitFor("the knobs", `document.querySelector("#knob-users") !== null`, runTimeout)
	p.pick("#knob-users", "321")
	p.pick("#strategy", "hash")
	p.setQuery(query)

	link := p.shortLink()
	if !strings.HasPrefix(link, origin+"/s/") {
		t.Fatalf("short link %q, want one under %s/s/", link, origin)
	}
	p.do("copy it", chromedp.Click(chromedp.CSS("#short-link-copy")))
	p.waitFor("the copy", `document.querySelector("#short-link-copied") !== null`, runTimeout)

	q := startBrowser(t)
	defer q.screenshot("short-link-opened")
	q.open(link)
	q.waitFor("the link's card", `document.querySelector("#link-card") !== null`, loadTimeout)
	card := evaluate[map[string]string](q, `({query: document.querySelector("#link-query").textContent,
		scenario: document.querySelector("#link-scenario").textContent,
		strategy: document.querySelector("#link-strategy").textContent,
		knobs: document.querySelector("#link-knobs").textContent,
		status: document.querySelector("#status").textContent})`)
	if card["query"] != query || !strings.HasPrefix(card["scenario"], runner.ScenarioUsersListens) || card["strategy"] != "hash" ||
		!strings.Contains(card["knobs"], "users = 321") {
		t.Errorf("the card shows %q", card)
	}
	if card["status"] != "Ready." {
		t.Errorf("status %q before Run it: the link ran by itself", card["status"])
	}
	_, want := native(t, &protocol.Run{Query: query, Scenario: runner.ScenarioUsersListens, Seed: 1, Strategy: "hash",
		Knobs: map[string]float64{"users": 321}})
	q.screenshot("short-link-card")
	q.do("click Run it", chromedp.Click(chromedp.CSS("#link-run")))
	if s := q.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, q.state())
	}
	// The table is virtualised: the rows in the DOM are the first of the native run's.
	if got := evaluate[[][]string](q, domRows); len(got) == 0 || len(got) > len(want) || !slices.Equal(flat(got), flat(want[:len(got)])) {
		t.Errorf("rows %q, natively %q", got, want)
	}
	if n := evaluate[string](q, `document.querySelector("#rowcount").textContent`); n != fmt.Sprintf("%d rows", len(want)) {
		t.Errorf("row count %q, natively %d rows", n, len(want))
	}

	// The same settings, to run when opened: another link, which runs at once.
	p.do("tick runs when opened", chromedp.Click(chromedp.CSS("#short-link-run")))
	again := p.shortLink()
	if again == link {
		t.Fatalf("the run-at-once link is the same link %s", link)
	}
	st := fetchLink(t, origin, again)
	if !st.Run || st.Query != query {
		t.Errorf("the stored state %s, want the query with run set", st)
	}
	q.do("leave the page", chromedp.Navigate("about:blank"))
	q.open(again)
	if s := q.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("the run-at-once link: status %q\n%s", s, q.state())
	}
	if evaluate[bool](q, `document.querySelector("#link-card") !== null`) {
		t.Error("the card stays after the link ran")
	}
	p.checkConsole()
	q.checkConsole()
}

// shortLink presses the short-link button and returns the link the page shows.
func (p *page) shortLink() string {
	p.t.Helper()
	before := evaluate[string](p, `(() => { const a = document.querySelector("#short-link-url"); return a ? a.href : ""; })()`)
	// The button's own click(): a mouse click at the button's box can land beside it when the page lays out
	// again between the box's lookup and the click (a busy machine's late render), and then nothing asks.
	evaluate[bool](p, `(() => { document.querySelector("#short-link").click(); return true; })()`)
	p.waitFor("the short link", fmt.Sprintf(`(() => { const a = document.querySelector("#short-link-url");
		const n = document.querySelector("#short-link-note");
		return (a !== null && a.href !== %q) || (n !== null && !n.textContent.startsWith("Asking")); })()`, before), runTimeout)
	if n := evaluate[string](p, `(() => { const n = document.querySelector("#short-link-note"); return n ? n.textContent : ""; })()`); n != "" {
		p.t.Fatalf("no short link: %s", n)
	}
	return evaluate[string](p, `document.querySelector("#short-link-url").href`)
}

// fetchLink reads a short link's stored state through the Worker's API.
func fetchLink(t *testing.T, origin, link string) *share.State {
	t.Helper()
	id := strings.TrimPrefix(link, origin+"/s/")
	resp, err := httpGet(origin + "/api/links/" + id)
	if err != nil {
		t.Fatalf("GET the link's state: %v", err)
	}
	st, err := share.ParseJSON(resp)
	if err != nil {
		t.Fatalf("the link's state: %v", err)
	}
	return st
}

func httpGet(url string) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}
