package protocol

import (
	"strings"
	"testing"
)

func TestOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs []string
		bad  int    // index of the first message Order must reject; -1: none
		want string // what its error says
	}{
		{"run", []string{MessageStarted, MessageBatch, MessageBatch, MessageDone}, -1, ""},
		{"no batches", []string{MessageStarted, MessageDone}, -1, ""},
		{"fails running", []string{MessageStarted, MessageBatch, MessageError}, -1, ""},
		{"fails before starting", []string{MessageError}, -1, ""},
		{"held first", []string{MessageHeld}, 0, `"held" before "started"`},
		{"batch first", []string{MessageBatch, MessageStarted}, 0, `"batch" before "started"`},
		{"done first", []string{MessageDone}, 0, `"done" before "started"`},
		{"started twice", []string{MessageStarted, MessageBatch, MessageStarted}, 2, `"started" after "started" and 1 batches`},
		{"batch after done", []string{MessageStarted, MessageDone, MessageBatch}, 2, `"batch" after the run ended`},
		{"two ends", []string{MessageError, MessageError}, 1, `"error" after the run ended`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o Order
			for i, typ := range tc.msgs {
				err := o.Next(Message{Type: typ, ID: 3})
				switch {
				case i == tc.bad && err == nil:
					t.Fatalf("message %d (%s) accepted", i, typ)
				case i == tc.bad:
					if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "run 3") {
						t.Errorf("error %q, want it to name run 3 and say %s", err, tc.want)
					}
					return
				case err != nil:
					t.Fatalf("message %d (%s): %v", i, typ, err)
				}
			}
			if !o.Ended() {
				t.Errorf("%v: not ended", tc.msgs)
			}
		})
	}
}

// A held message says how many batches came before it; any other number means a lost or extra batch.
func TestOrderHeldCountsBatches(t *testing.T) {
	var o Order
	for _, m := range []Message{{Type: MessageStarted}, {Type: MessageBatch}, {Type: MessageHeld, Held: 1},
		{Type: MessageBatch}, {Type: MessageBatch}, {Type: MessageHeld, Held: 3}} {
		if err := o.Next(m); err != nil {
			t.Fatalf("%s %d: %v", m.Type, m.Held, err)
		}
	}
	if err := o.Next(Message{Type: MessageHeld, ID: 2, Held: 4}); err == nil || !strings.Contains(err.Error(), `"held" at batch 4, after 3 batches`) {
		t.Errorf("held at 4 after 3 batches: %v", err)
	}
}
