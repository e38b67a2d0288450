package ui

import "testing"

// Warm plays its made-up run to the end under each view; its State posts nothing (quietEnv cannot).
func TestWarmEveryView(t *testing.T) {
	views := map[string]bool{}
	for _, strategy := range WarmViews {
		s := warmRun(strategy)
		if s.Run.Status != StatusDone || s.Run.Rows.Len() != 3 || s.Run.Trace.Events != 5 {
			t.Errorf("%q: status %s, %d rows, %d events", strategy, s.Run.Status, s.Run.Rows.Len(), s.Run.Trace.Events)
		}
		views[(&Root{State: s}).View()] = true
	}
	if len(views) != len(WarmViews) {
		t.Errorf("views %v: want one for each of %q", views, WarmViews)
	}
}
