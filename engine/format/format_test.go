package format

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
)

// hostile holds one value per kind of control character a terminal would obey, and plain text.
var hostile = []string{
	"red\x1b[31mtext",
	"over\rwrite",
	"bell\a",
	"two\nlines",
	"tab\there",
	"del\x7f",
	"csi\u009b2J",
	"bad\xffbyte",
	"plain café",
	"",
}

// write formats the hostile values in one string column named "v\x1b" (names come from the data too), with a
// long column beside it.
func write(t *testing.T, format string) string {
	t.Helper()
	schema := column.Schema{{Name: "n", Type: column.Long}, {Name: "v\x1b", Type: column.String}}
	n, v := column.NewVector(column.Long, 0), column.NewVector(column.String, 0)
	for i, s := range hostile {
		n.AppendInt(int64(i))
		v.AppendString(s)
	}
	var buf bytes.Buffer
	w, err := New(&buf, format, schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(column.NewBatch([]*column.Vector{n, v}, len(hostile))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// rawControls reports the control bytes in s other than those allowed.
func rawControls(s, allowed string) []byte {
	var found []byte
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c == 0x7f) && !strings.ContainsRune(allowed, rune(c)) {
			found = append(found, c)
		}
	}
	if strings.Contains(s, "\u009b") || strings.Contains(s, "\xff") {
		found = append(found, 0x9b)
	}
	return found
}

func TestTableEscapesEveryControl(t *testing.T) {
	got := write(t, "table")
	want := "" +
		"n  v\\x1b\n" +
		"-  ---------------\n" +
		"0  red\\x1b[31mtext\n" +
		"1  over\\rwrite\n" +
		"2  bell\\x07\n" +
		"3  two\\nlines\n" +
		"4  tab\\there\n" +
		"5  del\\x7f\n" +
		"6  csi\\u009b2J\n" +
		"7  bad\\xffbyte\n" +
		"8  plain café\n" +
		"9  \n" +
		"(10 rows)\n"
	if got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
	if c := rawControls(got, "\n"); len(c) > 0 {
		t.Errorf("table holds raw controls %q", c)
	}
}

// TestCSVQuotesLineEndsAndEscapesTheRest checks the exact text, and that a CSV reader takes tab, CR and LF back
// as the data they were.
func TestCSVQuotesLineEndsAndEscapesTheRest(t *testing.T) {
	got := write(t, "csv")
	want := "" +
		"n,v\\x1b\n" +
		"0,red\\x1b[31mtext\n" +
		"1,\"over\rwrite\"\n" +
		"2,bell\\x07\n" +
		"3,\"two\nlines\"\n" +
		"4,tab\there\n" +
		"5,del\\x7f\n" +
		"6,csi\\u009b2J\n" +
		"7,bad\\xffbyte\n" +
		"8,plain café\n" +
		"9,\n"
	if got != want {
		t.Errorf("csv:\n%q\nwant:\n%q", got, want)
	}
	if c := rawControls(got, "\t\r\n"); len(c) > 0 {
		t.Errorf("csv holds raw controls %q", c)
	}
	recs, err := csv.NewReader(strings.NewReader(got)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// encoding/csv reads a quoted CR LF as LF, but a lone CR inside quotes as itself.
	for i, s := range map[int]string{2: "over\rwrite", 4: "two\nlines", 5: "tab\there"} {
		if recs[i][1] != s {
			t.Errorf("record %d read back as %q, want %q", i, recs[i][1], s)
		}
	}
}

// TestJSONEscapesEveryControl checks that JSON lines hold no raw control (encoding/json escapes C0; DEL and C1
// are escaped here) and read back to the values written.
func TestJSONEscapesEveryControl(t *testing.T) {
	got := write(t, "jsonl")
	if c := rawControls(strings.ReplaceAll(got, "\ufffd", ""), "\n"); len(c) > 0 {
		t.Errorf("jsonl holds raw controls %q:\n%s", c, got)
	}
	for _, esc := range []string{`\u001b`, `\r`, `\u0007`, `\n`, `\t`, `\u007f`, `\u009b`} {
		if !strings.Contains(got, esc) {
			t.Errorf("jsonl lacks %s:\n%s", esc, got)
		}
	}
	for i, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		want := strings.ToValidUTF8(hostile[i], "\ufffd") // encoding/json writes a bad byte as U+FFFD
		if row["v\x1b"] != want {
			t.Errorf("line %d read back as %q, want %q", i+1, row["v\x1b"], want)
		}
	}
}
