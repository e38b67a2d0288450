package ui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/plan/planevent"
	"github.com/joinlab/joinlab/engine/trace"
)

// A walkthrough step frozen at its pause point, and told in words. Once the step's run is done, the page's
// timeline is put at the step's event (the pause event and every event before it), so the strategy view,
// the metrics and the results below the step draw the run as it stood there — Fold of the events up to it —
// not the whole run. The step's own panel says what the paused event is in a sentence with its figures in
// a small table, and each stated fact as a sentence.

// freezeWalk puts the timeline of the walkthrough's run at the open step's pause point, or shows the whole
// run for a step that pauses nowhere. It does nothing until the run is done, or when the page's run is not
// the walkthrough's.
func (s *State) freezeWalk() {
	w, r := s.Walk, s.Run
	if w == nil || w.Open == nil || r == nil || r.ID != w.runID || r.Status == StatusRunning || r.Tape == nil {
		return
	}
	_, step := w.Open.Step(w.Step)
	if step == nil || step.Pause == nil {
		r.FollowLive()
		return
	}
	i, err := findPause(w.events, step.Pause)
	if err != nil {
		r.FollowLive()
		return
	}
	r.Seek(tapeIndex(r.Tape, i) + 1)
}

// tapeIndex is the index on the run's tape of the i-th engine event, the walkthrough counting none of the
// runner's own (runnerEvent).
func tapeIndex(t *Tape, i int) int {
	seen := -1
	for j := range t.Len() {
		if runnerEvent(t.Event(j)) {
			continue
		}
		if seen++; seen == i {
			return j
		}
	}
	return t.Len() - 1
}

// PausedFigures lists the paused event's figures for its small table, its payload's fields sorted by their
// json names: each value as a reader wants it (counts with separators, sizes in bytes, times as durations).
func (v *WalkView) PausedFigures() []Attr {
	e := v.PausedEvent()
	if e == nil {
		return nil
	}
	fields := trace.Attrs(e.Payload)
	var out []Attr
	for _, k := range sortedNames(fields) {
		out = append(out, Attr{k, figureText(k, fields[k])})
	}
	return out
}

// figureText is an attribute's value as text: a *_ns or wait attribute as a duration, a bytes attribute
// with its unit, other numbers with thousands separators, lists and strings as they read.
func figureText(name string, v any) string {
	if f, ok := toFloat(v); ok {
		switch {
		case strings.HasSuffix(name, "_ns"):
			return fullDuration(time.Duration(f))
		case name == "bytes" || strings.HasSuffix(name, "_bytes"):
			if f >= 1<<10 {
				return bytesText(f) + " (" + count(int64(f)) + " bytes)"
			}
			return count(int64(f)) + " bytes"
		case f == float64(int64(f)):
			return count(int64(f))
		}
		return strconv.FormatFloat(f, 'g', 6, 64)
	}
	return valueText(v)
}

// valueText is any value as a sentence reads it: strings bare, null as "null", lists comma-separated.
func valueText(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return v
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return count(n)
		}
		return v.String()
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = valueText(x)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case map[string]any:
		return pairsText(v, nil)
	}
	if f, ok := toFloat(v); ok {
		return figureText("", f)
	}
	return compact(v)
}

