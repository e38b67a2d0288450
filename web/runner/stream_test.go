package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// collect runs r and returns every message posted.
func collect(t *testing.T, ctx context.Context, r *protocol.Run) []protocol.Message {
	t.Helper()
	var msgs []protocol.Message
	Stream(ctx, 7, r, func(m protocol.Message) { msgs = append(msgs, m) }, nil)
	for _, m := range msgs {
		if m.ID != 7 {
			t.Fatalf("message %s has id %d, want 7", m.Type, m.ID)
		}
	}
	return msgs
}

func last(msgs []protocol.Message) protocol.Message {
	if len(msgs) == 0 {
		return protocol.Message{}
	}
	return msgs[len(msgs)-1]
}

func TestStreamScenario(t *testing.T) {
	msgs := collect(t, context.Background(), &protocol.Run{
		Query:    "@Users | join kind=inner (@Listens) on user_id | project name, user_id, song_id",
		Scenario: ScenarioUsersListens, Seed: 3,
		Knobs: map[string]float64{"users": 50, "listens": 12_000},
	})
	if len(msgs) < 3 || msgs[0].Type != protocol.MessageStarted || last(msgs).Type != protocol.MessageDone {
		t.Fatalf("messages %v: want started, batches, done", types(msgs))
	}
	if want := []string{"name", "user_id", "song_id"}; !slices.Equal(msgs[0].Columns, want) {
		t.Errorf("columns %q, want %q", msgs[0].Columns, want)
	}
	if !strings.Contains(msgs[0].Explain, "hash") {
		t.Errorf("explain does not name the hash join:\n%s", msgs[0].Explain)
	}
	if msgs[0].Inputs["Listens"] != 12_000 || msgs[0].Inputs["Users"] != 50 {
		t.Errorf("inputs %v", msgs[0].Inputs)
	}
	var rows int
	scanned := map[string]int64{}
	var emitted int64
	for _, m := range msgs {
		n := len(protocol.UnpackRows(m.Rows, 3))
		rows += n
		if n > maxRowsPerMessage {
			t.Errorf("a batch of %d rows, more than %d", n, maxRowsPerMessage)
		}
		for _, e := range m.Events {
			switch p := e.Payload.(type) {
			case trace.ScanRows:
				scanned[p.Source] = p.Total
			case trace.RowsEmitted:
				emitted = p.Total
			}
		}
	}
	if done := last(msgs); rows != 12_000 || done.Stats.RowsOut != 12_000 || emitted != 12_000 {
		t.Errorf("streamed %d rows, stats %d, last rows_emitted total %d; want 12000", rows, done.Stats.RowsOut, emitted)
	}
	if scanned["Users"] != 50 || scanned["Listens"] != 12_000 {
		t.Errorf("scan events totals %v, want every row of both sources", scanned)
	}
}

// TestStreamYieldsAfterEveryMessage checks that a batch of the engine larger than maxRowsPerMessage (a sort
// emits 16K rows a batch) goes out in several messages with a yield after each: the page's Step lets one
// message through per yield, and counts them.
func TestStreamYieldsAfterEveryMessage(t *testing.T) {
	var log []byte
	var rows int
	Stream(context.Background(), 7, &protocol.Run{
		Query:    "@Users | join kind=inner (@Listens) on user_id | project name, user_id, song_id | sort by song_id",
		Scenario: ScenarioUsersListens, Seed: 3,
		Knobs: map[string]float64{"users": 50, "listens": 12_000},
	}, func(m protocol.Message) {
		if m.Type == protocol.MessageBatch {
			log = append(log, 'm')
			rows += len(protocol.UnpackRows(m.Rows, 3))
		}
	}, func() { log = append(log, 'y') })
	if rows != 12_000 {
		t.Fatalf("%d rows posted, want 12000", rows)
	}
	if n := strings.Count(string(log), "m"); n <= 12_000/maxRowsPerMessage {
		t.Fatalf("%d batch messages for 12000 rows, want more than %d", n, 12_000/maxRowsPerMessage)
	}
	if strings.Contains(string(log), "mm") {
		t.Errorf("two batch messages with no yield between them: %s", log)
	}
}

