package ui

import (
	"errors"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/share"
)

// linkEnv is fakeEnv with a page address to read a run parameter from and a Poster answering as told.
type linkEnv struct {
	fakeEnv
	loc    string
	status int
	answer string
	err    error
	bodies [][]byte
}

func (e *linkEnv) Location() string { return e.loc }
func (e *linkEnv) PostJSON(path string, body []byte) (int, []byte, error) {
	if path != LinksPath {
		return 0, nil, errors.New("posted to " + path)
	}
	e.bodies = append(e.bodies, body)
	return e.status, []byte(e.answer), e.err
}

// renders counts the renders a goroutine asked for through the render lock.
type renders chan struct{}

func (r renders) Lock()         {}
func (r renders) UnlockOnly()   {}
func (r renders) UnlockRender() { r <- struct{}{} }
func (r renders) RLock()        {}
func (r renders) RUnlock()      {}

func readyWith(t *testing.T, env Env) *State {
	t.Helper()
	s := NewState(env)
	s.Apply(protocol.Message{Type: protocol.MessageReady, Catalogue: testCatalogue})
	return s
}

func runsPosted(posted []protocol.Request) []string {
	var out []string
	for _, r := range posted {
		if r.Type == protocol.RequestRun {
			out = append(out, r.Run.Strategy)
		}
	}
	return out
}

// TestOpenedLinkShowsWhatItRuns opens a link: nothing runs; the card shows the query, scenario, strategies,
// seed and the knob the link moved; Run it runs both strategies and the card goes.
func TestOpenedLinkShowsWhatItRuns(t *testing.T) {
	env := &linkEnv{loc: "http://playground.test/"}
	s := readyWith(t, env)
	env.posted = nil
	st := &share.State{Query: "@A | join (@B) on k | take 3", Scenario: "demo", Knobs: map[string]float64{"rows": 20},
		Seed: 5, Strategy: "hash", Compare: "keyset-lt"}
	s.LoadFragment(st.Fragment())
	if got := runsPosted(env.posted); len(got) != 0 {
		t.Fatalf("opening the link ran %v", got)
	}
	card := s.LinkCard()
	if card == nil || card.Query != st.Query || card.Strategy != "hash" || card.Compare != "keyset-lt" || card.Seed != 5 ||
		len(card.Knobs) != 1 || card.Knobs[0] != (KnobSetting{Name: "rows", Value: "20", Default: "10"}) || card.Refused != "" {
		t.Fatalf("card %+v", card)
	}
	html, _ := render(t, s)
	for _, want := range []string{`id="link-card"`, "@A | join (@B) on k | take 3", "demo — Demo", "rows = 20 (default 10)",
		`id="link-run"`, `id="link-compare"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the card lacks %q", want)
		}
	}
	if strings.Contains(html, `id="start"`) {
		t.Error("the first screen is shown over the opened link")
	}
	s.StartRun() // the card's Run it
	if got := strings.Join(runsPosted(env.posted), " "); got != "hash keyset-lt" {
		t.Errorf("Run it posted %q, want A's and B's runs", got)
	}
	if s.LinkCard() != nil {
		t.Error("the card stays once the link ran")
	}
	if dec, err := share.DecodeFragment(env.fragment); err != nil || dec.Compare != "keyset-lt" {
		t.Errorf("the page's link lost the comparison: %+v, %v", dec, err)
	}
}

// TestLinkRunsAtOnce: the state's run field or the page's ?run=1 runs the link; ?run=0 and no parameter do
// not; a parameter of another value, or a link naming what the playground lacks, is shown with the reason and
// not run.
func TestLinkRunsAtOnce(t *testing.T) {
	good := &share.State{Query: "@A | join (@B) on k", Scenario: "demo", Strategy: "hash"}
	withRun := *good
	withRun.Run = true
	for _, tt := range []struct {
		name, loc string
		st        share.State
		runs      bool
		refused   string
	}{
		{"no parameter", "http://playground.test/", *good, false, ""},
		{"run field", "http://playground.test/", withRun, true, ""},
		{"run=1", "http://playground.test/?run=1", *good, true, ""},
		{"bare run", "http://playground.test/?run", *good, true, ""},
		{"run=true", "http://playground.test/?x=2&run=true", *good, true, ""},
		{"run=0", "http://playground.test/?run=0", *good, false, ""},
		{"run=maybe", "http://playground.test/?run=maybe", *good, false, `run="maybe"`},
		{"unknown knob", "http://playground.test/?run=1", share.State{Scenario: "demo", Knobs: map[string]float64{"bogus": 1}}, false, "knob bogus"},
		{"knob out of range", "http://playground.test/?run=1", share.State{Scenario: "demo", Knobs: map[string]float64{"rows": 1000}}, false, "outside 0…100"},
		{"unknown strategy", "http://playground.test/?run=1", share.State{Scenario: "demo", Strategy: "quantum"}, false, `"quantum"`},
		{"unknown compare", "http://playground.test/?run=1", share.State{Scenario: "demo", Compare: "quantum"}, false, `"quantum"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := &linkEnv{loc: tt.loc}
			s := readyWith(t, env)
			env.posted = nil
			s.LoadFragment(tt.st.Fragment())
			if ran := len(runsPosted(env.posted)) > 0; ran != tt.runs {
				t.Fatalf("ran %v, want %v (refused %q)", ran, tt.runs, s.Opened.Refused)
			}
			if tt.refused == "" && s.Opened.Refused != "" {
				t.Errorf("refused: %s", s.Opened.Refused)
			}
			if tt.refused != "" {
				if !strings.Contains(s.Opened.Refused, tt.refused) {
					t.Errorf("refused %q, want it to say %q", s.Opened.Refused, tt.refused)
				}
				if html, _ := render(t, s); !strings.Contains(html, `id="link-refused"`) {
					t.Error("the reason is not on the card")
				}
			}
		})
	}
}

