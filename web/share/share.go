// Package share holds the playground's shareable state — query, scenario, knobs, seed, step, strategy, memory
// budget, playback speed, the batch a run is paused at, the strategy compared against and whether to run at
// once — with the rules a state must satisfy and two encodings of it: canonical JSON (the Worker's API and its
// store) and a compact URL fragment (deflate, then unpadded base64url) that reproduces a run with no server at
// all.
//
// A state is data. Nothing here interprets the query or looks the scenario up: the playground does that when it
// opens a state, and reports an unknown scenario or knob as an error like any other. Validation only bounds sizes
// and character sets, so that a decoded state is small and every name in it is plain text.
package share

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// MaxJSONBytes bounds a state's JSON: the Worker refuses larger bodies (413) and the fragment decoder
	// refuses to inflate past it. 16 KiB holds a long hand-written query with room to spare, and keeps a
	// fragment short enough for every browser's URL limit after compression.
	MaxJSONBytes = 16 << 10
	// MaxQueryBytes bounds the query text inside that budget.
	MaxQueryBytes = 12 << 10
	// MaxNameBytes bounds a scenario, knob or strategy name; catalogue names are far shorter.
	MaxNameBytes = 64
	// MaxKnobs bounds the number of knobs; a scenario has a handful.
	MaxKnobs = 64
	// MaxStep bounds the walkthrough step; a walkthrough has tens of steps.
	MaxStep = 1 << 20
	// MaxMemoryBudget bounds the memory budget: 1 TiB, far past what a browser tab or a laptop holds.
	MaxMemoryBudget = 1 << 40
	// MaxSpeed bounds the playback speed; web/runner plays anything faster flat out anyway.
	MaxSpeed = 1e9
	// MaxPausedAt bounds the batch a run is paused at; a run posts a few dozen batches a second.
	MaxPausedAt = 1 << 20
	// MaxTables bounds the user's own tables a state names.
	MaxTables = 64
	// MaxTableData bounds the text of the own tables a state carries, all together: a few KiB compress into
	// a fragment every browser accepts. Larger data is never put in a link; the link names the table only.
	MaxTableData = 4 << 10
)

// State is what a share link reproduces. The zero value is valid: the playground's opening state.
type State struct {
	// Query is the KQL text in the editor.
	Query string `json:"query,omitempty"`
	// Scenario names a catalogue scenario (sims/scenario), such as users-listens-grace.
	Scenario string `json:"scenario,omitempty"`
	// Knobs are the scenario's numeric settings that differ from their defaults.
	Knobs map[string]float64 `json:"knobs,omitempty"`
	// Seed seeds the scenario's generated data.
	Seed uint64 `json:"seed,omitempty"`
	// Step is the walkthrough step or trace position the view is at.
	Step int `json:"step,omitempty"`
	// Strategy names the join strategy forced for the run ("" lets the planner choose).
	Strategy string `json:"strategy,omitempty"`
	// MemoryBudget is the run's memory budget in bytes (0: the scenario's or the engine's default).
	MemoryBudget int64 `json:"memory_budget,omitempty"`
	// Speed is the playback speed, trace time per wall time (0: flat out); see web/runner's pacing.
	Speed float64 `json:"speed,omitempty"`
	// PausedAt is the batch of the run at which it was paused (0: not paused): the run reopens held there.
	PausedAt int `json:"paused_at,omitempty"`
	// Tables are the user's own tables a run on own data reads (Scenario ""), by the name the query uses.
	// Data is set only for small tables (MaxTableData in all); the others stayed on the sender's device.
	Tables []Table `json:"tables,omitempty"`
	// Compare names the strategy a second run compares against ("" no comparison; CompareAuto the planner's
	// choice).
	Compare string `json:"compare,omitempty"`
	// Run asks the playground to run the state at once when the link opens, instead of showing it and waiting
	// for a click: a presenter's link straight to the moment that matters.
	Run bool `json:"run,omitempty"`
}

// CompareAuto is Compare's value for a comparison against the planner's own choice of strategy.
const CompareAuto = "auto"

// Table is one of the user's own tables in a link.
type Table struct {
	Name string `json:"name"`
	// Format is "jsonl" or "csv".
	Format string `json:"format"`
	// Data is the table's text, or "" when it stayed on the device.
	Data string `json:"data,omitempty"`
}

