package source

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
)

// open writes data to a file named file in a temporary folder and opens it as source T, as the command line does.
func open(t *testing.T, file, data string) (Source, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	src, err := Open("T", path)
	if err != nil {
		// Strip the folder, which changes per run, so that cases can state the whole message.
		return nil, errString(strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), ""))
	}
	return src, nil
}

type errString string

func (e errString) Error() string { return string(e) }

// TestBadInputErrors states each bad input's whole message, once for JSON lines and once for CSV where both can
// hold it: the source named once, the file once, then the line.
func TestBadInputErrors(t *testing.T) {
	cases := []struct{ file, data, want string }{
		{"users.jsonl", "{\"a\":1}\n{\"a\":2}\n{\"a\":1e400}\n", "source T: users.jsonl: line 3: number 1e400 is out of range"},
		{"users.csv", "a\n1\n2\n1e400\n", "source T: users.csv: line 4: number 1e400 is out of range"},
		{"neg.jsonl", "{\"a\":-1E+309}\n", "source T: neg.jsonl: line 1: number -1E+309 is out of range"},
		{"neg.csv", "a,b\n1,-1E+309\n", "source T: neg.csv: line 2: number -1E+309 is out of range"},
		{"frac.jsonl", "{\"a\":0.5e309}\n", "source T: frac.jsonl: line 1: number 0.5e309 is out of range"},
		{"frac.csv", "a\n0.5e309\n", "source T: frac.csv: line 2: number 0.5e309 is out of range"},
		// A number inside a string is text, whatever it says; an escaped quote does not end the string.
		{"str.jsonl", "{\"a\":\"x\\\" 1e400\",\"b\":1e999}\n", "source T: str.jsonl: line 1: number 1e999 is out of range"},
		// Nested values are checked when the file is opened too, though their paths are typed only when a query
		// names them.
		{"nested.jsonl", "{\"a\":{\"b\":[1,{\"c\":2e999}]}}\n", "source T: nested.jsonl: line 1: number 2e999 is out of range"},
		// 400 digits without an exponent overflow as well; the message cuts the number.
		{"digits.jsonl", "{\"a\":" + strings.Repeat("9", 400) + "}\n", "source T: digits.jsonl: line 1: number " + strings.Repeat("9", 32) + "... is out of range"},
		{"digits.csv", "a\n" + strings.Repeat("9", 400) + "\n", "source T: digits.csv: line 2: number " + strings.Repeat("9", 32) + "... is out of range"},
		{"blank.csv", "\na,b\n1,2\n", "source T: blank.csv: line 1: empty header: the first line must name the columns"},
		{"blankcrlf.csv", "\r\na,b\r\n1,2\r\n", "source T: blankcrlf.csv: line 1: empty header: the first line must name the columns"},
		{"empty.csv", "", "source T: empty.csv: empty CSV: expected a header line"},
		{"bad.jsonl", "{\"a\":1}\nnope\n", "source T: bad.jsonl: line 2: malformed JSON"},
		{"array.jsonl", "[1]\n", "source T: array.jsonl: line 1: expected a JSON object, found an array"},
		{"fields.csv", "a,b\n1,2\n3\n", "source T: fields.csv: line 3: wrong number of fields"},
		{"dup.csv", "a,a\n1,2\n", "source T: dup.csv: line 1: duplicate column \"a\""},
		{"missing.txt", "", "source T: missing.txt: unknown file type (want .jsonl, .ndjson, .json or .csv)"},
	}
	for _, c := range cases {
		_, err := open(t, c.file, c.data)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v\nwant %s", c.file, err, c.want)
		}
	}
}

// TestInRangeNumbersRead checks the numbers next to the limit: the largest real, a tiny one that rounds to zero,
// and an integer past the long range, which makes its column real in both formats.
func TestInRangeNumbersRead(t *testing.T) {
	for _, c := range []struct{ file, data string }{
		{"n.jsonl", "{\"a\":1.7976931348623157e308}\n{\"a\":1e-400}\n{\"a\":99999999999999999999}\n"},
		{"n.csv", "a\n1.7976931348623157e308\n1e-400\n99999999999999999999\n"},
	} {
		src, err := open(t, c.file, c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		v := scanAll(t, src)[0]
		if v.Type != column.Real {
			t.Fatalf("%s: column type %v, want real", c.file, v.Type)
		}
		want := []float64{math.MaxFloat64, 0, 1e20}
		for i, w := range want {
			if v.IsNull(i) || v.Reals[i] != w {
				t.Errorf("%s: row %d = %v, want %v", c.file, i, v.Value(i), w)
			}
		}
	}
}

// scanAll reads every column of src whole.
func scanAll(t *testing.T, src Source) []*column.Vector {
	t.Helper()
	schema := src.Schema(nil)
	out := make([]*column.Vector, len(schema))
	for i, f := range schema {
		out[i] = column.NewVector(f.Type, 0)
	}
	it := src.Scan(context.Background(), schema)
	for {
		b, err := it.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return out
		}
		for i := range schema {
			for r := 0; r < b.N; r++ {
				out[i].AppendValue(b.Cols[i].Value(r))
			}
		}
	}
}

