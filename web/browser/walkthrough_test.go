package browser

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/joinlab/joinlab/internal/fulltest"
	"github.com/joinlab/joinlab/web/site"
	"github.com/joinlab/joinlab/web/walkthrough"
)

// walkthroughs loads assets/walkthroughs as web/walkthrough reads them: the test's expectations come from the
// files, not from the page.
func walkthroughs(t *testing.T) []*walkthrough.Walkthrough {
	t.Helper()
	root, err := site.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := walkthrough.LoadDir(os.DirFS(filepath.Join(root, "assets")), "walkthroughs")
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) == 0 {
		t.Fatal("no walkthroughs in assets/walkthroughs")
	}
	return ws
}

// waitStep waits until the player shows step k (its id) with its run done.
func (p *page) waitStep(w *walkthrough.Walkthrough, k int) {
	p.t.Helper()
	_, s := w.Step(k)
	p.waitFor(fmt.Sprintf("step %d (%s) of %s, its run done", k, s.ID, w.Name), fmt.Sprintf(`(() => {
		const st = document.querySelector(".walk-step");
		const pos = document.querySelector("#walk-pos");
		return st !== null && st.dataset.step === %q && st.dataset.ready === "true" &&
			pos !== null && pos.textContent.startsWith(%q); })()`, s.ID, fmt.Sprintf("Step %d of %d", k, w.StepCount())),
		runTimeout)
}

// unmarked lists the highlights that have no element on the page, or whose element is not marked.
func (p *page) unmarked(highlights []string) []string {
	p.t.Helper()
	if len(highlights) == 0 {
		return nil
	}
	list, _ := json.Marshal(highlights)
	return evaluate[[]string](p, fmt.Sprintf(`%s.filter(h => {
		const els = [...document.querySelectorAll("[data-hl]")].filter(el => el.dataset.hl === h);
		return !els.some(el => el.classList.contains("hl")); })`, list))
}

// checkStep checks what the player shows of step k: the narration, every highlight marked, every stated fact
// holding against the run the page's engine made, and a question's answer hidden until revealed.
func (p *page) checkStep(w *walkthrough.Walkthrough, k int) {
	p.t.Helper()
	_, s := w.Step(k)
	where := fmt.Sprintf("%s step %d (%s)", w.Name, k, s.ID)
	if got := evaluate[string](p, `document.querySelector("#walk-narration").textContent`); got != s.Narration {
		p.t.Errorf("%s: narration %q, want %q", where, got, s.Narration)
	}
	if miss := p.unmarked(s.Highlight); len(miss) > 0 {
		p.t.Errorf("%s: highlights not shown as marked: %q", where, miss)
	}
	facts := len(s.Facts)
	if q := s.Question; q != nil {
		if evaluate[bool](p, `document.querySelector("#walk-answer") !== null`) {
			p.t.Errorf("%s: the answer shows before it is revealed", where)
		}
		if len(q.Choices) > 0 {
			p.do("predict", chromedp.Click(chromedp.CSS("#walk-choice-0")))
		}
		p.do("reveal", chromedp.Click(chromedp.CSS("#walk-reveal")))
		p.waitFor("the answer", `document.querySelector("#walk-answer") !== null`, runTimeout)
		if got := evaluate[string](p, `document.querySelector("#walk-answer").textContent`); !strings.Contains(got, q.Answer) {
			p.t.Errorf("%s: the revealed answer %q does not say %q", where, got, q.Answer)
		}
		if miss := p.unmarked(q.Reveal); len(miss) > 0 {
			p.t.Errorf("%s: revealed highlights not marked: %q", where, miss)
		}
		facts += len(q.Facts)
	}
	shown := evaluate[[]string](p, `[...document.querySelectorAll("#walk-facts li")].map(li => li.dataset.holds + " " + li.textContent)`)
	if len(shown) != facts {
		p.t.Errorf("%s: %d facts shown, want %d: %q", where, len(shown), facts, shown)
	}
	for _, f := range shown {
		if !strings.HasPrefix(f, "true ") {
			p.t.Errorf("%s: a stated fact does not hold in the page's run: %s", where, f)
		}
	}
	p.screenshot(fmt.Sprintf("walkthrough-%s-%d", w.Name, k))
}

// TestWalkthroughsStepThrough opens every walkthrough from the picker and steps through it with Next, checking
// each step, then goes Back once. By default one walkthrough, drawn from the sample's seed, is stepped through
// and the others are checked at their first step (web/walkthrough checks every step's facts natively);
// JOINLAB_FULL_TESTS=1 steps through all of them.
func TestWalkthroughsStepThrough(t *testing.T) {
	ws := walkthroughs(t)
	whole := fulltest.Pick(fulltest.New(t), ws)
	p := openPlayground(t)
	for _, w := range ws {
		states := stepStates(t, w)
		p.waitFor("the walkthrough picker", fmt.Sprintf(`(() => { const s = document.querySelector("#walk-pick");
			return s !== null && !s.disabled && [...s.options].some(o => o.value === %q); })()`, w.Name), loadTimeout)
		p.pick("#walk-pick", w.Name)
		steps := 1
		if slices.Contains(whole, w) {
			steps = w.StepCount()
		}
		for k := 1; k <= steps; k++ {
			if k > 1 {
				p.do("next", chromedp.Click(chromedp.CSS("#walk-next")))
			}
			p.waitStep(w, k)
			if got, want := evaluate[string](p, `location.hash`), walkthrough.Link(w.Name, k); got != want {
				t.Errorf("%s step %d: the URL's fragment is %q, want %q", w.Name, k, got, want)
			}
			if got, want := evaluate[string](p, `document.querySelector("#walk-link").getAttribute("href")`), walkthrough.Link(w.Name, k); got != want {
				t.Errorf("%s step %d: the step's link is %q, want %q", w.Name, k, got, want)
			}
			p.checkStep(w, k)
			p.checkFrozen(w, states[k])
		}
		if n := steps; n > 1 {
			p.do("back", chromedp.Click(chromedp.CSS("#walk-back")))
			p.waitStep(w, n-1)
		}
	}
	p.checkConsole()
}

// TestWalkthroughLinkOpensStep opens #w=NAME&step=K in a fresh page: the player comes up at that step.
func TestWalkthroughLinkOpensStep(t *testing.T) {
	ws := walkthroughs(t)
	w := ws[0]
	k := min(4, w.StepCount())
	p := openPlayground(t)
	defer p.screenshot("walkthrough-link")
	link := strings.TrimSuffix(serveSite(t), "/") + "/" + walkthrough.Link(w.Name, k)
	p.do("open the link", chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	p.waitStep(w, k)
	p.checkStep(w, k)
	p.checkFrozen(w, stepStates(t, w)[k])
	p.checkConsole()
}

// stepStates runs a walkthrough natively and returns each step's state at its pause point, by step number.
func stepStates(t *testing.T, w *walkthrough.Walkthrough) map[int]*walkthrough.StepState {
	t.Helper()
	states, err := w.States()
	if err != nil {
		t.Fatalf("walkthrough %s natively: %v", w.Name, err)
	}
	out := map[int]*walkthrough.StepState{}
	for _, st := range states {
		out[st.Number] = st
	}
	return out
}
