package ui

// DynFilter is one dynamic filter as its dynamic_filter event tells it (engine/dynfilter.Applied): the probe
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

func (t *TraceView) addDynFilter(a map[string]any) {
	if len(t.DynFilters) == maxFilters {
		return
	}
	f := DynFilter{Source: str(a, "source"), Column: str(a, "column"), Form: str(a, "form"), Why: str(a, "why")}
	f.Keys, _ = num(a, "keys")
	f.MaxValues, _ = num(a, "max_values")
	f.MaxBytes, _ = num(a, "max_bytes")
	f.MaxDistinct, _ = num(a, "max_distinct")
	f.SliceCount, _ = num(a, "slices")
	values := floats(a["slice_values"])
	for i, b := range floats(a["slice_bytes"]) {
		if i == maxPages {
			break
		}
		sl := Slice{Bytes: b}
		if i < len(values) {
			sl.Values = values[i]
		}
		f.Slices = append(f.Slices, sl)
	}
	t.DynFilters = append(t.DynFilters, f)
}
