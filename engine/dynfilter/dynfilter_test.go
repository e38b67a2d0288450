package dynfilter

import (
	"fmt"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
)

func keys(n int) []column.Value {
	out := make([]column.Value, n)
	for i := range out {
		out[i] = column.Value{Type: column.String, Str: fmt.Sprintf("user%03d@corp.example", i)}
	}
	return out
}

// render sizes a request as "T | where " plus the predicate's text.
func render(p connector.Predicate) (int, error) { return len("T | where ") + len(p.String()), nil }

func TestSplitToFit(t *testing.T) {
	for _, tc := range []struct {
		keys, maxValues, maxBytes int
		slices                    int
	}{
		{0, 5, 0, 0}, {1, 0, 0, 1}, {10, 3, 0, 4}, {10, 0, 200, 0}, {100, 20, 600, 0},
	} {
		f, err := SplitToFit("user", keys(tc.keys), connector.Caps{MaxInValues: tc.maxValues, MaxQueryBytes: tc.maxBytes}, render)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for i, s := range f.Slices {
			total += len(s.Values)
			n, _ := render(connector.In{Column: "user", Values: s.Values})
			if n != s.Bytes || (tc.maxBytes > 0 && n > tc.maxBytes) || (tc.maxValues > 0 && len(s.Values) > tc.maxValues) {
				t.Errorf("%+v: slice %d: %d values, %d bytes (reported %d)", tc, i, len(s.Values), n, s.Bytes)
			}
			// Fewest consecutive slices: the next key would not have fitted.
			if i+1 < len(f.Slices) {
				more := append(append([]column.Value(nil), s.Values...), f.Slices[i+1].Values[0])
				m, _ := render(connector.In{Column: "user", Values: more})
				if (tc.maxBytes == 0 || m <= tc.maxBytes) && (tc.maxValues == 0 || len(more) <= tc.maxValues) {
					t.Errorf("%+v: slice %d could have taken one more key", tc, i)
				}
			}
		}
		if total != tc.keys || (tc.slices > 0 && len(f.Slices) != tc.slices) {
			t.Errorf("%+v: %d keys in %d slices", tc, total, len(f.Slices))
		}
	}
}

func TestSplitToFitKeyTooLarge(t *testing.T) {
	_, err := SplitToFit("user", keys(3), connector.Caps{MaxQueryBytes: 20}, render)
	if err == nil || !strings.Contains(err.Error(), "alone makes a") {
		t.Fatalf("a key larger than the query cap: %v, want an error naming it", err)
	}
}
