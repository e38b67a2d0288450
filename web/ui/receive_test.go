package ui

import (
	"encoding/json"
	"testing"

	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

func envelope(t *testing.T, m protocol.Message) protocol.Envelope {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return protocol.Envelope{JSON: string(b), Rows: m.Rows}
}

// A batch with many events is applied in steps of eventsPerPiece events, the rows with the first, and
// acknowledged once, at its last step; it ends as if applied whole.
func TestApplyNextAppliesABatchInPieces(t *testing.T) {
	s, env := ready(t)
	s.StartRun()
	id := s.Run.ID
	s.Receive(envelope(t, protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"k"}}))
	const n = 3*eventsPerPiece + 5
	var events []trace.Event
	for i := range n {
		events = append(events, ev("scan_rows", 0, "scan:A", map[string]any{"source": "A", "rows": 10, "total": 10 * (i + 1), "scan": 1, "phase": "run"}))
	}
	events[n-1] = ev(trace.KindStrategyChose, 0, "", map[string]any{"strategy": "grace"})
	in := Decode(envelope(t, protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: "1\x1e2", Events: events}))
	acks := func() int {
		k := 0
		for _, r := range env.posted {
			if r.Type == protocol.RequestAck {
				k++
			}
		}
		return k
	}
	steps := 0
	for done := false; !done; steps++ {
		done = s.ApplyNext(in)
		if s.Run.Rows.Len() != 2 {
			t.Fatalf("step %d: %d rows, want the batch's 2 from its first step", steps, s.Run.Rows.Len())
		}
		if want := min(n, (steps+1)*eventsPerPiece); s.Run.Trace.Events != int64(want) {
			t.Fatalf("step %d: %d events applied, want %d", steps, s.Run.Trace.Events, want)
		}
		if !done && acks() != 0 {
			t.Fatalf("step %d: acknowledged before the batch was all applied", steps)
		}
	}
	if steps != 4 || acks() != 1 || s.Run.Batches != 1 {
		t.Errorf("%d steps, %d acks, %d batches; want 4, 1, 1", steps, acks(), s.Run.Batches)
	}
	if s.Run.Trace.Scans[0].Rows != 10*(n-1) || s.Run.Strategy != "grace" {
		t.Errorf("scan %+v, strategy %q", s.Run.Trace.Scans, s.Run.Strategy)
	}
}

func TestApplyNextReportsAnUnreadableMessage(t *testing.T) {
	s, _ := ready(t)
	if !s.ApplyNext(Decode(protocol.Envelope{JSON: "{not json"})) || s.Notice == "" {
		t.Errorf("notice %q", s.Notice)
	}
}
