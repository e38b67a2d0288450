package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/vugu/vugu"
)

// The walkthrough player. A walkthrough (assets/walkthroughs/NAME.json, validated against the engine by
// web/walkthrough, format in docs/walkthroughs.md) is fetched by the page as a static file. Opening a step
// runs the step's run in the engine's Web Worker like any playground run (the query editor, the strategy
// view and the results show it), records every trace event the engine sends, and once the run is done shows
// the run as it stood at the step's pause point: the paused event, the events up to it, the partitions and
// workers seen so far, the rows, the details and the plan, with the step's highlights marked. Every fact the
// step states is checked again in the page against what this run sent, so a reader sees each one hold.
//
// The page does not import web/walkthrough: it links the engine, which app.wasm must not carry. The types
// below read the same files; web/ui's tests check that they read them as web/walkthrough does.

// WalkIndexPath lists the walkthroughs the player offers, a JSON list of names, beside their directory (not
// in it: every .json file there is a walkthrough). A static server lists no directories; a test checks the
// list names exactly the files in assets/walkthroughs.
const (
	WalkIndexPath = "walkthroughs.json"
	walkDir       = "walkthroughs/"
)

// walkTraceShown is how many events before the pause point the player lists: enough to see what led to it.
const walkTraceShown = 8

// walkRowsShown is how many result rows the player's table shows; the results tab below has them all.
const walkRowsShown = 12

// Fetcher is what the player needs from the browser to read the walkthroughs: the body of a file of the site,
// by its path relative to the page. It blocks, so it is called from a goroutine. wasm/app's Env implements it.
type Fetcher interface {
	Fetch(path string) ([]byte, error)
}

// Story is one walkthrough file as the player reads it.
type Story struct {
	Name     string               `json:"name"`
	Title    string               `json:"title"`
	Document string               `json:"document"`
	Summary  string               `json:"summary"`
	Runs     map[string]*StoryRun `json:"runs"`
	Chapters []*StoryChapter      `json:"chapters"`
}

// StoryRun is an engine run that steps pause in.
type StoryRun struct {
	Query        string                  `json:"query"`
	Sources      map[string]*StorySource `json:"sources"`
	Scenario     string                  `json:"scenario"`
	Seed         uint64                  `json:"seed"`
	Knobs        map[string]float64      `json:"knobs"`
	MemoryBudget int64                   `json:"memory_budget"`
}

// StorySource is an inline table, optionally behind a simulated connector.
type StorySource struct {
	Format string   `json:"format"`
	Lines  []string `json:"lines"`
	// Connector is the simulated API the table sits behind, passed to the engine as it is written.
	Connector *protocol.Connector `json:"connector"`
}

// StoryChapter is a titled run of steps.
type StoryChapter struct {
	Title string       `json:"title"`
	Steps []*StoryStep `json:"steps"`
}

// StoryStep is one engine state with its narration.
type StoryStep struct {
	ID        string           `json:"id"`
	Title     string           `json:"title"`
	Narration string           `json:"narration"`
	Run       string           `json:"run"`
	Pause     *StoryPause      `json:"pause"`
	Highlight []string         `json:"highlight"`
	Question  *StoryQuestion   `json:"question"`
	Facts     []map[string]any `json:"facts"`
}

// StoryPause selects the Nth event of a kind whose attributes include Where.
type StoryPause struct {
	Event string         `json:"event"`
	Nth   int            `json:"nth"`
	Where map[string]any `json:"where"`
}

// StoryQuestion is a "predict, then reveal" question.
type StoryQuestion struct {
	Prompt  string           `json:"prompt"`
	Choices []string         `json:"choices"`
	Correct *int             `json:"correct"`
	Answer  string           `json:"answer"`
	Facts   []map[string]any `json:"facts"`
	Reveal  []string         `json:"reveal"`
}

// ParseStory reads one walkthrough file. Numbers stay json.Number, as web/walkthrough compares them.
func ParseStory(data []byte) (*Story, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var s Story
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	if s.Name == "" || len(s.Chapters) == 0 {
		return nil, fmt.Errorf("not a walkthrough (no name or no chapters)")
	}
	return &s, nil
}

