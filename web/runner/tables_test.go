package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

func textOpener(text string) Opener {
	return func() (io.Reader, error) { return strings.NewReader(text), nil }
}

// oneByte reads a byte at a time, as the worst Blob reader would.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), 1)]) }

func TestTablesLoadSummarise(t *testing.T) {
	tabs := NewTables()
	var progress []int64
	sum, err := tabs.Load(context.Background(), 1, "jsonl", func() (io.Reader, error) {
		return oneByte{strings.NewReader(`{"id": 1, "name": "a", "t": "2024-05-01T12:00:00Z"}` + "\n" + `{"id": 2, "name": "b", "x": 1.5}` + "\n")}, nil
	}, func(n int64) { progress = append(progress, n) })
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 2 || sum.Bytes != 85 {
		t.Errorf("rows %d bytes %d, want 2 and 85", sum.Rows, sum.Bytes)
	}
	var cols []string
	for _, c := range sum.Columns {
		cols = append(cols, c.Name+" "+c.Type)
	}
	if want := []string{"id long", "name string", "t datetime", "x real"}; !slices.Equal(cols, want) {
		t.Errorf("columns %q, want %q", cols, want)
	}
	if !strings.HasPrefix(sum.Text, `{"id": 1`) || len(sum.Text) != 85 {
		t.Errorf("a small table's text not kept: %q", sum.Text)
	}
	if len(progress) == 0 || progress[len(progress)-1] != 85 {
		t.Errorf("progress %v: want it to end at 85", progress)
	}
}

func TestTablesLoadErrorHasLine(t *testing.T) {
	tabs := NewTables()
	_, err := tabs.Load(context.Background(), 1, "jsonl", textOpener("{\"a\": 1}\n{\"a\": 2}\n{\"a\": \n"), nil)
	if err == nil {
		t.Fatal("no error for a malformed line")
	}
	if e := LoadError(err); e.Line != 3 || !strings.Contains(e.Message, "malformed JSON") {
		t.Errorf("error %+v, want line 3, malformed JSON", e)
	}
	_, err = tabs.Load(context.Background(), 2, "csv", textOpener("a,b\n1,2\n3\n"), nil)
	if e := LoadError(err); err == nil || e.Line != 3 {
		t.Errorf("CSV error %v, want one at line 3", err)
	}
	// A run over the failed table fails with the table's name and the line.
	var msgs []protocol.Message
	tabs.Stream(context.Background(), 1, &protocol.Run{Query: "@Bad | count", Sources: map[string]protocol.Input{"Bad": {Table: 1}}},
		func(m protocol.Message) { msgs = append(msgs, m) }, nil)
	last := msgs[len(msgs)-1]
	if last.Type != protocol.MessageError || !strings.Contains(last.Error.Message, "source Bad: line 3") {
		t.Errorf("run over a failed table ended %+v", last.Error)
	}
}

