package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/joinlab/joinlab/web/runner/protocol"
)

// compareQuery joins the small Okta scenario without a final take, in pages of 20 rows, so that a baseline
// cursor (keyset-lt) loses the rows tied with each page's last one.
const compareQuery = "@OktaSystemLogs\n| where eventType == \"user.session.start\" and outcome.result == \"SUCCESS\"\n" +
	"| join kind=inner hint.page_rows=20 (@CrowdStrikeDetections | where severity >= 70) on $left.actor.alternateId == $right.user_name\n" +
	"| project published, user = actor.alternateId, ip = client.ipAddress, tactic"

// setQuery replaces the editor's text as typing would.
func (p *page) setQuery(q string) {
	p.t.Helper()
	evaluate[bool](p, fmt.Sprintf(`(() => { const el = document.querySelector("#query"); el.value = %q;
		el.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, q))
}

func TestCompareMarksBaselineRows(t *testing.T) {
	r := &protocol.Run{Query: compareQuery, Scenario: "okta-crowdstrike-small", Seed: 1, Knobs: map[string]float64{"okta_rows": 2000}}
	_, want := native(t, r)
	b := *r
	b.Strategy = "keyset-lt"
	_, lossy := native(t, &b)
	if len(lossy) >= len(want) {
		t.Fatalf("the fixture does not show keyset-lt losing rows: %d against %d", len(lossy), len(want))
	}

	p := openPlayground(t)
	defer p.screenshot("compare")
	p.pick("#scenario", r.Scenario)
	p.waitFor("the knobs", `document.querySelector("#knob-okta_rows") !== null`, runTimeout)
	p.pick("#knob-okta_rows", "2000")
	p.setQuery(compareQuery)
	p.pick("#compare-strategy", "keyset-lt")
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	p.waitFor("the comparison", `(() => { const v = document.querySelector("#cmp-verdict");
		return v !== null && !v.textContent.startsWith("Comparing"); })()`, 2*runTimeout)
	verdict := evaluate[string](p, `document.querySelector("#cmp-verdict").textContent`)
	wantText := fmt.Sprintf("%s rows lost", count(len(want)-len(lossy)))
	if !strings.Contains(verdict, wantText) {
		t.Errorf("verdict %q, want it to say %q", verdict, wantText)
	}
	if n := evaluate[int](p, `document.querySelectorAll("#cmp-rows tr[data-mark=lost]").length`); n == 0 {
		t.Error("no row marked lost")
	}
	if name := evaluate[string](p, `document.querySelector("#cmp-b-name").textContent`); name != "B: keyset-lt (baseline)" {
		t.Errorf("B is labelled %q", name)
	}
	p.checkConsole()
}

// TestSpeedPlaysBackVirtualTime plays the small Okta scenario (about 0.4 s of virtual time) in slow motion:
// the page plays the picture back itself, so the run is seen part-way, with some of its requests sent and
// not all its events, which flat out is over before the page renders; and the playback ends with the
// picture, not seconds after it. The speed goes into the share link.
func TestSpeedPlaysBackVirtualTime(t *testing.T) {
	p := openPlayground(t)
	defer p.screenshot("speed")
	p.pick("#scenario", "okta-crowdstrike-small")
	p.pick("#speed", "0.1")
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	p.waitFor("a request shown part-way through the playback", `/^Playing back at 0.1×/.test(`+status+`) &&
		document.querySelector("#chart-requests") !== null && (() => { const tl = document.querySelector("#timeline");
		return tl !== null && Number(tl.dataset.k) > 0 && Number(tl.dataset.k) < Number(tl.dataset.n); })()`, runTimeout)
	if at := evaluate[string](p, `document.querySelector("#tl-at").textContent`); !strings.Contains(at, "virtual time") {
		t.Errorf("the timeline says %q, not where it is in virtual time", at)
	}
	link := evaluate[string](p, `location.href`)
	if s := p.waitDone(2 * runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q", s)
	}
	if v := evaluate[string](p, `document.querySelector("#m-virtual-clock").textContent`); !strings.Contains(v, "done at") {
		t.Errorf("virtual clock %q", v)
	}
	q := openPlayground(t)
	q.do("open the link", chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	q.waitFor("the restored speed", `document.querySelector("#speed") !== null && document.querySelector("#speed").value === "0.1"`, loadTimeout)
	p.checkConsole()
}

func TestLoadTableFromFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "users.csv")
	csv := "user_id,name\n7,Goofy\n42,Donald\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	p := openPlayground(t)
	defer p.screenshot("file-load")
	p.waitTable("Users")
	p.removeTable("Users")
	p.addFiles(path)
	p.waitTable("users")
	if f := evaluate[string](p, `document.querySelector('[data-table="users"] .table-format').value`); f != "csv" {
		t.Errorf("format %q, want csv", f)
	}
	p.renameTable("users", "Users")
	p.waitTable("Users")
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	var names []string
	for _, row := range evaluate[[][]string](p, domRows) {
		names = append(names, row[0])
	}
	got := strings.Join(names, ",")
	if strings.Contains(got, "Mickey") || !strings.Contains(got, "Goofy") || !strings.Contains(got, "Donald") {
		t.Errorf("names %q: want the file's users only", got)
	}
	p.checkConsole()
}
