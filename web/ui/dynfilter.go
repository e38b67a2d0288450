package ui

import (
	"github.com/joinlab/joinlab/engine/dynfilter/dfevent"
)

// DynFilter is one dynamic filter as its dynamic_filter event tells it (engine/dfevent.KindApplied): the probe
// scan it was pushed into, its form (in, ranges, minmax, none, empty), the distinct build keys it stands
// for, its slices (one request stream each) with their sizes, the caps they were cut against (0: none), the
// threshold past which it compacts, and why it compacted or was dropped. Nothing here is worked out by the
// page: every figure is an attribute of the event.
type DynFilter struct {
	Source, Column, Form, Why string
	Keys, MaxValues, MaxBytes float64
	MaxDistinct               float64
	SliceCount                float64 // the event's slices; Slices holds the first maxPages of them
	Slices                    []Slice
}

// maxFilters bounds the filters folded: one per join whose probe is filtered, a handful in any query.
const maxFilters = 8

func (t *TraceView) addDynFilter(a dfevent.Applied) {
	if len(t.DynFilters) == maxFilters {
		return
	}
	f := DynFilter{Source: a.Source, Column: a.Column, Form: a.Form, Why: a.Why, Keys: float64(a.Keys),
		MaxValues: float64(a.MaxValues), MaxBytes: float64(a.MaxBytes), MaxDistinct: float64(a.MaxDistinct),
		SliceCount: float64(a.Slices)}
	for i, b := range a.SliceBytes {
		if i == maxPages {
			break
		}
		sl := Slice{Bytes: float64(b)}
		if i < len(a.SliceValues) {
			sl.Values = float64(a.SliceValues[i])
		}
		f.Slices = append(f.Slices, sl)
	}
	t.DynFilters = append(t.DynFilters, f)
}
