package ui

import (
	"strings"
	"testing"

	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// comparePreset opens preset p in a State over the real catalogue, presses Run and plays both runs the page
// posts through the engine natively, applying every message as the page would; it returns the State once
// both runs are over.
func comparePreset(t *testing.T, p Preset) *State {
	t.Helper()
	env := &fakeEnv{}
	s := NewState(env)
	s.Apply(protocol.Message{Type: protocol.MessageReady, Catalogue: runner.Catalogue()})
	if err := s.ApplyPreset(p.ID); err != nil {
		t.Fatal(err)
	}
	env.posted = nil
	s.StartRun()
	var runs int
	for _, req := range env.posted {
		if req.Type != protocol.RequestRun {
			continue
		}
		runs++
		runner.Stream(t.Context(), req.ID, req.Run, s.Apply, nil) // no wall-clock limit: see runForReal
	}
	if runs != 2 {
		t.Fatalf("the preset posted %d runs, want A's and B's", runs)
	}
	return s
}

// TestPresetsShowTheirFailure runs every compare preset as the page does and checks that B goes wrong the way
// the preset promises, and that A, the reference, finishes.
func TestPresetsShowTheirFailure(t *testing.T) {
	for _, p := range Presets {
		t.Run(p.ID, func(t *testing.T) {
			s := comparePreset(t, p)
			a, b, d := s.Run, s.CompareRun, s.Diff
			if a.Status != StatusDone {
				t.Fatalf("A (%s) ended %s: %v", p.Strategy, a.Status, a.Err)
			}
			if d == nil {
				t.Fatal("no verdict once both runs were over")
			}
			c := &Compare{State: s}
			t.Logf("A %s: %d rows; B %s: %s, %d rows; verdict: %s", p.Strategy, statsRows(a), p.Compare, b.Status,
				b.Rows.Len(), c.Verdict())
			errText := ""
			if b.Err != nil {
				errText = b.Err.Message
			}
			switch p.Failure {
			case FailLoses:
				if b.Status != StatusDone || d.Lost == 0 || d.Extra != 0 {
					t.Errorf("B %s, %d rows lost, %d extra: want rows lost and none made up", b.Status, d.Lost, d.Extra)
				}
			case FailOrder:
				if b.Status != StatusDone || d.Lost+d.Doubled+d.Extra != 0 || d.OutOfOrder == 0 {
					t.Errorf("B %s, %d lost %d doubled %d extra, out of order from %d: want A's rows in another order",
						b.Status, d.Lost, d.Doubled, d.Extra, d.OutOfOrder)
				}
			case FailStalls:
				if b.Status != StatusFailed || !strings.Contains(errText, "has not advanced") || d.Doubled == 0 {
					t.Errorf("B %s (%q), %d rows doubled before it stopped: want repeated rows, then the stalled cursor",
						b.Status, errText, d.Doubled)
				}
			case FailWindow:
				if b.Status != StatusFailed || !strings.Contains(errText, "window (") {
					t.Errorf("B %s (%q): want a window over the response cap", b.Status, errText)
				}
			case FailRowCap:
				if b.Status != StatusFailed || !strings.Contains(errText, "fetch-all") {
					t.Errorf("B %s (%q): want the fetch-all request refused by the row cap", b.Status, errText)
				}
			case FailDuplicates:
				if b.Status != StatusDone || d.Doubled+d.Extra == 0 || len(b.wrongRows().Rows) == 0 {
					t.Errorf("B %s, %d doubled %d extra: want null-extended rows duplicated", b.Status, d.Doubled, d.Extra)
				}
			default:
				t.Fatalf("preset promises %q, which this test does not check", p.Failure)
			}
			if c.VerdictKind() != "bad" {
				t.Errorf("verdict %q is styled %s, want bad", c.Verdict(), c.VerdictKind())
			}
			checkSides(t, s, p)
		})
	}
}

// checkSides renders the page after a preset's runs and checks the compare panel: A's and B's views drawn
// side by side by their strategies' views, and the differing rows marked in both tables where both runs have
// rows that differ (a B that sent nothing, or only rows A has, marks nothing in A).
func checkSides(t *testing.T, s *State, p Preset) {
	t.Helper()
	html, _ := render(t, s)
	_, rest, okA := strings.Cut(html, `id="cmp-view-a"`)
	sideA, sideB, okB := strings.Cut(rest, `id="cmp-view-b"`)
	sideB, _, _ = strings.Cut(sideB, `id="cmp-rows"`)
	if !okA || !okB {
		t.Fatal("the compare panel has no #cmp-view-a and #cmp-view-b")
	}
	if strings.Contains(html, `class="live"`) {
		t.Error("the main view is drawn beside the compare panel's: A's view twice")
	}
	checkUniqueIDs(t, html)
	for side, part := range map[string]string{"A": sideA, "B": sideB} {
		r := s.Run
		if side == "B" {
			r = s.CompareRun
		}
		if want := `id="` + strings.ToLower(side) + `-view-` + r.View() + `"`; !strings.Contains(part, want) {
			t.Errorf("%s's side does not draw its %s view", side, r.View())
		}
	}
	marked := func(part string) int { return strings.Count(part, `class="row marked `) }
	switch p.Failure {
	case FailLoses, FailStalls, FailOrder:
		if marked(sideA) == 0 || marked(sideB) == 0 {
			t.Errorf("%d rows marked in A's table, %d in B's: want the difference marked in both", marked(sideA), marked(sideB))
		}
	case FailDuplicates:
		if marked(sideB) == 0 || !strings.Contains(sideB, `id="b-salted-wrong-rows"`) {
			t.Errorf("%d rows marked in B's table; want B's duplicated rows marked, and by its salted view", marked(sideB))
		}
	}
}

// compareQuery runs query on scenario under strategies a and b as the page does, once both are over.
func compareQuery(t *testing.T, scenario, query, a, b string) *State {
	t.Helper()
	env := &fakeEnv{}
	s := NewState(env)
	s.Apply(protocol.Message{Type: protocol.MessageReady, Catalogue: runner.Catalogue()})
	s.PickScenario(scenario)
	s.SetQuery(query)
	s.SetStrategy(a)
	s.SetCompare(b)
	env.posted = nil
	s.StartRun()
	for _, req := range env.posted {
		if req.Type == protocol.RequestRun {
			runner.Stream(t.Context(), req.ID, req.Run, s.Apply, nil)
		}
	}
	if s.Diff == nil {
		t.Fatal("no verdict once both runs were over")
	}
	return s
}

// TestCompareTakeWithoutSortSaysArbitrary compares two strategies that keep different rows under a take with no
// sort: the verdict says the rows are arbitrary and marks none lost or extra; with a sort before the take the
// same comparison is judged row for row.
func TestCompareTakeWithoutSortSaysArbitrary(t *testing.T) {
	const join = `@OktaSystemLogs
| join kind=inner (@CrowdStrikeDetections) on $left.actor.alternateId == $right.user_name
| project published, user_name, detection_id`
	s := compareQuery(t, "okta-crowdstrike-small", join+"\n| take 500", "paged", "hash")
	d, c := s.Diff, &Compare{State: s}
	t.Logf("verdict: %s (%d rows of A not in B)", c.Verdict(), d.Lost)
	if d.Lost == 0 {
		t.Fatal("the two strategies kept the same 500 rows: the test needs runs whose choices differ")
	}
	if !d.Arbitrary || !strings.Contains(c.Verdict(), "arbitrary") || strings.Contains(c.Verdict(), "rows lost") ||
		c.VerdictKind() == "bad" {
		t.Errorf("verdict %q (%s), arbitrary %v: want the rows called arbitrary, not lost", c.Verdict(), c.VerdictKind(), d.Arbitrary)
	}
	if len(d.A.Marks)+len(d.B.Marks) != 0 {
		t.Errorf("%d rows marked in A, %d in B: arbitrary rows are not wrong", len(d.A.Marks), len(d.B.Marks))
	}
	html, _ := render(t, s)
	if strings.Contains(html, `data-mark="lost"`) || strings.Contains(html, `data-mark="extra"`) {
		t.Error("the page marks arbitrary rows lost or extra")
	}

	sorted := compareQuery(t, "okta-crowdstrike-small", join+"\n| sort by published desc, detection_id asc\n| take 500", "paged", "hash")
	if sorted.Diff.Arbitrary || !sorted.Diff.Same() {
		t.Errorf("sorted before the take: arbitrary %v, verdict %q; want the same rows judged row for row",
			sorted.Diff.Arbitrary, (&Compare{State: sorted}).Verdict())
	}
}
