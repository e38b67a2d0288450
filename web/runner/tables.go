package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// progressEvery is the least time between two progress reports of one table's parse: the page renders at most
// ten times a second, so more would only be merged.
const progressEvery = 100 * time.Millisecond

// Opener gives a table's bytes from their start, as many times as it is asked: a file is parsed again when
// the user picks another format. The reader may be read from a goroutine only (in the browser it waits for
// the Blob's promises).
type Opener func() (io.Reader, error)

// MaxOwnBytes bounds the bytes of all the user's tables together. The browser has no disk to read a table
// again from, so a loaded table is held in the engine's memory (its text or its columns: about its size), and
// a tab's WebAssembly memory cannot pass 4 GiB: past this the load fails with the tables' sizes and the way
// out, instead of the tab running out of memory in the middle of a query. A variable so that tests can lower
// it.
var MaxOwnBytes int64 = 1 << 30

// Tables holds the user's own tables in the engine, parsed once when loaded, by the page's handle. A run
// names them in its Inputs (protocol.Input.Table) under whatever name the page gives them now. It is safe
// for concurrent use.
type Tables struct {
	mu sync.Mutex
	m  map[int]*ownTable
}

// ownTable is one loaded table: its bytes' opener, and the parse under way or done.
type ownTable struct {
	open   Opener
	cancel context.CancelFunc
	done   chan struct{} // closed when the parse ends
	src    source.Source
	err    error
	bytes  int64 // the bytes it was parsed from, once loaded
}

// NewTables returns an empty set of tables.
func NewTables() *Tables { return &Tables{m: map[int]*ownTable{}} }

// Load parses table id from open's bytes in format ("jsonl" or "csv"), replacing any table of that id (and
// stopping its parse). open nil parses the table's bytes again, from the opener it was loaded with. It
// reports bytes parsed to progress after the first read, at the end, and between them at most every
// progressEvery, and returns what the table holds. The
// summary carries the table's text when it is at most protocol.MaxInlineBytes long.
func (t *Tables) Load(ctx context.Context, id int, format string, open Opener, progress func(read int64)) (*protocol.Summary, error) {
	var f source.Format
	switch format {
	case "jsonl", "":
		f = source.JSONLines
	case "csv":
		f = source.CSV
	default:
		return nil, fmt.Errorf("unknown format %q (want jsonl or csv)", format)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t.mu.Lock()
	if old := t.m[id]; old != nil {
		old.cancel()
		if open == nil {
			open = old.open
		}
	}
	if open == nil {
		t.mu.Unlock()
		return nil, fmt.Errorf("table %d was never loaded", id)
	}
	tab := &ownTable{open: open, cancel: cancel, done: make(chan struct{})}
	t.m[id] = tab
	var others int64
	for other, o := range t.m {
		if other != id {
			others += o.bytes
		}
	}
	t.mu.Unlock()

	start := time.Now()
	src, sum, err := parseOwn(ctx, f, open, progress, MaxOwnBytes-others)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	t.mu.Lock()
	tab.src, tab.err = src, err
	if err == nil {
		tab.bytes = sum.Bytes
	}
	close(tab.done)
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	sum.ParseMillis = float64(time.Since(start).Microseconds()) / 1000
	return sum, nil
}

// parseOwn reads a table's bytes into the engine, once, and types them from a sample as the command types a
// file (source.OpenHeld): each query then scans the text where it lies, parsing only the columns it reads. A
// value past the sample that its type cannot hold makes the query type the table from every value, and run
// again (engine/query). room is how many bytes the other tables leave of MaxOwnBytes.
func parseOwn(ctx context.Context, f source.Format, open Opener, progress func(int64), room int64) (source.Source, *protocol.Summary, error) {
	r, err := open()
	if err != nil {
		return nil, nil, err
	}
	cr := &countingReader{ctx: ctx, r: r, progress: progress, room: room}
	held, err := source.ReadHeld(cr)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, nil, err
	}
	src, err := source.OpenHeld(ownName, f, held, ownOptions)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		// The page shows the error beside its table: the line, without the internal name.
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return nil, nil, err
	}
	sum := &protocol.Summary{Rows: int64(src.Rows()), Bytes: cr.n, Columns: []protocol.Column{}}
	if s, ok := src.(source.Sampled); ok && s.Sampled() {
		sum.RowsEstimated = true
	}
	for _, c := range src.Schema(nil) {
		if !c.Hidden {
			sum.Columns = append(sum.Columns, protocol.Column{Name: c.Name, Type: c.Type.String()})
		}
	}
	if cr.n <= protocol.MaxInlineBytes {
		sum.Text = string(cr.head)
	}
	return src, sum, nil
}