// Past MaxStreamRows a run posts trace events only; they still come in messages of bounded size, which the
// page decodes in one piece.
func TestStreamBoundsEventsPerMessage(t *testing.T) {
	msgs := collect(t, context.Background(), &protocol.Run{
		Query:    "@Users | join kind=inner (@Listens) on user_id | project name, user_id, song_id",
		Scenario: ScenarioUsersListens, Seed: 3,
		Knobs: map[string]float64{"users": 2000, "listens": MaxStreamRows + 300_000, "skew": 0},
	})
	// The checks come after each output batch; a batch adds its output event and its scans' between two.
	const slack = 8
	var events, eventsOnly int
	for _, m := range msgs[1:] { // the started message, and the reads while planning in the first batch, aside
		if m.Type != protocol.MessageBatch {
			continue
		}
		events += len(m.Events)
		if m.Rows == "" {
			eventsOnly++
		}
		if n := len(m.Events); n > maxEventsPerMessage+slack && m.Rows == "" {
			t.Errorf("a batch of %d events, more than %d", n, maxEventsPerMessage)
		}
	}
	if eventsOnly == 0 || events < 2*maxEventsPerMessage {
		t.Errorf("%d events, %d batches of events only: the run did not stream past its rows", events, eventsOnly)
	}
}

func TestStreamForcesStrategy(t *testing.T) {
	msgs := collect(t, context.Background(), &protocol.Run{
		Query:    "@Users | join kind=inner (@Listens) on user_id",
		Scenario: ScenarioUsersListens, Seed: 1, Strategy: "nestedloop",
		Knobs: map[string]float64{"users": 5, "listens": 20},
	})
	if m := last(msgs); m.Type != protocol.MessageDone || m.Stats.RowsOut != 20 {
		t.Fatalf("last message %+v", m)
	}
	if !strings.Contains(msgs[0].Explain, "nestedloop") {
		t.Errorf("explain does not show the forced strategy:\n%s", msgs[0].Explain)
	}
}

func TestForceStrategyRewrite(t *testing.T) {
	text := "@A\n| join kind=inner (@B | join hint.strategy=hash (@C) on k) on k\n| join (@D) on k"
	q, err := kql.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	got, inserted, err := forceStrategy(text, q, "grace")
	if err != nil {
		t.Fatal(err)
	}
	if len(inserted) != 2 || inserted[0] != (insertion{2, 7, 20}) || inserted[1] != (insertion{3, 7, 20}) {
		t.Errorf("insertions %+v", inserted)
	}
	want := "@A\n| join hint.strategy=grace kind=inner (@B | join hint.strategy=hash (@C) on k) on k\n| join hint.strategy=grace (@D) on k"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, _, err := forceStrategy(text, q, "x) | evil"); err == nil {
		t.Error("a strategy name with punctuation was accepted")
	}
}

func TestUserColumn(t *testing.T) {
	// "@A | join (@B) on k | join (@C) on k" with hints (len 10) inserted after both joins (cols 10, 27).
	in := []insertion{{1, 10, 10}, {1, 27, 10}}
	for _, tc := range []struct{ col, want int }{
		{1, 1}, {9, 9}, {10, 6}, {19, 6}, {20, 10}, {36, 26}, {37, 23}, {47, 27}, {50, 30},
	} {
		if got := userColumn(1, tc.col, in); got != tc.want {
			t.Errorf("userColumn(1, %d) = %d, want %d", tc.col, got, tc.want)
		}
	}
	if got := userColumn(2, 15, in); got != 15 {
		t.Errorf("another line moved: %d", got)
	}
}

func TestStreamForcedStrategyErrorPosition(t *testing.T) {
	msgs := collect(t, context.Background(), &protocol.Run{
		Query:    "@Users | join kind=inner (@Listens) on nosuch",
		Scenario: ScenarioUsersListens, Seed: 1, Strategy: "hash",
		Knobs: map[string]float64{"users": 5, "listens": 20},
	})
	m := last(msgs)
	if m.Type != protocol.MessageError || m.Error.Line != 1 {
		t.Fatalf("last message %+v (error %+v): want a positioned error", m, m.Error)
	}
	if want := strings.Index("@Users | join kind=inner (@Listens) on nosuch", "nosuch") + 1; m.Error.Col != want {
		t.Errorf("error at column %d (%s), want %d: the position in the user's text", m.Error.Col, m.Error.Message, want)
	}
	if !strings.HasPrefix(m.Error.Message, fmt.Sprintf("1:%d:", m.Error.Col)) {
		t.Errorf("message %q does not lead with the mapped position", m.Error.Message)
	}
}

