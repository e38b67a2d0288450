package walkthrough

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/trace"
)

// StepState is where a step's run stands at its pause point: what the player shows.
type StepState struct {
	Number int // 1-based, across chapters
	Step   *Step
	// Events are the run's events up to and including the pause point (all of them without a pause).
	Events []trace.Event
	// Paused is the index in the run's events of the event the step stops at, or -1 at the end of the run.
	Paused int
}

// Validate runs every step of w against the engine and checks its pause point, highlights and facts (the
// question's too). It reports every failure, each naming the walkthrough, the step and the fact.
func (w *Walkthrough) Validate() error {
	_, err := w.States()
	return err
}

// States runs w's runs once each and resolves every step's pause point, checking as Validate does.
func (w *Walkthrough) States() ([]*StepState, error) {
	outcomes := map[string]*outcome{}
	var errs []error
	for _, name := range w.runNames() {
		o, err := w.Runs[name].execute()
		if err != nil {
			errs = append(errs, fmt.Errorf("walkthrough %s: run %q: %w", w.Name, name, err))
			continue
		}
		outcomes[name] = o
	}
	var states []*StepState
	k := 0
	for _, c := range w.Chapters {
		for _, s := range c.Steps {
			k++
			o := outcomes[s.Run]
			if o == nil {
				continue // its run's failure is reported above
			}
			st, stepErrs := checkStep(o, s, k)
			for _, e := range stepErrs {
				errs = append(errs, fmt.Errorf("walkthrough %s: step %d (%s): %w", w.Name, k, s.ID, e))
			}
			if st != nil {
				states = append(states, st)
			}
		}
	}
	return states, errors.Join(errs...)
}

// checkStep finds the pause point and checks the step's highlights and facts there.
func checkStep(o *outcome, s *Step, k int) (*StepState, []error) {
	var errs []error
	expectsError := false
	for _, f := range append(append([]Fact(nil), s.Facts...), questionFacts(s)...) {
		if _, ok := f["error_contains"]; ok {
			expectsError = true
		}
	}
	if o.err != nil && !expectsError {
		return nil, []error{fmt.Errorf("the run failed: %v", o.err)}
	}
	paused := -1
	if p := s.Pause; p != nil {
		var err error
		if paused, err = findPause(o.events, p); err != nil {
			return nil, []error{err}
		}
	}
	st := &StepState{Number: k, Step: s, Paused: paused, Events: o.events}
	if paused >= 0 {
		st.Events = o.events[:paused+1]
	}
	for i, h := range s.Highlight {
		if err := checkHighlight(o, st, h); err != nil {
			errs = append(errs, fmt.Errorf("highlight %d %q: %w", i+1, h, err))
		}
	}
	for i, f := range s.Facts {
		if err := checkFact(o, st, f); err != nil {
			errs = append(errs, fmt.Errorf("fact %d %s: %w", i+1, compact(f), err))
		}
	}
	if q := s.Question; q != nil {
		for i, f := range q.Facts {
			if err := checkFact(o, st, f); err != nil {
				errs = append(errs, fmt.Errorf("question fact %d %s: %w", i+1, compact(f), err))
			}
		}
		for i, h := range q.Reveal {
			if err := checkHighlight(o, st, h); err != nil {
				errs = append(errs, fmt.Errorf("question reveal %d %q: %w", i+1, h, err))
			}
		}
	}
	return st, errs
}

func questionFacts(s *Step) []Fact {
	if s.Question == nil {
		return nil
	}
	return s.Question.Facts
}

// findPause returns the index of the Nth event of the pause's kind whose attributes match its where.
func findPause(events []trace.Event, p *Pause) (int, error) {
	nth := p.Nth
	if nth == 0 {
		nth = 1
	}
	seen := 0
	for i, e := range events {
		if string(e.Kind()) != p.Event {
			continue
		}
		attrs, err := eventFields(e)
		if err != nil {
			return 0, fmt.Errorf("pause: event %d: %w", i, err)
		}
		if ok, _ := matches(map[string]any(p.Where), attrs); ok {
			if seen++; seen == nth {
				return i, nil
			}
		}
	}
	where := ""
	if len(p.Where) > 0 {
		where = " with " + compact(p.Where)
	}
	return 0, fmt.Errorf("pause: the run has %d %s event(s)%s, so no event number %d to pause at%s",
		seen, p.Event, where, nth, kindsHint(events, p.Event))
}

// kindsHint lists the kinds the run did emit, for an author whose pause names a kind it never emits.
func kindsHint(events []trace.Event, kind string) string {
	counts := map[string]int{}
	for _, e := range events {
		counts[string(e.Kind())]++
	}
	if counts[kind] > 0 {
		return ""
	}
	var kinds []string
	for k, n := range counts {
		kinds = append(kinds, fmt.Sprintf("%s×%d", k, n))
	}
	sort.Strings(kinds)
	if len(kinds) == 0 {
		return " (the run emitted no events)"
	}
	return " (the run emitted " + strings.Join(kinds, ", ") + ")"
}

