package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/walkthrough"
)

const assetsDir = "../../assets"

// loadStories reads the walkthroughs as the page does, and as web/walkthrough does.
func loadStories(t *testing.T) ([]*Story, []*walkthrough.Walkthrough) {
	t.Helper()
	ws, err := walkthrough.LoadDir(os.DirFS(assetsDir), "walkthroughs")
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(assetsDir, WalkIndexPath))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := json.Unmarshal(index, &names); err != nil {
		t.Fatalf("%s: %v", WalkIndexPath, err)
	}
	var want []string
	for _, w := range ws {
		want = append(want, w.Name)
	}
	if !slices.Equal(names, want) {
		t.Fatalf("%s lists %q; assets/walkthroughs has %q", WalkIndexPath, names, want)
	}
	var stories []*Story
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(assetsDir, walkDir+n+".json"))
		if err != nil {
			t.Fatal(err)
		}
		st, err := ParseStory(data)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		stories = append(stories, st)
	}
	return stories, ws
}

// The player's light types read each file as web/walkthrough does.
func TestStoriesReadAsWalkthroughDoes(t *testing.T) {
	stories, ws := loadStories(t)
	for i, w := range ws {
		st := stories[i]
		if st.Name != w.Name || st.StepCount() != w.StepCount() {
			t.Fatalf("%s: read as %s with %d steps, want %d", w.Name, st.Name, st.StepCount(), w.StepCount())
		}
		for k := 1; k <= w.StepCount(); k++ {
			_, a := st.Step(k)
			_, b := w.Step(k)
			same := a.ID == b.ID && a.Run == b.Run && a.Narration == b.Narration &&
				slices.Equal(a.Highlight, b.Highlight) && len(a.Facts) == len(b.Facts) &&
				(a.Pause == nil) == (b.Pause == nil) && (a.Question == nil) == (b.Question == nil)
			if same && a.Pause != nil {
				same = a.Pause.Event == b.Pause.Event && a.Pause.Nth == b.Pause.Nth && len(a.Pause.Where) == len(b.Pause.Where)
			}
			if !same {
				t.Errorf("%s step %d: the player reads %+v, web/walkthrough %+v", w.Name, k, a, b)
			}
		}
		for name, r := range w.Runs {
			got := st.Runs[name]
			for sn, src := range r.Sources {
				c := got.Sources[sn].Connector
				if (c == nil) != (src.Connector == nil) || (c != nil && (c.Profile != src.Connector.Profile ||
					!slices.Equal(c.Key, src.Connector.Key) || c.MaxRows != src.Connector.MaxRows ||
					c.MaxInValues != src.Connector.MaxInValues)) {
					t.Errorf("%s run %s source %s: connector %+v, want %+v", w.Name, name, sn, c, src.Connector)
				}
			}
		}
	}
}

// feed runs the request the page posted through the engine natively and hands every message to the page.
func feed(t *testing.T, s *State, req protocol.Request) {
	t.Helper()
	if req.Type != protocol.RequestRun {
		t.Fatalf("posted %s, want a run", req.Type)
	}
	runner.Stream(context.Background(), req.ID, req.Run, func(m protocol.Message) { s.Apply(m) }, nil)
}

// Every step of every walkthrough, played through the page's state against the real engine, states facts
// that hold in the page's own check, and every highlight is drawn and marked.
func TestEveryStepHoldsInThePage(t *testing.T) {
	stories, _ := loadStories(t)
	env := &fakeEnv{}
	s := NewState(env)
	s.Apply(protocol.Message{Type: protocol.MessageReady, Catalogue: runner.Catalogue()})
	w := s.walk()
	w.Stories, w.Loaded = stories, true
	for _, st := range stories {
		for k := 1; k <= st.StepCount(); k++ {
			posted := len(env.posted)
			if k == 1 {
				s.LoadFragment("#" + WalkLink(st.Name, k))
			} else {
				(&Walkthrough{State: s}).Next()
			}
			if env.fragment != WalkLink(st.Name, k) {
				t.Fatalf("%s step %d: fragment %q", st.Name, k, env.fragment)
			}
			for _, req := range env.posted[posted:] {
				if req.Type == protocol.RequestRun {
					feed(t, s, req)
				}
			}
			v := s.WalkView()
			if v == nil || !v.Ready || v.K != k {
				t.Fatalf("%s step %d: not ready (%+v)", st.Name, k, v)
			}
			if v.Missing != "" {
				t.Errorf("%s step %d: %s", st.Name, k, v.Missing)
			}
			if v.Step.Question != nil {
				(&Walkthrough{State: s}).Reveal()
				v = s.WalkView()
			}
			for _, f := range v.Facts() {
				if !f.Holds {
					t.Errorf("%s step %d: %s: %s", st.Name, k, f.Text, f.Why)
				}
			}
			checkFrozen(t, fmt.Sprintf("%s step %d", st.Name, k), s, v)
			html, _ := render(t, s)
			// The view under the step draws the step's run as strategy_chose names its joins: the interval
			// story's sweep under a lookup join is a sweep, the salting trap the salted view with its
			// wrong rows marked.
			if r := s.Run; len(r.Trace.Strategies) > 0 {
				view := r.View()
				if slices.Contains(r.Trace.Strategies, "sweep") && view != protocol.ViewSweep {
					t.Errorf("%s step %d: joins %v drawn by the %s view", st.Name, k, r.Trace.Strategies, view)
				}
				if !strings.Contains(html, `id="view-`+view+`"`) {
					t.Errorf("%s step %d: no %s view drawn", st.Name, k, view)
				}
				naive := slices.Contains(r.Trace.Strategies, "salted_naive_wrong") && strings.Contains(r.Explain, "outer")
				if naive && !strings.Contains(html, `id="salted-wrong-rows"`) {
					t.Errorf("%s step %d: the naive salted outer join's wrong rows are not marked", st.Name, k)
				}
			}
			marks := append(append([]string(nil), v.Step.Highlight...), v.revealList()...)
			for _, h := range marks {
				if !strings.Contains(html, `data-hl="`+escapeAttr(h)+`"`) {
					t.Errorf("%s step %d: highlight %q is not drawn", st.Name, k, h)
				}
			}
		}
	}
}

