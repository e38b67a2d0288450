package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/joinlab/joinlab/sims/scenario"
	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/share"
	"github.com/joinlab/joinlab/web/site"
	"github.com/joinlab/joinlab/web/ui"
)

// traceEvents is the metrics panel's count of the run's trace events: it moves with every batch that lands.
const traceEvents = `document.querySelector("#m-events").textContent`

// waitHeld waits until a paused run is held: the engine has said it holds the run (protocol.MessageHeld) and
// the page has applied every batch it posted before, which the status line reports. Batches already on
// their way when the engine was held still land first, however loaded the machine. It fails the test when the
// run ends instead, and returns the held trace event count.
func (p *page) waitHeld() string {
	p.t.Helper()
	p.waitFor("the engine to hold the run", `/^(Paused .*the engine is holding|Done|Canceled|The query failed)/.test(`+status+`)`, runTimeout)
	if s := evaluate[string](p, status); !strings.HasPrefix(s, "Paused") {
		p.t.Fatalf("the run ended while paused: %q\n%s", s, p.state())
	}
	return evaluate[string](p, traceEvents)
}

// runPaused sets the page up with r, runs it until rows stream, pauses it and waits until it holds still; it
// returns the settled trace event count.
func (p *page) runPaused(r *protocol.Run) string {
	p.t.Helper()
	p.setUp(r)
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	p.waitFor("rows to stream", `document.querySelectorAll("#results tr.row").length > 0`, runTimeout)
	p.do("pause", chromedp.Click(chromedp.CSS("#pause")))
	p.waitFor("the paused status", `/^Paused/.test(`+status+`)`, runTimeout)
	// A run that ignored the pause would end while the page waits for it to hold still, and the status would
	// say so.
	return p.waitHeld()
}

// step presses Step on a run held at trace event count held, waits for the batch it lets through and for the
// run to hold again, and returns the new count.
func (p *page) step(held string) string {
	p.t.Helper()
	p.do("step", chromedp.Click(chromedp.CSS("#step")))
	p.waitFor("one more batch", traceEvents+` !== `+strconv.Quote(held), runTimeout)
	return p.waitHeld()
}

// link decodes the share state the page's URL fragment holds.
func (p *page) link() (href string, st *share.State) {
	p.t.Helper()
	href = evaluate[string](p, `location.href`)
	_, frag, ok := strings.Cut(href, "#")
	if !ok {
		p.t.Fatalf("the URL %q has no fragment", href)
	}
	st, err := share.DecodeFragment(frag)
	if err != nil {
		p.t.Fatalf("decode the URL's fragment %q: %v", frag, err)
	}
	return href, st
}

// heldView is what the page shows of a paused run that does not depend on where the batches were cut: the
// hash view's phase and build-side bar, and the result rows on screen.
func (p *page) heldView() []string {
	p.t.Helper()
	return evaluate[[]string](p, `[document.querySelector("#hash-phase").textContent,
		document.querySelector("#view-hash text.value").textContent,
		...[...document.querySelectorAll("#results tr.row")].map(tr => tr.dataset.index + ": " +
			[...tr.cells].map(td => td.textContent).join(" "))]`)
}