// StepCount is the number of steps across chapters.
func (s *Story) StepCount() int {
	n := 0
	for _, c := range s.Chapters {
		n += len(c.Steps)
	}
	return n
}

// Step returns step k (from 1, across chapters) and its chapter, or nils.
func (s *Story) Step(k int) (*StoryChapter, *StoryStep) {
	for _, c := range s.Chapters {
		if k >= 1 && k <= len(c.Steps) {
			return c, c.Steps[k-1]
		}
		k -= len(c.Steps)
	}
	return nil, nil
}

// WalkLink is the fragment (without '#') that opens step k of the named walkthrough, as web/walkthrough.Link
// writes it.
func WalkLink(name string, k int) string { return fmt.Sprintf("w=%s&step=%d", name, k) }

// IsWalkLink reports whether a fragment is a walkthrough link rather than a share link ("s1.…").
func IsWalkLink(fragment string) bool {
	return strings.HasPrefix(strings.TrimPrefix(fragment, "#"), "w=")
}

// parseWalkLink reads #w=NAME&step=K; a missing step is step 1.
func parseWalkLink(fragment string) (string, int, error) {
	name, step := "", 1
	for _, part := range strings.Split(strings.TrimPrefix(fragment, "#"), "&") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "w":
			name = v
		case "step":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return "", 0, fmt.Errorf("step %q is not a step number", v)
			}
			step = n
		}
	}
	if name == "" {
		return "", 0, fmt.Errorf("no walkthrough name")
	}
	return name, step, nil
}

// Walk is the player's state, kept in State.Walk.
type Walk struct {
	// Stories are the walkthroughs fetched so far, in the index's order; LoadError says why none came.
	Stories   []*Story
	Loaded    bool
	LoadError string
	// Open is the walkthrough shown (nil: the player shows only its picker); Step counts from 1.
	Open *Story
	Step int
	// Picked is the choice the learner predicted (-1: none yet); Revealed shows the answer.
	Picked   int
	Revealed bool

	// runKey is the walkthrough and run the current engine run belongs to ("grace/figure"); runID its ID.
	runKey string
	runID  int
	// events are the engine's events of that run, as sent, less those the runner adds (scan_rows and the
	// rows it delivers): a step's pause point counts the engine's own events, as web/walkthrough does.
	events []trace.Event
	// pending is a #w= link that came before the walkthroughs did.
	pending string
	ee      vugu.EventEnv
}

// observe keeps the events of the walkthrough's run. It is called for every message the engine sends.
func (w *Walk) observe(m protocol.Message) {
	if w == nil || w.runID == 0 || m.ID != w.runID || m.Type != protocol.MessageBatch {
		return
	}
	for _, e := range m.Events {
		if runnerEvent(e) {
			continue
		}
		w.events = append(w.events, e)
	}
}