// TestTablesRenameReformatDrop runs a join over two loaded tables under names the page gave them after the
// load, parses one again as CSV, and drops it.
func TestTablesRenameReformatDrop(t *testing.T) {
	tabs := NewTables()
	ctx := context.Background()
	if _, err := tabs.Load(ctx, 1, "jsonl", textOpener(`{"k": 1, "v": "x"}`+"\n"+`{"k": 2, "v": "y"}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tabs.Load(ctx, 2, "jsonl", textOpener("k,w\n1,10\n1,11\n3,12\n"), nil); err == nil {
		t.Fatal("CSV text parsed as JSON lines")
	}
	if _, err := tabs.Load(ctx, 2, "csv", nil, nil); err != nil { // the same bytes, another format
		t.Fatal(err)
	}
	run := &protocol.Run{Query: "@Left | join kind=inner (@Right) on k | project v, w | sort by w asc",
		Sources: map[string]protocol.Input{"Left": {Table: 1}, "Right": {Table: 2}}}
	var buf bytes.Buffer
	if err := tabs.Download(ctx, run, protocol.DownloadCSV, &buf); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "v,w\nx,10\nx,11\n"; got != want {
		t.Errorf("CSV download %q, want %q", got, want)
	}
	buf.Reset()
	if err := tabs.Download(ctx, run, protocol.DownloadJSONL, &buf); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), `{"v":"x","w":10}`+"\n"+`{"v":"x","w":11}`+"\n"; got != want {
		t.Errorf("JSON-lines download %q, want %q", got, want)
	}
	buf.Reset()
	if err := tabs.Download(ctx, run, protocol.DownloadTrace, &buf); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(buf.String()), "\n"); len(lines) < 2 || !strings.HasPrefix(lines[0], `{"kind":`) {
		t.Errorf("trace download %q: want JSON lines of events", buf.String())
	}
	tabs.Drop(2)
	if err := tabs.Download(ctx, run, protocol.DownloadCSV, io.Discard); err == nil || !strings.Contains(err.Error(), "source Right") {
		t.Errorf("a run over a dropped table: %v", err)
	}
}

// TestTablesStayWithinMaxOwnBytes loads tables until they would hold more than MaxOwnBytes: the one that passes
// it fails with the sizes and its position, the others stay, and dropping one makes room again.
func TestTablesStayWithinMaxOwnBytes(t *testing.T) {
	defer func(old int64) { MaxOwnBytes = old }(MaxOwnBytes)
	MaxOwnBytes = 100
	rows := strings.Repeat(`{"a":1}`+"\n", 8) // 64 bytes
	tabs := NewTables()
	if _, err := tabs.Load(context.Background(), 1, "jsonl", textOpener(rows), nil); err != nil {
		t.Fatal(err)
	}
	_, err := tabs.Load(context.Background(), 2, "jsonl", textOpener(rows), nil)
	if err == nil || !strings.Contains(err.Error(), "the table would pass, with the 64 B the other tables hold, the 100 B the page keeps") {
		t.Fatalf("a table past MaxOwnBytes: %v", err)
	}
	if e := LoadError(err); e.Line == 0 {
		t.Errorf("the error %q has no line", err)
	}
	if _, err := tabs.source(context.Background(), 1, "One"); err != nil {
		t.Errorf("the first table is gone: %v", err)
	}
	tabs.Drop(1)
	if _, err := tabs.Load(context.Background(), 2, "jsonl", textOpener(rows), nil); err != nil {
		t.Errorf("after a drop: %v", err)
	}
	if _, err := tabs.Load(context.Background(), 3, "jsonl", textOpener(strings.Repeat(rows, 2)), nil); err == nil ||
		!strings.Contains(err.Error(), "the table would pass, with the 64 B") {
		t.Errorf("a second table: %v", err)
	}
}

// TestTablesTypedFromASample loads tables typed from a small sample, whose later lines hold values the sample's
// types cannot: a run whose first scan meets one before any row went to the page types the table from every
// value and answers in full; one that had already sent rows fails saying so, and the same run again answers
// in full, as the whole text typed first would.
func TestTablesTypedFromASample(t *testing.T) {
	defer func(old source.Options) { ownOptions = old }(ownOptions)
	ownOptions = source.Options{SampleBytes: 256, ChunkBytes: 256}
	var users, events strings.Builder
	for i := range 400 {
		fmt.Fprintf(&users, `{"id": %d, "age": %d}`+"\n", i, 20+i%50)
	}
	users.WriteString(`{"id": 400, "age": 70.5}` + "\n") // a real in a long column, past the sample
	for i := range 3000 {
		fmt.Fprintf(&events, "%d,%d\n", i%401, i)
	}
	events.WriteString("400,late\n") // a string in a long column, past the sample
	tabs := NewTables()
	ctx := t.Context()
	sum, err := tabs.Load(ctx, 1, "jsonl", textOpener(users.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.RowsEstimated || sum.Rows < 300 || sum.Rows > 500 {
		t.Errorf("users: %d rows, estimated %t: want an estimate near 401", sum.Rows, sum.RowsEstimated)
	}
	if _, err := tabs.Load(ctx, 2, "csv", textOpener("user,n\n"+events.String()), nil); err != nil {
		t.Fatal(err)
	}
	// The users are the build side, read whole before any row: typed again at once, the answer whole.
	sumAge := &protocol.Run{Query: "@Users | summarize s = sum(age), n = count()",
		Sources: map[string]protocol.Input{"Users": {Table: 1}}}
	msgs := streamTables(t, tabs, sumAge)
	if m := last(msgs); m.Type != protocol.MessageDone || m.Stats.RowsOut != 1 {
		t.Fatalf("summarize over the users: %+v", m)
	}
	// The events stream to the page a batch at a time: the late value comes after rows went out.
	scan := &protocol.Run{Query: "@Events | project user, n",
		Sources: map[string]protocol.Input{"Events": {Table: 2}}}
	m := last(streamTables(t, tabs, scan))
	if m.Type != protocol.MessageError || !strings.Contains(m.Error.Message, "Table Events is now typed from every value: run the query again") {
		t.Fatalf("a scan whose late value came after rows: %+v", m.Error)
	}
	m = last(streamTables(t, tabs, scan))
	if m.Type != protocol.MessageDone || m.Stats.RowsOut != 3001 {
		t.Fatalf("the same scan again: %+v %+v", m.Stats, m.Error)
	}
}

// streamTables runs r over tabs as the page's runs stream, and returns its messages.
func streamTables(t *testing.T, tabs *Tables, r *protocol.Run) []protocol.Message {
	var msgs []protocol.Message
	tabs.Stream(t.Context(), 1, r, func(m protocol.Message) { msgs = append(msgs, m) }, nil)
	return msgs
}
