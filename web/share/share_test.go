package share

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func sample() *State {
	return &State{
		Query:    "@Users\n| join kind=inner (@Listens) on user_id\n| take 10",
		Scenario: "users-listens-grace",
		Knobs:    map[string]float64{"rows": 1e6, "latency_ms": 20.5},
		Seed:     42,
		Step:     3,
		Strategy: "grace",

		MemoryBudget: 64 << 20,
	}
}

func TestFragmentRoundTrip(t *testing.T) {
	for _, s := range []*State{{}, sample(), {Query: strings.Repeat("x", MaxQueryBytes)}, {Query: "<script>alert(1)</script>"}} {
		f := s.Fragment()
		if strings.ContainsAny(f, "#?&=+/ <>\"'") {
			t.Errorf("fragment %q holds a character a URL fragment would need escaped", f)
		}
		got, err := DecodeFragment("#" + f)
		if err != nil {
			t.Fatalf("DecodeFragment(%q): %v", f, err)
		}
		if !got.Equal(s) {
			t.Errorf("round trip: got %s, want %s", got, s)
		}
	}
}

func TestFragmentIsCompact(t *testing.T) {
	s := sample()
	// The alternative to compressing is base64url of the JSON itself.
	if f, b := len(s.Fragment()), len(fragmentPrefix)+fragmentEncoding.EncodedLen(len(s.JSON())); f >= b {
		t.Errorf("fragment is %d bytes, base64url of the JSON %d: compression gained nothing", f, b)
	}
}

func TestJSONIsCanonicalAndInert(t *testing.T) {
	a := &State{Knobs: map[string]float64{"b": 1, "a": 2}, Query: "<b>&"}
	b := &State{Query: "<b>&", Knobs: map[string]float64{"a": 2, "b": 1}}
	if string(a.JSON()) != string(b.JSON()) {
		t.Errorf("equal states, different JSON: %s vs %s", a.JSON(), b.JSON())
	}
	if strings.ContainsAny(string(a.JSON()), "<>&") {
		t.Errorf("JSON %s carries raw markup characters", a.JSON())
	}
}

