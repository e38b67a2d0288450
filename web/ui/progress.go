package ui

import (
	"encoding/json"
	"math"
)

// ProgressFold is the fold of a long task's progress reports as the page applied them, each report the share
// of the whole done (a table's bytes parsed, a run's input rows read). The bars draw the latest report at
// each render, so which reports ever appear on screen depends on where the renders fell between messages;
// the fold holds every report in the order the page applied it, so tests read progress from it instead of
// sampling a bar.
type ProgressFold struct {
	Reports int `json:"reports"`
	// Rises and Falls count the reports above and below the one before; progress never goes back, so Falls
	// stays 0.
	Rises int `json:"rises"`
	Falls int `json:"falls"`
	// First and Last are the first and the latest share; Least and Most the smallest and the largest, which
	// lie within [0, 1] (a run's share may pass 1 when it reads a source more than once, as a nested loop's
	// inner side; its bar stops at 1).
	First float64 `json:"first"`
	Last  float64 `json:"last"`
	Least float64 `json:"least"`
	Most  float64 `json:"most"`
}

// add folds in one report. A share that is not a number (a whole of size 0) is left out.
func (f *ProgressFold) add(share float64) {
	if math.IsNaN(share) || math.IsInf(share, 0) {
		return
	}
	switch {
	case f.Reports == 0:
		f.First, f.Least, f.Most = share, share, share
	case share > f.Last:
		f.Rises++
	case share < f.Last:
		f.Falls++
	}
	f.Least, f.Most, f.Last = min(f.Least, share), max(f.Most, share), share
	f.Reports++
}

// Attr is the fold as the JSON of a data attribute.
func (f ProgressFold) Attr() string {
	b, err := json.Marshal(f)
	if err != nil {
		return ""
	}
	return string(b)
}
