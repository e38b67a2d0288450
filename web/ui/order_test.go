package ui

import (
	"strings"
	"testing"

	"github.com/joinlab/joinlab/web/runner/protocol"
)

// A batch before the run's started message is the engine breaking the protocol: the page says so and does
// not unpack its rows against columns it has not been told, then goes on with the run when started comes.
func TestBatchBeforeStartedIsRejected(t *testing.T) {
	s, _ := ready(t)
	s.StartRun()
	id := s.Run.ID
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: protocol.PackRows([][]string{{"1", "a"}})})
	if !strings.Contains(s.Notice, `"batch" before "started"`) {
		t.Errorf("notice %q, want it to say a batch came before started", s.Notice)
	}
	if n := s.Run.Rows.Len(); n != 0 {
		t.Errorf("%d rows applied from an out-of-order batch", n)
	}
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: id, Columns: []string{"k", "v"}})
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: id, Rows: protocol.PackRows([][]string{{"1", "a"}, {"2", "b"}})})
	s.Apply(protocol.Message{Type: protocol.MessageDone, ID: id, Stats: &protocol.Stats{RowsOut: 2}})
	if n := s.Run.Rows.Len(); n != 2 || s.Run.Status != StatusDone {
		t.Errorf("after started: %d rows, status %s; want 2, %s", n, s.Run.Status, StatusDone)
	}
}

// The engine's held message, once every batch before it is applied, is what the status line reports: the
// run stays as it is on screen. A batch after it (a step) is no longer held until the next one.
func TestHeldAfterItsBatches(t *testing.T) {
	s, _ := ready(t)
	s.StartRun()
	r := s.Run
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: r.ID, Columns: []string{"k"}})
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: r.ID, Rows: protocol.PackRows([][]string{{"1"}})})
	s.TogglePause()
	if r.Held() {
		t.Fatal("held before the engine said so")
	}
	s.Apply(protocol.Message{Type: protocol.MessageHeld, ID: r.ID, Held: 1})
	if !r.Held() || !strings.HasSuffix((&Root{State: s}).StatusText(), "the engine is holding.") {
		t.Fatalf("held %v, status %q", r.Held(), (&Root{State: s}).StatusText())
	}
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: r.ID, Rows: protocol.PackRows([][]string{{"2"}})})
	if r.Held() {
		t.Error("still held after a batch the held message did not count")
	}
	s.Apply(protocol.Message{Type: protocol.MessageHeld, ID: r.ID, Held: 2})
	if !r.Held() || s.Notice != "" {
		t.Errorf("held %v, notice %q after the second held message", r.Held(), s.Notice)
	}
}

// A resumed run is not held at its old batch when it is paused again before the next batch comes.
func TestResumeForgetsHeld(t *testing.T) {
	s, _ := ready(t)
	s.StartRun()
	r := s.Run
	s.Apply(protocol.Message{Type: protocol.MessageStarted, ID: r.ID, Columns: []string{"k"}})
	s.Apply(protocol.Message{Type: protocol.MessageBatch, ID: r.ID, Rows: protocol.PackRows([][]string{{"1"}})})
	s.TogglePause()
	s.Apply(protocol.Message{Type: protocol.MessageHeld, ID: r.ID, Held: 1})
	s.TogglePause() // resume
	s.TogglePause() // pause again
	if r.Held() {
		t.Error("held at the batch of the pause before")
	}
}
