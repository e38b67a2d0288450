package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/vugu/vugu"

	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// Root is the whole page. It reads State and calls its methods; it keeps nothing of its own.
type Root struct {
	State *State
}

// StatusText is the one-line status under the title.
func (c *Root) StatusText() string {
	s := c.State
	switch {
	case s.LoadError != "":
		return "The engine could not start: " + s.LoadError
	case s.Loading:
		return "Loading the engine…"
	case s.Run == nil:
		return "Ready."
	}
	r := s.Run
	if r.Timeline.Playing && !(r.Status == StatusRunning && r.Paused) { // an engine's hold says so first
		engine := "the engine is still running"
		if r.Status != StatusRunning {
			engine = "the engine has finished"
		}
		return fmt.Sprintf("Playing back at %s×: event %s of %s so far; %s.", SpeedText(r.Timeline.Speed),
			count(int64(r.Position())), count(int64(r.Tape.Len())), engine)
	}
	switch r.Status {
	case StatusRunning:
		if r.Paused {
			held := "."
			if r.Held() {
				held = "; the engine is holding."
			}
			return fmt.Sprintf("Paused at %s rows, %s trace events%s", count(int64(r.Rows.Len())), count(r.Trace.Events), held)
		}
		return fmt.Sprintf("Running… %s rows so far.", count(int64(r.Rows.Len())))
	case StatusDone:
		return fmt.Sprintf("Done: %s rows in %s.", count(statsRows(r)), fmtDuration(r.Finished))
	case StatusCanceled:
		return "Canceled."
	}
	return "The query failed."
}

// StatusKind styles the status line.
func (c *Root) StatusKind() string {
	s := c.State
	switch {
	case s.LoadError != "":
		return "bad"
	case s.Loading || s.Running():
		return "busy"
	case s.Run != nil && s.Run.Status == StatusFailed:
		return "bad"
	}
	return "good"
}

// Scenario is the picked scenario, or nil for the user's own tables.
func (c *Root) Scenario() *protocol.Scenario { return c.State.ScenarioInfo() }

func (c *Root) PickScenario(e vugu.DOMEvent) { c.State.PickScenario(e.PropString("target", "value")) }
func (c *Root) PickStrategy(e vugu.DOMEvent) { c.State.SetStrategy(e.PropString("target", "value")) }
func (c *Root) SetSeed(e vugu.DOMEvent)      { c.State.SetSeed(e.PropString("target", "value")) }
func (c *Root) SetMemory(e vugu.DOMEvent)    { c.State.SetMemoryMiB(e.PropString("target", "value")) }
func (c *Root) SetKnob(name string, e vugu.DOMEvent) {
	c.State.SetKnob(name, e.PropString("target", "value"))
}
func (c *Root) EditQuery(e vugu.DOMEvent) { c.State.SetQuery(e.PropString("target", "value")) }
func (c *Root) SetTableFormat(id int, e vugu.DOMEvent) {
	c.State.SetTableFormat(id, e.PropString("target", "value"))
}
func (c *Root) RenameTable(id int, e vugu.DOMEvent) {
	c.State.RenameTable(id, e.PropString("target", "value"))
}

// TableKey names a table's elements: its handle, or its name for a walkthrough's inline source.
func (c *Root) TableKey(t Table) string {
	if t.ID > 0 {
		return strconv.Itoa(t.ID)
	}
	return "w-" + t.Name
}

// TableOrigin says where a table came from and how big it is.
func (c *Root) TableOrigin(t Table) string {
	switch {
	case t.ID == 0:
		return "a walkthrough's source"
	case t.Status == TableMissing:
		return "not on this device: the link's sender kept this table's data"
	case t.File != "":
		return t.File + " · " + bytesText(float64(t.Size))
	}
	return "pasted · " + bytesText(float64(t.Size))
}

// LoadProgress is the line under a table's progress bar while the engine parses it.
func (c *Root) LoadProgress(t Table) string {
	if t.Size <= 0 {
		return "Parsing…"
	}
	return fmt.Sprintf("Parsing… %s of %s (%.0f%%)", bytesText(float64(t.Read)), bytesText(float64(t.Size)),
		100*float64(t.Read)/float64(t.Size))
}

// maxSummaryColumns is how many columns a table's summary names; a wide table's others are counted.
const maxSummaryColumns = 12

