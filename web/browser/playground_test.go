package browser

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/site"
)

// domRows lists the result rows in the DOM, each as its cells' text.
const domRows = `[...document.querySelectorAll("#results tr.row")].map(tr => [...tr.cells].map(td => td.textContent))`

// status is the page's status line.
const status = `document.querySelector("#status").textContent`

// pick sets a select or input as a person would: the value, then the change event the UI listens for.
func (p *page) pick(selector, value string) {
	p.t.Helper()
	ok := evaluate[bool](p, fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		if (!el) return false;
		el.value = %q;
		el.dispatchEvent(new Event("change", {bubbles: true}));
		return true; })()`, selector, value))
	if !ok {
		p.t.Fatalf("no %s on the page\n%s", selector, p.state())
	}
}

// waitDone waits until the status line says the run is over, and returns it.
func (p *page) waitDone(timeout time.Duration) string {
	p.t.Helper()
	p.waitFor("the run to end", `/^(Done|Canceled|The query failed)/.test(`+status+`)`, timeout)
	return evaluate[string](p, status)
}

// native runs the same request the page sends through the runner natively, returning the rows.
func native(t *testing.T, r *protocol.Run) (columns []string, rows [][]string) {
	t.Helper()
	var order protocol.Order
	runner.Stream(context.Background(), 1, r, func(m protocol.Message) {
		if err := order.Next(m); err != nil {
			t.Fatalf("native run: %v", err)
		}
		switch m.Type {
		case protocol.MessageStarted:
			columns = m.Columns
		case protocol.MessageBatch:
			// A batch of only trace events carries no rows: unpacked, its empty text would be one empty row.
			if m.Rows != "" {
				rows = append(rows, protocol.UnpackRows(m.Rows, len(columns))...)
			}
		case protocol.MessageError:
			t.Fatalf("native run: %s", m.Error.Message)
		}
	}, nil)
	return columns, rows
}

func TestOwnDataJoin(t *testing.T) {
	p := openPlayground(t)
	defer p.screenshot("own-data")

	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	header := evaluate[[]string](p, `[...document.querySelectorAll("#results thead th")].map(th => th.textContent)`)
	if want := []string{"name", "song_id"}; !slices.Equal(header, want) {
		t.Errorf("columns %q, want %q", header, want)
	}
	var got []string
	for _, row := range evaluate[[][]string](p, domRows) {
		got = append(got, strings.Join(row, " "))
	}
	slices.Sort(got) // the join's output order is not part of its contract
	want := []string{
		"Daffy 500", "Mickey 100", "Mickey 200", "Minnie 100", "Minnie 200", "Pluto 100", "Pluto 300", "Pluto 400",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n got %q\nwant %q", got, want)
	}
	if n := evaluate[string](p, `document.querySelector("#rowcount").textContent`); n != "8 rows" {
		t.Errorf("row count %q, want %q", n, "8 rows")
	}
	if s := evaluate[string](p, `document.querySelector("#m-strategy").textContent`); s != "hash" {
		t.Errorf("metrics strategy %q, want hash", s)
	}
	if !evaluate[bool](p, `document.querySelector("#view-hash") !== null`) {
		t.Error("no hash-join view")
	}

	p.do("open explain", chromedp.Click(chromedp.CSS("#tab-explain")))
	p.waitFor("the explain text", `document.querySelector("#explain") !== null`, runTimeout)
	if e := evaluate[string](p, `document.querySelector("#explain").textContent`); !strings.Contains(e, "hash join kind=inner") {
		t.Errorf("explain %q lacks the physical plan's hash join", e)
	}
	p.screenshot("explain")
	load := evaluate[map[string]float64](p, `window.joinlabLoad`)
	t.Logf("app.wasm: %.1f MiB downloaded and started in %.0f ms; first result row %s after Run",
		load["bytes"]/(1<<20), load["ms"], evaluate[string](p, `document.querySelector("#m-first").textContent`))
	p.checkConsole()
}

func TestBadQueryShowsPositionedError(t *testing.T) {
	p := openPlayground(t)
	defer p.screenshot("bad-query")

	p.do("type a bad query and press Ctrl+Enter",
		chromedp.SetValue(chromedp.CSS("#query"), "@Users\n| where ("),
		chromedp.Focus(chromedp.CSS("#query")),
		chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierCtrl)),
	)
	p.waitFor("an error", `document.querySelector("#error") !== null`, runTimeout)
	msg := evaluate[string](p, `document.querySelector("#error").textContent`)
	if !strings.Contains(msg, "2:") || !strings.Contains(msg, "expected") {
		t.Errorf("error %q: want a position on line 2 and what was expected", msg)
	}
	// The editor marks the character at the error's position.
	mark := evaluate[[]string](p, `(() => { const m = document.querySelector("#error-mark");
		if (!m) return [];
		const before = m.previousElementSibling.textContent;
		return [before, m.textContent]; })()`)
	if len(mark) != 2 || !strings.HasPrefix(mark[0], "@Users\n| where (") {
		t.Errorf("error mark %q: want it after the text up to the open parenthesis", mark)
	}
	if n := evaluate[int](p, `document.querySelectorAll("#results tr.row").length`); n != 0 {
		t.Errorf("%d result rows shown beside the error", n)
	}
	p.checkConsole()
}

// bigRun is the playground's generated scenario at a size that streams for a while.
func bigRun(listens int) *protocol.Run {
	return &protocol.Run{
		Query:    "@Users | join kind=inner (@Listens) on user_id | project name, user_id, song_id",
		Scenario: runner.ScenarioUsersListens, Seed: 9,
		Knobs: map[string]float64{"users": 2000, "listens": float64(listens), "skew": 0},
	}
}

func (p *page) setUp(r *protocol.Run) {
	p.t.Helper()
	p.pick("#scenario", r.Scenario)
	p.waitFor("the knobs", `document.querySelector("#knob-listens") !== null`, runTimeout)
	for k, v := range r.Knobs {
		p.pick("#knob-"+k, fmt.Sprint(v))
	}
	p.pick("#seed", fmt.Sprint(r.Seed))
}

func TestScenarioStreamsIntoVirtualTable(t *testing.T) {
	const listens = 60_000
	r := bigRun(listens)
	cols, want := native(t, r)

	p := openPlayground(t)
	defer p.screenshot("hash-view")
	p.setUp(r)
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	if n := evaluate[string](p, `document.querySelector("#rowcount").textContent`); n != "60,000 rows" {
		t.Errorf("row count %q, want 60,000 rows", n)
	}
	header := evaluate[[]string](p, `[...document.querySelectorAll("#results thead th")].map(th => th.textContent)`)
	if !slices.Equal(header, cols) {
		t.Errorf("columns %q, want %q", header, cols)
	}
	// Only the rows in view are in the DOM.
	rows := evaluate[[][]string](p, domRows)
	if len(rows) == 0 || len(rows) > 60 {
		t.Fatalf("%d rows in the DOM: want a few dozen of the %d", len(rows), listens)
	}
	for i, row := range rows {
		if !slices.Equal(row, want[i]) {
			t.Fatalf("row %d is %q, the native run's is %q", i, row, want[i])
		}
	}
	// Scroll to the middle: the rows there come into the DOM and match the native run's.
	evaluate[bool](p, `(() => { const v = document.querySelector("#viewport");
		v.scrollTop = v.scrollHeight / 2; v.dispatchEvent(new Event("scroll")); return true; })()`)
	p.waitFor("rows from the middle", `(() => { const r = document.querySelector("#results tr.row");
		return r && Number(r.dataset.index) > 1000; })()`, runTimeout)
	first := evaluate[int](p, `Number(document.querySelector("#results tr.row").dataset.index)`)
	mid := evaluate[[][]string](p, domRows)
	for i, row := range mid {
		if !slices.Equal(row, want[first+i]) {
			t.Fatalf("row %d is %q, the native run's is %q", first+i, row, want[first+i])
		}
	}
	if n := len(mid); n > 60 {
		t.Errorf("%d rows in the DOM after scrolling", n)
	}
	// The hash view saw both sides read whole.
	bars := evaluate[[]string](p, `[...document.querySelectorAll("#view-hash text.value")].map(t => t.textContent)`)
	if len(bars) != 3 || bars[0] != "2,000 of 2,000" || bars[1] != "60,000 of 60,000" || bars[2] != "60,000" {
		t.Errorf("hash view bars %q: want build 2,000 of 2,000, probe 60,000 of 60,000, 60,000 out", bars)
	}
	p.checkConsole()
}

// TestResponsiveDuringLongRun runs a join of millions of rows in the engine's worker to its end and logs the
// page's largest event-loop lag and its frame rate over all of it, from the Run click to the renders of the
// result (a timed assertion would fail on a loaded machine, not on a slow page). A second run of the same join
// is poked while it streams — the page must react before the run ends — and canceled.
func TestResponsiveDuringLongRun(t *testing.T) {
	p := openPlayground(t)
	defer p.screenshot("long-run")
	p.setUp(bigRun(5_000_000))
	// The lag is how late a 20 ms timer fires at worst; the frames are requestAnimationFrame callbacks, which
	// is how often the page could paint.
	evaluate[bool](p, `(() => { window.lag = 0; let last = performance.now();
		window.lagTimer = setInterval(() => { const now = performance.now();
			window.lag = Math.max(window.lag, now - last - 20); last = now; }, 20);
		window.frames = 0; window.counting = true;
		const frame = () => { if (!window.counting) return; window.frames++; requestAnimationFrame(frame); };
		requestAnimationFrame(frame);
		return true; })()`)
	runAt := time.Now()
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "Done: 5,000,000 rows") {
		t.Fatalf("status after the run %q, want Done with 5,000,000 rows", s)
	}
	time.Sleep(200 * time.Millisecond) // the renders that follow the last message
	frames := evaluate[float64](p, `(() => { window.counting = false; return window.frames; })()`)
	ran := time.Since(runAt)
	t.Logf("largest event-loop lag over a whole 5,000,000-row run: %.0f ms; %.0f frames in %.1f s: %.1f frames per second",
		evaluate[float64](p, `window.lag`), frames, ran.Seconds(), frames/ran.Seconds())

	p.do("click Run again", chromedp.Click(chromedp.CSS("#run")))
	p.waitFor("rows to stream", `document.querySelector("#status").textContent.startsWith("Running") &&
		document.querySelectorAll("#results tr.row").length > 0`, runTimeout)
	p.do("poke", chromedp.Click(chromedp.CSS("#poke")))
	p.waitFor("the poke to show", `document.querySelector("#poke").textContent === "Poked 1×"`, runTimeout)
	if s := evaluate[string](p, status); !strings.HasPrefix(s, "Running") {
		t.Errorf("the page reacted only after the run: %q", s)
	}
	p.do("cancel", chromedp.Click(chromedp.CSS("#cancel")))
	if s := p.waitDone(runTimeout); s != "Canceled." {
		t.Errorf("status after cancel %q, want Canceled.", s)
	}
	if rows := evaluate[string](p, `document.querySelector("#m-rows").textContent`); rows == "5,000,000" {
		t.Errorf("the canceled run delivered all its rows")
	}
	p.checkConsole()
}

func TestShareLinkRoundTrip(t *testing.T) {
	p := openPlayground(t)
	defer p.screenshot("share-link")
	r := bigRun(1234)
	p.setUp(r)
	p.pick("#strategy", "nestedloop")
	p.pick("#memory", "48")
	p.do("copy the link", chromedp.Click(chromedp.CSS("#share")))
	p.waitFor("the copied note", `document.querySelector("#copied") !== null`, runTimeout)
	link := evaluate[string](p, `location.href`)
	if !strings.Contains(link, "#s1.") {
		t.Fatalf("the URL %q carries no state", link)
	}

	q := openPlayground(t)
	// From another document: a change of fragment alone would not reload the page.
	q.do("open the link", chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	q.waitFor("the restored scenario", `(() => { const s = document.querySelector("#scenario");
		return s && s.value === `+fmt.Sprintf("%q", r.Scenario)+`; })()`, loadTimeout)
	got := evaluate[[]string](q, `["#strategy", "#seed", "#memory", "#knob-listens", "#knob-users", "#query"].map(s => document.querySelector(s).value)`)
	want := []string{"nestedloop", "9", "48", "1234", "2000", r.Query}
	if !slices.Equal(got, want) {
		t.Errorf("restored %q, want %q", got, want)
	}
	q.checkConsole()
}

func TestMalformedLinkShowsMessage(t *testing.T) {
	url := serveSite(t)
	p := openPlayground(t)
	defer p.screenshot("bad-link")
	p.do("open a damaged link", chromedp.Navigate(url+"?again#s=%%%not-base64"))
	p.waitFor("the notice", `document.querySelector("#notice") !== null`, loadTimeout)
	if msg := evaluate[string](p, `document.querySelector("#notice").textContent`); !strings.Contains(msg, "could not be opened") {
		t.Errorf("notice %q", msg)
	}
	// The page falls back to its defaults and still runs.
	p.waitFor("the engine to be ready", `!document.querySelector("#run").disabled`, loadTimeout)
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
		t.Errorf("status %q", s)
	}
}

// TestPauseAndStep pauses a long run, sees the view hold still, steps it three times and sees the trace move
// on by one batch each time, then cancels it.
func TestPauseAndStep(t *testing.T) {
	p := openPlayground(t)
	defer p.screenshot("paused")
	held := p.runPaused(bigRun(5_000_000))
	if s := evaluate[string](p, status); !strings.HasPrefix(s, "Paused") {
		t.Fatalf("status %q, want paused", s)
	}
	// Every Step lets exactly one batch through: the link's paused_at counts them. (A flush with nothing to
	// post once spent every other Step.)
	_, st := p.link()
	for i := 1; i <= 3; i++ {
		held = p.step(held)
		if s := evaluate[string](p, status); !strings.HasPrefix(s, "Paused") {
			t.Errorf("status after step %d %q, want still paused", i, s)
		}
		if _, now := p.link(); now.PausedAt != st.PausedAt+i {
			t.Errorf("after step %d the link holds paused_at %d, want %d", i, now.PausedAt, st.PausedAt+i)
		}
	}
	p.do("cancel", chromedp.Click(chromedp.CSS("#cancel")))
	if s := p.waitDone(runTimeout); s != "Canceled." {
		t.Errorf("status after cancel %q", s)
	}
	p.checkConsole()
}

// cliRun runs the joinlab command (built once into dir) on a scenario's query with seed 1 and CSV output, and
// returns its header, its records, and its standard error when it fails.
func cliRun(t *testing.T, bin, scenario, q string) (header []string, records [][]string, failure string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, "query", "--scenario", scenario, "--seed", "1", "--format", "csv", q)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, nil, errOut.String()
	}
	all, err := csv.NewReader(&out).ReadAll()
	if err != nil || len(all) == 0 {
		t.Fatalf("joinlab query --scenario %s: read its CSV: %v (%d records)", scenario, err, len(all))
	}
	return all[0], all[1:], ""
}

// buildCLI builds cmd/joinlab into a temporary directory and returns the binary's path.
func buildCLI(t *testing.T) string {
	t.Helper()
	root, err := site.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "joinlab")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/joinlab")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the joinlab command: %v\n%s", err, out)
	}
	return bin
}

// TestEveryScenario runs each scenario of the catalogue with its defaults, as the page lists it, and checks the
// page shows what the joinlab command prints for the same scenario and seed (`joinlab query --scenario NAME
// --seed 1 --format csv`): the columns, the row count, the rows on screen in order, or the same error. The
// command's rows are also checked against the run's stream (web/runner, what the page's engine runs), row for
// row. The page's own playground-users-listens, which the command does not serve, is checked against the
// stream alone. It saves a screenshot of each scenario's view.
func TestEveryScenario(t *testing.T) {
	p := openPlayground(t)
	bin := buildCLI(t)
	for _, sc := range runner.Catalogue().Scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			p.t = t
			defer p.screenshot("scenario-" + sc.Name)
			r := &protocol.Run{Query: sc.Query, Scenario: sc.Name, Seed: 1}
			var cols []string
			var want [][]string
			var wantErr string
			runner.Stream(context.Background(), 1, r, func(m protocol.Message) {
				switch m.Type {
				case protocol.MessageStarted:
					cols = m.Columns
				case protocol.MessageBatch:
					want = append(want, protocol.UnpackRows(m.Rows, len(cols))...)
				case protocol.MessageError:
					wantErr = m.Error.Message
				}
			}, nil)
			header, records, failure := cliRun(t, bin, sc.Name, sc.Query)
			if sc.Name == runner.ScenarioUsersListens {
				// The page's own generated scenario is not in the simulations' catalogue the command reads.
				header, records, failure = cols, want, wantErr
			}
			switch {
			case (failure != "") != (wantErr != ""):
				t.Fatalf("the command fails with %q, the stream with %q", failure, wantErr)
			case failure != "" && !strings.Contains(failure, wantErr):
				t.Errorf("the command fails with %q, the stream with %q", failure, wantErr)
			case failure == "" && !slices.Equal(header, cols):
				t.Errorf("the command's columns %q, the stream's %q", header, cols)
			case failure == "" && len(records) < len(want):
				t.Errorf("the command printed %d rows, the stream %d", len(records), len(want))
			case failure == "":
				for i := range want {
					if !slices.Equal(records[i], want[i]) {
						t.Fatalf("row %d: the command printed %q, the stream %q", i, records[i], want[i])
					}
				}
			}
			p.pick("#scenario", sc.Name)
			p.pick("#seed", "1")
			p.waitFor("the scenario's query", fmt.Sprintf(`document.querySelector("#query").value === %q`, sc.Query), runTimeout)
			p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
			s := p.waitDone(2 * runTimeout)
			if wantErr != "" {
				if got := evaluate[string](p, `(document.querySelector("#error") || {}).textContent || ""`); !strings.Contains(got, wantErr) {
					t.Errorf("the page shows %q (status %q); natively the run fails with %q", got, s, wantErr)
				}
				return
			}
			if !strings.HasPrefix(s, "Done") {
				t.Fatalf("status %q\n%s", s, p.state())
			}
			if got, want := evaluate[string](p, `document.querySelector("#m-rows").textContent`), count(len(records)); got != want {
				t.Errorf("rows out %s, the command printed %s", got, want)
			}
			rows := evaluate[[][]string](p, domRows)
			for i, row := range rows {
				if i >= len(records) || !slices.Equal(row, records[i]) {
					t.Fatalf("row %d is %q, the command printed %q", i, row, records[min(i, len(records)-1)])
				}
			}
			p.checkConsole()
		})
	}
}

// count formats n as the page does, with thousands separators.
func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
