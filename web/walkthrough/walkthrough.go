// Package walkthrough loads the teaching walkthroughs (assets/walkthroughs/*.json) and proves them against the
// engine.
//
// A walkthrough is data: chapters of steps, each step naming a run (a query over small inline sources or a
// seeded scenario), the point of that run's trace where the player pauses, the elements to highlight, an
// optional "predict, then reveal" question, and the facts the narration states, in a machine-checkable form.
// Validate runs every step's query through engine/query with a trace.Recorder, finds the pause point and checks
// every fact against the events recorded up to it, the run's details, its explain text and its result rows —
// so a change to the engine that makes a story untrue fails `go test ./...` with the walkthrough, the step and
// the fact named. The format is documented in docs/walkthroughs.md.
//
// Steps are numbered 1, 2, … across chapters; step K of walkthrough NAME is linked as #w=NAME&step=K.
package walkthrough

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Walkthrough is one guided story, told from one source document.
type Walkthrough struct {
	// Name is the file's base name (grace for grace.json), used in links.
	Name  string `json:"name"`
	Title string `json:"title"`
	// Document is the source document the story reproduces (its file in shared/seeds and its subject).
	Document string `json:"document"`
	Summary  string `json:"summary"`
	// Runs are the engine runs the steps pause in, by name; several steps usually share one run.
	Runs     map[string]*Run `json:"runs"`
	Chapters []*Chapter      `json:"chapters"`
}

// Chapter is a titled sequence of steps.
type Chapter struct {
	Title string  `json:"title"`
	Steps []*Step `json:"steps"`
}

// Step is one engine state with its narration.
type Step struct {
	// ID is unique within the walkthrough (stable across edits, unlike the step number).
	ID        string `json:"id"`
	Title     string `json:"title"`
	Narration string `json:"narration"`
	// Run names an entry of Walkthrough.Runs.
	Run string `json:"run"`
	// Pause is the trace point the player stops at; nil stops at the end of the run.
	Pause *Pause `json:"pause,omitempty"`
	// Highlight lists the elements to draw attention to (see checkHighlight for the forms).
	Highlight []string  `json:"highlight,omitempty"`
	Question  *Question `json:"question,omitempty"`
	// Facts are what the narration states, each checked against the run at the pause point.
	Facts []Fact `json:"facts"`
}

// Pause selects one trace event: the Nth (1-based, default 1) event of kind Event whose attributes include
// every entry of Where.
type Pause struct {
	Event string         `json:"event"`
	Nth   int            `json:"nth,omitempty"`
	Where map[string]any `json:"where,omitempty"`
}

// Question is a "predict, then reveal" question: the player asks Prompt, the learner picks one of Choices (or
// answers freely when there are none), then Answer is revealed with the state that proves it. Its facts are
// checked like the step's.
type Question struct {
	Prompt  string   `json:"prompt"`
	Choices []string `json:"choices,omitempty"`
	// Correct is the index of the right choice, when there are choices.
	Correct *int   `json:"correct,omitempty"`
	Answer  string `json:"answer"`
	Facts   []Fact `json:"facts,omitempty"`
	// Reveal names what the player shows with the answer (same forms as Step.Highlight).
	Reveal []string `json:"reveal,omitempty"`
}

// Fact is one checkable statement, a JSON object whose keys say what it is about (see docs/walkthroughs.md
// and check.go): {"event": KIND, attrs…}, {"paused": {attrs}}, {"rows": N}, {"row": {cols}}, {"detail": KEY,
// "equals": V}, {"explain_contains": TEXT}, {"error_contains": TEXT}, {"emitted": N}, {"result_prefix": […]}.
type Fact map[string]any

// StepCount is the number of steps across chapters.
func (w *Walkthrough) StepCount() int {
	n := 0
	for _, c := range w.Chapters {
		n += len(c.Steps)
	}
	return n
}

// Step returns step k (1-based, across chapters) and its chapter, or nil when there is none.
func (w *Walkthrough) Step(k int) (*Chapter, *Step) {
	for _, c := range w.Chapters {
		if k >= 1 && k <= len(c.Steps) {
			return c, c.Steps[k-1]
		}
		k -= len(c.Steps)
	}
	return nil, nil
}

// Link is the page fragment that opens step k of the walkthrough.
func (w *Walkthrough) Link(k int) string { return Link(w.Name, k) }

// Link is the page fragment that opens step k of the named walkthrough: #w=NAME&step=K.
func Link(name string, k int) string { return fmt.Sprintf("#w=%s&step=%d", name, k) }

// ParseLink reads a fragment written by Link (with or without its '#'). A fragment without step opens step 1.
func ParseLink(fragment string) (name string, step int, err error) {
	step = 1
	for _, part := range strings.Split(strings.TrimPrefix(fragment, "#"), "&") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "w":
			name = v
		case "step":
			if step, err = strconv.Atoi(v); err != nil || step < 1 {
				return "", 0, fmt.Errorf("walkthrough link %q: step %q is not a step number (1, 2, …)", fragment, v)
			}
		}
	}
	if !namePattern.MatchString(name) {
		return "", 0, fmt.Errorf("walkthrough link %q: no walkthrough name (want #w=NAME&step=K)", fragment)
	}
	return name, step, nil
}

