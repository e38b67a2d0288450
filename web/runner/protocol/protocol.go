// Package protocol is the vocabulary the playground page and its engine Web Worker speak: the page posts
// Requests, the engine posts Messages back, both as JSON strings through postMessage. It holds types only
// and imports nothing but the trace's event types and their registry (engine/trace/registry, whose compact
// codec carries a batch's events), so the UI's WebAssembly program carries none of the engine.
//
// A run is a conversation keyed by its ID: the page sends a "run" Request, the engine answers "started" (the
// output columns, the explain text, and the strategy that ran with the view that draws it), then any number of "batch" Messages (rows and trace events, merged
// so the page gets a few dozen messages a second however fast the engine goes), then exactly one of "done"
// or "error"; a paused run's "held" may come between its batches. A run that fails before it starts (a query error) sends only the "error". A "cancel" Request
// stops the run it names; its last Message is then an "error" with Canceled set. Order checks a run's messages
// against this.
package protocol

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/engine/trace/registry"
)

// Request types, page → engine.
const (
	// RequestCatalogue asks for the scenarios and strategies (answered with MessageCatalogue).
	RequestCatalogue = "catalogue"
	RequestRun       = "run"
	RequestCancel    = "cancel"
	// RequestPause holds the run it names after its next batch, until RequestResume; RequestStep lets one
	// more batch through a paused run.
	RequestPause  = "pause"
	RequestResume = "resume"
	RequestStep   = "step"
	// RequestAck says the page has applied one more batch of the run it names. The engine keeps at most
	// MaxBatchesInFlight batches unacknowledged, so the page is never far behind the engine: a pause holds
	// the view within that many batches of the click, and a slow page slows the run instead of queueing it.
	RequestAck = "ack"
	// RequestLoad hands the engine one of the user's own tables (Load): a file or a paste, whose bytes travel
	// beside the request's JSON as a Blob (see Envelope), or a small text in Load.Data. The engine parses it
	// where it lives, posting MessageLoadProgress while it reads, then MessageLoaded or MessageLoadFailed. A
	// load of a table the engine holds already parses its bytes again (a new format).
	RequestLoad = "load"
	// RequestDrop forgets the table Load.Table names, stopping its parse if one is under way.
	RequestDrop = "drop"
	// RequestDownload runs Download.Run again, flat out, and posts its whole output as one file
	// (MessageDownload, the file's bytes beside the JSON as a Blob); ID names the download.
	RequestDownload = "download"
)

// MaxBatchesInFlight is how many batches the engine posts ahead of the page's acknowledgements. Each is at
// about 50 ms of work (runner.FlushEvery) or 4,096 rows, so four keep the pipe full while the page applies
// one, without a backlog.
const MaxBatchesInFlight = 4

// Message types, engine → page.
const (
	// MessageReady is posted once, when the engine has started; Catalogue is set.
	MessageReady     = "ready"
	MessageCatalogue = "catalogue"
	MessageStarted   = "started"
	MessageBatch     = "batch"
	MessageDone      = "done"
	MessageError     = "error"
	// MessageHeld says a paused run is held: the engine posts nothing more of it until the page resumes or
	// steps it, and Held is the number of batches it posted before (the page has them all once this comes,
	// since messages arrive in order). It may come between a run's batches, any number of times.
	MessageHeld = "held"
	// MessageLoadProgress says how many bytes of a table (Table) the engine has parsed (Read).
	MessageLoadProgress = "load_progress"
	// MessageLoaded says a table (Table) is parsed: Summary says what it holds.
	MessageLoaded = "loaded"
	// MessageLoadFailed says a table (Table) could not be parsed: Error says why, with the line.
	MessageLoadFailed = "load_failed"
	// MessageDownload answers RequestDownload: File names the file, Read is its size, and its bytes come
	// beside the JSON; or Error says why there is none.
	MessageDownload = "download"
	// MessageLoadError is posted by the worker's script, not the engine, when engine.wasm cannot start.
	MessageLoadError = "load_error"
)

// Request is what the page asks of the engine.
type Request struct {
	Type string `json:"type"`
	// ID names the run; the page picks it, and every Message about the run carries it.
	ID int `json:"id,omitempty"`
	// Run is set for RequestRun.
	Run *Run `json:"run,omitempty"`
	// Load is set for RequestLoad and RequestDrop.
	Load *Load `json:"load,omitempty"`
	// Download is set for RequestDownload.
	Download *Download `json:"download,omitempty"`
}