// TestPausedLinkReopensHeld pauses a long run, steps it once and takes its link, which carries the batch the
// run is held at (paused_at); opened in a fresh browser, Run holds the same run at that batch: paused, with
// the same link, the same phase and the same rows on screen. A Step there moves it one batch on. Batches are
// cut by time, so the rows counted at that batch differ from run to run: they are logged, not compared.
func TestPausedLinkReopensHeld(t *testing.T) {
	p := openPlayground(t)
	defer p.screenshot("paused-link-source")
	p.step(p.runPaused(bigRun(5_000_000)))
	link, st := p.link()
	if st.PausedAt <= 0 {
		t.Fatalf("the link of a paused run carries paused_at %d", st.PausedAt)
	}
	want, wantStatus := p.heldView(), evaluate[string](p, status)
	p.do("cancel", chromedp.Click(chromedp.CSS("#cancel"))) // frees the machine for the second browser
	p.waitDone(runTimeout)

	q := startOwnBrowser(t)
	defer q.screenshot("paused-link")
	q.open(link)
	if _, got := q.link(); got.PausedAt != st.PausedAt {
		t.Errorf("the reopened page's link holds paused_at %d, want %d", got.PausedAt, st.PausedAt)
	}
	q.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	q.waitFor("the run to be held", `/^Paused/.test(`+status+`)`, runTimeout)
	events := q.waitHeld()
	if _, got := q.link(); got.PausedAt != st.PausedAt {
		t.Errorf("the reopened run is held at batch %d, the link's is %d", got.PausedAt, st.PausedAt)
	}
	got := q.heldView()
	if !slices.Equal(got, want) {
		t.Errorf("the reopened run shows\n%q\nthe paused one showed\n%q", got, want)
	}
	t.Logf("held at batch %d: the first browser said %q, the second %q", st.PausedAt, wantStatus, evaluate[string](q, status))
	q.step(events)
	if _, after := q.link(); after.PausedAt != st.PausedAt+1 {
		t.Errorf("after a step the link holds paused_at %d, want %d", after.PausedAt, st.PausedAt+1)
	}
	if s := evaluate[string](q, status); !strings.HasPrefix(s, "Paused") {
		t.Errorf("status after a step %q, want still paused", s)
	}
	q.do("cancel", chromedp.Click(chromedp.CSS("#cancel")))
	q.waitDone(runTimeout)
	p.checkConsole()
	q.checkConsole()
}

// requestLog records the requests a browser target sends, from the network domain's events.
type requestLog struct {
	mu   sync.Mutex
	reqs []*network.Request
}

// listen records the requests of the target of ctx (the page's tab, or a worker) until ctx ends.
func (l *requestLog) listen(ctx context.Context) {
	events := chromedp.Events(ctx, network.RequestWillBeSent)
	go func() {
		for ev, err := range events {
			if err != nil {
				return
			}
			l.mu.Lock()
			l.reqs = append(l.reqs, ev.Request)
			l.mu.Unlock()
		}
	}()
}

// has reports whether a request's URL contains s.
func (l *requestLog) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.ContainsFunc(l.reqs, func(r *network.Request) bool { return strings.Contains(r.URL, s) })
}

// requests is a copy of the requests recorded so far.
func (l *requestLog) requests() []*network.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reqs)
}

