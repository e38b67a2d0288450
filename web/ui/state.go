// Package ui is the playground's user interface: Vugu components (.vugu files, with their generated
// *_gen.go) and State, the one place they read. The components hold no state of their own beyond what a
// render needs; everything a user sets or a run produces lives in State, changed only by its methods.
//
// Wiring happens once, in wasm/app: it makes a State with an Env (the Web Worker and the browser's URL),
// feeds the engine's messages to State.ApplyNext a piece at a time (receive.go) from a goroutine under Vugu's
// render lock, and asks for a render at most RenderEvery. The package has no syscall/js, so its components are tested natively with
// Vugu's static renderer.
package ui

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// RenderEvery is the shortest time between two renders asked for by streamed results. A Vugu v0.4.0 render
// rebuilds and re-sends the whole tree, some 300 elements here, which costs the page 10–30 ms of its only
// thread however little changed; at 30 renders a second a 5-million-row run left the page too few frames and
// its timers a tenth of a second late. Ten a second keep the numbers moving and half the thread free. Clicks
// and other events render at once, without waiting for this.
const RenderEvery = 100 * time.Millisecond

// Env is what State needs from the browser. wasm/app implements it with syscall/js; tests with a fake.
type Env interface {
	// Post sends a request to the engine's Web Worker.
	Post(protocol.Request)
	// SetFragment replaces the URL's fragment (without '#'), leaving no history entry.
	SetFragment(string)
	// CopyText puts text on the clipboard.
	CopyText(string)
	// Location is the page's URL without its fragment.
	Location() string
}

// Run statuses.
const (
	StatusRunning  = "running"
	StatusDone     = "done"
	StatusFailed   = "failed"
	StatusCanceled = "canceled"
)

// OwnScenario is the picker's entry for the user's own tables.
const OwnScenario = ""

// Table is one of the user's own tables. Its bytes live in the engine's worker, which parsed them: the
// page keeps a handle (ID), where they came from, and what the engine said about them (tables.go).
type Table struct {
	// ID is the engine's handle for the table; 0 for a walkthrough's inline source, which is sent as Data.
	ID     int
	Name   string
	Format string // "jsonl" or "csv"
	// File is the name of the file the table came from ("" for a paste or a share link's table).
	File string
	// Size is the bytes' length; Read how many the engine has parsed so far.
	Size, Read int64
	// Progress folds the engine's progress messages for the table's current parse, each as Read over Size.
	Progress ProgressFold
	// Status is TableLoading, TableReady, TableFailed or TableMissing.
	Status  string
	Summary *protocol.Summary
	// Err is the engine's parse error, with its line.
	Err *protocol.Error
	// NameErr says why the last rename was refused.
	NameErr string
	// Data is a walkthrough source's text (ID 0), or a small table's text as the engine sent it back
	// (Summary.Text), which a share link may carry.
	Data string
	// Connector puts the table behind a simulated API (a walkthrough's sources); nil for the user's own.
	Connector *protocol.Connector
}

// State is everything the page shows.
type State struct {
	Env Env

	// What the user set; the share link carries these.
	Query    string
	Scenario string
	Knobs    map[string]float64
	Seed     uint64
	// MemoryBudget in bytes; 0 is the scenario's or the engine's default.
	MemoryBudget int64
	Strategy     string
	Tables       []Table
	// Speed plays the picture of the next run back at this much trace time per wall time (0: as it comes);
	// PausedAt, set by a share link, holds the next run at that batch (playback.go).
	Speed    float64
	PausedAt int
	// AtEvent, set by a share link, is the timeline position (events shown) the next run opens at.
	AtEvent int

	// Comparing runs every query twice, the second time under CompareStrategy ("" the planner's choice),
	// into CompareRun; Diff is the two runs' rows compared once both are over (compare.go).
	Comparing       bool
	CompareStrategy string
	CompareRun      *Run
	Diff            *RowDiff

	// Loading is true until the engine posts ready; LoadError says why it never will.
	Loading   bool
	LoadError string
	Catalogue protocol.Catalogue
	// Notice is a message about the page itself, such as a share link that could not be read.
	Notice string

	Run   *Run
	runID int

	// Tab is the lower panel shown: "results", "explain" or "trace".
	Tab string
	// ScrollTop is the results table's scroll offset in pixels, which picks the rows in the DOM.
	ScrollTop float64
	// Copied is shown after the share link went to the clipboard.
	Copied bool
	// Pokes counts presses of the view's "mark" button; the browser test presses it mid-run to prove the
	// page answers while the engine works.
	Pokes int

	// Dirty is set by Receive: something changed that the next throttled render should show.
	Dirty bool

	// Walk is the walkthrough player's state (walkthrough.go); nil until the player starts.
	Walk *Walk

	// Opened is the share link the page opened, shown until its first run (openlink.go); Short the
	// short-link button's state (shortlink.go). Both nil until used.
	Opened *OpenedLink
	Short  *ShortLink

	// tableID is the last table handle given out.
	tableID int
	// ownTables are the user's tables while a walkthrough's inline sources take their place; the engine
	// still holds them, and CloseWalk puts them back.
	ownTables []Table
	// lastRun is the request of the current run, which a download runs again.
	lastRun *protocol.Run
	// downloadID numbers downloads; Downloading is the format of the one under way, DownloadNote what became
	// of the last, and DownloadBytes its size once saved.
	downloadID    int
	Downloading   string
	DownloadNote  string
	DownloadBytes int64
}