// Load is one of the user's own tables, as the page hands it to the engine.
type Load struct {
	// Table is the page's handle for the table, which a Run's Input names; the page picks it, from 1.
	Table int `json:"table"`
	// File is the name of the file the bytes came from ("" for a paste), for messages.
	File string `json:"file,omitempty"`
	// Format is "jsonl" or "csv".
	Format string `json:"format"`
	// Size is the bytes' length, for progress.
	Size int64 `json:"size,omitempty"`
	// Data is the table's text when it is small and no Blob comes with the request (the page's starting
	// tables, a share link's own tables).
	Data string `json:"data,omitempty"`
}

// Download formats.
const (
	DownloadCSV   = "csv"
	DownloadJSONL = "jsonl"
	// DownloadTrace is the run's trace events, one JSON object per line.
	DownloadTrace = "trace"
)

// Download asks for a run's output as a file.
type Download struct {
	Format string `json:"format"`
	Run    *Run   `json:"run"`
}

// MaxInlineBytes is the largest table whose text MessageLoaded sends back (Summary.Text), so that a share link
// may carry it: a few KiB compress into a fragment every browser accepts. Larger data stays where it is.
const MaxInlineBytes = 4 << 10

// Run is one query to run.
type Run struct {
	Query string `json:"query"`
	// Scenario names the sims/scenario entry whose sources the query runs against; "" means Sources.
	Scenario string             `json:"scenario,omitempty"`
	Knobs    map[string]float64 `json:"knobs,omitempty"`
	Seed     uint64             `json:"seed"`
	// MemoryBudget in bytes; 0 is the scenario's own budget, or the engine's default.
	MemoryBudget int64 `json:"memory_budget,omitempty"`
	// Strategy forces a join strategy (hint.strategy= on every join that names none); "" lets the planner choose.
	Strategy string `json:"strategy,omitempty"`
	// Sources are the user's own tables, keyed by the name the query writes after '@'.
	Sources map[string]Input `json:"sources,omitempty"`
	// PauseAfter, when positive, holds the run after that many batch messages, as if the page had pressed
	// pause then: it is how a share link reopens a run at the step it was paused at.
	PauseAfter int `json:"pause_after,omitempty"`
}

// Input is one table the user pasted or loaded from disk.
type Input struct {
	// Table, when positive, is a table the engine holds (RequestLoad); Format and Data are then unused.
	Table int `json:"table,omitempty"`
	// Format is "jsonl" (one JSON object per line) or "csv" (a header row, then records).
	Format string `json:"format,omitempty"`
	Data   string `json:"data,omitempty"`
	// Connector, when set, puts the table behind a simulated API with a profile's caps, as a walkthrough's
	// inline source does (docs/walkthroughs.md): the walkthrough player sends it.
	Connector *Connector `json:"connector,omitempty"`
}

// Connector is the simulated service (sims/service) a table sits behind: a profile (sims/profile), the
// table's tie-free order ("timestamp desc", "user"), and caps that override the profile's when positive.
type Connector struct {
	Profile       string   `json:"profile"`
	Key           []string `json:"key"`
	MaxRows       int      `json:"max_rows,omitempty"`
	MaxBytes      int64    `json:"max_bytes,omitempty"`
	MaxInValues   int      `json:"max_in_values,omitempty"`
	MaxQueryBytes int      `json:"max_query_bytes,omitempty"`
}