// engineWorker attaches to the page's engine Worker, whose requests and timeline are its own.
func (p *page) engineWorker() *page {
	p.t.Helper()
	deadline := time.Now().Add(loadTimeout)
	for {
		targets, err := chromedp.Targets(p.ctx)
		if err != nil {
			p.t.Fatalf("list the browser's targets: %v", err)
		}
		for _, ti := range targets {
			if ti.Type == "worker" {
				ctx, cancel := chromedp.NewContext(p.ctx, chromedp.WithTargetID(ti.TargetID))
				p.t.Cleanup(cancel)
				w := &page{t: p.t, ctx: ctx}
				if err := chromedp.Do(ctx); err != nil {
					p.t.Fatalf("attach to the engine worker: %v", err)
				}
				return w
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no worker target after %v", loadTimeout)
		}
		time.Sleep(pollEvery)
	}
}

// TestOwnDataFromFilesNeverUploaded loads @Users from a JSON-lines file and @Listens from a CSV file, runs the
// join over them, and sees the files' rows joined; the network domain of the page and of the engine Worker
// shows that nothing was sent meanwhile that carries the files' content, and no POST or PUT at all.
func TestOwnDataFromFilesNeverUploaded(t *testing.T) {
	dir := t.TempDir()
	// Names no default table holds, so that a request carrying them can only carry the files.
	users := filepath.Join(dir, "users.jsonl")
	listens := filepath.Join(dir, "listens.csv")
	files := map[string]string{
		users:   `{"user_id": 7, "name": "Zyxwortle"}` + "\n" + `{"user_id": 42, "name": "Qorvannic"}` + "\n",
		listens: "user_id,song_id\n7,9001\n42,9002\n42,9003\n13,9004\n",
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secrets := []string{"Zyxwortle", "Qorvannic", "9001", "9003"}

	// A browser of its own: the engine worker it watches must be this page's, the only one there is.
	p := startOwnBrowser(t)
	p.open(serveSite(t))
	defer p.screenshot("file-load-jsonl-csv")
	var pageLog, workerLog requestLog
	pageLog.listen(p.ctx)
	worker := p.engineWorker()
	workerLog.listen(worker.ctx)

	p.addFiles(users, listens)
	p.waitTable("users")
	p.waitTable("listens")
	formats := evaluate[[]string](p, `["users", "listens"].map(n => document.querySelector('[data-table="' + n + '"] .table-format').value)`)
	if want := []string{"jsonl", "csv"}; !slices.Equal(formats, want) {
		t.Errorf("formats %q, want %q", formats, want)
	}
	p.setQuery("@users | join kind=inner (@listens) on user_id | project name, song_id")
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	var got []string
	for _, row := range evaluate[[][]string](p, domRows) {
		got = append(got, strings.Join(row, " "))
	}
	slices.Sort(got)
	if want := []string{"Qorvannic 9002", "Qorvannic 9003", "Zyxwortle 9001"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	// A listener that heard nothing proves nothing: each side now fetches a probe, and the test waits until
	// both logs hold theirs, by which time anything sent before has been logged too.
	evaluate[bool](p, `fetch("favicon.svg?probe=page"), true`)
	evaluate[bool](worker, `fetch("wasm_exec.js?probe=worker"), true`)
	for deadline := time.Now().Add(runTimeout); !pageLog.has("probe=page") || !workerLog.has("probe=worker"); {
		if time.Now().After(deadline) {
			t.Fatalf("the network listeners did not see the probes: page %v, worker %v", pageLog.has("probe=page"), workerLog.has("probe=worker"))
		}
		time.Sleep(pollEvery)
	}
	sent := append(pageLog.requests(), workerLog.requests()...)
	for _, r := range sent {
		if r.Method != "GET" || r.HasPostData {
			t.Errorf("a %s request to %s (post data: %v) during the file load and the run", r.Method, r.URL, r.HasPostData)
		}
		u, err := url.QueryUnescape(r.URL)
		if err != nil {
			u = r.URL
		}
		for _, s := range secrets {
			if strings.Contains(u, s) || strings.Contains(r.URL, s) {
				t.Errorf("a request to %s carries the file's %q", r.URL, s)
			}
		}
	}
	t.Logf("requests during the file load and the run: %d besides the two probes", len(sent)-2)
	p.checkConsole()
}

// loadWatch records, from before the page's first script runs, when the loading indicator goes, when Run is
// first enabled and when the first result row appears, in milliseconds since navigation started
// (performance.now()); and whether the indicator was there, with app.wasm not started, when the document
// was parsed.
const loadWatch = `(() => {
	if (window.top !== window) return;
	const w = window.joinlabWatch = {};
	const look = () => {
		const now = performance.now();
		if (w.loadingGone === undefined && w.parsed && !document.getElementById("loading")) w.loadingGone = now;
		const run = document.getElementById("run");
		if (w.ready === undefined && run && !run.disabled) w.ready = now;
		if (w.firstRow === undefined && document.querySelector("#results tr.row")) w.firstRow = now;
	};
	document.addEventListener("DOMContentLoaded", () => {
		w.parsed = true;
		w.loadingAtParse = document.getElementById("loading") !== null;
		w.wasmAtParse = window.joinlabLoad !== undefined;
		new MutationObserver(look).observe(document.documentElement, {childList: true, subtree: true, attributes: true});
		look();
	});
})()`

// resourceSizes reads a resource's sizes from the Performance resource timing API of a page or worker.
const resourceSizes = `(name) => { const e = performance.getEntriesByType("resource").find(e => e.name.endsWith("/" + name));
	return e ? {transfer: e.transferSize, encoded: e.encodedBodySize, decoded: e.decodedBodySize, ms: e.duration} : null; }`

// loadFigures are the figures TestLoadIndicatorAndFigures writes to build/screenshots/load-figures.json.
type loadFigures struct {
	Note string `json:"note"`
	// Sizes of the two WebAssembly programs as fetched: bytes over the wire (headers included), body as sent,
	// body decoded; and the fetch's duration in milliseconds.
	AppWasm    map[string]float64 `json:"app_wasm"`
	EngineWasm map[string]float64 `json:"engine_wasm"`
	// Milliseconds from navigation start: the loading indicator gone, Run enabled, the first result row of
	// a default run (Run clicked as soon as the test saw it enabled).
	LoadingGoneMs float64 `json:"loading_gone_ms"`
	ReadyMs       float64 `json:"ready_ms"`
	FirstRowMs    float64 `json:"first_row_ms"`
	// The metrics panel's time to the first row, measured from Run.
	FirstRowAfterRun string `json:"first_row_after_run"`
}

// TestLoadIndicatorAndFigures loads the playground in a fresh browser and sees the loading indicator there
// while app.wasm downloads and gone once the UI runs; it records the two WebAssembly downloads' sizes and the
// time from navigation to the first result row of a default run, logs them and writes them to
// build/screenshots/load-figures.json. Then it loads the page again with the network throttled, so that the
// download takes seconds, and sees the indicator count the bytes as they arrive.
func TestLoadIndicatorAndFigures(t *testing.T) {
	url := serveSite(t)
	p := startOwnBrowser(t)
	if _, err := chromedp.Call(p.ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: loadWatch}); err != nil {
		t.Fatalf("install the load watch: %v", err)
	}
	p.open(url)
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	watch := evaluate[map[string]any](p, `window.joinlabWatch`)
	if watch["loadingAtParse"] != true || watch["wasmAtParse"] != false {
		t.Errorf("when the document was parsed: loading indicator %v, app.wasm started %v; want the indicator "+
			"before the program", watch["loadingAtParse"], watch["wasmAtParse"])
	}
	if evaluate[bool](p, `document.getElementById("loading") !== null`) {
		t.Error("the loading indicator is still on the page after the UI started")
	}
	ms := func(k string) float64 {
		v, ok := watch[k].(float64)
		if !ok {
			t.Errorf("the load watch did not record %s: %v", k, watch)
		}
		return v
	}
	fig := loadFigures{
		Note:          "written by TestLoadIndicatorAndFigures (web/browser) on a fresh profile from the local test server",
		LoadingGoneMs: ms("loadingGone"), ReadyMs: ms("ready"), FirstRowMs: ms("firstRow"),
		FirstRowAfterRun: evaluate[string](p, `document.querySelector("#m-first").textContent`),
		AppWasm:          evaluate[map[string]float64](p, "("+resourceSizes+`)("app.wasm")`),
		EngineWasm:       evaluate[map[string]float64](p.engineWorker(), "("+resourceSizes+`)("engine.wasm")`),
	}
	if fig.LoadingGoneMs > fig.ReadyMs || fig.ReadyMs > fig.FirstRowMs {
		t.Errorf("out of order: loading gone at %.0f ms, ready at %.0f ms, first row at %.0f ms", fig.LoadingGoneMs, fig.ReadyMs, fig.FirstRowMs)
	}
	for name, sizes := range map[string]map[string]float64{"app.wasm": fig.AppWasm, "engine.wasm": fig.EngineWasm} {
		if sizes["decoded"] <= 0 || sizes["transfer"] <= 0 {
			t.Errorf("%s: no sizes in the resource timing entry: %v", name, sizes)
		}
		t.Logf("%s: %.2f MiB transferred, %.2f MiB body, %.2f MiB decoded, fetched in %.0f ms", name,
			sizes["transfer"]/(1<<20), sizes["encoded"]/(1<<20), sizes["decoded"]/(1<<20), sizes["ms"])
	}
	t.Logf("from navigation: loading indicator gone at %.0f ms, Run enabled at %.0f ms, first result row at %.0f ms (%s after Run)",
		fig.LoadingGoneMs, fig.ReadyMs, fig.FirstRowMs, fig.FirstRowAfterRun)
	writeFigures(t, "load-figures.json", fig)

	// Again at 1 MiB/s, from the network rather than the cache: the download of app.wasm takes over a second.
	if _, err := chromedp.Call(p.ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		t.Fatalf("disable the cache: %v", err)
	}
	slow := []*network.Conditions{{DownloadThroughput: 1 << 20, UploadThroughput: -1}}
	if _, err := chromedp.Call(p.ctx, network.EmulateNetworkConditionsByRule,
		network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: slow}); err != nil {
		t.Fatalf("throttle the network: %v", err)
	}
	p.do("reload", chromedp.Navigate("about:blank"), chromedp.Navigate(url))
	p.waitFor("the indicator counting bytes", `(() => { const t = document.getElementById("loading-text");
		return t !== null && /… [0-9.]+ MiB$/.test(t.textContent) && window.joinlabLoad === undefined; })()`, loadTimeout)
	p.screenshot("loading")
	p.waitFor("the engine to be ready", `(() => { const b = document.querySelector("#run");
		return b !== null && !b.disabled; })()`, 2*loadTimeout)
	if evaluate[bool](p, `document.getElementById("loading") !== null`) {
		t.Error("the loading indicator is still on the page after the throttled load")
	}
	p.checkConsole()
}

// writeFigures writes v as indented JSON to build/screenshots/NAME, beside the screenshots, to be quoted.
func writeFigures(t *testing.T, name string, v any) {
	t.Helper()
	root, err := site.ModuleRoot()
	if err != nil {
		t.Fatalf("write %s: %v", name, err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatalf("write %s: %v", name, err)
	}
	dir := filepath.Join(root, "build", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("write %s: %v", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatalf("write %s: %v", name, err)
	}
	t.Logf("figures: %s", path)
}

// TestProgressBarDuringLongRun runs a join over a million rows and checks the progress the results' bar draws
// from, as the page folded it batch by batch: it rose more than once, never fell and stayed within [0, 1];
// and the bar is gone once the run is done.
func TestProgressBarDuringLongRun(t *testing.T) {
	p := openPlayground(t)
	defer p.screenshot("progress")
	p.setUp(bigRun(1_000_000))
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(3 * runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	// The page folds the share of input rows read after every batch it applies (ui.ProgressFold: what the
	// bar draws, before its cap at 1), and the results carry the fold; a bar sampled on a timer would show only
	// the batches a render happened to land on. The engine posts a batch at least every 4,096 output rows
	// while it streams them (the first 200,000), each with the scans' events since the last (a batch it posts
	// on its clock, during a scan, follows a scan's event too), so the share rises with nearly every batch
	// however fast the machine is (178, 185 and 194 of 210–212 when scans read 1,024 rows a batch): a bar stuck or moving only at the
	// start rises with a few. The fold need not reach 1 (0.97–0.98 here), and is not asked to.
	fold := progressFold(p, `.results`)
	checkProgress(t, "the run", fold, 3)
	if fold.Rises < 2 || fold.Rises < fold.Reports/2 {
		t.Errorf("the run's progress rose with %d of %d batches: want it to move with half of them at least", fold.Rises, fold.Reports)
	}
	if evaluate[bool](p, `document.querySelector("#progress") !== null`) {
		t.Error("the progress bar is still shown after the run")
	}
	t.Logf("the run's progress: %+v", fold)
	p.checkConsole()
}

// progressFold reads the progress fold (ui.ProgressFold) the page keeps on the element css selects, in its
// data-progress attribute.
func progressFold(p *page, css string) ui.ProgressFold {
	p.t.Helper()
	v := evaluate[string](p, `(() => { const e = document.querySelector('`+css+`'); return e ? e.dataset.progress || "" : ""; })()`)
	var f ui.ProgressFold
	if err := json.Unmarshal([]byte(v), &f); err != nil {
		p.t.Fatalf("%s data-progress %q: %v", css, v, err)
	}
	return f
}

// checkProgress checks what a fold says of every progress report the page applied: at least least of them,
// none lower than the one before, all within [0, 1].
func checkProgress(t *testing.T, what string, f ui.ProgressFold, least int) {
	t.Helper()
	if f.Reports < least {
		t.Errorf("%s: %d progress reports, want %d at least", what, f.Reports, least)
	}
	if f.Falls > 0 {
		t.Errorf("%s: progress went back %d times over %d reports", what, f.Falls, f.Reports)
	}
	if f.Least < 0 || f.Most > 1 {
		t.Errorf("%s: progress reports from %v to %v, outside [0, 1]", what, f.Least, f.Most)
	}
}

// details reads the strategy's details from the metrics panel, each value as the panel shows it (JSON).
func (p *page) details() map[string]string {
	p.t.Helper()
	return evaluate[map[string]string](p, `Object.fromEntries([...document.querySelectorAll("#m-details > div")].map(
		d => [d.querySelector("dt").textContent, d.querySelector("dd").textContent]))`)
}

// number reads a detail as a whole number, failing the test when it is missing.
func number(t *testing.T, d map[string]string, key string) int {
	t.Helper()
	n, err := strconv.Atoi(d[key])
	if err != nil {
		t.Fatalf("details %s = %q: %v (details: %v)", key, d[key], err, d)
	}
	return n
}

// TestStrategyViewsFromEngineTrace runs, for each strategy with a drawing of its own, a scenario the engine
// runs with that strategy (forced through the strategy picker, as hint.strategy=NAME) and checks that the view
// drawn from the run's trace shows what the run did, as the metrics panel's details report it. It saves each
// view as view-STRATEGY.png.
func TestStrategyViewsFromEngineTrace(t *testing.T) {
	// The page draws the view of a query's outermost join, and the alerting scenario's interval join is its
	// innermost of three: the sweep's run is that join alone, the scenario's query cut after it.
	alerting, err := scenario.Get("metrics-events-alerting")
	if err != nil {
		t.Fatal(err)
	}
	sweepQuery, _, ok := strings.Cut(alerting.Query, "\n| join kind=leftouter")
	if !ok || !strings.Contains(sweepQuery, "$left.start < $right.end") {
		t.Fatalf("the alerting scenario's query no longer begins with its interval join:\n%s", alerting.Query)
	}

	p := openPlayground(t)
	for _, c := range []struct {
		strategy, scenario string
		knobs              map[string]string
		query              string // "": the scenario's own
		check              func(t *testing.T, p *page, details map[string]string)
	}{
		{"hash", runner.ScenarioUsersListens, map[string]string{"users": "2000", "listens": "20000"}, "", func(t *testing.T, p *page, _ map[string]string) {
			bars := evaluate[[]string](p, `[...document.querySelectorAll("#view-hash text.value")].map(t => t.textContent)`)
			if want := []string{"2,000 of 2,000", "20,000 of 20,000", "20,000"}; !slices.Equal(bars, want) {
				t.Errorf("build, probe and output bars %q, want %q", bars, want)
			}
			widths := evaluate[[]float64](p, `[...document.querySelectorAll("#view-hash rect:not(.track)")].map(r => Number(r.getAttribute("width")))`)
			if len(widths) != 3 || slices.Contains(widths, 0) {
				t.Errorf("bar widths %v: want three filled bars", widths)
			}
		}},
		{"grace", "users-listens-grace", nil, "", func(t *testing.T, p *page, d map[string]string) {
			partitions := number(t, d, "partitions")
			if n := evaluate[int](p, `document.querySelectorAll("#view-grace svg rect.fill").length`); n != partitions {
				t.Errorf("%d bins drawn, the run had %d partitions", n, partitions)
			}
			spilled := evaluate[int](p, `document.querySelectorAll("#view-grace svg rect.fill.spilled").length`)
			if written := number(t, d, "io_pages_written"); (written > 0) != (spilled > 0) {
				t.Errorf("%d bins drawn spilled, the run wrote %d pages to the store", spilled, written)
			}
		}},
		{"salted", "skewed-listens", nil, "", func(t *testing.T, p *page, d map[string]string) {
			workers := number(t, d, "workers")
			heights := func(class string) []float64 {
				return evaluate[[]float64](p, `[...document.querySelectorAll("#view-salted rect.`+class+`")].map(r => Number(r.getAttribute("height")))`)
			}
			before, after := heights("before"), heights("after")
			if len(before) != workers || len(after) != workers {
				t.Fatalf("%d bars before and %d after salting, the run had %d workers", len(before), len(after), workers)
			}
			// Salting spreads the heavy keys' rows over the workers: the heaviest one carries less after.
			if slices.Max(before) <= slices.Max(after) {
				t.Errorf("heaviest worker drawn %.1f high before salting, %.1f after: want salting to flatten it",
					slices.Max(before), slices.Max(after))
			}
			if n := evaluate[int](p, `[...document.querySelectorAll("#view-salted li")].filter(li => li.textContent.startsWith("heavy key")).length`); n == 0 {
				t.Error("no heavy key listed")
			}
		}},
		{"sweep", "metrics-events-alerting", nil, sweepQuery, func(t *testing.T, p *page, d map[string]string) {
			points := evaluate[string](p, `document.querySelector("#view-sweep polyline").getAttribute("points")`)
			if n := len(strings.Fields(points)); n < 2 {
				t.Errorf("the active-set line has %d points (%q): want the sweep drawn", n, points)
			}
			for id, detail := range map[string]string{"#sweep-overlaps": "overlaps", "#sweep-expired": "expired"} {
				got := evaluate[string](p, `document.querySelector("`+id+`").textContent`)
				if want := count(number(t, d, detail)); got != want {
					t.Errorf("%s: the view says %q, the run's details %q", id, got, want)
				}
			}
		}},
		{"paged", "okta-crowdstrike-small", map[string]string{"okta_rows": "2000"}, compareQuery, func(t *testing.T, p *page, d map[string]string) {
			pages := number(t, d, "pages")
			if n := evaluate[int](p, `document.querySelectorAll("#view-paged svg.pages rect.page").length`); n != pages {
				t.Errorf("%d page brackets drawn, the run read %d pages", n, pages)
			}
			ties := evaluate[int](p, `document.querySelectorAll("#view-paged svg.pages rect.page.tie").length`)
			cut := 0
			if _, ok := d["tie_groups_cut"]; ok {
				cut = number(t, d, "tie_groups_cut")
			}
			// Each cut is marked on the page it cuts, and the count drawn is the marks'.
			said := evaluate[string](p, `document.querySelector("#paged-ties").textContent`)
			if ties != cut || said != count(cut) {
				t.Errorf("%d brackets drawn as cutting a tie group and \"tie groups cut: %s\", the run cut %d", ties, said, cut)
			}
			if !evaluate[bool](p, `document.querySelector("#view-paged line.cursor") !== null`) {
				t.Error("no cursor drawn")
			}
			if want, got := number(t, d, "filter_slices"), evaluate[int](p, `document.querySelectorAll("#view-paged svg.slices rect.slice").length`); got != want {
				t.Errorf("%d filter slices drawn, the run split its filters into %d", got, want)
			}
		}},
	} {
		t.Run(c.strategy, func(t *testing.T) {
			p.t = t
			defer p.screenshot("view-" + c.strategy)
			p.pick("#scenario", c.scenario)
			p.waitFor("the scenario's knobs", `document.querySelector("#seed") !== null`, runTimeout)
			for k, v := range c.knobs {
				p.waitFor("the knob "+k, fmt.Sprintf(`document.querySelector("#knob-%s") !== null`, k), runTimeout)
				p.pick("#knob-"+k, v)
			}
			p.pick("#seed", "1")
			if c.query != "" {
				p.setQuery(c.query)
			}
			p.pick("#strategy", c.strategy)
			p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
			if s := p.waitDone(2 * runTimeout); !strings.HasPrefix(s, "Done") {
				t.Fatalf("status %q\n%s", s, p.state())
			}
			if got := evaluate[string](p, `document.querySelector("#m-strategy").textContent`); got != c.strategy {
				t.Errorf("the metrics say strategy %q", got)
			}
			if !evaluate[bool](p, fmt.Sprintf(`document.querySelector("#view-%s") !== null`, c.strategy)) {
				t.Fatalf("no %s view on the page", c.strategy)
			}
			c.check(t, p, p.details())
			p.checkConsole()
		})
	}
}