// ownOptions are how a table is read: its first source.DefaultSampleBytes type it, as the command's files. A
// variable so that tests can lower the sample.
var ownOptions source.Options

// ownName is the name a table is typed under when loaded; each run names it as the page does then
// (source.Rename), so renaming a table parses nothing again.
const ownName = "table"

// countingReader counts the bytes read for progress, keeps the first protocol.MaxInlineBytes of them (a
// small table's text goes back to the page for share links) and stops when ctx is done.
type countingReader struct {
	ctx      context.Context
	r        io.Reader
	room     int64 // the bytes the table may hold (see MaxOwnBytes)
	n        int64
	head     []byte
	progress func(int64)
	last     time.Time
}

func (c *countingReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	if c.n+int64(n) > c.room {
		held := ""
		if others := MaxOwnBytes - c.room; others > 0 {
			held = fmt.Sprintf(", with the %s the other tables hold,", memory.Bytes(others))
		}
		return 0, fmt.Errorf("the table would pass%s the %s the page keeps for its own data: remove a table, or read "+
			"files this large with the joinlab command", held, memory.Bytes(MaxOwnBytes))
	}
	if room := protocol.MaxInlineBytes + 1 - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(n, room)]...)
	}
	c.n += int64(n)
	if c.progress != nil && (err == io.EOF || time.Since(c.last) >= progressEvery) {
		c.last = time.Now()
		c.progress(c.n)
	}
	return n, err
}

// Drop forgets table id, stopping its parse.
func (t *Tables) Drop(id int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tab := t.m[id]; tab != nil {
		tab.cancel()
		delete(t.m, id)
	}
}

// source returns table id under name, waiting for its parse to end.
func (t *Tables) source(ctx context.Context, id int, name string) (source.Source, error) {
	if t == nil {
		return nil, fmt.Errorf("source %s: the engine holds no tables", name)
	}
	t.mu.Lock()
	tab := t.m[id]
	t.mu.Unlock()
	if tab == nil {
		return nil, fmt.Errorf("source %s: no such table (it was removed, or never loaded)", name)
	}
	select {
	case <-tab.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if tab.err != nil {
		return nil, fmt.Errorf("source %s: %w", name, tab.err)
	}
	src, ok := source.Rename(tab.src, name)
	if !ok {
		return nil, fmt.Errorf("source %s: the table cannot be named (a %T)", name, tab.src)
	}
	return src, nil
}

// typedAfterRows adds to a run's error, when a table's sampled types failed it after rows had gone to the
// page (engine/query cannot take them back), that the table is now typed from every value, so the same query
// run again gives the whole answer. Any other error comes back as it is.
func typedAfterRows(ctx context.Context, sources map[string]source.Source, err error) error {
	var re *source.RetypeError
	if !errors.As(err, &re) {
		return err
	}
	s, ok := sources[re.Source].(source.Sampled)
	if !ok || !s.Sampled() {
		return err
	}
	if terr := s.TypeAll(ctx); terr != nil {
		return fmt.Errorf("%w; typing table %s from every value failed too: %w", err, re.Source, terr)
	}
	return fmt.Errorf("%w. Table %s is now typed from every value: run the query again for the whole answer", err, re.Source)
}

// errLine reads the line number the source's errors start with ("line 3: malformed JSON").
var errLine = regexp.MustCompile(`^line (\d+)\b`)

// LoadError is a load's error for the page: the message, and its line when it has one.
func LoadError(err error) *protocol.Error {
	e := &protocol.Error{Message: err.Error(), Canceled: errors.Is(err, context.Canceled)}
	if m := errLine.FindStringSubmatch(e.Message); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
	}
	return e
}
