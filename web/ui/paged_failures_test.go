package ui

import (
	"strings"
	"testing"
)

// TestBaselineFailuresDrawn runs every paged baseline's compare preset through the real engine and checks
// the failure its view draws, folded from B's events alone, against what the run itself says: the error it
// stopped with, the row cap in its request, the compare's verdict against the paged join.
func TestBaselineFailuresDrawn(t *testing.T) {
	for _, p := range Presets {
		if !baselines[p.Compare] {
			continue
		}
		t.Run(p.ID, func(t *testing.T) {
			s := comparePreset(t, p)
			b, d := s.CompareRun, s.Diff
			bl := &b.Trace.Baseline
			if bl.Name != p.Compare {
				t.Fatalf("the fold names the baseline %q, want %q", bl.Name, p.Compare)
			}
			errText := ""
			if b.Err != nil {
				errText = b.Err.Message
			}
			t.Logf("%s: %s", p.Compare, bl.Lesson())
			switch p.Compare {
			case "keyset-lt":
				// Rows are lost only at an edge; the fold must have found edges where the compare found loss.
				if d.Lost > 0 && bl.EdgeCount == 0 || bl.Stalls != 0 || bl.Refused != nil {
					t.Errorf("%d rows lost, %d loss edges, %d stalls, refused %v", d.Lost, bl.EdgeCount, bl.Stalls, bl.Refused)
				}
				// Every page but the last came back full: each is an edge.
				if want := int64(len(b.Trace.Paged.Pages)) - 1; bl.EdgeCount != want {
					t.Errorf("%d loss edges over %d pages, want one per page but the last", bl.EdgeCount, want+1)
				}
			case "keyset-le":
				if bl.Stalls == 0 || d.Doubled == 0 || bl.EdgeCount == 0 {
					t.Fatalf("%d stalls, %d edges, %d rows doubled: want repeats and the stall", bl.Stalls, bl.EdgeCount, d.Doubled)
				}
				last := bl.Edges[len(bl.Edges)-1]
				// window_to is the list [datetime(...)]: the error names the same literal.
				v := strings.Trim(last.Value, "[]")
				if last.Kind != "stall" || !strings.Contains(errText, v) || !strings.Contains(errText, "has not advanced") {
					t.Errorf("last edge %+v; the run's error %q: want the stall at the value the error names", last, errText)
				}
			case "distinctkeys":
				if bl.KeyPages == 0 || int64(len(b.Trace.Paged.Pages)) != min(bl.KeyPages, maxPages) || d.OutOfOrder == 0 {
					t.Errorf("%d key pages, %d pages drawn, out of order from %d", bl.KeyPages, len(b.Trace.Paged.Pages), d.OutOfOrder)
				}
			case "timewindow":
				r := bl.Refused
				if r == nil || r.Purpose != "window" || !strings.Contains(errText, "window "+r.Window) || r.Page != float64(bl.Windows) {
					t.Fatalf("refused %+v after %d windows; the run's error %q: want the last window refused, as the error says", r, bl.Windows, errText)
				}
			case "fetchall":
				r := bl.Refused
				if r == nil || r.Purpose != "fetch-all" || r.MaxRows <= 0 || !strings.Contains(errText, r.Error) {
					t.Fatalf("refused %+v; the run's error %q: want the fetch-all refused at its cap", r, errText)
				}
			}
			html, _ := render(t, s)
			checkUniqueIDs(t, html)
			if !strings.Contains(html, `id="b-paged-failure"`) || strings.Contains(html, `id="a-paged-failure"`) {
				t.Error("want B's paged view, and only B's, to say how its baseline fails")
			}
			if n := strings.Count(html, `class="edge `); int64(n) != min(bl.EdgeCount, int64(len(b.Trace.Paged.Pages))) {
				t.Errorf("%d edge marks drawn for %d edges", n, bl.EdgeCount)
			}
		})
	}
}
