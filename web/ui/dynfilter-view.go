package ui

import (
	"fmt"
	"strings"
)

// DynfilterView draws the dynamic filters of the hash, Grace and salted joins, one panel each: the form and
// what it stands for, then the slices as two strips of columns, IN values against max_values and query bytes
// against max_bytes (the line at the top is the cap), and why the filter compacted.
type DynfilterView struct {
	Run *Run
}

// FilterPanel is one filter as drawn: its lines of text and its two strips.
type FilterPanel struct {
	Title, Form, Summary, Caps, Why, More string
	// ValuesLabel and BytesLabel caption the strips.
	ValuesLabel, BytesLabel string
	// Values and Bytes are the slices' columns; a strip with no column is not drawn. ValuesCapY and BytesCapY
	// are the caps' lines (0: no cap).
	Values, Bytes         []Box
	ValuesCapY, BytesCapY float64
}

// stripHeight is the tallest column of a strip; stripBase is the strip's baseline in its SVG.
const (
	stripHeight = 40
	stripBase   = 48
)

func (c *DynfilterView) Panels() []FilterPanel {
	var out []FilterPanel
	for _, f := range c.Run.Trace.DynFilters {
		out = append(out, panelOf(f))
	}
	return out
}

func panelOf(f DynFilter) FilterPanel {
	p := FilterPanel{Title: "dynamic filter on @" + f.Source + "." + f.Column, Form: f.Form, Why: f.Why}
	keys := count(int64(f.Keys)) + " distinct build keys"
	switch f.Form {
	case "in":
		p.Summary = fmt.Sprintf("%s in %s IN lists, one request stream each (IN lists up to %s keys)", keys,
			count(int64(f.SliceCount)), count(int64(f.MaxDistinct)))
	case "ranges", "minmax":
		if f.Keys == 0 {
			keys = "more distinct build keys than were kept"
		}
		p.Summary = fmt.Sprintf("%s compacted to %s: one request stream (past %s keys)", keys,
			map[string]string{"ranges": "ranges", "minmax": "one min/max range"}[f.Form], count(int64(f.MaxDistinct)))
	case "empty":
		p.Summary = "no build key: the probe side sends no request"
	default:
		p.Summary = "no filter: the probe side is scanned whole"
	}
	var caps []string
	if f.MaxValues > 0 {
		caps = append(caps, count(int64(f.MaxValues))+" values per IN list")
	}
	if f.MaxBytes > 0 {
		caps = append(caps, count(int64(f.MaxBytes))+" query bytes per request")
	}
	if len(caps) > 0 {
		p.Caps = "caps: " + strings.Join(caps, ", ")
	}
	if n := int64(f.SliceCount); n > int64(len(f.Slices)) {
		p.More = fmt.Sprintf("the first %s of %s slices drawn", count(int64(len(f.Slices))), count(n))
	}
	values, bytes := make([]float64, len(f.Slices)), make([]float64, len(f.Slices))
	for i, s := range f.Slices {
		values[i], bytes[i] = s.Values, s.Bytes
	}
	if f.Form == "in" {
		p.Values, p.ValuesCapY = strip(values, f.MaxValues)
		p.ValuesLabel = "IN values per slice" + capNote(f.MaxValues)
	}
	p.Bytes, p.BytesCapY = strip(bytes, f.MaxBytes)
	p.BytesLabel = "query bytes per request" + capNote(f.MaxBytes)
	return p
}

// strip is one column per figure, heights against the larger of the cap and the tallest figure, and the
// cap's line (0 when there is no cap).
func strip(figures []float64, limit float64) ([]Box, float64) {
	if len(figures) == 0 {
		return nil, 0
	}
	top := limit
	for _, f := range figures {
		top = max(top, f)
	}
	if top == 0 {
		return nil, 0
	}
	w := 400 / float64(len(figures))
	out := make([]Box, len(figures))
	for i, f := range figures {
		out[i] = Box{X: float64(i) * w, W: max(1, w-2), H: stripHeight * f / top, Class: "fill slice"}
		if limit > 0 && f > limit {
			out[i].Class += " over"
		}
	}
	capY := 0.0
	if limit > 0 {
		capY = stripBase - stripHeight*limit/top
	}
	return out, capY
}

// capNote names a strip's cap line, or says there is none.
func capNote(limit float64) string {
	if limit > 0 {
		return ", against the cap of " + count(int64(limit)) + " (dashed line)"
	}
	return " (no cap)"
}