// pairsText is "a 1, b 2 and c 3" for the keys of m not in skip, sorted.
func pairsText(m map[string]any, skip map[string]bool) string {
	var keys []string
	for k := range m {
		if !skip[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + valueText(m[k])
	}
	return andList(parts)
}

// andList joins "a", "b", "c" as "a, b and c".
func andList(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// kindWords is an event kind as words ("partition_written" → "partition written").
func kindWords(k string) string { return strings.ReplaceAll(k, "_", " ") }

// PausedSentence says in words what the paused event is: what happened, where, and when on the run's clock.
func (v *WalkView) PausedSentence() string {
	e := v.PausedEvent()
	if e == nil {
		return ""
	}
	return eventSentence(*e)
}

// eventSentence tells one event: a sentence of its own for the kinds the walkthroughs pause at, and for any
// other its kind and operator; its figures are in the table beside it.
func eventSentence(e trace.Event) string {
	var s string
	switch p := e.Payload.(type) {
	case joinevent.Spill:
		s = fmt.Sprintf("The %s side is written out: %s rows in %s partitions, %s pages", p.Side, n(p.Rows), n(p.Partitions), n(p.Pages))
	case joinevent.PartitionWritten:
		s = fmt.Sprintf("Partition %s of the %s side is written: %s rows", p.Partition, p.Side, n(p.Rows))
	case joinevent.PartitionRead:
		s = fmt.Sprintf("Partition %s of the %s side is read back: %s rows", p.Partition, p.Side, n(p.Rows))
	case joinevent.PairJoined:
		s = fmt.Sprintf("Partition pair %s is joined in memory (%s join, %s build rows from the %s side against %s probe rows): %s rows out",
			p.Partition, p.Method, n(p.BuildRows), p.Build, n(p.ProbeRows), n(p.Rows))
	case joinevent.Repartition:
		s = fmt.Sprintf("Partition %s is too large for the memory budget and is split again, %s ways, at level %s", p.Partition, n(p.Fanout), n(p.Level))
	case joinevent.HotKey:
		s = fmt.Sprintf("Key %s fills partition %s however it is hashed: it is joined apart, %s rows on the left and %s on the right", p.Key, p.Partition, n(p.LeftRows), n(p.RightRows))
	case joinevent.SweepAdvanced:
		s = fmt.Sprintf("The sweep reaches %s with %s intervals active on the left and %s on the right; %s expired and %s overlaps so far",
			n(p.Position), n(p.ActiveLeft), n(p.ActiveRight), n(p.Expired), n(p.Overlaps))
	case planevent.PartitionsPruned:
		s = fmt.Sprintf("Of @%s's partitions, %s are read and %s are skipped by time", p.Source, n(p.Read), n(p.Pruned))
	case connevent.RequestSent:
		s = fmt.Sprintf("Request %s goes to @%s", n(p.Request), p.Source)
	case connevent.PageReturned:
		s = fmt.Sprintf("@%s answers request %s with %s rows", p.Source, n(p.Request), n(p.Rows))
	case connevent.RequestFailed:
		s = fmt.Sprintf("Request %s to @%s fails: %s", n(p.Request), p.Source, p.Error)
	case joinevent.PageSized:
		s = fmt.Sprintf("Page %s is sized at %s rows: %s", n(p.Page), n(p.Size), p.Reason)
	case joinevent.PageRequested:
		s = fmt.Sprintf("Page %s is asked for, after the cursor %s", n(p.Page), tupleWords(p.Cursor))
	case joinevent.PageFetched:
		s = fmt.Sprintf("Page %s arrives: %s rows with %s distinct keys", n(p.Page), n(p.Rows), n(p.DistinctKeys))
	case joinevent.FilterSplit:
		s = fmt.Sprintf("The %s side's filter of %s keys is split into %s slices to fit @%s's caps", p.Side, n(p.Keys), n(p.Slices), p.Source)
	case joinevent.Refetched:
		s = fmt.Sprintf("Page %s's %s keys are fetched at full width up to the window's end", n(p.Page), n(p.Keys))
	case joinevent.TieGroupCut:
		s = fmt.Sprintf("Page %s ends inside a group of rows tied on %s", n(p.Page), p.Tuple)
	case trace.RowsEmitted:
		s = fmt.Sprintf("%s rows are emitted, %s so far", n(p.Rows), n(p.Total))
	case joinevent.HeavyKey:
		s = fmt.Sprintf("Key %s is measured heavy: %s rows on the left, %s on the right", p.Key, n(p.LeftRows), n(p.RightRows))
	case joinevent.SaltAssigned:
		s = fmt.Sprintf("Key %s's rows on the %s side are spread over salts", p.Key, p.Side)
	case joinevent.RowsReplicated:
		s = fmt.Sprintf("Key %s's %s rows on the %s side are copied to %s workers", p.Key, n(p.Rows), p.Side, n(p.Copies))
	case joinevent.WorkerLoad:
		s = fmt.Sprintf("Worker %s holds %s rows before salting and %s after", n(p.Worker), n(p.LoadBefore), n(p.LoadAfter))
	default:
		s = "A " + kindWords(string(e.Kind())) + " event"
		if a := trace.Attrs(e.Payload); len(a) > 0 {
			figures := make(map[string]any, len(a))
			for k, v := range a {
				figures[k] = figureText(k, v)
			}
			s += " with " + pairsText(figures, nil)
		}
	}
	if e.Op != "" {
		s += " (" + e.Op + ")"
	}
	return s + "."
}

// toFloat reads a number out of a generic value: a run's details and an event's fields as trace.Attrs gives
// them hold float64 (through JSON), a run's details natively int64 and the like.
func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case int32:
		return float64(v), true
	}
	return 0, false
}