// Story returns the fetched walkthrough of that name, or nil.
func (w *Walk) Story(name string) *Story {
	for _, s := range w.Stories {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// walk returns the player's state, made on first use.
func (s *State) walk() *Walk {
	if s.Walk == nil {
		s.Walk = &Walk{Picked: -1}
	}
	return s.Walk
}

// LoadWalkthroughs fetches the index and every walkthrough it names, in a goroutine, and hands them to the
// page under the render lock. Without a Fetcher (native tests) it does nothing.
func (s *State) LoadWalkthroughs(ee vugu.EventEnv) {
	w := s.walk()
	f, ok := s.Env.(Fetcher)
	if !ok || w.ee != nil {
		return
	}
	w.ee = ee
	go func() {
		stories, err := fetchStories(f)
		ee.Lock()
		w.Stories, w.Loaded = stories, true
		if err != nil {
			w.LoadError = err.Error()
		}
		if p := w.pending; p != "" {
			w.pending = ""
			s.OpenWalkLink(p)
		}
		s.Dirty = true
		ee.UnlockRender()
	}()
}

func fetchStories(f Fetcher) ([]*Story, error) {
	index, err := f.Fetch(WalkIndexPath)
	if err != nil {
		return nil, fmt.Errorf("walkthroughs: %w", err)
	}
	var names []string
	if err := json.Unmarshal(index, &names); err != nil {
		return nil, fmt.Errorf("walkthroughs: %s: %w", WalkIndexPath, err)
	}
	var out []*Story
	for _, name := range names {
		data, err := f.Fetch(walkDir + name + ".json")
		if err != nil {
			return out, fmt.Errorf("walkthrough %s: %w", name, err)
		}
		st, err := ParseStory(data)
		if err != nil {
			return out, fmt.Errorf("walkthrough %s: %w", name, err)
		}
		out = append(out, st)
	}
	return out, nil
}

// OpenWalkLink opens the step a #w=NAME&step=K link names. A link that arrives before the walkthroughs is
// kept and opened when they come; one naming nothing says so in Notice.
func (s *State) OpenWalkLink(fragment string) {
	w := s.walk()
	if !w.Loaded {
		w.pending = fragment
		return
	}
	name, k, err := parseWalkLink(fragment)
	if err != nil {
		s.Notice = "This walkthrough link could not be opened (" + err.Error() + ")."
		return
	}
	st := w.Story(name)
	if st == nil {
		s.Notice = fmt.Sprintf("This link names the walkthrough %q, which this playground does not have.", name)
		return
	}
	if k > st.StepCount() {
		s.Notice = fmt.Sprintf("The walkthrough %q has %d steps; showing step 1 instead of %d.", name, st.StepCount(), k)
		k = 1
	}
	s.OpenWalkStep(name, k)
}

// OpenWalkStep shows step k of the named walkthrough, starting its run in the engine unless the current run
// is already that one.
func (s *State) OpenWalkStep(name string, k int) {
	w := s.walk()
	st := w.Story(name)
	if st == nil {
		return
	}
	_, step := st.Step(k)
	if step == nil {
		return
	}
	w.Open, w.Step, w.Picked, w.Revealed = st, k, -1, false
	key := name + "/" + step.Run
	if key != w.runKey || s.Run == nil || s.Run.ID != w.runID || s.Run.Status == StatusCanceled {
		s.startWalkRun(key, st.Runs[step.Run])
	}
	s.freezeWalk()
	s.saveFragment()
}

// startWalkRun puts the run's settings in the page (so the editor shows its query) and runs it.
func (s *State) startWalkRun(key string, r *StoryRun) {
	w := s.walk()
	if r == nil || s.Loading {
		return
	}
	s.Query, s.Scenario, s.Seed, s.MemoryBudget, s.Strategy = r.Query, r.Scenario, r.Seed, r.MemoryBudget, ""
	s.Knobs = map[string]float64{}
	if sc := s.ScenarioInfo(); sc != nil {
		for _, kn := range sc.Knobs {
			s.Knobs[kn.Name] = kn.Default
		}
		if s.Query == "" {
			s.Query = sc.Query
		}
	}
	for k, v := range r.Knobs {
		s.Knobs[k] = v
	}
	if r.Scenario == "" {
		s.keepOwnTables()
		s.Tables = nil
		for _, name := range sortedNames(r.Sources) {
			src := r.Sources[name]
			s.Tables = append(s.Tables, Table{Name: name, Format: src.Format, Data: strings.Join(src.Lines, "\n") + "\n",
				Connector: src.Connector})
		}
	}
	s.StartRun()
	w.runKey, w.runID, w.events = key, s.runID, nil
}

// CloseWalk leaves the walkthrough; the last run stays on the page as a playground run.
func (s *State) CloseWalk() {
	s.restoreOwnTables()
	if s.Walk != nil {
		s.Walk.Open = nil
	}
	if s.Run != nil {
		s.Run.FollowLive() // no longer frozen at a step: the whole run
	}
	s.saveFragment()
}

// walkFragment is the fragment while a walkthrough is open, else "".
func (s *State) walkFragment() string {
	if w := s.Walk; w != nil && w.Open != nil {
		return WalkLink(w.Open.Name, w.Step)
	}
	return ""
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// WalkView is a step as the player shows it, computed from State for one render.
type WalkView struct {
	Story   *Story
	Chapter *StoryChapter
	Step    *StoryStep
	K, N    int
	// Ready is set when the run is done and its events are in; Failed when it ended in an error. Stale is set
	// when the page's current run is another (the user ran something else, or the engine was still loading).
	Ready, Failed, Stale bool
	// Paused is the index of the pause event in Events, -1 at the end of the run; Missing says why a pause
	// point was not found.
	Paused  int
	Missing string
	Events  []trace.Event // up to the pause point
	All     []trace.Event
	// Revealed: the question's answer is shown, with its highlights and facts.
	Revealed bool
	marked   map[string]bool
	run      *Run
	source   *StoryRun
}

// WalkView computes the open step's view, or nil when no walkthrough is open.
func (s *State) WalkView() *WalkView {
	w := s.Walk
	if w == nil || w.Open == nil {
		return nil
	}
	ch, step := w.Open.Step(w.Step)
	v := &WalkView{Story: w.Open, Chapter: ch, Step: step, K: w.Step, N: w.Open.StepCount(), Paused: -1,
		marked: map[string]bool{}, source: w.Open.Runs[step.Run]}
	for _, h := range step.Highlight {
		v.marked[h] = true
	}
	v.Revealed = w.Revealed && step.Question != nil
	if v.Revealed {
		for _, h := range step.Question.Reveal {
			v.marked[h] = true
		}
	}
	r := s.Run
	if r == nil || r.ID != w.runID {
		v.Stale = true
		return v
	}
	if r.Status == StatusRunning {
		return v
	}
	v.run, v.Ready, v.Failed, v.All, v.Events = r, true, r.Status != StatusDone, w.events, w.events
	if p := step.Pause; p != nil {
		i, err := findPause(w.events, p)
		if err != nil {
			v.Missing = err.Error()
		} else {
			v.Paused, v.Events = i, w.events[:i+1]
		}
	}
	return v
}

// findPause mirrors web/walkthrough: the Nth event of the kind whose attributes include Where.
func findPause(events []trace.Event, p *StoryPause) (int, error) {
	nth := max(p.Nth, 1)
	seen := 0
	for i, e := range events {
		if string(e.Kind()) != p.Event {
			continue
		}
		if ok := matches(map[string]any(p.Where), eventFields(e)); ok {
			if seen++; seen == nth {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("the run sent %d %s event(s) of that form, not %d", seen, p.Event, nth)
}

// Mark is the class of an element the step names: "hl" when highlighted.
func (v *WalkView) Mark(h string) string {
	if v.marked[h] {
		return "hl"
	}
	return ""
}

// Cls is base, with "hl" added when h is highlighted.
func (v *WalkView) Cls(base, h string) string {
	if v.marked[h] {
		return base + " hl"
	}
	return base
}

// PausedEvent is the event the step stops at, or nil.
func (v *WalkView) PausedEvent() *trace.Event {
	if v.Paused < 0 {
		return nil
	}
	return &v.All[v.Paused]
}

// PauseText says where the run stands.
func (v *WalkView) PauseText() string {
	if v.Missing != "" {
		return "The pause point was not found in this run: " + v.Missing
	}
	if e := v.PausedEvent(); e != nil {
		return fmt.Sprintf("Paused at event %d of %d: %s", v.Paused+1, len(v.All), e.Kind())
	}
	return fmt.Sprintf("At the end of the run (%d events)", len(v.All))
}

// Attr is one named figure, for a list.
type Attr struct{ Name, Value string }

// TraceTail is the last few events up to the pause point, each with its number and, on a virtual clock,
// its time, told as sentences (eventSentence).
func (v *WalkView) TraceTail() []string {
	lo := max(0, len(v.Events)-walkTraceShown)
	var out []string
	for i := lo; i < len(v.Events); i++ {
		e := v.Events[i]
		line := fmt.Sprintf("%d. %s", i+1, eventSentence(e))
		if e.At > 0 { // the walkthrough's events are the engine's own: their time is the virtual clock
			line = fmt.Sprintf("%d. At %s of virtual time: %s", i+1, fullDuration(e.At), eventSentence(e))
		}
		out = append(out, line)
	}
	return out
}

// Span is a piece of the query text; Key is the highlight it is, or "".
type Span struct{ Text, Key string }

// QuerySpans cuts the query around the step's query:TEXT highlights (the first occurrence of each).
func (v *WalkView) QuerySpans() []Span {
	text := v.queryText()
	type cut struct {
		at, end int
		key     string
	}
	var cuts []cut
	for _, h := range append(append([]string(nil), v.Step.Highlight...), v.revealList()...) {
		if t, ok := strings.CutPrefix(h, "query:"); ok && t != "" {
			if i := strings.Index(text, t); i >= 0 {
				cuts = append(cuts, cut{i, i + len(t), h})
			}
		}
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].at < cuts[j].at })
	var out []Span
	pos := 0
	for _, c := range cuts {
		if c.at < pos {
			continue // overlapping highlights: the first one wins
		}
		out = append(out, Span{text[pos:c.at], ""}, Span{text[c.at:c.end], c.key})
		pos = c.end
	}
	return append(out, Span{text[pos:], ""})
}

func (v *WalkView) queryText() string {
	if v.source != nil && v.source.Query != "" {
		return v.source.Query
	}
	if v.run != nil {
		return "" // a scenario's own query: the editor above shows it
	}
	return ""
}

func (v *WalkView) revealList() []string {
	if q := v.Step.Question; q != nil {
		return q.Reveal
	}
	return nil
}

// SourceTable is an inline source as the player draws it.
type SourceTable struct {
	Name   string
	Header []string
	Rows   [][]string
}

// Sources are the run's inline tables, rows split into cells (CSV) or kept whole (JSON lines).
func (v *WalkView) Sources() []SourceTable {
	if v.source == nil {
		return nil
	}
	var out []SourceTable
	for _, name := range sortedNames(v.source.Sources) {
		src := v.source.Sources[name]
		t := SourceTable{Name: name}
		lines := src.Lines
		if src.Format == "csv" && len(lines) > 0 {
			t.Header, lines = strings.Split(lines[0], ","), lines[1:]
		}
		for _, l := range lines {
			if src.Format == "csv" {
				t.Rows = append(t.Rows, strings.Split(l, ","))
			} else {
				t.Rows = append(t.Rows, []string{l})
			}
		}
		out = append(out, t)
	}
	return out
}

// Chip is a partition or worker seen up to the pause point.
type Chip struct{ Key, Text string }

// Partitions are the Grace partitions written up to the pause point (partition_written events).
func (v *WalkView) Partitions() []Chip {
	var out []Chip
	seen := map[string]bool{}
	for _, e := range v.Events {
		p, ok := e.Payload.(joinevent.PartitionWritten)
		if !ok {
			continue
		}
		key := fmt.Sprintf("partition:%s:%s", p.Side, p.Partition)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Chip{key, fmt.Sprintf("%s partition %s: %d rows", p.Side, p.Partition, p.Rows)})
	}
	return out
}

// Workers are the salted join's workers reported up to the pause point (worker_load events).
func (v *WalkView) Workers() []Chip {
	var out []Chip
	for _, e := range v.Events {
		p, ok := e.Payload.(joinevent.WorkerLoad)
		if !ok {
			continue
		}
		// Every figure of the worker's, by the names the trace writes them.
		fields := trace.Attrs(p)
		var parts []string
		for _, k := range sortedNames(fields) {
			if k != "worker" {
				parts = append(parts, k+"="+compact(fields[k]))
			}
		}
		w := strconv.Itoa(p.Worker)
		out = append(out, Chip{"worker:" + w, "worker " + w + ": " + strings.Join(parts, " ")})
	}
	return out
}

// Columns are the result's columns.
func (v *WalkView) Columns() []string {
	if v.run == nil {
		return nil
	}
	return v.run.Columns
}

// ResultRows are the first rows of the whole result: the step's facts and highlights speak of the run's
// answer. Those delivered after the pause point are marked as later (ResultClass).
func (v *WalkView) ResultRows() [][]string {
	if v.run == nil {
		return nil
	}
	return v.run.Rows.Slice(0, min(v.run.Rows.Len(), walkRowsShown), len(v.run.Columns))
}

// shownRows is how many rows the run had delivered at the pause point (all of them for a step with none).
func (v *WalkView) shownRows() int {
	if v.Paused < 0 {
		return v.run.Rows.Len()
	}
	return v.run.RowsShown()
}

// ResultClass is result row i's class: highlighted or not, and "later" when the run delivered it after the
// pause point.
func (v *WalkView) ResultClass(i int, key string) string {
	c := v.Mark(key)
	if v.run != nil && i >= v.shownRows() {
		c = strings.TrimSpace(c + " later")
	}
	return c
}

// ResultText says how many rows the run output, up to the pause point and in all.
func (v *WalkView) ResultText() string {
	if v.run == nil {
		return ""
	}
	if v.Failed {
		if v.run.Err != nil {
			return "The run failed: " + v.run.Err.Message
		}
		return "The run did not finish."
	}
	n := statsRows(v.run)
	text := fmt.Sprintf("The run output %s rows", count(n))
	if v.Paused >= 0 {
		text = fmt.Sprintf("Up to the pause point the run had delivered %s rows; the whole run output %s (rows delivered later are greyed)",
			count(int64(v.shownRows())), count(n))
	}
	if n > walkRowsShown {
		text += fmt.Sprintf(" (the first %d shown; the Results tab has them all)", walkRowsShown)
	}
	return text + "."
}

// Details lists the run's stats details the step speaks of (highlighted or in a fact), with their values.
func (v *WalkView) Details() []Attr {
	if v.run == nil || v.run.Stats == nil {
		return nil
	}
	want := map[string]bool{}
	for _, h := range append(append([]string(nil), v.Step.Highlight...), v.revealList()...) {
		if k, ok := strings.CutPrefix(h, "detail:"); ok {
			want[k] = true
		}
	}
	for _, f := range v.allFacts() {
		if k, ok := f["detail"].(string); ok {
			want[k] = true
		}
	}
	var out []Attr
	for _, k := range sortedNames(want) {
		if val, ok := v.run.Stats.Details[k]; ok {
			text := compact(val)
			if _, ok := toFloat(val); ok {
				text = figureText(k, val)
			}
			out = append(out, Attr{k, text})
		}
	}
	return out
}

// ShowExplain says whether the step speaks of the plan.
func (v *WalkView) ShowExplain() bool {
	if v.run == nil || v.run.Explain == "" {
		return false
	}
	if v.marked["explain"] {
		return true
	}
	for _, f := range v.allFacts() {
		if _, ok := f["explain_contains"]; ok {
			return true
		}
	}
	return false
}

// Explain is the run's plan.
func (v *WalkView) Explain() string {
	if v.run == nil {
		return ""
	}
	return v.run.Explain
}

func (v *WalkView) allFacts() []map[string]any {
	facts := v.Step.Facts
	if q := v.Step.Question; q != nil && v.Revealed {
		facts = append(append([]map[string]any(nil), facts...), q.Facts...)
	}
	return facts
}

// FactView is one stated fact as the page checked it against this run.
type FactView struct {
	Text  string
	Holds bool
	Why   string
}

// Facts checks each of the step's facts against what the engine sent for this run (the question's facts
// too, once revealed).
func (v *WalkView) Facts() []FactView {
	var out []FactView
	for _, f := range v.allFacts() {
		why := v.check(f)
		out = append(out, FactView{Text: factSentence(f), Holds: why == "", Why: why})
	}
	return out
}

// check returns "" when the fact holds, else what the run showed instead. Result rows arrive as display text,
// so a fact's value compares with a cell as text (numbers by value).
func (v *WalkView) check(f map[string]any) string {
	if !v.Ready {
		return "the run has not finished"
	}
	r := v.run
	switch {
	case f["event"] != nil:
		want := map[string]any{}
		for k, val := range f {
			if k != "event" && k != "count" && k != "scope" && k != "op" {
				want[k] = val
			}
		}
		events := v.Events
		if f["scope"] == "run" {
			events = v.All
		}
		n := 0
		for _, e := range events {
			if string(e.Kind()) != f["event"] {
				continue
			}
			if op, ok := f["op"]; ok && op != e.Op {
				continue
			}
			if matches(want, eventFields(e)) {
				n++
			}
		}
		return countWhy(f, n, "matching events")
	case f["paused"] != nil:
		e := v.PausedEvent()
		if e == nil {
			return "no pause point"
		}
		if fields := eventFields(*e); !matches(f["paused"], fields) {
			return "the paused event has " + compact(fields)
		}
	case f["rows"] != nil:
		if want := compact(f["rows"]); want != strconv.FormatInt(statsRows(r), 10) {
			return fmt.Sprintf("the run output %d rows", statsRows(r))
		}
	case f["row"] != nil:
		n := 0
		for i := 0; i < r.Rows.Len(); i++ {
			if rowMatches(f["row"], r.Columns, r.Rows.Row(i, len(r.Columns))) {
				n++
			}
		}
		return countWhy(f, n, "matching rows")
	case f["result_prefix"] != nil:
		want, _ := f["result_prefix"].([]any)
		for i, w := range want {
			if i >= r.Rows.Len() || !rowMatches(w, r.Columns, r.Rows.Row(i, len(r.Columns))) {
				return fmt.Sprintf("result row %d differs", i+1)
			}
		}
	case f["columns"] != nil:
		if compact(f["columns"]) != compact(r.Columns) {
			return "the columns are " + compact(r.Columns)
		}
	case f["detail"] != nil:
		key, _ := f["detail"].(string)
		if r.Stats == nil {
			return "no stats"
		}
		got, ok := r.Stats.Details[key]
		if !ok {
			return "no such detail"
		}
		if want, ok := f["equals"]; ok && !matches(want, normaliseValue(got)) {
			return "it is " + compact(got)
		}
	case f["explain_contains"] != nil:
		if t, _ := f["explain_contains"].(string); !strings.Contains(r.Explain, t) {
			return "the plan does not say so"
		}
	case f["error_contains"] != nil:
		t, _ := f["error_contains"].(string)
		if r.Err == nil || !strings.Contains(r.Err.Message, t) {
			return "the run did not fail so"
		}
	default:
		return "a fact the page does not know how to check"
	}
	return ""
}

func countWhy(f map[string]any, n int, what string) string {
	if c, ok := f["count"]; ok {
		if compact(c) != strconv.Itoa(n) {
			return fmt.Sprintf("%d %s", n, what)
		}
		return ""
	}
	if n == 0 {
		return "no " + what
	}
	return ""
}

// rowMatches compares a fact's row object with a displayed row: each named column's cell, as text.
func rowMatches(want any, columns []string, row []string) bool {
	w, ok := want.(map[string]any)
	if !ok {
		return false
	}
	for k, val := range w {
		i := indexOf(columns, k)
		if i < 0 || i >= len(row) || !cellMatches(val, row[i]) {
			return false
		}
	}
	return true
}

func cellMatches(want any, cell string) bool {
	switch w := want.(type) {
	case nil:
		return cell == ""
	case string:
		return w == cell
	case bool:
		return strconv.FormatBool(w) == cell
	case json.Number:
		return sameNumber(w, json.Number(cell))
	}
	return compact(want) == cell
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// eventFields is an event's payload as a generic object, through JSON like a script's patterns: its fields by
// their json names, for matching a pause or a fact against it.
func eventFields(e trace.Event) map[string]any {
	out, _ := normaliseValue(e.Payload).(map[string]any)
	return out
}

func normaliseValue(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}

// matches mirrors web/walkthrough: equal scalars (numbers by value), lists element by element, objects by the
// keys want lists.
func matches(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, present := g[k]
			if !present || !matches(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !matches(w[i], g[i]) {
				return false
			}
		}
		return true
	case json.Number:
		g, ok := got.(json.Number)
		return ok && sameNumber(w, g)
	}
	return want == got
}

func sameNumber(a, b json.Number) bool {
	x, ok1 := new(big.Rat).SetString(a.String())
	y, ok2 := new(big.Rat).SetString(b.String())
	return ok1 && ok2 && x.Cmp(y) == 0
}

func compact(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// Walkthrough is the walkthrough player: a picker, then the open step.
type Walkthrough struct {
	State *State

	// view and facts are computed once per build (Compute), since many bindings read them.
	view  *WalkView
	facts []FactView
}

// Compute prepares the open step's view for this build.
func (c *Walkthrough) Compute() {
	c.view, c.facts = c.State.WalkView(), nil
	if c.view != nil {
		c.facts = c.view.Facts()
	}
}

// Init starts fetching the walkthroughs; the event environment lets the fetch hand them over under the
// render lock.
func (c *Walkthrough) Init(ctx vugu.InitCtx) { c.State.LoadWalkthroughs(ctx.EventEnv()) }

func (c *Walkthrough) W() *Walk             { return c.State.walk() }
func (c *Walkthrough) V() *WalkView         { return c.view }
func (c *Walkthrough) FactList() []FactView { return c.facts }
func (c *Walkthrough) Stories() []*Story    { return c.State.walk().Stories }

// Pick opens step 1 of the walkthrough chosen in the picker ("" closes the player).
func (c *Walkthrough) Pick(e vugu.DOMEvent) {
	name := e.PropString("target", "value")
	if name == "" {
		c.State.CloseWalk()
		return
	}
	c.State.OpenWalkStep(name, 1)
}

func (c *Walkthrough) Selected(name string) bool {
	w := c.State.walk()
	return w.Open != nil && w.Open.Name == name
}

func (c *Walkthrough) Next() {
	w := c.W()
	if w.Open != nil && w.Step < w.Open.StepCount() {
		c.State.OpenWalkStep(w.Open.Name, w.Step+1)
	}
}

func (c *Walkthrough) Back() {
	w := c.W()
	if w.Open != nil && w.Step > 1 {
		c.State.OpenWalkStep(w.Open.Name, w.Step-1)
	}
}

// Rerun runs the open step's run again, after the page ran something else.
func (c *Walkthrough) Rerun() {
	if w := c.W(); w.Open != nil {
		w.runKey = ""
		c.State.OpenWalkStep(w.Open.Name, w.Step)
	}
}

func (c *Walkthrough) Choose(i int) { c.W().Picked = i }
func (c *Walkthrough) Reveal()      { c.W().Revealed = true }

// Href is the link to the open step.
func (c *Walkthrough) Href() string { return "#" + c.State.walkFragment() }

func (c *Walkthrough) StepText(v *WalkView) string {
	return fmt.Sprintf("Step %d of %d · %s", v.K, v.N, v.Chapter.Title)
}

func (c *Walkthrough) ChoiceClass(i int) string {
	w := c.W()
	q := c.V().Step.Question
	switch {
	case w.Revealed && q.Correct != nil && *q.Correct == i:
		return "choice right"
	case w.Revealed && w.Picked == i:
		return "choice wrong"
	case w.Picked == i:
		return "choice picked"
	}
	return "choice"
}

func (c *Walkthrough) VerdictText() string {
	w := c.W()
	q := c.V().Step.Question
	if q.Correct == nil || w.Picked < 0 {
		return ""
	}
	if w.Picked == *q.Correct {
		return "Your prediction was right."
	}
	return "Not quite: the right answer is marked."
}

func (c *Walkthrough) HoldsText(f FactView) string {
	if f.Holds {
		return "✓ " + f.Text
	}
	return "✗ " + f.Text + " — " + f.Why
}

func (c *Walkthrough) RowKey(name string, i int) string {
	return fmt.Sprintf("source:%s:%d", name, i+1)
}
func (c *Walkthrough) ResultKey(i int) string { return fmt.Sprintf("result:%d", i+1) }
func (c *Walkthrough) Bool(b bool) string     { return strconv.FormatBool(b) }

func (c *Walkthrough) Itoa(i int) string { return strconv.Itoa(i) }