// TableSummary is the engine's account of a parsed table: rows, columns and their inferred types.
func (c *Root) TableSummary(t Table) string {
	sum := t.Summary
	var cols []string
	for i, col := range sum.Columns {
		if i == maxSummaryColumns {
			cols = append(cols, fmt.Sprintf("and %d more", len(sum.Columns)-i))
			break
		}
		cols = append(cols, col.Name+" "+col.Type)
	}
	rows, typed := plural(sum.Rows, "row"), "parsed"
	if sum.RowsEstimated {
		// Only the first bytes were read: a query scans the rest, checking every value against these types.
		rows, typed = "about "+rows, "typed from its first MiBs"
	}
	return fmt.Sprintf("%s · %s: %s · %s in %s", rows, plural(int64(len(sum.Columns)), "column"),
		strings.Join(cols, ", "), typed, fmtDuration(time.Duration(sum.ParseMillis*float64(time.Millisecond))))
}

// TableError is a table's parse error, led by its line.
func (c *Root) TableError(t Table) string {
	if t.Err.Line > 0 && !strings.HasPrefix(t.Err.Message, "line ") {
		return fmt.Sprintf("line %d: %s", t.Err.Line, t.Err.Message)
	}
	return t.Err.Message
}

func (c *Root) DownloadBusy() bool {
	return c.State.Downloading != "" || c.State.Run.Status != StatusDone
}

// EditorKey runs the query on Ctrl+Enter (Cmd+Enter on a Mac), with the text as it is at the key press.
func (c *Root) EditorKey(e vugu.DOMEvent) {
	if e.PropString("key") != "Enter" || !(e.PropBool("ctrlKey") || e.PropBool("metaKey")) {
		return
	}
	e.PreventDefault()
	if v := e.PropString("target", "value"); v != "" {
		c.State.SetQuery(v)
	}
	c.State.StartRun()
}

// The seed, memory and knob inputs take their value as an attribute, which the browser shows only until the
// user types: a render during a run then never overwrites a number being typed. They commit on change.

func (c *Root) SeedText() string { return strconv.FormatUint(c.State.Seed, 10) }

func (c *Root) MemoryText() string {
	if c.State.MemoryBudget == 0 {
		return ""
	}
	return strconv.FormatFloat(float64(c.State.MemoryBudget)/(1<<20), 'f', -1, 64)
}

func (c *Root) KnobText(name string) string {
	return strconv.FormatFloat(c.State.Knobs[name], 'f', -1, 64)
}

func (c *Root) PauseText() string {
	if c.State.Run != nil && c.State.Run.Paused {
		return "Resume"
	}
	return "Pause"
}

func (c *Root) NotPaused() bool { return !c.State.Running() || !c.State.Run.Paused }

func (c *Root) PokeText() string {
	if c.State.Pokes == 0 {
		return "Poke"
	}
	return fmt.Sprintf("Poked %d×", c.State.Pokes)
}

// queryError is the current run's error when it is about the query text.
func (c *Root) queryError() *protocol.Error {
	if r := c.State.Run; r != nil && r.Status == StatusFailed && r.Err != nil {
		return r.Err
	}
	return nil
}

// ErrorText is the failed run's message, led by its position.
func (c *Root) ErrorText() string {
	e := c.queryError()
	if e == nil {
		return ""
	}
	if e.Line > 0 && !strings.HasPrefix(e.Message, fmt.Sprintf("%d:%d", e.Line, e.Col)) {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Message)
	}
	return e.Message
}

// HasErrorMark reports whether the error has a position in the editor's text.
func (c *Root) HasErrorMark() bool {
	e := c.queryError()
	return e != nil && e.Line > 0 && c.State.Run.Status == StatusFailed
}

// ErrorParts cuts the query text around the error's position for the editor's backdrop: before, the
// marked character (a space at the end of the text or of a line), after.
func (c *Root) ErrorParts() [3]string {
	text := c.State.Query
	if !c.HasErrorMark() {
		return [3]string{text, "", ""}
	}
	off, ok := Offset(text, c.queryError().Line, c.queryError().Col)
	if !ok {
		return [3]string{text, "", ""}
	}
	if off >= len(text) || text[off] == '\n' {
		return [3]string{text[:off], " ", text[off:]}
	}
	end := off + 1
	for end < len(text) && text[end]&0xC0 == 0x80 { // keep a UTF-8 sequence whole
		end++
	}
	return [3]string{text[:off], text[off:end], text[end:]}
}

// Offset turns a 1-based line and byte column into a byte offset in text.
func Offset(text string, line, col int) (int, bool) {
	if line < 1 || col < 1 {
		return 0, false
	}
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	lineEnd := strings.IndexByte(text[off:], '\n')
	if lineEnd < 0 {
		lineEnd = len(text) - off
	}
	if col-1 > lineEnd {
		return 0, false
	}
	return off + col - 1, true
}

