package ui

import "fmt"

// Compare shows the two runs of a comparison side by side: their figures, then the rows that differ.
type Compare struct {
	State *State
}

func (c *Compare) A() *Run { return c.State.Run }
func (c *Compare) B() *Run { return c.State.CompareRun }

// Name labels a run by its strategy, baselines marked as the catalogue marks them.
func (c *Compare) Name(r *Run) string {
	letter := "A"
	if r == c.B() {
		letter = "B"
	}
	name := r.Strategy
	if name == "" {
		name = "auto"
	}
	for _, st := range c.State.Catalogue.Strategies {
		if st.Name == name && st.Baseline {
			name += " (baseline)"
		}
	}
	return letter + ": " + name
}

// Figure is one line of the side-by-side figures.
type Figure struct{ Label, A, B string }

// Figures are each run's status and metrics, as the metrics panel words them.
func (c *Compare) Figures() []Figure {
	a, b := &Metrics{Run: c.A()}, &Metrics{Run: c.B()}
	status := func(r *Run) string {
		if r.Status == StatusRunning && r.Paused {
			return "paused"
		}
		if r.Err != nil && r.Status == StatusFailed {
			return "failed: " + r.Err.Message
		}
		return r.Status
	}
	virtual := func(m *Metrics) string {
		if m.HasVirtual() {
			return m.Virtual()
		}
		return "—"
	}
	return []Figure{
		{"status", status(c.A()), status(c.B())},
		{"strategy", a.Strategy(), b.Strategy()},
		{"rows out", a.Rows(), b.Rows()},
		{"rows read", a.Read(), b.Read()},
		{"requests", a.Requests(), b.Requests()},
		{"shipped", a.Shipped(), b.Shipped()},
		{"memory peak", a.Memory(), b.Memory()},
		{"virtual clock", virtual(a), virtual(b)},
		{"time", a.Time(), b.Time()},
	}
}

// Verdict says in one line how B's rows compare with A's.
func (c *Compare) Verdict() string {
	d := c.State.Diff
	switch {
	case d == nil:
		return "Comparing once both runs are over…"
	case d.Note != "":
		return d.Note
	case d.Arbitrary:
		return fmt.Sprintf("The query takes rows with no sort before the take, so each strategy may keep any of "+
			"them: the rows are arbitrary, not lost or extra (%s of A's are not among B's). Sort, or use top, "+
			"before the take to compare them row for row.", count(int64(d.Lost)))
	case d.Stopped != "":
		s := "B failed: " + d.Stopped + "."
		switch {
		case c.B().Rows.Len() == 0:
			s += " It sent no rows."
		case d.Doubled+d.Extra > 0:
			s += fmt.Sprintf(" Before it stopped it sent %s rows: %s of them repeated, %s not in A's answer.",
				count(int64(c.B().Rows.Len())), count(int64(d.Doubled)), count(int64(d.Extra)))
		default:
			s += fmt.Sprintf(" The %s rows it sent before are all in A's answer.", count(int64(c.B().Rows.Len())))
		}
		return s
	case d.Same():
		return "Same rows, in the same order."
	}
	var s string
	switch {
	case d.Lost == 0 && d.Doubled == 0 && d.Extra == 0:
		s = fmt.Sprintf("Same rows, in another order (from row %s).", count(int64(d.OutOfOrder)))
	default:
		s = fmt.Sprintf("B differs from A: %s rows lost, %s doubled, %s extra.", count(int64(d.Lost)),
			count(int64(d.Doubled)), count(int64(d.Extra)))
		if len(d.Rows) == maxDiffRows {
			s += fmt.Sprintf(" The first %d differing rows are listed.", maxDiffRows)
		}
	}
	if d.Partial {
		s += " (Compared over the rows the page kept.)"
	}
	return s
}

// VerdictKind styles the verdict: good when the rows agree, bad when rows are lost, doubled, added or out of
// the query's order, or B failed; busy while waiting, or when there is nothing to judge.
func (c *Compare) VerdictKind() string {
	d := c.State.Diff
	switch {
	case d == nil || d.Note != "" || d.Arbitrary:
		return "busy"
	case d.Stopped != "" || d.Lost+d.Doubled+d.Extra > 0 || d.OutOfOrder > 0:
		return "bad"
	}
	return "good"
}

func (c *Compare) HasRows() bool { return c.State.Diff != nil && len(c.State.Diff.Rows) > 0 }

// sideRows is how many rows each side's table shows: a window from just before its first marked row, enough
// to see a difference in context and few enough to keep the render small.
const (
	sideRows   = 16
	sideBefore = 3
)

// Side is one run's half of the panel: its view, and a window of its rows with the differing ones marked.
type Side struct {
	Key string // "a" or "b"
	Run *Run
	// Rows are the window of rows shown; Marked counts the run's marked rows, listed or not.
	Rows    []SideRow
	Marked  int
	Summary string
}

// SideRow is one row of a side's table: its number (from 1), cells and mark ("" for a row that agrees).
type SideRow struct {
	N                  int
	Cells              []string
	Mark, Class, Title string
}

// markTitles explain each mark where the row shows it.
var markTitles = map[string]string{
	"lost":    "A has this row more often than B: B lost it",
	"doubled": "B has this row more often than A",
	"extra":   "only B has this row",
	"moved":   "the runs have different rows at this position: the same rows in another order",
	"gap":     "rows A has before this one are missing from B",
}

// Sides are A's and B's halves.
func (c *Compare) Sides() []Side {
	d := c.State.Diff
	out := []Side{{Key: "a", Run: c.A()}, {Key: "b", Run: c.B()}}
	for i := range out {
		sd := &out[i]
		marks := SideMarks{First: -1}
		if d != nil {
			marks = d.A
			if sd.Key == "b" {
				marks = d.B
			}
		}
		r := sd.Run
		first := 0
		if marks.First > 0 {
			first = max(0, marks.First-sideBefore)
		}
		for j, cells := range r.Rows.Slice(first, first+sideRows, len(r.Columns)) {
			n := first + j
			row := SideRow{N: n + 1, Cells: cells, Mark: marks.Marks[n], Class: "row"}
			if row.Mark != "" {
				row.Class, row.Title = "row marked "+row.Mark, markTitles[row.Mark]
			}
			sd.Rows = append(sd.Rows, row)
		}
		sd.Marked = marks.Count
		sd.Summary = c.sideSummary(sd, marks, first)
	}
	return out
}

func (c *Compare) sideSummary(sd *Side, marks SideMarks, first int) string {
	r := sd.Run
	rows := plural(int64(r.Rows.Len()), "row")
	switch {
	case c.State.Diff == nil:
		return rows + " so far."
	case c.State.Diff.Arbitrary:
		return rows + ", none marked: a take with no sort keeps arbitrary rows."
	case marks.Count == 0:
		return rows + ", none marked."
	}
	return fmt.Sprintf("%s, %s marked; shown from row %s, the first marked one is row %s.", rows,
		count(int64(marks.Count)), count(int64(first+1)), count(int64(marks.First+1)))
}
