package source

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"
)

// TestCSVRecordsMatchEncodingCSV reads generated CSV (quoted commas, quotes and newlines, CRLF, blank lines,
// and now and then a bare quote or a record with a field too many or too few) with csvRecords and with
// encoding/csv, and checks that both give the same records up to the first error, and the same error line.
func TestCSVRecordsMatchEncodingCSV(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	fieldTexts := []string{"", "a", "12", "-3.5", "x y", `"q,1"`, `"say ""hi"""`, "\"two\nlines\"", "\"cr\r\nlf\"", `""`, "a\"b", " sp "}
	for i := 0; i < 3000; i++ {
		const fields = 3
		var b strings.Builder
		for r := rng.Intn(8); r > 0; r-- {
			n := fields
			if rng.Intn(40) == 0 {
				n += rng.Intn(3) - 1
			}
			var fs []string
			for range n {
				f := fieldTexts[rng.Intn(len(fieldTexts))]
				if f == "a\"b" && rng.Intn(4) != 0 {
					f = "ab" // a bare quote only now and then
				}
				fs = append(fs, f)
			}
			b.WriteString(strings.Join(fs, ","))
			switch rng.Intn(6) {
			case 0:
				b.WriteString("\r\n")
			case 1:
				b.WriteString("\n\n")
			default:
				b.WriteString("\n")
			}
		}
		data := []byte(b.String())
		if rng.Intn(5) == 0 && len(data) > 0 {
			data = data[:len(data)-1] // no newline after the last record
		}
		want, wantErr := readAll(csvReader(data, fields))
		got, gotErr := readAll(newCSVRecords(data, 1, fields))
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) || errLine(gotErr) != errLine(wantErr) {
			t.Fatalf("%q:\n got %q, %v\nwant %q, %v", data, got, gotErr, want, wantErr)
		}
	}
}

type recordReader interface{ Read() ([]string, error) }

func csvReader(data []byte, fields int) *csv.Reader {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = fields
	return r
}

func readAll(r recordReader) ([][]string, error) {
	var out [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

func errLine(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d: %v", pe.Line, pe.Err)
	}
	return fmt.Sprint(err)
}