func TestStreamErrorPosition(t *testing.T) {
	msgs := collect(t, context.Background(), &protocol.Run{
		Query:   "@Users\n| where (",
		Sources: map[string]protocol.Input{"Users": {Format: "jsonl", Data: `{"a":1}`}},
	})
	m := last(msgs)
	if m.Type != protocol.MessageError || m.Error.Line != 2 || m.Error.Col == 0 {
		t.Fatalf("last message %+v (error %+v): want a positioned error on line 2", m, m.Error)
	}
}

func TestStreamCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var msgs []protocol.Message
	Stream(ctx, 1, &protocol.Run{
		Query:    "@Users | join kind=inner (@Listens) on user_id",
		Scenario: ScenarioUsersListens, Seed: 1,
		Knobs: map[string]float64{"users": 10, "listens": 200_000},
	}, func(m protocol.Message) {
		msgs = append(msgs, m)
		if m.Type == protocol.MessageBatch {
			cancel()
		}
	}, nil)
	m := last(msgs)
	if m.Type != protocol.MessageError || !m.Error.Canceled {
		t.Fatalf("last message %s %+v: want a canceled error", m.Type, m.Error)
	}
	var rows int
	for _, m := range msgs {
		rows += len(protocol.UnpackRows(m.Rows, 4))
	}
	if rows >= 200_000 {
		t.Errorf("all %d rows came through a canceled run", rows)
	}
}

func TestCatalogue(t *testing.T) {
	c := Catalogue()
	var found bool
	for _, s := range c.Scenarios {
		found = found || s.Name == ScenarioUsersListens
	}
	if !found {
		t.Errorf("catalogue lacks %s: %+v", ScenarioUsersListens, c.Scenarios)
	}
	var names []string
	for _, s := range c.Strategies {
		names = append(names, s.Name)
	}
	if !slices.Contains(names, "hash") {
		t.Errorf("strategies %q lack hash", names)
	}
}

func types(msgs []protocol.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Type)
	}
	return out
}

// TestCancelStopsRequests cancels a paged join over simulated connectors at its first batch of rows: the run ends
// canceled, and the sources got no request after the cancel but the one in flight.
func TestCancelStopsRequests(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var msgs []protocol.Message
	sentAtCancel := int64(-1)
	sent := int64(0)
	const q = `@OktaSystemLogs | join kind=inner hint.strategy=paged (@CrowdStrikeDetections) on $left.actor.alternateId == $right.user_name | sort by published desc`
	Stream(ctx, 1, &protocol.Run{Query: q, Scenario: "okta-crowdstrike-small", Seed: 1}, func(m protocol.Message) {
		msgs = append(msgs, m)
		for _, e := range m.Events {
			if e.Kind() == connevent.KindRequestSent {
				sent++
			}
		}
		if m.Type == protocol.MessageBatch && m.Rows != "" && sentAtCancel < 0 {
			sentAtCancel = sent
			cancel()
		}
	}, nil)
	m := last(msgs)
	if m.Type != protocol.MessageError || !m.Error.Canceled {
		t.Fatalf("last message %s %+v: want a canceled error", m.Type, m.Error)
	}
	if sentAtCancel <= 0 {
		t.Fatalf("no request was traced before the first rows (%d)", sentAtCancel)
	}
	if m.Stats == nil || m.Stats.Requests > sentAtCancel+1 {
		t.Fatalf("requests: %d traced when canceled, %+v at the end; want at most one more", sentAtCancel, m.Stats)
	}
	var done protocol.Message
	Stream(context.Background(), 2, &protocol.Run{Query: q, Scenario: "okta-crowdstrike-small", Seed: 1},
		func(m protocol.Message) { done = m }, nil)
	if done.Type != protocol.MessageDone || done.Stats.Requests <= sentAtCancel+1 {
		t.Fatalf("the whole run: %s with %+v; want more requests than the %d of the canceled one", done.Type, done.Stats, sentAtCancel)
	}
}