// Run is one run's results as they arrive.
type Run struct {
	ID      int
	Status  string
	Columns []string
	Rows    RowStore
	Inputs  map[string]int64
	Explain string
	// Arbitrary is set when the query takes rows with no sort before the take (the engine's started message
	// says so): which rows come out is the strategy's choice.
	Arbitrary bool
	// Strategy is the join strategy: the one the run asked for until the engine's strategy_chose names the
	// first join's.
	Strategy string
	// ViewName is the view that draws the run and Drawn the join it draws, as the engine's started message
	// names them ("" before it comes): see View.
	ViewName, Drawn string
	Stats           *protocol.Stats
	Err             *protocol.Error
	// Paused is set while the engine holds the run (after the batch it was posting); Step lets one more through.
	Paused bool
	// Batches counts the batch messages received; PauseAfter, when positive, is the batch the engine holds
	// the run at (a share link's paused step); HeldAt is the batch count of the engine's last held message.
	Batches, PauseAfter, HeldAt int
	Started                     time.Time
	// FirstRow and Finished are wall time since Started; zero until they happen.
	FirstRow, Finished time.Duration
	// Progress folds the share of the input rows read (readShare, before the bar caps it at 1) after each
	// batch, over every event so far whatever the timeline shows.
	Progress ProgressFold
	// Trace is the run as the page shows it: the fold of its events up to the timeline's position
	// (timeline.go), which is every event so far unless someone scrubbed, played or opened a step. Tape keeps
	// the events and their fold as they came (Tape.Live), Timeline the position.
	Trace    *TraceView
	Tape     *Tape
	Timeline TimelinePos
	// order checks the run's messages come as the protocol says; one out of order is shown, not applied.
	order protocol.Order
	// wrong caches the salted teaching variant's wrong rows (wrongrows.go).
	wrong *WrongRows
}

// NewState returns a State waiting for the engine, with the playground's starting query and tables.
func NewState(env Env) *State {
	s := &State{Env: env, Loading: true, Tab: "results", Seed: 1, Knobs: map[string]float64{}}
	s.Query = defaultOwnQuery
	return s
}

const defaultOwnQuery = "@Users | join kind=inner (@Listens) on user_id | project name, song_id"

// defaultTables are the playground's starting tables, handed to the engine once it is ready.
var defaultTables = []struct{ Name, Format, Data string }{
	{Name: "Users", Format: "jsonl", Data: `{"user_id": 7, "name": "Mickey"}
{"user_id": 13, "name": "Minnie"}
{"user_id": 42, "name": "Pluto"}
{"user_id": 99, "name": "Daffy"}`},
	{Name: "Listens", Format: "jsonl", Data: `{"user_id": 42, "song_id": 100}
{"user_id": 7, "song_id": 200}
{"user_id": 13, "song_id": 100}
{"user_id": 42, "song_id": 300}
{"user_id": 7, "song_id": 100}
{"user_id": 13, "song_id": 200}
{"user_id": 42, "song_id": 400}
{"user_id": 99, "song_id": 500}`},
}

