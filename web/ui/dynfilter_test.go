package ui

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/dynfilter/dfevent"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// asReceived passes events through the codec the worker posts them to the page with.
func asReceived(t *testing.T, events []trace.Event) []trace.Event {
	t.Helper()
	data, err := json.Marshal(protocol.Events(events))
	if err != nil {
		t.Fatal(err)
	}
	var out protocol.Events
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// filterEvent is a dynamic_filter event with the attributes engine/dynfilter.Probe gives it.
func filterEvent(source, form string, keys int, values, bytes []int, maxValues, maxBytes int, why string) trace.Event {
	return ev(dfevent.KindApplied, 0, "dynfilter@"+source, map[string]any{
		"source": source, "column": "user", "form": form, "keys": keys, "slices": len(bytes),
		"slice_values": values, "slice_bytes": bytes, "max_values": maxValues, "max_bytes": maxBytes,
		"max_distinct": 1000, "why": why})
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Each form is drawn from its event alone: the IN lists' values against max_values and their bytes against
// max_bytes, each column's height in proportion to the cap's line; a compacted filter has one bytes column
// and says why; none and empty draw no column.
func TestDynFilterPanels(t *testing.T) {
	events := asReceived(t, []trace.Event{
		filterEvent("Okta", "in", 86, []int{10, 10, 6}, []int{775, 778, 670}, 10, 4096, ""),
		filterEvent("Okta", "ranges", 1200, []int{0}, []int{300}, 10, 200, "1200 distinct keys, over the 1000 an IN set carries"),
		filterEvent("Okta", "none", 1200, nil, nil, 10, 20, "even the min/max range is over the query cap"),
		filterEvent("Okta", "empty", 0, nil, nil, 10, 4096, ""),
	})
	panels := (&DynfilterView{Run: &Run{Trace: Fold(events)}}).Panels()
	if len(panels) != 4 {
		t.Fatalf("%d panels for 4 filters", len(panels))
	}
	in := panels[0]
	if in.Form != "in" || in.Title != "dynamic filter on @Okta.user" || !strings.Contains(in.Summary, "86 distinct build keys in 3 IN lists") ||
		in.Caps != "caps: 10 values per IN list, 4,096 query bytes per request" {
		t.Errorf("in: %+v", in)
	}
	if len(in.Values) != 3 || !near(in.Values[0].H, 40) || !near(in.Values[2].H, 24) || !near(in.ValuesCapY, 8) {
		t.Errorf("in: values strip %+v, cap line at %v", in.Values, in.ValuesCapY)
	}
	if in.ValuesLabel != "IN values per slice, against the cap of 10 (dashed line)" || !strings.Contains(in.BytesLabel, "cap of 4,096") {
		t.Errorf("in: strips captioned %q and %q", in.ValuesLabel, in.BytesLabel)
	}
	if len(in.Bytes) != 3 || !near(in.Bytes[1].H, 40*778.0/4096) || !near(in.BytesCapY, 8) {
		t.Errorf("in: bytes strip %+v, cap line at %v", in.Bytes, in.BytesCapY)
	}
	rg := panels[1]
	if len(rg.Values) != 0 || len(rg.Bytes) != 1 || !strings.Contains(rg.Summary, "1,200 distinct build keys compacted to ranges") ||
		rg.Why != "1200 distinct keys, over the 1000 an IN set carries" {
		t.Errorf("ranges: %+v", rg)
	}
	if !strings.Contains(rg.Bytes[0].Class, "over") || !near(rg.Bytes[0].H, 40) || !near(rg.BytesCapY, 48-40*200.0/300) {
		t.Errorf("ranges: a 300-byte request over a 200-byte cap drawn as %+v, cap at %v", rg.Bytes[0], rg.BytesCapY)
	}
	if none := panels[2]; len(none.Bytes) != 0 || !strings.Contains(none.Summary, "scanned whole") || none.Why == "" {
		t.Errorf("none: %+v", none)
	}
	if empty := panels[3]; len(empty.Bytes) != 0 || !strings.Contains(empty.Summary, "no request") {
		t.Errorf("empty: %+v", empty)
	}
}

// The hash view shows the filter: the page renders one panel per filter, with its form and its strips.
func TestHashViewDrawsTheDynamicFilter(t *testing.T) {
	events := asReceived(t, []trace.Event{
		ev(trace.KindStrategyChose, 0, "plan", map[string]any{"strategy": "hash", "strategies": "hash"}),
		filterEvent("Okta", "in", 86, []int{10, 10, 6}, []int{775, 778, 670}, 10, 4096, ""),
	})
	s, _ := ready(t)
	s.Run = &Run{ID: 1, Status: StatusDone, Trace: Fold(events), Explain: "hash join kind=inner", ViewName: protocol.ViewHash, Drawn: "hash"}
	if v := s.Run.View(); v != protocol.ViewHash {
		t.Fatalf("drawn by the %s view", v)
	}
	html, _ := render(t, s)
	for _, want := range []string{`data-form="in"`, "dynamic filter on @Okta.user", "86 distinct build keys in 3 IN lists",
		`class="slices dynfilter-values"`, `class="slices dynfilter-bytes"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(html, `class="fill slice"`); n != 6 {
		t.Errorf("%d slice columns drawn, want 3 values and 3 bytes", n)
	}
}
