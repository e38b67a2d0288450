// Package dfevent declares the trace event of a dynamic filter (engine/dynfilter's probe emits it). It imports
// nothing but engine/trace, so the page decodes it without carrying the engine.
package dfevent

import "github.com/joinlab/joinlab/engine/trace"

// Applied is a dynamic filter pushed into a join's probe scan, emitted once, when the build keys arrive (Op
// "dynfilter@Source").
type Applied struct {
	Source string `json:"source"`
	Column string `json:"column"`
	// Form is none, in, ranges, minmax or empty.
	Form string `json:"form"`
	Keys int    `json:"keys"` // distinct build keys
	// Slices is how many requests carry the filter; SliceValues and SliceBytes hold, for each, its IN values and
	// the rendered bytes of the continuation request carrying it.
	Slices      int   `json:"slices"`
	SliceValues []int `json:"slice_values"`
	SliceBytes  []int `json:"slice_bytes"`
	// MaxValues and MaxBytes are the caps the slices were cut against (0: none).
	MaxValues int `json:"max_values"`
	MaxBytes  int `json:"max_bytes"`
	// MaxDistinct is the threshold past which the filter compacts.
	MaxDistinct int `json:"max_distinct"`
	// Why says what compacted or dropped the filter ("" for IN lists).
	Why string `json:"why"`
}

// KindApplied is Applied's kind.
const KindApplied trace.Kind = "dynamic_filter"

func (Applied) Kind() trace.Kind { return KindApplied }
