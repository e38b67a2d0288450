package ui

import (
	"math"
	"testing"
)

func TestProgressFoldCountsRisesAndFalls(t *testing.T) {
	var f ProgressFold
	for _, share := range []float64{0.25, 0.25, 0.5, math.NaN(), 0.4, 1, math.Inf(1)} {
		f.add(share)
	}
	want := ProgressFold{Reports: 5, Rises: 2, Falls: 1, First: 0.25, Last: 1, Least: 0.25, Most: 1}
	if f != want {
		t.Errorf("fold %+v, want %+v", f, want)
	}
	if got := (ProgressFold{}).Attr(); got != `{"reports":0,"rises":0,"falls":0,"first":0,"last":0,"least":0,"most":0}` {
		t.Errorf("empty fold's attribute %s", got)
	}
}
