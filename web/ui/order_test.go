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