// Validate reports the first rule the state breaks, or nil.
func (s *State) Validate() error {
	if len(s.Query) > MaxQueryBytes {
		return fmt.Errorf("share: query is %d bytes, more than %d", len(s.Query), MaxQueryBytes)
	}
	if !utf8.ValidString(s.Query) {
		return errors.New("share: query is not valid UTF-8")
	}
	for _, r := range s.Query {
		if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
			return fmt.Errorf("share: query holds control character %U", r)
		}
	}
	if err := checkName("scenario", s.Scenario); err != nil {
		return err
	}
	if err := checkName("strategy", s.Strategy); err != nil {
		return err
	}
	if err := checkName("compare strategy", s.Compare); err != nil {
		return err
	}
	if len(s.Knobs) > MaxKnobs {
		return fmt.Errorf("share: %d knobs, more than %d", len(s.Knobs), MaxKnobs)
	}
	for name, v := range s.Knobs {
		if name == "" {
			return errors.New("share: knob with an empty name")
		}
		if err := checkName("knob", name); err != nil {
			return err
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("share: knob %s is not a finite number", name)
		}
	}
	if s.Step < 0 || s.Step > MaxStep {
		return fmt.Errorf("share: step %d is outside [0, %d]", s.Step, MaxStep)
	}
	if math.IsNaN(s.Speed) || s.Speed < 0 || s.Speed > MaxSpeed {
		return fmt.Errorf("share: speed %v is outside [0, %g]", s.Speed, MaxSpeed)
	}
	if s.PausedAt < 0 || s.PausedAt > MaxPausedAt {
		return fmt.Errorf("share: paused_at %d is outside [0, %d]", s.PausedAt, MaxPausedAt)
	}
	if s.MemoryBudget < 0 || s.MemoryBudget > MaxMemoryBudget {
		return fmt.Errorf("share: memory budget %d is outside [0, %d]", s.MemoryBudget, int64(MaxMemoryBudget))
	}
	if len(s.Tables) > MaxTables {
		return fmt.Errorf("share: %d tables, more than %d", len(s.Tables), MaxTables)
	}
	data := 0
	for _, t := range s.Tables {
		if t.Name == "" {
			return errors.New("share: table with an empty name")
		}
		if err := checkName("table", t.Name); err != nil {
			return err
		}
		if t.Format != "jsonl" && t.Format != "csv" {
			return fmt.Errorf("share: table %s has format %q (want jsonl or csv)", t.Name, truncate(t.Format))
		}
		if !utf8.ValidString(t.Data) {
			return fmt.Errorf("share: table %s is not valid UTF-8", t.Name)
		}
		data += len(t.Data)
	}
	if data > MaxTableData {
		return fmt.Errorf("share: tables hold %d bytes, more than %d", data, MaxTableData)
	}
	return nil
}

// checkName allows the characters catalogue names use: ASCII letters, digits, '-', '_' and '.'. Anything
// else — spaces, quotes, angle brackets — is refused, so a name can never carry markup.
func checkName(what, name string) error {
	if len(name) > MaxNameBytes {
		return fmt.Errorf("share: %s name is %d bytes, more than %d", what, len(name), MaxNameBytes)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("share: %s name %q holds %q: only letters, digits, '-', '_' and '.' are allowed",
				what, truncate(name), c)
		}
	}
	return nil
}

func truncate(s string) string {
	const keep = 32
	if len(s) <= keep {
		return s
	}
	return s[:keep] + "…"
}

// ParseJSON reads one state from its JSON form and validates it. It refuses unknown fields, trailing data
// and input longer than MaxJSONBytes, so that what is stored is exactly what the playground understands.
func ParseJSON(data []byte) (*State, error) {
	if len(data) > MaxJSONBytes {
		return nil, &TooLargeError{Limit: MaxJSONBytes}
	}
	if !utf8.Valid(data) {
		// encoding/json would silently replace bad bytes; a state that does not round-trip is refused instead.
		return nil, errors.New("share: state is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s State
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("share: malformed state: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("share: malformed state: data after the JSON object")
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// JSON returns the state's canonical JSON: fields in a fixed order, knobs sorted by name (encoding/json sorts map
// keys), '<', '>' and '&' escaped, so equal states give equal bytes.
func (s *State) JSON() []byte {
	b, err := json.Marshal(s)
	if err != nil {
		// Only a NaN or infinite knob fails to marshal, and Validate refuses those.
		panic(fmt.Sprintf("share: marshal a state: %v", err))
	}
	return b
}

// TooLargeError reports a state past MaxJSONBytes, so the Worker can answer 413 rather than 400.
type TooLargeError struct{ Limit int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("share: state is larger than %d bytes", e.Limit)
}

// Equal reports whether two states are the same state.
func (s *State) Equal(o *State) bool {
	return bytes.Equal(s.JSON(), o.JSON())
}

// String returns the canonical JSON, for logs and test failures.
func (s *State) String() string {
	return strings.TrimSpace(string(s.JSON()))
}
