package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/join/joinevent"
)

// A step's facts and its paused event read as sentences, with no JSON in them.
func TestStepFactsAsSentences(t *testing.T) {
	for _, c := range []struct{ fact, want string }{
		{`{"event": "partition_written", "side": "left", "partition": "0", "rows": 2}`,
			"There is a partition written event with partition 0, rows 2 and side left up to the pause point."},
		{`{"event": "pair_joined", "count": 0}`, "There is no pair joined event up to the pause point."},
		{`{"event": "request_sent", "purpose": "probe", "scope": "run", "count": 2}`,
			"There are exactly 2 request sent events with purpose probe in the whole run."},
		{`{"paused": {"rows": 4, "partitions": 3, "level": 0}}`, "The event paused at has level 0, partitions 3 and rows 4."},
		{`{"rows": 8}`, "The run outputs 8 rows."},
		{`{"row": {"name": "Mickey"}, "count": 2}`, "Exactly 2 result rows have name Mickey."},
		{`{"row": {"user": "carl"}, "count": 0}`, "No result row has user carl."},
		{`{"detail": "rows_replicated", "equals": 4347}`, "The run's detail rows_replicated is 4,347."},
		{`{"explain_contains": "3 partitions"}`, "The plan says “3 partitions”."},
		{`{"result_prefix": [{"user": "ana"}, {"user": "bob"}]}`, "The result begins with 2 rows, in this order: user ana; user bob."},
	} {
		dec := json.NewDecoder(strings.NewReader(c.fact))
		dec.UseNumber()
		var f map[string]any
		if err := dec.Decode(&f); err != nil {
			t.Fatal(err)
		}
		if got := factSentence(f); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.fact, got, c.want)
		}
	}
	e := ev(joinevent.KindSpill, 0, "grace on user_id", map[string]any{"side": "left", "rows": int64(20000),
		"partitions": 3, "pages": 3})
	if got, want := eventSentence(e), "The left side is written out: 20,000 rows in 3 partitions, 3 pages (grace on user_id)."; got != want {
		t.Errorf("spill: %q, want %q", got, want)
	}
	if got := figureText("latency_ns", int64(401270286)); got != "401.270 ms" {
		t.Errorf("a duration reads %q", got)
	}
	if got := figureText("bytes", 11105.0); got != "10.8 KiB (11,105 bytes)" {
		t.Errorf("a size reads %q", got)
	}
}
