package ui

import (
	"encoding/json"
	"fmt"

	"github.com/joinlab/joinlab/web/runner/protocol"
)

// Messages from the engine are applied a piece at a time. Decoding trace events is the page's dearest step per
// byte: in the browser's WebAssembly a batch of 250 events took 20–30 ms to decode into attribute maps (before
// the typed codec, protocol.DecodeEvent), one uninterrupted stretch of the page's only thread. So Decode reads a message but leaves its
// events as raw JSON, and each ApplyNext decodes and applies at most eventsPerPiece of them; the caller lets
// the browser run between two pieces.

// eventsPerPiece bounds the trace events one ApplyNext decodes: a few milliseconds of the page's WebAssembly.
const eventsPerPiece = 64

// Incoming is a message from the engine being applied, as Decode read it.
type Incoming struct {
	msg    protocol.Message // without its events
	events []json.RawMessage
	// applied counts the events applied so far; begun is set once the message itself is.
	applied int
	begun   bool
	err     error
}

// Decode reads a message as the worker posted it, all but its trace events. It touches no state, so it needs
// no lock.
func Decode(env protocol.Envelope) *Incoming {
	// The outer Events field hides the embedded one from encoding/json: the events stay raw.
	var wire struct {
		protocol.Message
		Events []json.RawMessage `json:"events"`
	}
	err := json.Unmarshal([]byte(env.JSON), &wire)
	in := &Incoming{msg: wire.Message, events: wire.Events, err: err}
	in.msg.Rows = env.Rows
	return in
}

// ApplyNext applies the next piece of in: first the message with its first events, then more of its events.
// It reports whether in is all applied; a batch's last step acknowledges it to the engine.
func (s *State) ApplyNext(in *Incoming) (done bool) {
	if in.err != nil {
		s.Notice = fmt.Sprintf("The engine sent a message the page cannot read: %v", in.err)
		s.Dirty = true
		return true
	}
	part := in.msg
	part.Events = nil
	end := min(len(in.events), in.applied+eventsPerPiece)
	for _, raw := range in.events[in.applied:end] {
		e, err := protocol.DecodeEvent(raw)
		if err != nil {
			s.Notice = fmt.Sprintf("The engine sent a trace event the page cannot read: %v", err)
			continue
		}
		part.Events = append(part.Events, e)
	}
	in.applied = end
	if !in.begun {
		in.begun = true
		s.Apply(part)
	} else {
		s.applyEvents(part)
	}
	if in.applied < len(in.events) {
		return false
	}
	if in.msg.Type == protocol.MessageBatch {
		// Applied: the engine may post one more (protocol.MaxBatchesInFlight).
		s.Env.Post(protocol.Request{Type: protocol.RequestAck, ID: in.msg.ID})
	}
	return true
}

// Receive applies one message from the engine as the worker posted it, all at once.
func (s *State) Receive(env protocol.Envelope) {
	in := Decode(env)
	for !s.ApplyNext(in) {
	}
}

// applyEvents applies more trace events of a batch whose message Apply has applied.
func (s *State) applyEvents(m protocol.Message) {
	s.Dirty = true
	s.Walk.observe(m)
	if r := s.runFor(m.ID); r != nil {
		r.addEvents(m.Events)
	}
}