// Apply applies one message from the engine. Messages about a run other than the current one are old news
// (a canceled run's last batches) and ignored.
func (s *State) Apply(m protocol.Message) {
	s.Dirty = true
	s.Walk.observe(m)
	switch m.Type {
	case protocol.MessageLoadError:
		s.LoadError = "unknown error"
		if m.Error != nil {
			s.LoadError = m.Error.Message
		}
		return
	case protocol.MessageReady, protocol.MessageCatalogue:
		if s.Loading && m.Type == protocol.MessageReady && s.tableID == 0 && len(s.Tables) == 0 {
			for _, t := range defaultTables {
				s.AddText(t.Name, t.Format, t.Data)
			}
		}
		s.Loading = false
		if m.Catalogue != nil {
			s.Catalogue = *m.Catalogue
		}
		return
	case protocol.MessageLoadProgress, protocol.MessageLoaded, protocol.MessageLoadFailed:
		s.applyLoad(m)
		return
	case protocol.MessageDownload:
		s.applyDownload(m)
		return
	}
	r := s.runFor(m.ID)
	if r == nil {
		return
	}
	if err := r.order.Next(m); err != nil {
		s.Notice = "The engine sent a message out of order: " + err.Error()
		return
	}
	defer s.compareDone()
	switch m.Type {
	case protocol.MessageStarted:
		r.Columns, r.Explain, r.Inputs, r.Arbitrary = m.Columns, m.Explain, m.Inputs, m.Arbitrary
		r.ViewName, r.Drawn = m.View, m.Strategy
		r.live().Inputs = m.Inputs
		r.Trace.Inputs = m.Inputs
	case protocol.MessageBatch:
		s.batchArrived(r)
		if r.Rows.Append(m.Rows) > 0 && r.FirstRow == 0 {
			r.FirstRow = max(time.Since(r.Started), time.Microsecond)
		}
		r.live().Dropped += m.Dropped
		r.addEvents(m.Events)
		if share, ok := readShare(r.live()); ok {
			r.Progress.add(share)
		}
	case protocol.MessageHeld:
		r.HeldAt = m.Held
	case protocol.MessageDone:
		r.Status, r.Stats = StatusDone, m.Stats
		r.Finished = time.Since(r.Started)
		if m.Stats != nil && m.Stats.Strategy != "" {
			r.Strategy = m.Stats.Strategy
		}
		s.freezeWalk()
	case protocol.MessageError:
		r.Status, r.Err, r.Stats = StatusFailed, m.Error, m.Stats
		if m.Error != nil && m.Error.Canceled {
			r.Status = StatusCanceled
		}
		r.Finished = time.Since(r.Started)
		s.freezeWalk()
	}
}

// Held reports whether the engine holds the paused run and the page has applied every batch it posted
// before: what is on screen stays as it is until a resume or a step.
func (r *Run) Held() bool {
	return r.Status == StatusRunning && r.Paused && r.HeldAt > 0 && r.HeldAt == r.Batches
}

// addEvents keeps trace events on the run's tape, which folds them into its live summary; a position past
// the events so far (a link's) moves with them until they reach it.
func (r *Run) addEvents(events []trace.Event) {
	if r.Tape == nil {
		r.Tape = NewTape(r.Trace)
	}
	before := r.Tape.Len()
	for _, e := range events {
		r.Tape.Add(e)
	}
	if r.Timeline.Fixed && r.Timeline.Pos > before {
		r.show()
	}
	if c := r.Tape.Live().Chosen; c != "" {
		r.Strategy = c
	}
}

// live is the fold of every event of the run so far, whatever the timeline shows.
func (r *Run) live() *TraceView {
	if r.Tape == nil {
		return r.Trace
	}
	return r.Tape.Live()
}

// Running reports whether a run is under way.
func (s *State) Running() bool { return s.Run != nil && s.Run.Status == StatusRunning }

// StartRun sends the current settings to the engine as a new run.
func (s *State) StartRun() {
	if s.Loading || s.LoadError != "" {
		return
	}
	if s.Running() {
		s.Env.Post(protocol.Request{Type: protocol.RequestCancel, ID: s.Run.ID})
	}
	if missing := s.missingTables(); missing != "" && s.Scenario == OwnScenario {
		s.Notice = "The query cannot run yet: " + missing + " stayed on the link's sender's device. Load a file " +
			"for each (a table named so replaces its placeholder), or remove it."
		s.Dirty = true
		return
	}
	s.cancelCompare()
	s.runID++
	// The engine runs flat out: at a speed, the page plays the picture back itself (timeline.go), so what is
	// drawn moves at the speed over the run's own clock, and the rows come with the events that deliver them.
	req := &protocol.Run{Query: s.Query, Scenario: s.Scenario, Seed: s.Seed, MemoryBudget: s.MemoryBudget,
		Strategy: s.Strategy, PauseAfter: s.PausedAt}
	if s.Scenario == OwnScenario {
		req.Sources = map[string]protocol.Input{}
		for _, t := range s.Tables {
			if t.ID > 0 {
				req.Sources[t.Name] = protocol.Input{Table: t.ID}
			} else {
				req.Sources[t.Name] = protocol.Input{Format: t.Format, Data: t.Data, Connector: t.Connector}
			}
		}
	} else {
		req.Knobs = map[string]float64{}
		for k, v := range s.Knobs {
			req.Knobs[k] = v
		}
	}
	s.lastRun, s.DownloadNote, s.DownloadBytes = req, "", 0
	s.Run = &Run{ID: s.runID, Status: StatusRunning, Started: time.Now(), Strategy: s.Strategy,
		Trace: NewTraceView(), PauseAfter: s.PausedAt}
	s.Run.Tape = NewTape(s.Run.Trace)
	switch {
	case s.AtEvent > 0: // a link's position: held there once the events reach it
		s.Run.Timeline = TimelinePos{Fixed: true, Pos: s.AtEvent}
		s.Run.show()
	case s.Speed > 0:
		s.Run.Timeline = TimelinePos{Fixed: true, Playing: true, Speed: s.Speed}
		s.Run.show()
	}
	s.ScrollTop = 0
	s.Env.Post(protocol.Request{Type: protocol.RequestRun, ID: s.runID, Run: req})
	s.startCompare(req)
	s.PausedAt, s.AtEvent = 0, 0 // the link's pause and position are the run's now: Share reads them from there
	s.saveFragment()
}

