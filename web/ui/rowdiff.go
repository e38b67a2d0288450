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
	// Arbitrary is set when a run takes rows with no sort before the take: which rows each strategy keeps is
	// its own choice, so the counts are kept but no row is marked or called lost.
	Arbitrary bool
	// Stopped is B's error when B failed partway: the rows it sent before are compared for rows doubled or
	// made up; the rows it never sent are not counted lost.
	Stopped string
	// A and B mark rows of each run by index (from 0): "lost" (A: a copy B lacks), "doubled" (B: a copy past
	// A's count; A: a row B repeats), "extra" (B: a row A lacks), "moved" (the same rows in another order), or
	// "gap" (B: the rows A has before this one are missing). At most maxMarks a side.
	A, B SideMarks
}

// SideMarks are the marked rows of one run's table.
type SideMarks struct {
	Marks map[int]string
	// First is the first marked row's index, -1 when none; Count counts every marked row, listed or not.
	First, Count int
}

func (m *SideMarks) mark(i int, mark string) {
	if m.Marks == nil {
		m.Marks, m.First = map[int]string{}, i
	}
	if _, ok := m.Marks[i]; ok {
		return
	}
	m.Count++
	if len(m.Marks) < maxMarks {
		m.Marks[i] = mark
	}
	m.First = min(m.First, i)
}

// maxMarks bounds the marks kept per side: the side tables show a window of rows, and a reordered run of
// 200,000 rows must not cost the page a map of them all.
const maxMarks = 10_000

// DiffRow is one differing row and how often each run produced it.
type DiffRow struct {
	Cells []string
	A, B  int
	// Mark is "lost", "doubled" or "extra".
	Mark string
}

// Same reports whether the runs produced the same rows in the same order.
func (d *RowDiff) Same() bool {
	return d.Note == "" && d.Stopped == "" && d.Lost == 0 && d.Doubled == 0 && d.Extra == 0 && d.OutOfOrder == 0
}

// DiffRuns compares run b's rows with the reference a's. A b that failed partway (not canceled) is compared
// over the rows it sent, for the rows it repeated or made up before it stopped.
func DiffRuns(a, b *Run) *RowDiff {
	d := &RowDiff{A: SideMarks{First: -1}, B: SideMarks{First: -1}}
	errText := func(r *Run) string {
		if r.Err != nil {
			return r.Err.Message
		}
		return "no reason given"
	}
	switch {
	case a.Status == StatusFailed:
		d.Note = "A, the reference, failed (" + errText(a) + "): there is nothing to compare B with."
		return d
	case a.Status != StatusDone || b.Status == StatusCanceled || b.Status == StatusRunning:
		d.Note = "Both runs must finish for their rows to be compared."
		return d
	case b.Status == StatusFailed && len(b.Columns) == 0:
		d.Stopped = errText(b)
		return d
	case strings.Join(a.Columns, "\x00") != strings.Join(b.Columns, "\x00"):
		d.Note = "The runs have different columns: " + strings.Join(a.Columns, ", ") + " against " +
			strings.Join(b.Columns, ", ") + "."
		return d
	}
	if b.Status == StatusFailed {
		d.Stopped = errText(b)
	}
	d.Arbitrary = a.Arbitrary || b.Arbitrary
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
	stopped := d.Stopped != ""
	listed := map[string]bool{}
	visit := func(r *Run, i int) {
		k := key(r, i)
		c := counts[k]
		if c[0] == c[1] || listed[k] || stopped && c[1] < c[0] {
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
	if d.Arbitrary {
		d.Rows = nil // nothing is listed or marked: neither run's choice of rows is wrong
		return d
	}
	d.markRows(a, b, key, counts)
	return d
}

// markRows marks the differing rows in both runs' tables. A row whose content the runs hold a different number
// of times is marked in each table it is in; where the rows agree as multisets, the positions where they
// differ are marked moved in both. Where B is A with rows left out, in A's order, the row of B after each
// missing stretch is marked gap, so B's table shows where A's lost rows belong. One pass over each run.
func (d *RowDiff) markRows(a, b *Run, key func(*Run, int) string, counts map[string][2]int) {
	stopped := d.Stopped != ""
	// Of a row A has more often than B, the copies past B's count are the lost ones; of a row B has more
	// often, B's copies past A's count are the repeats, and A's copies are marked as the rows B repeated.
	seen := map[string]int{}
	for i := range a.Rows.Len() {
		k := key(a, i)
		seen[k]++
		switch c := counts[k]; {
		case c[1] < c[0] && !stopped && seen[k] > c[1]:
			d.A.mark(i, "lost")
		case c[1] > c[0]:
			d.A.mark(i, "doubled")
		}
	}
	clear(seen)
	for j := range b.Rows.Len() {
		k := key(b, j)
		seen[k]++
		switch c := counts[k]; {
		case c[1] > c[0] && c[0] > 0 && seen[k] > c[0]:
			d.B.mark(j, "doubled")
		case c[1] > c[0] && c[0] == 0:
			d.B.mark(j, "extra")
		}
	}
	switch {
	case d.Lost == 0 && d.Doubled == 0 && d.Extra == 0 && !stopped:
		for i := range a.Rows.Len() {
			if key(a, i) != key(b, i) {
				if d.OutOfOrder == 0 {
					d.OutOfOrder = i + 1
				}
				d.A.mark(i, "moved")
				d.B.mark(i, "moved")
			}
		}
	case d.Lost > 0 && d.Doubled == 0 && d.Extra == 0:
		left := map[string]int{}
		for k, c := range counts {
			left[k] = c[0] - c[1]
		}
		for i, j := 0, 0; i < a.Rows.Len() && j < b.Rows.Len(); {
			ka, kb := key(a, i), key(b, j)
			switch {
			case ka == kb:
				i, j = i+1, j+1
			case left[ka] > 0:
				left[ka]--
				d.B.mark(j, "gap")
				i++
			default:
				return // B is not A with rows left out in A's order: no gap can be placed
			}
		}
	}
}