// TestEmptyAndSpecialValuesAgree reads one table written as JSON lines and as CSV and checks that both give the
// same types and values: NaN and Infinity as reals, an empty value as null except in a string column (the empty
// string), and hexadecimal or lower-case "nan" as strings.
func TestEmptyAndSpecialValuesAgree(t *testing.T) {
	jsonl := `{"id":1,"r":"NaN","s":"","l":5,"d":"2024-05-01T12:00:00Z","h":"nan","b":true,"e":""}
{"id":2,"r":1.5,"s":"x","l":"","d":"","h":"0x10","b":"","e":""}
{"id":3,"r":"-Infinity","s":"y","l":7,"d":"2024-05-02T12:00:00Z","h":"inf","b":false,"e":""}
{"id":4,"r":"Infinity","s":"","l":8,"d":"","h":"z","b":true,"e":""}
`
	csv := "id,r,s,l,d,h,b,e\n" +
		"1,NaN,,5,2024-05-01T12:00:00Z,nan,true,\n" +
		"2,1.5,x,,,0x10,,\n" +
		"3,-Infinity,y,7,2024-05-02T12:00:00Z,inf,false,\n" +
		"4,Infinity,,8,,z,true,\n"
	// e holds only empty values: nothing fixes its type, and every value is null.
	wantTypes := []column.Type{column.Long, column.Real, column.String, column.Long, column.DateTime, column.String, column.Bool, column.Dynamic}
	var got [2][]*column.Vector
	for i, f := range []struct{ file, data string }{{"t.jsonl", jsonl}, {"t.csv", csv}} {
		src, err := open(t, f.file, f.data)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = scanAll(t, src)
		for c, w := range wantTypes {
			if got[i][c].Type != w {
				t.Errorf("%s: column %d type %v, want %v", f.file, c, got[i][c].Type, w)
			}
		}
	}
	r := got[0][1]
	if !math.IsNaN(r.Reals[0]) || r.Reals[1] != 1.5 || !math.IsInf(r.Reals[2], -1) || !math.IsInf(r.Reals[3], 1) {
		t.Errorf("r = %v, want NaN, 1.5, -Inf, +Inf", r.Reals)
	}
	if s := got[0][2]; s.IsNull(0) || s.Strs[0] != "" || s.IsNull(3) {
		t.Errorf("s: the empty string must be a value, not null: %v", s.Strs)
	}
	for _, c := range []int{3, 4, 6, 7} { // long, datetime, bool, dynamic: the empty value is null
		if !got[0][c].IsNull(1) {
			t.Errorf("column %d row 2: empty value %v, want null", c, got[0][c].Value(1))
		}
	}
	if h := got[0][5]; h.Strs[0] != "nan" || h.Strs[1] != "0x10" || h.Strs[2] != "inf" {
		t.Errorf("h = %q: want the words as written", h.Strs)
	}
	for c := range wantTypes {
		for row := 0; row < 4; row++ {
			a, b := got[0][c], got[1][c]
			same := a.IsNull(row) == b.IsNull(row) && (a.IsNull(row) || a.Value(row).Equal(b.Value(row)))
			if !same {
				t.Errorf("column %d row %d: JSON %v, CSV %v", c, row+1, a.Value(row), b.Value(row))
			}
		}
	}
}

// BenchmarkFromJSONL opens 10,000 lines shaped like the Okta logs, nested objects and numbers included, to
// show what validation (gjson's, and the range check of every number) costs per line.
func BenchmarkFromJSONL(b *testing.B) {
	var data strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&data, `{"uuid":"u-%d","published":"2024-05-01T12:00:%02dZ","eventType":"user.session.start",`+
			`"actor":{"alternateId":"user%d@corp","id":%d},"client":{"ip":"10.0.%d.%d","geo":{"lat":%d.25e-1,"lon":-%d.5}},`+
			`"outcome":{"result":"SUCCESS"},"severity":%d}`+"\n", i, i%60, i%997, i, i%256, i%200, i%90, i%180, i%100)
	}
	raw := []byte(data.String())
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := FromJSONL("T", raw); err != nil {
			b.Fatal(err)
		}
	}
}