// Message is what the engine tells the page. Which fields are set depends on Type.
type Message struct {
	Type string `json:"type"`
	ID   int    `json:"id,omitempty"`

	Catalogue *Catalogue `json:"catalogue,omitempty"`

	// Started.
	Columns []string `json:"columns,omitempty"`
	Explain string   `json:"explain,omitempty"`
	// Inputs are the rows of each source, so the page can show progress against them.
	Inputs map[string]int64 `json:"inputs,omitempty"`
	// Arbitrary is set when the query takes rows with no sort before the take: which rows it keeps is the
	// strategy's choice, so two strategies' rows may rightly differ.
	Arbitrary bool `json:"arbitrary,omitempty"`
	// Strategies are the join strategies the plan runs, one per join, outermost first; View names the view
	// that draws the run (one of the View constants) and Strategy the join it draws, of those.
	Strategies []string `json:"strategies,omitempty"`
	Strategy   string   `json:"strategy,omitempty"`
	View       string   `json:"view,omitempty"`

	// Batch: rows as display text ("" for null) packed by PackRows, and the trace events since the last batch.
	// Rows travel beside the message's JSON, not in it (see Post): decoding them from a JSON string cost the
	// page's WebAssembly 45 ms per 5,000 rows, and splitting the plain string a small part of that.
	Rows   string `json:"-"`
	Events Events `json:"events,omitempty"`
	// Dropped counts trace events the engine did not send, to keep a message small (it sends the first
	// eventsPerRun of a run in full, then only the kinds that stay rare).
	Dropped int64 `json:"dropped,omitempty"`

	// Held: the batches of the run the engine had posted when it held it.
	Held int `json:"held,omitempty"`

	// Table is the handle of the table a load message is about; Read the bytes parsed so far (progress) or
	// the size of a download.
	Table   int      `json:"table,omitempty"`
	Read    int64    `json:"read,omitempty"`
	Summary *Summary `json:"summary,omitempty"`
	// File is a download's file name.
	File string `json:"file,omitempty"`

	// Done (and Error, as far as the run got).
	Stats *Stats `json:"stats,omitempty"`

	Error *Error `json:"error,omitempty"`
}

// Summary is what a parsed table holds.
type Summary struct {
	Rows int64 `json:"rows"`
	// RowsEstimated says Rows is estimated from the table's first bytes, which typed it (the whole table is
	// read by each query that scans it, not when loaded).
	RowsEstimated bool     `json:"rows_estimated,omitempty"`
	Bytes         int64    `json:"bytes"`
	Columns       []Column `json:"columns"`
	// Text is the table's text when it is at most MaxInlineBytes, else "".
	Text string `json:"text,omitempty"`
	// ParseMillis is how long the engine took to read and parse it.
	ParseMillis float64 `json:"parse_ms"`
}

// Column is one top-level column of a table and the type the engine inferred for it.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Stats are a run's figures, as the metrics panel shows them.
type Stats struct {
	RowsOut    int64   `json:"rows_out"`
	Batches    int64   `json:"batches"`
	MemoryPeak int64   `json:"memory_peak_bytes"`
	Budget     int64   `json:"memory_budget_bytes"`
	WallMillis float64 `json:"wall_ms"`
	Strategy   string  `json:"strategy,omitempty"`
	// The connectors' figures, summed over every scan (engine/query.Stats): requests sent (in all, and per
	// source), bytes of result shipped, rows the sources scanned to answer, and retries.
	Requests         int64            `json:"requests,omitempty"`
	RequestsBySource map[string]int64 `json:"requests_by_source,omitempty"`
	BytesShipped     int64            `json:"bytes_shipped,omitempty"`
	RowsScanned      int64            `json:"rows_scanned,omitempty"`
	Retries          int64            `json:"retries,omitempty"`
	// VirtualFirstRow and VirtualTotal are the simulated sources' clock, in milliseconds, at the first row
	// and at the end; 0 when no source keeps a virtual clock.
	VirtualFirstRow float64        `json:"virtual_ms_first_row,omitempty"`
	VirtualTotal    float64        `json:"virtual_ms_total,omitempty"`
	Details         map[string]any `json:"details,omitempty"`
}

// Error is a failed run. Line and Col (1-based; Col counts bytes) locate a query error in the text the user
// wrote; both are 0 when the error has no position.
type Error struct {
	Message  string `json:"message"`
	Line     int    `json:"line,omitempty"`
	Col      int    `json:"col,omitempty"`
	Canceled bool   `json:"canceled,omitempty"`
}

// Catalogue is what the page may offer: the scenarios, and the join strategies a run may force.
type Catalogue struct {
	Scenarios  []Scenario `json:"scenarios"`
	Strategies []Strategy `json:"strategies"`
}

// Scenario describes one sims/scenario entry to the page.
type Scenario struct {
	Name         string `json:"name"`
	Title        string `json:"title"`
	Description  string `json:"description,omitempty"`
	Query        string `json:"query"`
	Knobs        []Knob `json:"knobs,omitempty"`
	MemoryBudget int64  `json:"memory_budget,omitempty"`
	// Sources are the table names the scenario provides (what a query may write after '@').
	Sources []string `json:"sources,omitempty"`
}

