package browser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDynamicFilterPanel runs, in the page, the hash join of the detections with severity >= 90 and Okta on
// okta-crowdstrike-small with IN lists of 10 values on Okta, and reads the filter's panel from the DOM: one
// panel in the hash view, its form "in", as many columns in each strip as the run's details count slices, and
// no column over the cap line. It saves the page as view-dynfilter.png.
func TestDynamicFilterPanel(t *testing.T) {
	p := openPlayground(t)
	defer p.screenshot("view-dynfilter")
	p.pick("#scenario", "okta-crowdstrike-small")
	p.waitFor("the knob okta_max_in_values", `document.querySelector("#knob-okta_max_in_values") !== null`, runTimeout)
	p.pick("#knob-okta_max_in_values", "10")
	p.pick("#seed", "1")
	p.setQuery(`@OktaSystemLogs
| where eventType == "user.session.start" and outcome.result == "SUCCESS"
| join kind=inner (@CrowdStrikeDetections | where severity >= 90) on $left.actor.alternateId == $right.user_name
| count`)
	p.pick("#strategy", "hash")
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(2 * runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	p.waitFor("the run's details", `document.querySelector("#m-details") !== null`, runTimeout)
	slices := number(t, p.details(), "dynamic_filter_slices")
	if slices < 2 {
		t.Fatalf("%d slices: the test needs a filter of several", slices)
	}
	if n := evaluate[int](p, `document.querySelectorAll("#view-hash section.dynfilter").length`); n != 1 {
		t.Fatalf("%d dynamic filter panels in the hash view, want 1\n%s", n, p.state())
	}
	if form := evaluate[string](p, `document.querySelector("#view-hash .dynfilter-form").textContent`); form != "in" {
		t.Errorf("form drawn %q, want in", form)
	}
	for _, strip := range []string{"dynfilter-values", "dynfilter-bytes"} {
		sel := fmt.Sprintf("#view-hash svg.%s rect.slice", strip)
		if n := evaluate[int](p, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)); n != slices {
			t.Errorf("%s: %d columns drawn, the run scanned %d slices", strip, n, slices)
		}
		if n := evaluate[int](p, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel+".over")); n != 0 {
			t.Errorf("%s: %d columns drawn over the cap", strip, n)
		}
	}
	if !strings.Contains(evaluate[string](p, `document.querySelector("#view-hash .dynfilter-caps").textContent`), "10 values per IN list") {
		t.Error("the panel does not show the IN-value cap the knob set")
	}
	p.checkConsole()
}