// TestShortLinkButton posts the page's settings to the Worker's API and shows and copies the link it answers;
// without the API, or with an answer that is no link, it says why instead.
func TestShortLinkButton(t *testing.T) {
	t.Run("no poster", func(t *testing.T) {
		s, _ := ready(t)
		s.MakeShortLink(make(renders, 1))
		if !strings.Contains(s.Short.Note, "Short links need the Worker") || s.Short.URL != "" {
			t.Errorf("short link %+v", s.Short)
		}
	})
	for _, tt := range []struct {
		name, answer string
		status       int
		err          error
		url, note    string
	}{
		{"created", `{"id":"AbC-_9","url":"http://playground.test/s/AbC-_9"}`, 201, nil, "http://playground.test/s/AbC-_9", ""},
		{"existing", `{"id":"x1","url":"https://joinlab.example/s/x1"}`, 200, nil, "https://joinlab.example/s/x1", ""},
		{"no API", `404 page not found`, 404, nil, "", "Short links need the Worker's API"},
		{"no method", ``, 405, nil, "", "answered 405"},
		{"no server", ``, 0, errors.New("TypeError: Failed to fetch"), "", "nothing answered"},
		{"rate limited", `{"error":"too many links"}`, 429, nil, "", "too many short links"},
		{"refused", `{"error":"share: query holds control character"}`, 400, nil, "", "control character"},
		{"not json", `<html>`, 200, nil, "", "no JSON"},
		{"script url", `{"id":"x","url":"javascript:alert(1)//s/x"}`, 201, nil, "", "not an http link"},
		{"other path", `{"id":"x","url":"http://evil.test/phish"}`, 201, nil, "", "not /s/"},
		{"bad id", `{"id":"<b>","url":"http://playground.test/s/<b>"}`, 201, nil, "", "not a link id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := &linkEnv{loc: "http://playground.test/", status: tt.status, answer: tt.answer, err: tt.err}
			s := readyWith(t, env)
			s.PickScenario("demo")
			s.SetShortRun(true)
			done := make(renders, 1)
			s.MakeShortLink(done)
			<-done
			if len(env.bodies) != 1 {
				t.Fatalf("%d requests", len(env.bodies))
			}
			sent, err := share.ParseJSON(env.bodies[0])
			want := s.Share()
			want.Run = true
			if err != nil || !sent.Equal(want) {
				t.Errorf("posted %s (%v), want %s", env.bodies[0], err, want)
			}
			if s.Short.Busy || s.Short.URL != tt.url || !strings.Contains(s.Short.Note, tt.note) || (tt.note == "") != (s.Short.Note == "") {
				t.Fatalf("short link %+v, want url %q and a note with %q", s.Short, tt.url, tt.note)
			}
			html, _ := render(t, s)
			if tt.url == "" {
				if strings.Contains(html, `id="short-link-url"`) || !strings.Contains(html, `id="short-link-note"`) {
					t.Error("no link, yet one is shown or the note is not")
				}
				return
			}
			if !strings.Contains(html, `href="`+tt.url+`"`) {
				t.Errorf("the link %s is not on the page", tt.url)
			}
			s.CopyShortLink()
			if env.copied != tt.url || !s.Short.Copied {
				t.Errorf("copied %q", env.copied)
			}
			s.SetSeed("42")
			if !s.ShortStale() {
				t.Error("the link is not stale after the settings changed")
			}
		})
	}
}

// TestFirstScreen points to the walkthroughs and the scenarios until something runs.
func TestFirstScreen(t *testing.T) {
	s, _ := ready(t)
	s.walk().Stories = []*Story{{Name: "grace", Title: "Grace hash join"}, {Name: "paged", Title: "Paging a federated join"}}
	s.walk().Loaded = true
	html, _ := render(t, s)
	for _, want := range []string{`id="start"`, `id="start-walk-grace"`, `id="start-walk-paged"`, `id="start-scenario-demo"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the first screen lacks %q", want)
		}
	}
	s.StartRun()
	if html, _ := render(t, s); strings.Contains(html, `id="start"`) {
		t.Error("the first screen stays once a run started")
	}
}