// checkFact checks one fact against the run as it stands at the step's pause point.
func checkFact(o *outcome, st *StepState, f Fact) error {
	switch {
	case f["event"] != nil:
		return checkEventFact(o, st, f)
	case f["paused"] != nil:
		if st.Paused < 0 {
			return errors.New("the step has no pause point")
		}
		e := o.events[st.Paused]
		attrs, err := eventFields(e)
		if err != nil {
			return err
		}
		if ok, why := matches(f["paused"], attrs); !ok {
			return fmt.Errorf("the paused %s event has %s: %s", e.Kind(), compact(attrs), why)
		}
	case f["rows"] != nil:
		n, err := intOf(f["rows"])
		if err != nil {
			return err
		}
		if len(o.rows) != n {
			return fmt.Errorf("the run output %d rows", len(o.rows))
		}
	case f["row"] != nil:
		n := 0
		for _, r := range o.rows {
			if ok, _ := matches(f["row"], r); ok {
				n++
			}
		}
		return checkCount(f, n, "result rows match", firstRows(o.rows))
	case f["result_prefix"] != nil:
		want, ok := f["result_prefix"].([]any)
		if !ok {
			return errors.New("\"result_prefix\" must be a list of rows")
		}
		if len(o.rows) < len(want) {
			return fmt.Errorf("the run output only %d rows", len(o.rows))
		}
		for i, w := range want {
			if ok, why := matches(w, o.rows[i]); !ok {
				return fmt.Errorf("result row %d is %s: %s", i+1, compact(o.rows[i]), why)
			}
		}
	case f["columns"] != nil:
		if ok, why := matches(f["columns"], toAny(o.columns)); !ok {
			return fmt.Errorf("the columns are %v: %s", o.columns, why)
		}
	case f["detail"] != nil:
		key, _ := f["detail"].(string)
		got, ok := o.details[key]
		if !ok {
			return fmt.Errorf("the run has no detail %q (it has %s)", key, strings.Join(sortedKeys(o.details), ", "))
		}
		if want, ok := f["equals"]; ok {
			if ok, why := matches(want, got); !ok {
				return fmt.Errorf("detail %s is %s: %s", key, compact(got), why)
			}
		}
	case f["explain_contains"] != nil:
		text, _ := f["explain_contains"].(string)
		if o.err != nil {
			return fmt.Errorf("the query did not plan: %v", o.err)
		}
		if !strings.Contains(o.explain, text) {
			return fmt.Errorf("explain does not contain it:\n%s", o.explain)
		}
	case f["error_contains"] != nil:
		text, _ := f["error_contains"].(string)
		if o.err == nil {
			return errors.New("the run succeeded")
		}
		if !strings.Contains(o.err.Error(), text) {
			return fmt.Errorf("the run failed with %q", o.err.Error())
		}
	default:
		return fmt.Errorf("unknown fact (its keys are %s; see docs/walkthroughs.md)", strings.Join(sortedKeys(f), ", "))
	}
	return nil
}

// checkEventFact: {"event": KIND, attrs…} holds when an event of KIND up to the pause point has every listed
// attribute; "op" restricts it to one operator's events (such as "grace on song_id"); "count" asks for exactly
// that many such events; "scope": "run" looks past the pause point too.
func checkEventFact(o *outcome, st *StepState, f Fact) error {
	kind, _ := f["event"].(string)
	want := map[string]any{}
	for k, v := range f {
		switch k {
		case "event", "count", "scope", "op":
		default:
			want[k] = v
		}
	}
	events := st.Events
	scope := "up to the pause point"
	switch f["scope"] {
	case nil:
	case "run":
		events, scope = o.events, "in the run"
	default:
		return fmt.Errorf("\"scope\" is \"run\" or absent, not %v", f["scope"])
	}
	n := 0
	var ofKind []any
	for _, e := range events {
		if string(e.Kind()) != kind {
			continue
		}
		if op, ok := f["op"]; ok && op != e.Op {
			continue
		}
		attrs, err := eventFields(e)
		if err != nil {
			return err
		}
		ofKind = append(ofKind, attrs)
		if ok, _ := matches(want, attrs); ok {
			n++
		}
	}
	return checkCount(f, n, kind+" events "+scope+" match", ofKind)
}

// checkCount: without "count", at least one match; with it, exactly that many. seen shows the author what
// there was instead.
func checkCount(f Fact, n int, what string, seen []any) error {
	if c, ok := f["count"]; ok {
		want, err := intOf(c)
		if err != nil {
			return err
		}
		if n != want {
			return fmt.Errorf("%d %s, not %d; there were: %s", n, what, want, listed(seen))
		}
		return nil
	}
	if n == 0 {
		return fmt.Errorf("no %s; there were: %s", what, listed(seen))
	}
	return nil
}

