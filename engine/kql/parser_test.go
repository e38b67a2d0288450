package kql

import (
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/parse.txt with the parser's current output")

const goldenFile = "testdata/parse.txt"

// goldenCase is one case of testdata/parse.txt; the file's header explains the format.
type goldenCase struct {
	comments []string // the '#' and blank lines before "query:", kept by -update
	query    string
	kind     string // "ast" or "error"
	want     string
	line     int // of the "query:" line, for failure messages
}

func readGolden(t *testing.T) []goldenCase {
	t.Helper()
	data, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	var (
		cases   []goldenCase
		cur     goldenCase
		section string // "", "query", or the kind of output being read
		body    []string
	)
	// finish ends the current section, storing its lines in cur.
	finish := func() {
		text := strings.TrimRight(strings.Join(body, "\n"), "\n")
		switch section {
		case "query":
			cur.query = text
		case "ast", "error":
			cur.kind, cur.want = section, text
		}
		body = nil
	}
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "----":
			finish()
			if section != "ast" && section != "error" {
				t.Fatalf("%s:%d: case has no ast: or error: section", goldenFile, i+1)
			}
			cases, cur, section = append(cases, cur), goldenCase{}, ""
		case section == "" && line == "query:":
			section, cur.line = "query", i+1
		case section == "" && (strings.HasPrefix(line, "#") || strings.TrimSpace(line) == ""):
			cur.comments = append(cur.comments, line)
		case section == "":
			t.Fatalf("%s:%d: want a comment or query:, found %q", goldenFile, i+1, line)
		case section == "query" && (line == "ast:" || line == "error:"):
			finish()
			section = strings.TrimSuffix(line, ":")
		default:
			body = append(body, line)
		}
	}
	finish()
	switch section {
	case "ast", "error":
		cases = append(cases, cur)
	case "query":
		t.Fatalf("%s:%d: case has no ast: or error: section", goldenFile, cur.line)
	}
	return cases
}

func writeGolden(t *testing.T, cases []goldenCase) {
	t.Helper()
	var b strings.Builder
	for i, c := range cases {
		if i > 0 {
			b.WriteString("----\n")
		}
		for _, line := range c.comments {
			b.WriteString(line + "\n")
		}
		b.WriteString("query:\n" + c.query + "\n" + c.kind + ":\n" + c.want + "\n")
	}
	if err := os.WriteFile(goldenFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// parseResult is what a golden case records for src: Format's output, or the error text.
func parseResult(t *testing.T, src string) (kind, text string) {
	q, err := Parse(src)
	if err == nil {
		return "ast", Format(q)
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Errorf("Parse(%q) returned %T %v, want a non-empty ErrorList", src, err, err)
	}
	if q != nil {
		t.Errorf("Parse(%q) returned a query along with its error", src)
	}
	return "error", err.Error()
}

func TestParseGolden(t *testing.T) {
	cases := readGolden(t)
	if len(cases) == 0 {
		t.Fatalf("%s holds no cases", goldenFile)
	}
	for i := range cases {
		c := &cases[i]
		kind, got := parseResult(t, c.query)
		if *update {
			c.kind, c.want = kind, got
			continue
		}
		if kind != c.kind || got != c.want {
			t.Errorf("%s:%d: query\n%s\ngot %s:\n%s\nwant %s:\n%s", goldenFile, c.line, c.query, kind, got, c.kind, c.want)
		}
	}
	if *update {
		writeGolden(t, cases)
	}
}

// TestParseNesting checks that hostile nesting is an error, not a stack overflow, while ordinary depth parses.
func TestParseNesting(t *testing.T) {
	for _, tc := range []struct {
		src     string
		wantErr bool
	}{
		{"@A | where " + strings.Repeat("(", 100) + "a" + strings.Repeat(")", 100), false},
		{"@A | where " + strings.Repeat("(", 100000) + "a", true},
		{"@A | where " + strings.Repeat("-", 100000) + "a", true},
		{"@A" + strings.Repeat(" | join (@B", 10000), true}, // within maxQueryBytes, far past maxNesting
	} {
		_, err := Parse(tc.src)
		if gotErr := err != nil; gotErr != tc.wantErr {
			t.Errorf("Parse(%.40q…): error %v, want error %v", tc.src, err, tc.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), "nested too deeply") {
			t.Errorf("Parse(%.40q…): error %v, want nested too deeply", tc.src, err)
		}
	}
}

// TestParseLineEnds covers what the golden file cannot hold reliably: CRLF line ends, and a query that ends
// without a newline, with one, or inside a comment.
func TestParseLineEnds(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"@A\r\n| take 1\r\n", "(query@1:1 @A\n  (take@2:3 1))"},
		{"@A\n| take 1\n", "(query@1:1 @A\n  (take@2:3 1))"},
		{"@A | take 1 // no newline after this comment", "(query@1:1 @A\n  (take@1:6 1))"},
		{`@A | where x == "a\\"` + "\r\n", `(query@1:1 @A` + "\n" + `  (where@1:6 (==@1:14 (ident@1:12 x) (string@1:17 "a\\"))))`},
	} {
		q, err := Parse(tc.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		if got := Format(q); got != tc.want {
			t.Errorf("Parse(%q) = %s, want %s", tc.src, got, tc.want)
		}
	}
	for _, tc := range []struct{ src, want string }{
		{"@A\r\n| where\r\n", "3:1: expected expression, found end of query"},
		{"@A | where x == \"a\\\n\"", "1:17: string literal not terminated"},
	} {
		if _, err := Parse(tc.src); err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q): error %v, want %s", tc.src, err, tc.want)
		}
	}
}

func TestFormatNil(t *testing.T) {
	if got := Format(nil); got != "<nil>" {
		t.Errorf("Format(nil) = %q", got)
	}
	q := &Query{Pos: Pos{1, 1}, Source: "A", Ops: []Op{nil, &Where{Pos: Pos{1, 2}}}}
	if got, want := Format(q), "(query@1:1 @A\n  (<nil>)\n  (where@1:2 <nil>))"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
}
