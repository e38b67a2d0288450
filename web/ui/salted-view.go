package ui

import "strconv"

// SaltedView draws per-worker load before and after salting, and the measured heavy keys.
type SaltedView struct {
	Run *Run
	// Prefix leads every id the view draws: empty in the main view, "a-" or "b-" for a side of the compare, so
	// two views of one kind on the page never share an id.
	Prefix string
}

// LoadBar is one worker's columns, heights in SVG units.
type LoadBar struct {
	X, W, Before, After float64
}

// loadHeight is the tallest column's height.
const loadHeight = 45

func (c *SaltedView) Bars() []LoadBar {
	before, after, top := c.Run.Trace.Salted.Loads()
	if len(before) == 0 || top == 0 {
		return nil
	}
	w := 350 / float64(len(before))
	out := make([]LoadBar, len(before))
	for i := range before {
		out[i] = LoadBar{X: 50 + float64(i)*w, W: max(1, w-2), Before: loadHeight * before[i] / top,
			After: loadHeight * after[i] / top}
	}
	return out
}

func (c *SaltedView) Workers() string {
	if w := c.Run.Trace.Salted.Workers; w > 0 {
		return strconv.Itoa(w)
	}
	if n := len(c.Bars()); n > 0 {
		return strconv.Itoa(n)
	}
	return "—"
}

// Naive says the run is the deliberately wrong teaching variant.
func (c *SaltedView) Naive() bool { return c.Run.DrawnStrategy() == "salted_naive_wrong" }

// Wrong is the naive variant's wrong rows, once the run is done.
func (c *SaltedView) Wrong() *WrongRows { return c.Run.wrongRows() }

// WrongShown are the first few wrong rows, for the table under the drawing.
func (c *SaltedView) WrongShown() []WrongRow {
	w := c.Wrong()
	if w == nil {
		return nil
	}
	return w.Rows[:min(len(w.Rows), wrongShown)]
}

// wrongShown bounds the wrong rows listed.
const wrongShown = 20

// Cell shows a null as such.
func (c *SaltedView) Cell(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// SmallRows is a small run's rows by worker (SaltedSummary.Small), or nil for a run too large to list them,
// or whose copies would draw more than maxSmallCells rows.
func (c *SaltedView) SmallRows() []*WorkerRows {
	n := 0
	for _, w := range c.Run.Trace.Salted.Small {
		n += len(w.Left) + len(w.Right)
	}
	if n > maxSmallCells {
		return nil
	}
	return c.Run.Trace.Salted.Small
}

// maxSmallCells bounds the rows the salted table draws after salting (each a DOM element, and about as many
// before). Inputs of SmallSideRows rows over the rule's 4 workers make at most a few hundred; a width forced
// to 64 could copy every expanded row 64 times, which no one reads row by row.
const maxSmallCells = 1000

// WorkerName names a worker's row of the table.
func (c *SaltedView) WorkerName(w *WorkerRows) string {
	if w.Worker < 0 {
		return "apart"
	}
	return "worker " + strconv.Itoa(w.Worker)
}

// SmallRow is one row as the table draws it: its text (the key, and its salt when not 0) and its class.
type SmallRow struct {
	Text, Class string
	Row, Salt   int
}

// Before is worker w's rows of one side before salting (SaltedSummary.BeforeSalting).
func (c *SaltedView) Before(w *WorkerRows, left bool) []SmallRow {
	if w.Worker < 0 {
		return nil
	}
	l, r := c.Run.Trace.Salted.BeforeSalting()
	rows := r
	if left {
		rows = l
	}
	if w.Worker >= len(rows) {
		return nil
	}
	out := make([]SmallRow, len(rows[w.Worker]))
	for i, x := range rows[w.Worker] {
		out[i] = SmallRow{Text: x.Key, Class: "row", Row: x.Row}
	}
	return out
}

// After is worker w's rows of one side as received: a copy of an expanded row is marked, and so, in the
// teaching variant, is a copy its worker null-extends wrongly (SaltedSummary.NullExtendedCopies).
func (c *SaltedView) After(w *WorkerRows, left bool) []SmallRow {
	rows, side := w.Right, 1
	if left {
		rows, side = w.Left, 0
	}
	var wrong map[CopyAt]bool
	if c.Naive() {
		wrong = c.Run.Trace.Salted.NullExtendedCopies()
	}
	out := make([]SmallRow, len(rows))
	for i, x := range rows {
		r := SmallRow{Text: x.Key, Class: "row", Row: x.Row, Salt: x.Salt}
		if x.Salt != 0 {
			r.Text += " ·" + strconv.Itoa(x.Salt)
		}
		if x.Copy {
			r.Class += " copy"
		}
		if wrong[CopyAt{Side: side, Worker: w.Worker, Index: i}] {
			r.Class += " wrong"
		}
		out[i] = r
	}
	return out
}