// ShowLive says whether the view and metrics have anything to show: not for a run that failed before it
// was planned (a query error), where the error says all, nor while the compare panel draws A's view beside B's.
func (c *Root) ShowLive() bool {
	r := c.State.Run
	return r != nil && (r.Status == StatusRunning || r.Explain != "") && !c.ShowCompare()
}

// View names the strategy view for the run: the strategy's own, or the generic one.
func (c *Root) View() string { return c.State.Run.View() }

func (c *Root) TabSelected(tab string) string { return strconv.FormatBool(c.State.Tab == tab) }

func (c *Root) ExplainText() string {
	if e := c.State.Run.Explain; e != "" {
		return e
	}
	if c.State.Run.Status == StatusRunning {
		return "Planning…"
	}
	return "No plan: the query did not get that far."
}

func (c *Root) TraceHeadline() string {
	t := c.State.Run.Trace
	s := fmt.Sprintf("%s events", count(t.Events))
	if t.Dropped > 0 {
		s += fmt.Sprintf(" (and %s not sent, to keep the page light)", count(t.Dropped))
	}
	return s + "; the last few are listed below the tally."
}

func describe(e trace.Event) string { return Describe(e) }

// nativeHead is the line above a native request: its source, then each size against the connector's cap
// where the connector has one — the query text's bytes, the values of its IN lists, the rows it asked for.
func nativeHead(n Native) string {
	parts := []string{bytesText(n.Bytes)}
	if n.MaxBytes > 0 {
		parts[0] += " of " + bytesText(n.MaxBytes) + " (query text cap)"
	}
	if n.InValues > 0 {
		in := count(int64(n.InValues)) + " IN values"
		if n.MaxIn > 0 {
			in = count(int64(n.InValues)) + " of " + count(int64(n.MaxIn)) + " IN values per list"
		}
		parts = append(parts, in)
	}
	if n.Limit > 0 {
		rows := "take " + count(int64(n.Limit))
		if n.MaxRows > 0 {
			rows += " of " + count(int64(n.MaxRows)) + " rows per response"
		}
		parts = append(parts, rows)
	}
	if n.Source != "" {
		parts = append([]string{"@" + n.Source}, parts...)
	}
	return strings.Join(parts, " · ")
}

func strategyLabel(st protocol.Strategy) string {
	if st.Baseline {
		return st.Name + " (baseline: shows how a naive plan fails)"
	}
	return st.Name
}

// statsRows is the run's row count: the engine's when done, else the rows received.
func statsRows(r *Run) int64 {
	if r.Stats != nil {
		return r.Stats.RowsOut
	}
	return max(r.Trace.Output, int64(r.Rows.Len()))
}

// count formats n with thousands separators.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// bytesText formats a byte count.
func bytesText(n float64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", n/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", n/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", n/(1<<10))
	}
	return fmt.Sprintf("%.0f B", n)
}

// Fraction is how much of a table the engine has parsed, 0 to 1.
func (c *Root) Fraction(t Table) string {
	if t.Size <= 0 {
		return "0"
	}
	return strconv.FormatFloat(min(1, float64(t.Read)/float64(t.Size)), 'f', 3, 64)
}

// SummaryRows and ParseMillis are a parsed table's row count and parse time as attributes ("" before), for
// scripts and tests that read the page; an estimated count is led by "~".
func (c *Root) SummaryRows(t Table) string {
	if t.Summary == nil {
		return ""
	}
	if t.Summary.RowsEstimated {
		return "~" + strconv.FormatInt(t.Summary.Rows, 10)
	}
	return strconv.FormatInt(t.Summary.Rows, 10)
}

func (c *Root) ParseMillis(t Table) string {
	if t.Summary == nil {
		return ""
	}
	return strconv.FormatFloat(t.Summary.ParseMillis, 'f', 1, 64)
}

// ReadBytes, ProgressReports and LoadProgressFold are how many of a table's bytes the engine has parsed, how
// many progress messages it sent on the way and their fold (ProgressFold), as attributes for tests that read
// the page: none depends on which messages a render happened to draw.
func (c *Root) ReadBytes(t Table) string { return strconv.FormatInt(t.Read, 10) }

func (c *Root) ProgressReports(t Table) string { return strconv.Itoa(t.Progress.Reports) }

func (c *Root) LoadProgressFold(t Table) string { return t.Progress.Attr() }

// plural is n with its noun, formatted, the noun with an s unless n is 1.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return count(n) + " " + noun + "s"
}
