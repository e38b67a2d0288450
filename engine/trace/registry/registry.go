// Package registry lists every kind of trace event the engine and the playground's runner emit, in one place,
// and carries events between the engine's worker and the page in a compact form (codec.go).
//
// Each kind's Go type is declared beside the strategy or component that emits it, in a package that imports
// nothing but engine/trace (joinevent for the join strategies, connevent for connector requests, dfevent,
// planevent, memory for the budget's high-water mark, trace itself for the events of every run), so this
// package, and the page that imports it, carries none of the engine. A kind missing here cannot be decoded:
// the page would drop its events, and the coverage test in web/ui fails.
package registry

import (
	"fmt"
	"reflect"

	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/dynfilter/dfevent"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/plan/planevent"
	"github.com/joinlab/joinlab/engine/trace"
)

// payloads holds one zero value of every payload type. Its order numbers the kinds in the compact codec, so
// both ends of the codec must be built from the same source (the worker and the page always are); appending a
// kind keeps the others' numbers.
var payloads = []trace.Payload{
	// Every run (engine/trace, engine/memory).
	trace.RowsEmitted{},
	trace.StrategyChose{},
	trace.ScanRows{},
	memory.HighWater{},
	// Connector requests (engine/connector).
	connevent.RequestSent{},
	connevent.RequestThrottled{},
	connevent.RequestFailed{},
	connevent.RequestRetried{},
	connevent.PageReturned{},
	connevent.PageResized{},
	// The planner and the dynamic filter.
	planevent.PartitionsPruned{},
	dfevent.Applied{},
	// Grace (engine/join/grace.go).
	joinevent.Spill{},
	joinevent.PartitionWritten{},
	joinevent.PartitionRead{},
	joinevent.Repartition{},
	joinevent.HotKey{},
	joinevent.PairJoined{},
	// Salted (engine/join/salted.go).
	joinevent.HeavyKey{},
	joinevent.SaltAssigned{},
	joinevent.RowsReplicated{},
	joinevent.WorkerLoad{},
	// Interval (engine/join/sweep.go).
	joinevent.SweepAdvanced{},
	// Paged (engine/join/paged*.go).
	joinevent.PageSized{},
	joinevent.PageRequested{},
	joinevent.PageFetched{},
	joinevent.TieGroupCut{},
	joinevent.FilterSplit{},
	joinevent.ProbeResults{},
	joinevent.Refetched{},
	joinevent.PageWindow{},
	joinevent.NullKeyRows{},
	joinevent.ProbeScanned{},
	// Appended after the others, so theirs keep their numbers: the small runs' rows (Grace, salted).
	joinevent.PartitionKeys{},
	joinevent.WorkerRows{},
}

// entry is what the codec knows of one kind.
type entry struct {
	number int
	typ    reflect.Type
}

var byKind = func() map[trace.Kind]entry {
	m := make(map[trace.Kind]entry, len(payloads))
	for i, p := range payloads {
		if _, dup := m[p.Kind()]; dup {
			panic(fmt.Sprintf("registry: kind %s listed twice", p.Kind()))
		}
		m[p.Kind()] = entry{number: i, typ: reflect.TypeOf(p)}
	}
	return m
}()

// Kinds lists every registered kind, in the codec's numbering.
func Kinds() []trace.Kind {
	out := make([]trace.Kind, len(payloads))
	for i, p := range payloads {
		out[i] = p.Kind()
	}
	return out
}

// Known reports whether kind has a decoder.
func Known(kind trace.Kind) bool {
	_, ok := byKind[kind]
	return ok
}

// New returns a zero payload of kind, or false for a kind not registered.
func New(kind trace.Kind) (trace.Payload, bool) {
	e, ok := byKind[kind]
	if !ok {
		return nil, false
	}
	return payloads[e.number], true
}
