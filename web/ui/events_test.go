package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/engine/trace/registry"
)

// ev is an event of kind at time at in operator op, its payload read from attrs as the JSON-lines trace writes
// them, so the tests' tables of events stay short. An attribute the kind's Go type has not, or of the wrong
// type, panics: a test must not pass on a field the page would never see.
func ev(kind trace.Kind, at time.Duration, op string, attrs map[string]any) trace.Event {
	zero, ok := registry.New(kind)
	if !ok {
		panic(fmt.Sprintf("ev: kind %q is not registered", kind))
	}
	p := reflect.New(reflect.TypeOf(zero))
	if len(attrs) > 0 {
		raw, err := json.Marshal(attrs)
		if err != nil {
			panic(err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(p.Interface()); err != nil {
			panic(fmt.Sprintf("ev: %s %s: %v", kind, raw, err))
		}
	}
	return trace.Event{At: at, Op: op, Payload: p.Elem().Interface().(trace.Payload)}
}
