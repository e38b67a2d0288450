package browser

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/joinlab/joinlab/web/walkthrough"
)

// TestViewsMatchDetails opens the sweep scenario and the salted scenario as a user would (their own
// queries, the planner's choice), runs each, and reads the figures the strategy view draws from the DOM,
// checking each against the run's details in the metrics panel and the memory chart against the peak
// the panel reports. It saves each page as truth-SCENARIO.png.
func TestViewsMatchDetails(t *testing.T) {
	p := openPlayground(t)
	text := func(sel string) string {
		return evaluate[string](p, fmt.Sprintf(`(document.querySelector(%q) || {textContent: ""}).textContent`, sel))
	}
	for _, c := range []struct {
		scenario, view string
		check          func(t *testing.T, d map[string]string)
	}{
		{"metrics-events-alerting", "sweep", func(t *testing.T, d map[string]string) {
			for id, detail := range map[string]string{"#sweep-expired": "expired", "#sweep-overlaps": "overlaps"} {
				if got, want := text(id), count(number(t, d, detail)); got != want {
					t.Errorf("%s says %q, the run's %s detail %q", id, got, detail, want)
				}
			}
			largest, err := strconv.Atoi(strings.ReplaceAll(text("#sweep-active-max"), ",", ""))
			if err != nil {
				t.Fatalf("largest active set %q: %v", text("#sweep-active-max"), err)
			}
			label := evaluate[string](p, `document.querySelector("#sweep-active-max").parentElement.textContent`)
			switch want := number(t, d, "active_set_max"); {
			case largest > want:
				t.Errorf("largest active set drawn %d, more than the run's %d", largest, want)
			case largest != want && !strings.Contains(label, "sampled"):
				t.Errorf("%q: the run's largest was %d, and the view does not say it only sampled", label, want)
			}
			for _, chart := range []string{"#sweep-active polyline", "#sweep-totals polyline"} {
				points := evaluate[[]string](p, `[...document.querySelectorAll("`+chart+`")].map(l => l.getAttribute("points"))`)
				if len(points) == 0 || len(strings.Fields(points[0])) < 2 {
					t.Errorf("%s: %q, want a line drawn", chart, points)
				}
			}
		}},
		{"skewed-listens", "salted", func(t *testing.T, d map[string]string) {
			if got, want := text("#salted-replicated"), count(number(t, d, "rows_replicated")); got != want {
				t.Errorf("rows replicated drawn %q, the run's rows_replicated %q", got, want)
			}
			workers := number(t, d, "workers")
			if got := text("#salted-workers"); got != strconv.Itoa(workers) {
				t.Errorf("workers drawn %q, the run's %d", got, workers)
			}
			if got, want := text("#salted-salts"), count(number(t, d, "salted_keys")); got != want {
				t.Errorf("salts drawn %q, the run salted %q keys", got, want)
			}
			if n := evaluate[int](p, `document.querySelectorAll("#view-salted rect.before").length`); n != workers {
				t.Errorf("%d workers' bars drawn, the run had %d", n, workers)
			}
		}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			p.t = t
			defer p.screenshot("truth-" + c.scenario)
			p.pick("#scenario", c.scenario)
			p.waitFor("the scenario's knobs", `document.querySelector("#seed") !== null`, runTimeout)
			p.pick("#seed", "1")
			p.pick("#strategy", "")
			p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
			if s := p.waitDone(2 * runTimeout); !strings.HasPrefix(s, "Done") {
				t.Fatalf("status %q\n%s", s, p.state())
			}
			p.waitFor("the run's details", `document.querySelector("#m-details") !== null`, runTimeout)
			if !evaluate[bool](p, fmt.Sprintf(`document.querySelector("#view-%s") !== null`, c.view)) {
				t.Fatalf("the %s scenario is not drawn by the %s view\n%s", c.scenario, c.view, p.state())
			}
			c.check(t, p.details())
			// The memory chart is the engine's memory_high events: its top is the run's peak.
			top := text("#chart-memory .y-top")
			if top == "" || !strings.HasPrefix(text("#m-memory"), top+" of ") {
				t.Errorf("memory chart tops at %q, the panel says the peak was %q", top, text("#m-memory"))
			}
			// These scenarios' sources keep no virtual clock: the axis is the engine's time, and says so.
			if !strings.Contains(text("#chart-memory .x-end"), "engine time") {
				t.Errorf("the memory chart's time axis reads %q", text("#chart-memory .x-end"))
			}
			p.checkConsole()
		})
	}
}

// TestWalkthroughStepsDrawTheirJoin opens, by link, the first step of the interval walkthrough whose run
// joins by overlap and the first step of the salting walkthrough that runs the naive variant on an outer
// join: the first must be drawn by the sweep view, the second by the salted view with its wrong rows marked,
// as many listed as the view counts. It saves each as walk-view-NAME.png.
func TestWalkthroughStepsDrawTheirJoin(t *testing.T) {
	ws := walkthroughs(t)
	p := openPlayground(t)
	for _, c := range []struct {
		story, view string
		runs        func(query string) bool
	}{
		{"interval", "sweep", func(q string) bool { return strings.Contains(q, "$left.start < $right.end") }},
		{"salting", "salted", func(q string) bool {
			return strings.Contains(q, "salted_naive_wrong") && strings.Contains(q, "outer")
		}},
	} {
		t.Run(c.story, func(t *testing.T) {
			p.t = t
			var w *walkthrough.Walkthrough
			for _, x := range ws {
				if x.Name == c.story {
					w = x
				}
			}
			if w == nil {
				t.Fatalf("no %s walkthrough", c.story)
			}
			k := 0
			for i := 1; i <= w.StepCount() && k == 0; i++ {
				if _, s := w.Step(i); w.Runs[s.Run] != nil && c.runs(w.Runs[s.Run].Query) {
					k = i
				}
			}
			if k == 0 {
				t.Fatalf("no step of %s runs such a join", c.story)
			}
			defer p.screenshot("walk-view-" + c.story)
			link := strings.TrimSuffix(serveSite(t), "/") + "/" + walkthrough.Link(w.Name, k)
			p.do("open the step", chromedp.Navigate("about:blank"), chromedp.Navigate(link))
			p.waitStep(w, k)
			p.waitFor("the "+c.view+" view", fmt.Sprintf(`document.querySelector("#view-%s") !== null`, c.view), runTimeout)
			if c.view == "salted" {
				p.waitFor("the wrong rows", `document.querySelector("#salted-wrong-rows") !== null`, runTimeout)
				marked := evaluate[int](p, `document.querySelectorAll("#salted-wrong-rows tr.wrong").length`)
				said := evaluate[string](p, `document.querySelector("#salted-wrong").textContent`)
				if marked == 0 || said != count(marked) {
					t.Errorf("%d wrong rows listed, the view counts %q", marked, said)
				}
			}
			p.checkConsole()
		})
	}
}