// Knob is one numeric setting of a scenario.
type Knob struct {
	Name    string  `json:"name"`
	Help    string  `json:"help,omitempty"`
	Default float64 `json:"default"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
}

// Strategy is a join strategy a run may force with hint.strategy=Name.
type Strategy struct {
	Name string `json:"name"`
	// Baseline marks a deliberately naive alternative kept to show how it fails.
	Baseline bool `json:"baseline,omitempty"`
}

// Envelope is what crosses postMessage from the engine: the message as JSON and its rows as they are. (A
// download's Blob crosses beside them too, and goes straight to the browser: the UI never holds it.)
type Envelope struct {
	JSON string
	Rows string
}

// Rows travel packed in one string: cells separated by CellSep, rows by RowSep.
const (
	CellSep = '\x1f' // ASCII unit separator
	RowSep  = '\x1e' // ASCII record separator
)

const cellSep, rowSep = string(CellSep), string(RowSep)

// separators are replaced in cell text (they would cut a cell), by U+FFFD, the replacement character.
var separators = strings.NewReplacer(cellSep, "\uFFFD", rowSep, "\uFFFD")

// PackRows packs rows for Message.Rows.
func PackRows(rows [][]string) string {
	var b strings.Builder
	for i, row := range rows {
		if i > 0 {
			b.WriteString(rowSep)
		}
		for j, cell := range row {
			if j > 0 {
				b.WriteString(cellSep)
			}
			if strings.ContainsAny(cell, cellSep+rowSep) {
				cell = separators.Replace(cell)
			}
			b.WriteString(cell)
		}
	}
	return b.String()
}

// UnpackRows reverses PackRows. A row of no columns cannot be told from none, so columns says how many
// cells a row has; it is the started message's column count.
func UnpackRows(packed string, columns int) [][]string {
	if packed == "" && columns > 0 {
		return nil
	}
	lines := strings.Split(packed, rowSep)
	rows := make([][]string, len(lines))
	for i, line := range lines {
		rows[i] = SplitRow(line, columns)
	}
	return rows
}

// SplitRow cuts one packed row into its cells.
func SplitRow(row string, columns int) []string {
	if columns == 0 {
		return []string{}
	}
	return strings.SplitN(row, cellSep, columns)
}

// The views that draw a run, as a started message names them: one per family of strategies, and the generic
// tally of a trace for a query whose joins have no drawing.
const (
	ViewHash    = "hash"
	ViewGrace   = "grace"
	ViewSalted  = "salted"
	ViewSweep   = "sweep"
	ViewPaged   = "paged"
	ViewGeneric = "generic"
)

// ViewOf names the view that draws a strategy, by the name the planner registers it under (engine/plan);
// TestEveryStrategyHasAView (web/runner) holds the catalogue to it. The engine's worker names the view of each
// run in its started message with it; the page asks it only of the strategy a run was asked for, before that
// message comes.
func ViewOf(strategy string) string {
	switch strategy {
	case "hash", "nestedloop":
		return ViewHash
	case "grace":
		return ViewGrace
	case "salted", "salted_naive_wrong", "broadcast", "shuffle":
		return ViewSalted
	case "sweep":
		return ViewSweep
	case "paged", "fetchall", "timewindow", "distinctkeys", "keyset-lt", "keyset-le":
		return ViewPaged
	}
	return ViewGeneric
}

// OpOutput is the Op of the runner's trace.RowsEmitted events: the rows delivered to the page (a join's own
// rows_emitted carry the join's Op).
const OpOutput = "output"

// Events are a batch's trace events. In a message's JSON they are an array of events in the registry's compact
// form (registry.AppendCompact): no attribute names travel, and the page decodes each event into its Go type.
type Events []trace.Event

// MarshalJSON writes the events in the compact form.
func (es Events) MarshalJSON() ([]byte, error) {
	out := []byte{'['}
	for i, e := range es {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = registry.AppendCompact(out, e); err != nil {
			return nil, fmt.Errorf("protocol: event %d: %w", i, err)
		}
	}
	return append(out, ']'), nil
}

// UnmarshalJSON reads events in the compact form. (The page decodes a message's events a piece at a time
// instead, with DecodeEvent, to keep each stretch of its only thread short.)
func (es *Events) UnmarshalJSON(b []byte) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		return err
	}
	out := make(Events, 0, len(raws))
	for i, raw := range raws {
		e, err := DecodeEvent(raw)
		if err != nil {
			return fmt.Errorf("protocol: event %d: %w", i, err)
		}
		out = append(out, e)
	}
	*es = out
	return nil
}

// DecodeEvent reads one event of a message's Events.
func DecodeEvent(raw []byte) (trace.Event, error) { return registry.DecodeCompact(raw) }
