package runner

import (
	"testing"

	"github.com/joinlab/joinlab/engine/kql"
)

func TestArbitraryTake(t *testing.T) {
	for _, tt := range []struct {
		query string
		want  bool
	}{
		{"@A | take 5", true},
		{"@A | sort by x | take 5", false},
		{"@A | top 5 by x", false},
		{"@A | sort by x | where y > 1 | project x | take 5", false},
		{"@A | sort by x | join (@B) on k | take 5", true},
		{"@A | sort by x | summarize n = count() by k | take 5", true},
		{"@A | join (@B | take 3) on k | sort by x | take 5", true},
		{"@A | join (@B | sort by y | take 3) on k | sort by x | take 5", false},
		{"@A | take 5 | sort by x", true},
		{"@A | count | take 1", false},
		{"@A | join (@B) on k", false},
	} {
		q, err := kql.Parse(tt.query)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		if got := arbitraryTake(q); got != tt.want {
			t.Errorf("%s: arbitrary %v, want %v", tt.query, got, tt.want)
		}
	}
}