// checkHighlight checks that the element a step highlights exists in the state shown.
func checkHighlight(o *outcome, st *StepState, h string) error {
	kind, arg, _ := strings.Cut(h, ":")
	switch kind {
	case "event":
		if st.Paused < 0 {
			return errors.New("the step has no pause point to highlight")
		}
	case "attr":
		if st.Paused < 0 {
			return errors.New("the step has no pause point")
		}
		fields, err := eventFields(o.events[st.Paused])
		if err != nil {
			return err
		}
		if _, ok := fields[arg]; !ok {
			return fmt.Errorf("the paused %s event has no attribute %q", o.events[st.Paused].Kind(), arg)
		}
	case "query":
		if arg == "" || !strings.Contains(o.query, arg) {
			return errors.New("the query does not contain that text")
		}
	case "source":
		name, row, hasRow := strings.Cut(arg, ":")
		s := o.sources[name]
		if s == nil {
			return fmt.Errorf("no inline source %q", name)
		}
		if hasRow {
			n, err := strconv.Atoi(row)
			rows := len(s.Lines)
			if s.Format == "csv" {
				rows-- // the header
			}
			if err != nil || n < 1 || n > rows {
				return fmt.Errorf("source %s has rows 1…%d", name, rows)
			}
		}
	case "result":
		if arg != "" {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 || n > len(o.rows) {
				return fmt.Errorf("the result has rows 1…%d", len(o.rows))
			}
		}
	case "column":
		for _, c := range o.columns {
			if c == arg {
				return nil
			}
		}
		return fmt.Errorf("the result has no column %q (columns %v)", arg, o.columns)
	case "detail":
		if _, ok := o.details[arg]; !ok {
			return fmt.Errorf("the run has no detail %q", arg)
		}
	case "explain":
		if o.explain == "" {
			return errors.New("the query has no plan")
		}
	case "partition", "worker":
		want := map[string]any{}
		ev := "worker_load"
		if kind == "partition" {
			side, id, _ := strings.Cut(arg, ":")
			want["side"], want["partition"], ev = side, id, "partition_written"
		} else {
			want["worker"] = json.Number(arg)
		}
		for _, e := range st.Events {
			if string(e.Kind()) != ev {
				continue
			}
			attrs, err := eventFields(e)
			if err != nil {
				return err
			}
			if ok, _ := matches(want, attrs); ok {
				return nil
			}
		}
		return fmt.Errorf("no %s event with %s up to the pause point", ev, compact(want))
	default:
		return errors.New("unknown highlight (event, attr:A, query:TEXT, source:NAME[:ROW], result[:ROW], " +
			"column:C, detail:KEY, explain, partition:SIDE:ID, worker:N)")
	}
	return nil
}

// matches reports whether got has want: equal scalars (numbers compared by value), lists of the same length
// matching element by element, and objects having at least want's keys, each matching.
func matches(want, got any) (bool, string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false, fmt.Sprintf("want an object, found %s", compact(got))
		}
		for _, k := range sortedKeys(w) {
			gv, present := g[k]
			if !present {
				return false, fmt.Sprintf("no %q", k)
			}
			if ok, why := matches(w[k], gv); !ok {
				return false, fmt.Sprintf("%s: %s", k, why)
			}
		}
		return true, ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false, fmt.Sprintf("want %s, found %s", compact(w), compact(got))
		}
		for i := range w {
			if ok, why := matches(w[i], g[i]); !ok {
				return false, fmt.Sprintf("[%d]: %s", i, why)
			}
		}
		return true, ""
	case json.Number:
		g, ok := got.(json.Number)
		if ok && sameNumber(w, g) {
			return true, ""
		}
	default:
		if want == got {
			return true, ""
		}
	}
	return false, fmt.Sprintf("want %s, found %s", compact(want), compact(got))
}

func sameNumber(a, b json.Number) bool {
	x, ok1 := new(big.Rat).SetString(a.String())
	y, ok2 := new(big.Rat).SetString(b.String())
	return ok1 && ok2 && x.Cmp(y) == 0
}

func intOf(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("want a whole number, found %s", compact(v))
	}
	i, err := strconv.Atoi(n.String())
	if err != nil {
		return 0, fmt.Errorf("want a whole number, found %s", n)
	}
	return i, nil
}

func compact(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// listedMax is how many alternatives an error lists before eliding the rest.
const listedMax = 8

func listed(items []any) string {
	if len(items) == 0 {
		return "none"
	}
	var parts []string
	for i, it := range items {
		if i == listedMax {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(items)-listedMax))
			break
		}
		parts = append(parts, compact(it))
	}
	return strings.Join(parts, "; ")
}

func firstRows(rows []map[string]any) []any {
	out := make([]any, 0, len(rows))
	for _, r := range rows {
		out = append(out, r)
	}
	return out
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
