package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/joinlab/joinlab/web/deploy"
	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/share"
	"github.com/joinlab/joinlab/web/site"
)

// One Worker, built over the site serveSite builds and run in `wrangler dev`, serves every test of the file;
// TestMain stops it.
var (
	workerOnce sync.Once
	workerURL  string
	workerErr  error
	workerStop func()
)

// serveWorker runs the playground in real workerd and returns its origin (no trailing slash). It skips the test
// when wrangler is not installed, except in CI, where it fails.
func serveWorker(t *testing.T) string {
	t.Helper()
	root, err := site.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := deploy.CheckWrangler(root); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("not starting workerd: %v", err)
	}
	serveSite(t)
	workerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "joinlab-worker-")
		if err != nil {
			workerErr = err
			return
		}
		var log bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		start := time.Now()
		w, err := deploy.StartLocal(ctx, deploy.LocalOptions{Root: root, SiteDir: siteDir, Dir: dir, Log: &log})
		if err != nil {
			os.RemoveAll(dir)
			workerErr = fmt.Errorf("%w\n%s", err, log.String())
			return
		}
		t.Logf("built the Worker and started wrangler dev on %s in %.1fs", w.URL, time.Since(start).Seconds())
		workerURL = w.URL
		workerStop = func() { w.Stop(); os.RemoveAll(dir) }
	})
	if workerErr != nil {
		t.Fatalf("run the Worker in workerd: %v", workerErr)
	}
	return workerURL
}

// createLink stores st through the Worker's API and returns the short link it answers.
func createLink(t *testing.T, origin string, st *share.State) string {
	t.Helper()
	resp, err := http.Post(origin+"/api/links", "application/json", bytes.NewReader(st.JSON()))
	if err != nil {
		t.Fatalf("POST /api/links: %v", err)
	}
	defer resp.Body.Close()
	var created struct{ ID, URL string }
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/links: %d %v", resp.StatusCode, err)
	}
	if want := origin + "/s/" + created.ID; created.URL != want {
		t.Fatalf("link %q, want %q", created.URL, want)
	}
	return created.URL
}

// restored waits until the page shows st's scenario, then returns the settings' values as the page shows them:
// scenario, strategy, speed, seed, memory (MiB), the listens and users knobs, and the query editor.
func (p *page) restored(scenario string) []string {
	p.t.Helper()
	p.waitFor("the restored scenario", fmt.Sprintf(`(() => { const s = document.querySelector("#scenario");
		return s !== null && s.value === %q; })()`, scenario), loadTimeout)
	return evaluate[[]string](p, `["#scenario", "#strategy", "#speed", "#seed", "#memory", "#knob-listens",
		"#knob-users", "#query"].map(s => document.querySelector(s).value)`)
}

// TestWorkerShortLinkRestoresState creates a link through the Worker in workerd, opens the short link it answers
// in Chromium — the page and the engine served by Workers Static Assets, under the production
// Content-Security-Policy — and sees the same settings in every control; then runs them and sees the rows the
// same run gives natively.
func TestWorkerShortLinkRestoresState(t *testing.T) {
	origin := serveWorker(t)
	st := &share.State{
		Query:        "@Users | join kind=inner (@Listens) on user_id | project name, user_id, song_id | take 40",
		Scenario:     runner.ScenarioUsersListens,
		Knobs:        map[string]float64{"users": 300, "listens": 1234},
		Seed:         9,
		Strategy:     "nestedloop",
		MemoryBudget: 48 << 20,
		Speed:        1000,
	}
	link := createLink(t, origin, st)

	p := startBrowser(t)
	defer p.screenshot("worker-short-link")
	p.open(link)
	got := p.restored(st.Scenario)
	want := []string{st.Scenario, "nestedloop", "1000", "9", "48", "1234", "300", st.Query}
	if !slices.Equal(got, want) {
		t.Errorf("restored %q, want %q", got, want)
	}
	// The link was a redirect to the state in the fragment, on the Worker's origin.
	loc := evaluate[string](p, `location.href`)
	frag, ok := strings.CutPrefix(loc, origin+"/#")
	if !ok {
		t.Fatalf("the short link landed on %q", loc)
	}
	if dec, err := share.DecodeFragment(frag); err != nil || !dec.Equal(st) {
		t.Errorf("the page's fragment holds %v (%v), want %v", dec, err, st)
	}

	r := runOf(st)
	_, rows := native(t, r)
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	if s := evaluate[string](p, `document.querySelector("#m-strategy").textContent`); s != "nestedloop" {
		t.Errorf("metrics strategy %q, want the link's nestedloop", s)
	}
	shown := evaluate[[][]string](p, domRows)
	if len(shown) == 0 || len(shown) > len(rows) {
		t.Fatalf("%d rows on the page, %d natively", len(shown), len(rows))
	}
	for i, row := range shown {
		if !slices.Equal(row, rows[i]) {
			t.Fatalf("row %d is %q, natively %q", i, row, rows[i])
		}
	}
	p.checkConsole()
}

// markup is what a crafted link carries: an element with an event handler and a script, each of which would
// set window.pwned if the page ever parsed the state as HTML.
const markup = `<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>`

