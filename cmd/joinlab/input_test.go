package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// writeFile writes data to a file named name in a temporary folder and returns its path.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBadInputExitsWithItsLine runs the inputs that used to be read wrongly with exit 0, in both formats, and
// checks the whole message.
func TestBadInputExitsWithItsLine(t *testing.T) {
	for _, tc := range []struct{ file, data, want string }{
		{"users.jsonl", "{\"a\":1}\n{\"a\":2}\n{\"a\":1e400}\n", "line 3: number 1e400 is out of range"},
		{"users.csv", "a\n1\n2\n1e400\n", "line 4: number 1e400 is out of range"},
		{"blank.csv", "\nid,name\n1,Alice\n", "line 1: empty header: the first line must name the columns"},
	} {
		path := writeFile(t, tc.file, tc.data)
		code, out, errOut := runCmd(t, "", "query", "--source", "T="+path, "@T")
		want := fmt.Sprintf("joinlab: source T: %s: %s\n", path, tc.want)
		if code != 2 || out != "" || errOut != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2, no rows, stderr %q", tc.file, code, out, errOut, want)
		}
	}
}

// TestJSONAndCSVReadAlike queries one table written in both formats: empty values, NaN and Infinity give the
// same rows, and the same answers to isnull and isempty.
func TestJSONAndCSVReadAlike(t *testing.T) {
	js := writeFile(t, "t.jsonl", `{"id":1,"r":"NaN","s":"","l":5}
{"id":2,"r":1.5,"s":"x","l":""}
{"id":3,"r":"-Infinity","s":"y","l":null}
`)
	cs := writeFile(t, "t.csv", "id,r,s,l\n1,NaN,,5\n2,1.5,x,\n3,-Infinity,y,\n")
	const query = "@T | extend sn = isnull(s), se = isempty(s), ln = isnull(l) | sort by id asc"
	want := `{"id":1,"r":"NaN","s":"","l":5,"sn":false,"se":true,"ln":false}
{"id":2,"r":1.5,"s":"x","l":null,"sn":false,"se":false,"ln":true}
{"id":3,"r":"-Infinity","s":"y","l":null,"sn":false,"se":false,"ln":true}
`
	for _, path := range []string{js, cs} {
		code, out, errOut := runCmd(t, "", "query", "--source", "T="+path, query)
		if code != 0 || out != want {
			t.Errorf("%s: exit %d, stderr %s\ngot:\n%s\nwant:\n%s", filepath.Base(path), code, errOut, out, want)
		}
	}
}

// TestTableAndCSVOutputHoldNoRawControls prints data holding ESC, CR, BEL and a newline.
func TestTableAndCSVOutputHoldNoRawControls(t *testing.T) {
	path := writeFile(t, "c.jsonl", `{"v":"a\u001b[2Jb\rc\u0007d\ne"}`+"\n")
	for format, want := range map[string]string{
		"table": "v\n--------------------\na\\x1b[2Jb\\rc\\x07d\\ne\n(1 rows)\n",
		"csv":   "v\n\"a\\x1b[2Jb\rc\\x07d\ne\"\n",
		"jsonl": `{"v":"a\u001b[2Jb\rc\u0007d\ne"}` + "\n",
	} {
		code, out, errOut := runCmd(t, "", "query", "--source", "T="+path, "--format", format, "@T")
		if code != 0 || out != want {
			t.Errorf("--format %s: exit %d, stderr %s\ngot  %q\nwant %q", format, code, errOut, out, want)
		}
	}
}

// TestHugeQueryFailsFast runs a million-term expression: it must fail on the query-size limit, before parsing.
func TestHugeQueryFailsFast(t *testing.T) {
	var b strings.Builder
	b.WriteString("@users | where ")
	for i := range 1_000_000 {
		if i > 0 {
			b.WriteString(" or ")
		}
		fmt.Fprintf(&b, "id == %d", i)
	}
	path := writeFile(t, "huge.kql", b.String())
	code, _, errOut := runCmd(t, "", "query", users, "-f", path)
	first, _, _ := strings.Cut(errOut, "\n")
	if want := "joinlab: query:1:1048577: query text is longer than 1048576 bytes"; code != 2 || first != want {
		t.Errorf("exit %d, first line %.200q; want exit 2, %q", code, first, want)
	}
	// The echo of the line is clipped around the column: a 15 MB query line is not printed back whole.
	if limit := 4 * echoContext; len(errOut)-len(first) > limit {
		t.Errorf("the error echoes %d bytes of the query; want at most %d", len(errOut)-len(first), limit)
	}
}