// checkFrozen checks that the page under a step that pauses shows the run as it stood at the pause point:
// the timeline is at the pause event, and what the views draw is the Fold of the events up to it.
func checkFrozen(t *testing.T, where string, s *State, v *WalkView) {
	t.Helper()
	r := s.Run
	if v.Paused < 0 {
		if !r.AtEnd() {
			t.Errorf("%s pauses nowhere, yet the page shows %d of %d events", where, r.Position(), r.Tape.Len())
		}
		return
	}
	k := r.Position()
	if k == 0 || r.AtEnd() && k != r.Tape.Len() {
		t.Fatalf("%s: the page is at event %d of %d", where, k, r.Tape.Len())
	}
	events := make([]trace.Event, k)
	engine := 0
	for i := range events {
		events[i] = r.Tape.Event(i)
		if !runnerEvent(events[i]) {
			engine++
		}
	}
	if p := v.PausedEvent(); !reflect.DeepEqual(events[k-1].Payload, p.Payload) {
		t.Errorf("%s: the page's last event is %s, the step pauses at %s", where, events[k-1].Kind(), p.Kind())
	}
	if engine != len(v.Events) {
		t.Errorf("%s: the page shows %d engine events, the step %d", where, engine, len(v.Events))
	}
	fresh := Fold(events)
	fresh.Inputs = r.Trace.Inputs
	if !reflect.DeepEqual(r.Trace, fresh) {
		t.Errorf("%s: the views draw something other than the fold of the %d events up to the pause", where, k)
	}
	// A page is drawn for each page fetched, or each window the time-window baseline asked for.
	pages := 0
	for _, e := range v.Events {
		if r, ok := e.Payload.(joinevent.PageRequested); e.Kind() == joinevent.KindPageFetched || ok && r.Phase == "window" {
			pages++
		}
	}
	if len(r.Trace.Paged.Pages) != min(pages, maxPages) {
		t.Errorf("%s: the paged view draws %d pages, %d were fetched up to the pause", where, len(r.Trace.Paged.Pages), pages)
	}
}

func escapeAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", `"`, "&#34;", "<", "&lt;", ">", "&gt;", "'", "&#39;").Replace(s)
}

func TestWalkLinks(t *testing.T) {
	stories, _ := loadStories(t)
	s, env := ready(t)
	// A link that comes before the walkthroughs waits for them.
	s.LoadFragment("#w=grace&step=3")
	if s.Walk.Open != nil || s.Walk.pending == "" {
		t.Fatalf("a link before the walkthroughs arrived was not kept: %+v", s.Walk)
	}
	s.Walk.Stories, s.Walk.Loaded = stories, true
	s.OpenWalkLink(s.Walk.pending)
	if s.Walk.Open == nil || s.Walk.Step != 3 || env.fragment != "w=grace&step=3" {
		t.Fatalf("open %+v, fragment %q", s.Walk, env.fragment)
	}
	if got := walkthrough.Link("grace", 3); got != "#"+WalkLink("grace", 3) {
		t.Errorf("the page writes links as %q, web/walkthrough as %q", WalkLink("grace", 3), got)
	}
	s.CloseWalk()
	if !strings.HasPrefix(env.fragment, "s1.") {
		t.Errorf("after closing, the fragment is %q, want a share link", env.fragment)
	}
	s.OpenWalkLink("w=nosuch&step=1")
	if !strings.Contains(s.Notice, "nosuch") {
		t.Errorf("notice %q", s.Notice)
	}
	s.Notice = ""
	s.OpenWalkLink("w=grace&step=x")
	if s.Notice == "" {
		t.Error("a bad step number says nothing")
	}
}
