package kql

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestQueryLimits states the whole error for text past each limit, and that text just within it parses.
func TestQueryLimits(t *testing.T) {
	chain := func(terms int) string { return strings.Repeat("1+", terms-1) + "1" }
	inList := func(values int) string { return "x in (" + strings.TrimSuffix(strings.Repeat("1,", values), ",") + ")" }
	for _, tc := range []struct{ name, src, want string }{
		{"terms at the limit", "@A | where " + chain(maxExpressionTerms), ""},
		{"terms past the limit", "@A | where " + chain(maxExpressionTerms+1),
			fmt.Sprintf("1:12: expression has more than %d terms", maxExpressionTerms)},
		// The in-list's values are terms too; x is the first.
		{"in-list past the limit", "@A\n| where " + inList(maxExpressionTerms), fmt.Sprintf("2:9: expression has more than %d terms", maxExpressionTerms)},
		// Each expression has its own count: two just within the limit parse.
		{"two expressions", "@A | extend a = " + chain(maxExpressionTerms) + ", b = " + chain(maxExpressionTerms), ""},
		// The position names the expression in error, not the first one.
		{"second expression", "@A | extend a = 1, b = " + chain(maxExpressionTerms+1),
			fmt.Sprintf("1:24: expression has more than %d terms", maxExpressionTerms)},
		{"text at the limit", "@A | where x == 1" + strings.Repeat(" ", maxQueryBytes-len("@A | where x == 1")), ""},
		{"text past the limit", "@A\n| where x == 1" + strings.Repeat(" ", maxQueryBytes), fmt.Sprintf("2:%d: query text is longer than %d bytes", maxQueryBytes-2, maxQueryBytes)},
	} {
		_, err := Parse(tc.src)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestHugeExpressionFailsWithinBoundedMemory parses the two texts that used to take more than a gigabyte: a
// million-term expression (refused on its length) and a chain of terms that fills the length limit (refused at
// the term limit). Each must fail with its error having allocated little: the bound is on bytes allocated, which
// does not depend on the machine's speed or load.
func TestHugeExpressionFailsWithinBoundedMemory(t *testing.T) {
	const maxAlloc = 64 << 20 // well above what 100,000 terms need, far below what a million took
	var million strings.Builder
	million.WriteString("@A | where ")
	for i := range 1_000_000 {
		if i > 0 {
			million.WriteString(" or ")
		}
		fmt.Fprintf(&million, "x == %d", i)
	}
	full := "@A | where " + strings.Repeat("1+", (maxQueryBytes-len("@A | where "))/2-1) + "1"
	for _, tc := range []struct{ name, src, want string }{
		{"a million terms", million.String(), "query text is longer than"},
		{"a full-length chain", full, "1:12: expression has more than"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Parse(tc.src)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		n := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes of text, %d bytes allocated", tc.name, len(tc.src), n)
		if n > maxAlloc {
			t.Errorf("%s: parsing allocated %d bytes, want at most %d", tc.name, n, maxAlloc)
		}
	}
}