// TestDeepNestingFailsCleanly nests parentheses, signs and calls far past the parser's bound: each is a
// positioned error at the level past it, never a stack overflow.
func TestDeepNestingFailsCleanly(t *testing.T) {
	const deep = 100_000
	for _, tc := range []struct{ query, want string }{
		{"@users | where " + strings.Repeat("(", deep) + "id" + strings.Repeat(")", deep), "joinlab: query:1:515: query nested too deeply"},
		{"@users | where id == " + strings.Repeat("-", deep) + "1", "joinlab: query:1:520: query nested too deeply"},
		{"@users | where " + strings.Repeat("abs(", deep) + "id" + strings.Repeat(")", deep), "joinlab: query:1:2012: query nested too deeply"},
	} {
		code, _, errOut := runCmd(t, "", "query", users, tc.query)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != 2 || first != tc.want {
			t.Errorf("%.30q…: exit %d, first line %q; want exit 2, %q", tc.query, code, first, tc.want)
		}
	}
}

// doubledPrefix returns a "where" prefix of msg that appears again later in it ("x: x: …" or "x: x needs …"),
// or "".
func doubledPrefix(msg string) string {
	segs := strings.Split(strings.TrimSpace(msg), ": ")
	for i, s := range segs[:len(segs)-1] {
		for _, later := range segs[i+1:] {
			if later == s || strings.HasPrefix(later, s+" ") {
				return s
			}
		}
	}
	return ""
}

// TestErrorsNameEachPlaceOnce runs failing commands of every kind (bad files, bad queries, memory limits on each
// operator and join strategy but Grace, whose messages another change owns) and checks that no prefix repeats.
func TestErrorsNameEachPlaceOnce(t *testing.T) {
	bad := writeFile(t, "bad.jsonl", "{\"a\":1}\nnope\n")
	for _, args := range [][]string{
		{"query", "--source", "T=" + bad, "@T"},
		{"query", "--source", "T=testdata/nosuch.jsonl", "@T"},
		{"query", "--source", "T=testdata/query.kql", "@T"},
		{"query", "--source", "T=testdata/badfields.csv", "@T"},
		{"query", users, "@users | where nosuch > 1"},
		{"query", users, "@users | where (id == 1"},
		{"query", users, "--mem", "10", "@users | sort by id"},
		{"query", users, "--mem", "10", "@users | summarize count() by name"},
		{"query", users, "--mem", "10", "@users | distinct name"},
		{"query", users, "--mem", "50", "@users | make-intervals joined by name"},
		{"query", users, orders, "--mem", "100", "@orders | join kind=leftouter hint.strategy=hash (@users) on $left.user == $right.id"},
		{"query", users, orders, "--mem", "100", "@orders | join kind=inner hint.strategy=nestedloop (@users) on $left.user == $right.id"},
		{"query", users, orders, "--mem", "300", "@orders | join kind=inner hint.strategy=salted (@users) on $left.user == $right.id"},
		{"query", users, "--profile", "users=nosuch", "@users"},
	} {
		code, _, errOut := runCmd(t, "", args...)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != 2 {
			t.Errorf("%q: exit %d, want 2; stderr %s", args, code, errOut)
		}
		if p := doubledPrefix(first); p != "" {
			t.Errorf("%q: %q is repeated in %q", args, p, first)
		}
	}
}

// TestClipAround checks the error echo's window: cut at rune boundaries, marked where cut, the caret's offset
// counted in runes.
func TestClipAround(t *testing.T) {
	long := strings.Repeat("é", 100) + "X" + strings.Repeat("b", 100)
	col := strings.IndexByte(long, 'X')
	got, caret := clipAround(long, col)
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("clipAround = %q; want a valid excerpt marked … at both ends", got)
	}
	if r := []rune(got); caret >= len(r) || r[caret] != 'X' {
		t.Errorf("caret %d does not point at X in %q", caret, got)
	}
	if got, caret := clipAround("@T | where", 4); got != "@T | where" || caret != 4 {
		t.Errorf("a short line: %q, %d; want it whole, 4", got, caret)
	}
}