// TogglePause pauses the current run after its next batch, or resumes it.
func (s *State) TogglePause() {
	if !s.Running() {
		return
	}
	s.Run.Paused = !s.Run.Paused
	if !s.Run.Paused {
		s.Run.HeldAt = 0 // resumed: a later pause holds at a later batch
	}
	typ := protocol.RequestResume
	if s.Run.Paused {
		typ = protocol.RequestPause
	}
	s.Env.Post(protocol.Request{Type: typ, ID: s.Run.ID})
	s.compareFollow(typ, s.Run.Paused)
	s.saveFragment()
}

// Step lets one more batch through the paused run.
func (s *State) Step() {
	if s.Running() && s.Run.Paused {
		s.Env.Post(protocol.Request{Type: protocol.RequestStep, ID: s.Run.ID})
		s.compareFollow(protocol.RequestStep, true)
	}
}

// CancelRun asks the engine to stop the current run.
func (s *State) CancelRun() {
	if s.Running() {
		s.Env.Post(protocol.Request{Type: protocol.RequestCancel, ID: s.Run.ID})
	}
	s.cancelCompare()
}

// ScenarioInfo returns the catalogue entry of the picked scenario, or nil for the user's own tables.
func (s *State) ScenarioInfo() *protocol.Scenario {
	for i := range s.Catalogue.Scenarios {
		if s.Catalogue.Scenarios[i].Name == s.Scenario {
			return &s.Catalogue.Scenarios[i]
		}
	}
	return nil
}

// PickScenario switches to a scenario (OwnScenario for the user's tables): its query, its default knobs.
func (s *State) PickScenario(name string) {
	s.Scenario = name
	s.Knobs = map[string]float64{}
	if sc := s.ScenarioInfo(); sc != nil {
		s.Query = sc.Query
		for _, k := range sc.Knobs {
			s.Knobs[k.Name] = k.Default
		}
	} else {
		s.Scenario = OwnScenario
		s.Query = defaultOwnQuery
	}
	s.saveFragment()
}

// SetKnob sets a knob from the text of its input, clamped to its range; text that is no number is ignored.
func (s *State) SetKnob(name, text string) {
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || math.IsNaN(v) {
		return
	}
	if sc := s.ScenarioInfo(); sc != nil {
		for _, k := range sc.Knobs {
			if k.Name == name {
				v = min(max(v, k.Min), k.Max)
			}
		}
	}
	s.Knobs[name] = v
	s.saveFragment()
}

// SetSeed sets the seed from text; text that is no unsigned number is ignored.
func (s *State) SetSeed(text string) {
	if v, err := strconv.ParseUint(strings.TrimSpace(text), 10, 64); err == nil {
		s.Seed = v
		s.saveFragment()
	}
}

// SetMemoryMiB sets the memory budget from a number of MiB; 0 or empty means the default.
func (s *State) SetMemoryMiB(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		s.MemoryBudget = 0
		s.saveFragment()
		return
	}
	if v, err := strconv.ParseFloat(text, 64); err == nil && v >= 0 && v < 1<<20 {
		s.MemoryBudget = int64(v * (1 << 20))
		s.saveFragment()
	}
}

// SetStrategy forces a strategy; "" is the planner's choice.
func (s *State) SetStrategy(name string) {
	s.Strategy = name
	s.saveFragment()
}

// SetQuery keeps the editor's text.
func (s *State) SetQuery(text string) {
	s.Query = text
	s.saveFragment()
}

// CopyLink puts the share link on the clipboard.
func (s *State) CopyLink() {
	s.Env.CopyText(s.Env.Location() + "#" + s.Fragment())
	s.Copied = true
}

func (s *State) saveFragment() {
	s.Copied = false
	if s.Env != nil {
		s.Env.SetFragment(s.Fragment())
	}
}