// n is a count as a sentence writes it, with thousands separators.
func n[T int | int32 | int64](v T) string { return count(int64(v)) }

// tupleWords is a cursor tuple as a sentence writes it, "(v1, v2)", or "null" at the start.
func tupleWords(tuple []string) string {
	if tuple == nil {
		return "null"
	}
	return "(" + strings.Join(tuple, ", ") + ")"
}

// factSentence says a stated fact in words. Facts are the walkthrough file's (docs/walkthroughs.md); check
// says whether each holds.
func factSentence(f map[string]any) string {
	n, counted := f["count"]
	switch {
	case f["event"] != nil:
		skip := map[string]bool{"event": true, "count": true, "scope": true, "op": true}
		kind := kindWords(valueText(f["event"])) + " event"
		what := ""
		if op, ok := f["op"]; ok {
			what += " of " + valueText(op)
		}
		if with := pairsText(f, skip); with != "" {
			what += " with " + with
		}
		where := " up to the pause point."
		if f["scope"] == "run" {
			where = " in the whole run."
		}
		switch c := valueText(n); {
		case !counted:
			return "There is a " + kind + what + where
		case c == "0":
			return "There is no " + kind + what + where
		case c == "1":
			return "There is exactly one " + kind + what + where
		default:
			return "There are exactly " + c + " " + kind + "s" + what + where
		}
	case f["paused"] != nil:
		m, _ := f["paused"].(map[string]any)
		return "The event paused at has " + pairsText(m, nil) + "."
	case f["rows"] != nil:
		return "The run outputs " + valueText(f["rows"]) + " rows."
	case f["row"] != nil:
		m, _ := f["row"].(map[string]any)
		with := pairsText(m, nil)
		switch c := valueText(n); {
		case !counted:
			return "A result row has " + with + "."
		case c == "0":
			return "No result row has " + with + "."
		case c == "1":
			return "Exactly one result row has " + with + "."
		default:
			return "Exactly " + c + " result rows have " + with + "."
		}
	case f["result_prefix"] != nil:
		rows, _ := f["result_prefix"].([]any)
		parts := make([]string, len(rows))
		for i, r := range rows {
			m, _ := r.(map[string]any)
			parts[i] = pairsText(m, nil)
		}
		return fmt.Sprintf("The result begins with %d rows, in this order: %s.", len(rows), strings.Join(parts, "; "))
	case f["columns"] != nil:
		cols, _ := f["columns"].([]any)
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = valueText(c)
		}
		return "The result's columns are " + andList(names) + "."
	case f["detail"] != nil:
		d := valueText(f["detail"])
		want, ok := f["equals"]
		switch want.(type) {
		case nil:
			if !ok {
				return "The run reports the detail " + d + "."
			}
		case []any, map[string]any:
			return "The run's detail " + d + " is the table the Details list shows."
		}
		return "The run's detail " + d + " is " + valueText(want) + "."
	case f["explain_contains"] != nil:
		return "The plan says “" + valueText(f["explain_contains"]) + "”."
	case f["error_contains"] != nil:
		return "The run fails with an error that says “" + valueText(f["error_contains"]) + "”."
	}
	return compact(f)
}
