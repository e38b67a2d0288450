package registry

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/joinlab/joinlab/engine/trace"
)

// The compact form of an event, as the engine's worker posts it to the page, is a JSON array:
//
//	[number, at_ns, op, field1, field2, …]
//
// number is the kind's place in the registry, at_ns the event's time, op its operator, then the payload's
// fields in their declaration order, each as encoding/json writes it, with the trailing zero-valued fields left
// out (the decoder leaves them zero). No attribute name travels: a page_fetched event is about half the bytes of
// its JSON-lines form (kind, at_ns, op and attrs by name, trace.Event.MarshalJSON), and the page decodes each
// field straight into its typed field instead of building a map. The JSON-lines form stays the one written to
// files (the command line's --trace, the page's trace download), where readers know field names, not numbers.

// AppendCompact appends the compact form of e to dst. A kind that is not registered is an error: the page
// could not decode it.
func AppendCompact(dst []byte, e trace.Event) ([]byte, error) {
	if e.Payload == nil {
		return dst, fmt.Errorf("registry: event at %v in %q has no payload", e.At, e.Op)
	}
	ent, ok := byKind[e.Payload.Kind()]
	if !ok {
		return dst, fmt.Errorf("registry: kind %q is not registered", e.Payload.Kind())
	}
	v := reflect.ValueOf(e.Payload)
	if v.Type() != ent.typ {
		return dst, fmt.Errorf("registry: kind %q is a %v, not the registered %v", e.Payload.Kind(), v.Type(), ent.typ)
	}
	n := v.NumField()
	for n > 0 && v.Field(n-1).IsZero() {
		n--
	}
	dst = append(dst, '[')
	dst = strconv.AppendInt(dst, int64(ent.number), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(e.At), 10)
	dst = append(dst, ',')
	dst = strconv.AppendQuote(dst, e.Op)
	for i := range n {
		b, err := json.Marshal(v.Field(i).Interface())
		if err != nil {
			return dst, fmt.Errorf("registry: %s.%s: %w", e.Payload.Kind(), ent.typ.Field(i).Name, err)
		}
		dst = append(dst, ',')
		dst = append(dst, b...)
	}
	return append(dst, ']'), nil
}

// DecodeCompact reads one event in the compact form.
func DecodeCompact(raw []byte) (trace.Event, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return trace.Event{}, fmt.Errorf("registry: %w", err)
	}
	if len(parts) < 3 {
		return trace.Event{}, fmt.Errorf("registry: an event of %d parts, want at least number, time and op", len(parts))
	}
	var number int
	var at int64
	var op string
	if err := json.Unmarshal(parts[0], &number); err != nil || number < 0 || number >= len(payloads) {
		return trace.Event{}, fmt.Errorf("registry: kind number %s is not registered", parts[0])
	}
	if err := json.Unmarshal(parts[1], &at); err != nil {
		return trace.Event{}, fmt.Errorf("registry: time %s: %w", parts[1], err)
	}
	if err := json.Unmarshal(parts[2], &op); err != nil {
		return trace.Event{}, fmt.Errorf("registry: op %s: %w", parts[2], err)
	}
	typ := reflect.TypeOf(payloads[number])
	fields := parts[3:]
	if len(fields) > typ.NumField() {
		return trace.Event{}, fmt.Errorf("registry: %s has %d fields, the event %d", payloads[number].Kind(), typ.NumField(), len(fields))
	}
	v := reflect.New(typ).Elem()
	for i, f := range fields {
		if err := json.Unmarshal(f, v.Field(i).Addr().Interface()); err != nil {
			return trace.Event{}, fmt.Errorf("registry: %s.%s: %w", payloads[number].Kind(), typ.Field(i).Name, err)
		}
	}
	return trace.Event{At: time.Duration(at), Op: op, Payload: v.Interface().(trace.Payload)}, nil
}

// UnmarshalEvent reads one event in its JSON-lines form (trace.Event.MarshalJSON).
func UnmarshalEvent(line []byte) (trace.Event, error) {
	var j struct {
		Kind  trace.Kind      `json:"kind"`
		At    time.Duration   `json:"at_ns"`
		Op    string          `json:"op"`
		Attrs json.RawMessage `json:"attrs"`
	}
	if err := json.Unmarshal(line, &j); err != nil {
		return trace.Event{}, fmt.Errorf("registry: %w", err)
	}
	ent, ok := byKind[j.Kind]
	if !ok {
		return trace.Event{}, fmt.Errorf("registry: kind %q is not registered", j.Kind)
	}
	v := reflect.New(ent.typ)
	if len(j.Attrs) > 0 {
		if err := json.Unmarshal(j.Attrs, v.Interface()); err != nil {
			return trace.Event{}, fmt.Errorf("registry: %s: %w", j.Kind, err)
		}
	}
	return trace.Event{At: j.At, Op: j.Op, Payload: v.Elem().Interface().(trace.Payload)}, nil
}