// namePattern is what a walkthrough's name and a step's id may be: they appear in links and file names.
var namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Parse decodes one walkthrough file. name is the file's base name without .json, which the file's "name"
// must repeat. Unknown fields are errors (a misspelt "narraton" would otherwise vanish silently), reported
// with their line and column. Parse checks the structure only; Validate checks the story against the engine.
func Parse(name string, data []byte) (*Walkthrough, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var w Walkthrough
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("walkthrough %s: %s", name, describeJSONError(data, dec, err))
	}
	if dec.More() {
		return nil, fmt.Errorf("walkthrough %s: %s: more data after the walkthrough's object", name, lineCol(data, dec.InputOffset()))
	}
	if err := w.checkStructure(name); err != nil {
		return nil, err
	}
	return &w, nil
}

// describeJSONError turns a decoding error into "line L, column C: what".
func describeJSONError(data []byte, dec *json.Decoder, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("%s: malformed JSON: %v", lineCol(data, syn.Offset), err)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s: field %q: want %s, found a JSON %s", lineCol(data, typ.Offset), typ.Field, typ.Type, typ.Value)
	}
	return fmt.Sprintf("%s: %v", lineCol(data, dec.InputOffset()), err)
}

func lineCol(data []byte, off int64) string {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// checkStructure checks what needs no engine: names, required texts, references between steps and runs.
func (w *Walkthrough) checkStructure(name string) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("walkthrough %s: %s", name, fmt.Sprintf(format, args...))
	}
	if w.Name != name {
		return fail("its \"name\" is %q; it must be the file's base name, %q", w.Name, name)
	}
	if !namePattern.MatchString(name) {
		return fail("the name must be lower-case words joined by '-' (it appears in links)")
	}
	if w.Title == "" || w.Document == "" || w.Summary == "" {
		return fail("\"title\", \"document\" and \"summary\" are required")
	}
	if len(w.Runs) == 0 || len(w.Chapters) == 0 {
		return fail("it needs \"runs\" and \"chapters\"")
	}
	for rn, r := range w.Runs {
		if err := r.checkStructure(); err != nil {
			return fail("run %q: %v", rn, err)
		}
	}
	ids := map[string]bool{}
	used := map[string]bool{}
	k := 0
	for ci, c := range w.Chapters {
		if c.Title == "" || len(c.Steps) == 0 {
			return fail("chapter %d needs a \"title\" and \"steps\"", ci+1)
		}
		for _, s := range c.Steps {
			k++
			where := fmt.Sprintf("step %d (%s)", k, s.ID)
			if !namePattern.MatchString(s.ID) {
				return fail("step %d: \"id\" %q must be lower-case words joined by '-'", k, s.ID)
			}
			if ids[s.ID] {
				return fail("%s: the id is used twice", where)
			}
			ids[s.ID] = true
			if s.Title == "" || s.Narration == "" {
				return fail("%s: \"title\" and \"narration\" are required", where)
			}
			if w.Runs[s.Run] == nil {
				return fail("%s: \"run\" %q is not one of the runs (%s)", where, s.Run, strings.Join(w.runNames(), ", "))
			}
			used[s.Run] = true
			if len(s.Facts) == 0 {
				return fail("%s: a step states at least one fact, or it proves nothing about the engine", where)
			}
			if s.Pause != nil && s.Pause.Event == "" {
				return fail("%s: \"pause\" needs an \"event\" kind (leave out \"pause\" to stop at the end)", where)
			}
			if s.Pause != nil && s.Pause.Nth < 0 {
				return fail("%s: pause \"nth\" counts from 1", where)
			}
			if q := s.Question; q != nil {
				if q.Prompt == "" || q.Answer == "" {
					return fail("%s: a question needs a \"prompt\" and an \"answer\"", where)
				}
				if len(q.Choices) > 0 && (q.Correct == nil || *q.Correct < 0 || *q.Correct >= len(q.Choices)) {
					return fail("%s: \"correct\" must index one of the %d choices", where, len(q.Choices))
				}
			}
		}
	}
	for rn := range w.Runs {
		if !used[rn] {
			return fail("run %q is used by no step", rn)
		}
	}
	return nil
}

func (w *Walkthrough) runNames() []string {
	var names []string
	for n := range w.Runs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LoadDir parses every *.json file of dir in fsys, sorted by name.
func LoadDir(fsys fs.FS, dir string) ([]*Walkthrough, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("walkthroughs: %w", err)
	}
	var out []*Walkthrough
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".json" {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("walkthroughs: %w", err)
		}
		w, err := Parse(strings.TrimSuffix(e.Name(), ".json"), data)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}
