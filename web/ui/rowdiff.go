package ui

import (
	"strings"

	"github.com/joinlab/joinlab/web/runner/protocol"
)

// Compare runs the same query, scenario, seed and knobs under a second strategy beside the first, and marks
// the rows that differ. The first run (State.Run) is the reference: a baseline run second shows what it loses
// or doubles against the right answer, which is the playground's lesson. The two runs share the engine, so
// each goes at about half speed; pause, step and cancel act on both.

// CompareOff is the compare picker's value for no comparison ("" is the planner's choice).
const CompareOff = "-"

// maxDiffRows bounds the differing rows listed (the counts cover every row): the DOM stays small.
const maxDiffRows = 50

// SetCompare picks the strategy of the second run, CompareOff for none.
func (s *State) SetCompare(value string) {
	s.Comparing, s.CompareStrategy = value != CompareOff, value
	if !s.Comparing {
		s.CompareStrategy = ""
		s.cancelCompare()
		s.CompareRun, s.Diff = nil, nil
	}
}

// runFor is the run a message is about, or nil for old news (a canceled run's last batches).
func (s *State) runFor(id int) *Run {
	switch {
	case s.Run != nil && s.Run.ID == id:
		return s.Run
	case s.CompareRun != nil && s.CompareRun.ID == id:
		return s.CompareRun
	}
	return nil
}

// startCompare posts the second run of a comparison: the same request under the other strategy.
func (s *State) startCompare(req *protocol.Run) {
	s.CompareRun, s.Diff = nil, nil
	if !s.Comparing {
		return
	}
	s.runID++
	other := *req
	other.Strategy = s.CompareStrategy
	s.CompareRun = &Run{ID: s.runID, Status: StatusRunning, Started: s.Run.Started, Strategy: other.Strategy,
		Trace: NewTraceView(), PauseAfter: req.PauseAfter}
	s.Env.Post(protocol.Request{Type: protocol.RequestRun, ID: s.runID, Run: &other})
}

func (s *State) cancelCompare() {
	if r := s.CompareRun; r != nil && r.Status == StatusRunning {
		s.Env.Post(protocol.Request{Type: protocol.RequestCancel, ID: r.ID})
	}
}

// compareFollow makes the second run follow a pause, resume or step of the first.
func (s *State) compareFollow(typ string, paused bool) {
	if r := s.CompareRun; r != nil && r.Status == StatusRunning {
		r.Paused = paused
		if !paused {
			r.HeldAt = 0
		}
		s.Env.Post(protocol.Request{Type: typ, ID: r.ID})
	}
}

// compareDone compares the rows once both runs are over (once: after that the runs do not change).
func (s *State) compareDone() {
	a, b := s.Run, s.CompareRun
	if a == nil || b == nil || s.Diff != nil || a.Status == StatusRunning || b.Status == StatusRunning {
		return
	}
	s.Diff = DiffRuns(a, b)
}

// RowDiff is what differs between two runs' rows, compared as multisets, then in order.
type RowDiff struct {
	// Note says why the rows were not compared (a run failed, the columns differ), or "".
	Note string
	// Lost, Doubled and Extra count rows: in the reference more often than in the other run; in both, but
	// more often in the other; only in the other.
	Lost, Doubled, Extra int
	// Rows are the first maxDiffRows differing rows, the reference's order first.
	Rows []DiffRow
	// OutOfOrder is the first position where the same rows come in another order (1-based), or 0.
	OutOfOrder int
	// Partial is set when a run kept only its first rows (the page keeps at most runner.MaxStreamRows).
	Partial bool
}

// DiffRow is one differing row and how often each run produced it.
type DiffRow struct {
	Cells []string
	A, B  int
	// Mark is "lost", "doubled" or "extra".
	Mark string
}

// Same reports whether the runs produced the same rows in the same order.
func (d *RowDiff) Same() bool {
	return d.Note == "" && d.Lost == 0 && d.Doubled == 0 && d.Extra == 0 && d.OutOfOrder == 0
}

// DiffRuns compares run b's rows with the reference a's.
func DiffRuns(a, b *Run) *RowDiff {
	d := &RowDiff{}
	switch {
	case a.Status != StatusDone || b.Status != StatusDone:
		d.Note = "Both runs must finish for their rows to be compared."
		return d
	case strings.Join(a.Columns, "\x00") != strings.Join(b.Columns, "\x00"):
		d.Note = "The runs have different columns: " + strings.Join(a.Columns, ", ") + " against " +
			strings.Join(b.Columns, ", ") + "."
		return d
	}
	cols := len(a.Columns)
	d.Partial = a.Rows.Len() < int(statsRows(a)) || b.Rows.Len() < int(statsRows(b))
	key := func(r *Run, i int) string { return strings.Join(r.Rows.Row(i, cols), "\x1f") }
	counts := map[string][2]int{}
	for i := range a.Rows.Len() {
		c := counts[key(a, i)]
		c[0]++
		counts[key(a, i)] = c
	}
	for i := range b.Rows.Len() {
		c := counts[key(b, i)]
		c[1]++
		counts[key(b, i)] = c
	}
	listed := map[string]bool{}
	visit := func(r *Run, i int) {
		k := key(r, i)
		c := counts[k]
		if c[0] == c[1] || listed[k] {
			return
		}
		listed[k] = true
		row := DiffRow{Cells: r.Rows.Row(i, cols), A: c[0], B: c[1]}
		switch {
		case c[1] < c[0]:
			row.Mark = "lost"
			d.Lost += c[0] - c[1]
		case c[0] > 0:
			row.Mark = "doubled"
			d.Doubled += c[1] - c[0]
		default:
			row.Mark = "extra"
			d.Extra += c[1]
		}
		if len(d.Rows) < maxDiffRows {
			d.Rows = append(d.Rows, row)
		}
	}
	for i := range a.Rows.Len() {
		visit(a, i)
	}
	for i := range b.Rows.Len() {
		visit(b, i)
	}
	if d.Lost == 0 && d.Doubled == 0 && d.Extra == 0 {
		for i := range a.Rows.Len() {
			if key(a, i) != key(b, i) {
				d.OutOfOrder = i + 1
				break
			}
		}
	}
	return d
}