func TestParseJSON(t *testing.T) {
	tests := []struct {
		name, in string
		wantErr  string // "" means valid
	}{
		{"empty object", `{}`, ""},
		{"full", `{"query":"@A | take 1","scenario":"s-1","knobs":{"k":1.5},"seed":7,"step":2,"strategy":"hash"}`, ""},
		{"not json", `query=1`, "malformed"},
		{"array", `[]`, "malformed"},
		{"unknown field", `{"html":"<b>"}`, "unknown field"},
		{"trailing", `{} {}`, "after the JSON"},
		{"wrong type", `{"seed":"x"}`, "malformed"},
		{"negative seed", `{"seed":-1}`, "malformed"},
		{"negative step", `{"step":-1}`, "step"},
		{"huge step", `{"step":99999999}`, "step"},
		{"playback", `{"speed":10,"paused_at":4}`, ""},
		{"compare and run", `{"strategy":"paged","compare":"keyset-lt","run":true}`, ""},
		{"compare auto", `{"compare":"auto"}`, ""},
		{"markup in compare", `{"compare":"<b>"}`, "compare strategy name"},
		{"run not a bool", `{"run":"yes"}`, "malformed"},
		{"negative speed", `{"speed":-1}`, "speed"},
		{"huge speed", `{"speed":1e300}`, "speed"},
		{"negative paused_at", `{"paused_at":-2}`, "paused_at"},
		{"huge paused_at", `{"paused_at":99999999}`, "paused_at"},
		{"negative budget", `{"memory_budget":-1}`, "memory budget"},
		{"huge budget", `{"memory_budget":1099511627777}`, "memory budget"},
		{"markup in scenario", `{"scenario":"<img src=x onerror=alert(1)>"}`, "scenario name"},
		{"space in strategy", `{"strategy":"a b"}`, "strategy name"},
		{"markup in knob", `{"knobs":{"<i>":1}}`, "knob name"},
		{"empty knob", `{"knobs":{"":1}}`, "empty name"},
		{"long name", `{"scenario":"` + strings.Repeat("a", MaxNameBytes+1) + `"}`, "more than"},
		{"control in query", `{"query":"a\u0000b"}`, "control"},
		{"long query", `{"query":"` + strings.Repeat("q", MaxQueryBytes+1) + `"}`, "query is"},
		{"bad utf8", "{\"query\":\"\xff\"}", "UTF-8"},
		{"too large", `{"query":"` + strings.Repeat("q", MaxJSONBytes) + `"}`, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseJSON([]byte(tt.in))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ParseJSON(%.60q): %v", tt.in, err)
				}
				if again, err := ParseJSON(s.JSON()); err != nil || !again.Equal(s) {
					t.Fatalf("canonical JSON %s does not parse back: %v", s.JSON(), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ParseJSON(%.60q) = %v, want an error containing %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

func TestTooLargeIsTyped(t *testing.T) {
	_, err := ParseJSON([]byte(strings.Repeat(" ", MaxJSONBytes+1)))
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("ParseJSON of %d bytes = %v, want a *TooLargeError", MaxJSONBytes+1, err)
	}
}

func TestValidateKnobValues(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		s := &State{Knobs: map[string]float64{"k": v}}
		if err := s.Validate(); err == nil {
			t.Errorf("knob %v validated", v)
		}
	}
}

func TestDecodeFragmentRejects(t *testing.T) {
	// Highly compressible, so the fragment is small while its JSON inflates past the limit.
	bomb := encodeRaw([]byte(`{}` + strings.Repeat(" ", MaxJSONBytes)))
	tests := []struct{ name, in, wantErr string }{
		{"no prefix", "abc", "does not start"},
		{"bad base64", "s1.***", "base64url"},
		{"not deflate", "s1." + fragmentEncoding.EncodeToString([]byte("hello, world")), "inflate"},
		{"truncated", trimLast((&State{Query: "abcdefgh"}).Fragment(), 3), "truncated"},
		{"inflates too far", bomb, "larger than"},
		{"too long", "s1." + strings.Repeat("A", maxFragmentBytes), "larger than"},
		{"valid deflate, invalid state", encodeRaw([]byte(`{"scenario":"<x>"}`)), "scenario name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeFragment(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("DecodeFragment(%.40q) = %v, want an error containing %q", tt.in, err, tt.wantErr)
			}
		})
	}
	if len(bomb) > MaxJSONBytes/4 {
		t.Errorf("the bomb fragment is %d bytes: it no longer tests the inflate limit separately from the length limit", len(bomb))
	}
}

func trimLast(s string, n int) string { return s[:len(s)-n] }

func TestTablesInState(t *testing.T) {
	ok := &State{Tables: []Table{{Name: "Users", Format: "jsonl", Data: `{"a": 1}`}, {Name: "big_events", Format: "csv"}}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid tables: %v", err)
	}
	frag := ok.Fragment()
	back, err := DecodeFragment(frag)
	if err != nil || len(back.Tables) != 2 || back.Tables[0] != ok.Tables[0] || back.Tables[1] != ok.Tables[1] {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	for _, bad := range []State{
		{Tables: []Table{{Name: "", Format: "jsonl"}}},
		{Tables: []Table{{Name: "a b", Format: "jsonl"}}},
		{Tables: []Table{{Name: "a", Format: "xml"}}},
		{Tables: []Table{{Name: "a", Format: "csv", Data: "\xff"}}},
		{Tables: []Table{{Name: "a", Format: "csv", Data: strings.Repeat("x", MaxTableData+1)}}},
		{Tables: make([]Table, MaxTables+1)},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("tables %.80v: no error", bad.Tables)
		}
	}
}
