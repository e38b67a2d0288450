package protocol

import "fmt"

// Order checks that the messages of one run come in the order the package comment states:
//
//	started, (batch | held)*, (done | error)
//	error                          (a run that fails before it starts: a query error, a bad scenario)
//
// The page holds one per run and feeds it every message of that run; a message out of order is an error
// naming the run, what came and what was expected, so a broken engine shows up as what it is instead of as
// rows unpacked against columns the page has not been told yet. The zero Order expects a new run.
type Order struct {
	state orderState
	// batches counts the batches accepted, for the error text.
	batches int
}

// orderState is where a run's conversation is.
type orderState int

const (
	// orderNew: nothing yet; started or error may come.
	orderNew orderState = iota
	// orderStarted: started came; batches, done or error may come.
	orderStarted
	// orderEnded: done or error came; nothing more may.
	orderEnded
)

// Next accepts m as the next message of the run, or says why it is out of order. A rejected message leaves
// the Order as it was.
func (o *Order) Next(m Message) error {
	switch o.state {
	case orderNew:
		switch m.Type {
		case MessageStarted:
			o.state = orderStarted
			return nil
		case MessageError:
			o.state = orderEnded
			return nil
		}
		return fmt.Errorf("protocol: run %d: %q before %q: a run opens with %q (or fails with %q)",
			m.ID, m.Type, MessageStarted, MessageStarted, MessageError)
	case orderStarted:
		switch m.Type {
		case MessageBatch:
			o.batches++
			return nil
		case MessageHeld:
			if m.Held != o.batches {
				return fmt.Errorf("protocol: run %d: %q at batch %d, after %d batches", m.ID, m.Type, m.Held, o.batches)
			}
			return nil
		case MessageDone, MessageError:
			o.state = orderEnded
			return nil
		}
		return fmt.Errorf("protocol: run %d: %q after %q and %d batches: want %q, %q, %q or %q",
			m.ID, m.Type, MessageStarted, o.batches, MessageBatch, MessageHeld, MessageDone, MessageError)
	case orderEnded:
		return fmt.Errorf("protocol: run %d: %q after the run ended", m.ID, m.Type)
	}
	return fmt.Errorf("protocol: run %d: impossible order state %d", m.ID, o.state)
}

// Ended reports whether the run's last message (done or error) has come.
func (o *Order) Ended() bool { return o.state == orderEnded }