// watchInjection makes every document the tab opens record Content-Security-Policy violations in
// window.cspViolations, and counts the dialogs that open (closing each).
func (p *page) watchInjection() *int {
	p.t.Helper()
	_, err := chromedp.Call(p.ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.cspViolations = [];
			document.addEventListener("securitypolicyviolation", e =>
				window.cspViolations.push(e.violatedDirective + " " + e.blockedURI + " " + e.sample));`,
	})
	if err != nil {
		p.t.Fatalf("install the CSP recorder: %v", err)
	}
	dialogs := new(int)
	var mu sync.Mutex
	events := chromedp.Events(p.ctx, cdppage.JavascriptDialogOpening)
	go func() {
		for _, err := range events {
			if err != nil {
				return
			}
			mu.Lock()
			*dialogs++
			mu.Unlock()
			chromedp.Call(p.ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	return dialogs
}

// checkInert fails the test if anything of the markup ran or became an element, or if the page broke its own
// Content-Security-Policy.
func (p *page) checkInert(dialogs *int) {
	p.t.Helper()
	if evaluate[bool](p, `typeof window.pwned !== "undefined"`) {
		p.t.Error("window.pwned is set: the link's markup ran")
	}
	if evaluate[bool](p, `document.querySelector("[onerror]") !== null ||
		[...document.scripts].some(s => s.textContent.includes("pwned"))`) {
		p.t.Error("the link's markup became elements of the page")
	}
	if v := evaluate[[]string](p, `window.cspViolations`); len(v) > 0 {
		p.t.Errorf("Content-Security-Policy violations: %q", v)
	}
	p.mu.Lock()
	for _, m := range p.console {
		if strings.Contains(m, "Content Security Policy") || strings.Contains(m, "Content-Security-Policy") {
			p.t.Errorf("console: %s", m)
		}
	}
	p.mu.Unlock()
	if *dialogs != 0 {
		p.t.Errorf("%d dialogs opened", *dialogs)
	}
}

// TestCraftedLinkRunsNothing opens links whose state carries markup — in the query, by a fragment link and by a
// short link through the Worker, and in the scenario name, which only a hand-made fragment can carry (the Worker
// refuses it) — and sees the markup shown as text, in the editor, in the results and in the notice, with nothing
// run, no element made of it, no dialog and no Content-Security-Policy violation.
func TestCraftedLinkRunsNothing(t *testing.T) {
	origin := serveWorker(t)
	// The markup as a string value of the query, so that running it puts the markup in the result cells too.
	st := &share.State{
		Query:    "@Users | extend html = '" + markup + "' | project name, html | take 3",
		Scenario: runner.ScenarioUsersListens,
		Seed:     3,
	}
	_, rows := native(t, runOf(st))
	p := startBrowser(t)
	defer p.screenshot("crafted-link")
	dialogs := p.watchInjection()

	for _, link := range []struct{ name, url string }{
		{"fragment", origin + "/#" + st.Fragment()},
		{"short link", createLink(t, origin, st)},
	} {
		p.do("leave the page", chromedp.Navigate("about:blank"))
		p.open(link.url)
		if got := p.restored(st.Scenario); got[7] != st.Query {
			t.Errorf("%s: the editor holds %q, want %q", link.name, got[7], st.Query)
		}
		if b := evaluate[string](p, `document.querySelector(".backdrop").textContent`); !strings.Contains(b, markup) {
			t.Errorf("%s: the editor's backdrop shows %q, want the markup as text", link.name, b)
		}
		p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
		if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
			t.Fatalf("%s: status %q\n%s", link.name, s, p.state())
		}
		if got := evaluate[[][]string](p, domRows); !slices.Equal(flat(got), flat(rows)) {
			t.Errorf("%s: rows %q, natively %q", link.name, got, rows)
		}
		p.checkInert(dialogs)
	}

	// A scenario name with markup: the fragment decoder refuses it, and the notice quotes it as text.
	bad := &share.State{Scenario: `<img src=x onerror="window.pwned=1">`} // within the name length limit
	p.do("leave the page", chromedp.Navigate("about:blank"))
	p.open(origin + "/#" + bad.Fragment())
	p.waitFor("the notice", `document.querySelector("#notice") !== null`, loadTimeout)
	if n := evaluate[string](p, `document.querySelector("#notice").textContent`); !strings.Contains(n, `<img src=x onerror=`) {
		t.Errorf("notice %q: want the refused name quoted as text", n)
	}
	p.checkInert(dialogs)
	p.checkConsole()

	// The recorder works: an inline script the test inserts is blocked by the policy and reported.
	evaluate[bool](p, `(() => { const s = document.createElement("script"); s.textContent = "window.control = 1";
		document.head.append(s); return true; })()`)
	p.waitFor("the control's CSP report", `window.cspViolations.length > 0`, runTimeout)
	if evaluate[bool](p, `typeof window.control !== "undefined"`) {
		t.Error("an inline script ran under the Worker's Content-Security-Policy")
	}
}

func runOf(st *share.State) *protocol.Run {
	return &protocol.Run{Query: st.Query, Scenario: st.Scenario, Knobs: st.Knobs, Seed: st.Seed,
		Strategy: st.Strategy, MemoryBudget: st.MemoryBudget}
}

func flat(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, strings.Join(r, "\x00"))
	}
	return out
}
