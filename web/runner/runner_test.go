package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

const (
	joinQuery  = `@Users | join kind=inner (@Listens) on user_id | project name, song_id`
	usersJSONL = `{"user_id": 7, "name": "Mickey"}
{"user_id": 13, "name": "Minnie"}
{"user_id": 42, "name": "Pluto"}
{"user_id": 99, "name": "Daffy"}
`
	listensJSONL = `{"user_id": 42, "song_id": 100}
{"user_id": 7, "song_id": 200}
{"user_id": 13, "song_id": 100}
{"user_id": 42, "song_id": 300}
{"user_id": 7, "song_id": 100}
{"user_id": 13, "song_id": 200}
{"user_id": 42, "song_id": 400}
{"user_id": 99, "song_id": 500}
`
)

// wantJoin is the inner join of the users and listens above, as "name song_id", sorted.
var wantJoin = []string{
	"Daffy 500", "Mickey 100", "Mickey 200", "Minnie 100", "Minnie 200", "Pluto 100", "Pluto 300", "Pluto 400",
}

func joinInputs() map[string]Input {
	return map[string]Input{
		"Users":   {Format: "jsonl", Data: usersJSONL},
		"Listens": {Format: "jsonl", Data: listensJSONL},
	}
}

// pairs renders each row as "name song_id", sorted, so the test does not depend on the join's output order.
func pairs(t *testing.T, rows []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, raw := range rows {
		var row map[string]any
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.UseNumber()
		if err := d.Decode(&row); err != nil {
			t.Fatalf("row %s: %v", raw, err)
		}
		out = append(out, fmt.Sprintf("%v %v", row["name"], row["song_id"]))
	}
	slices.Sort(out)
	return out
}

func TestRunJoin(t *testing.T) {
	res := Run(context.Background(), joinQuery, joinInputs())
	if res.Error != "" {
		t.Fatalf("error: %s", res.Error)
	}
	if want := []string{"name", "song_id"}; !slices.Equal(res.Columns, want) {
		t.Errorf("columns %q, want %q", res.Columns, want)
	}
	if res.Total != int64(len(wantJoin)) || res.Truncated {
		t.Errorf("total %d truncated %v, want %d false", res.Total, res.Truncated, len(wantJoin))
	}
	if got := pairs(t, res.Rows); !slices.Equal(got, wantJoin) {
		t.Errorf("rows\n got %q\nwant %q", got, wantJoin)
	}
}

func TestRunCSV(t *testing.T) {
	inputs := joinInputs()
	inputs["Users"] = Input{Format: "csv", Data: "user_id,name\n7,Mickey\n13,Minnie\n42,Pluto\n99,Daffy\n"}
	res := Run(context.Background(), joinQuery, inputs)
	if res.Error != "" {
		t.Fatalf("error: %s", res.Error)
	}
	if got := pairs(t, res.Rows); !slices.Equal(got, wantJoin) {
		t.Errorf("rows\n got %q\nwant %q", got, wantJoin)
	}
}

func TestRunJSONRoundTrip(t *testing.T) {
	sources, err := json.Marshal(joinInputs())
	if err != nil {
		t.Fatal(err)
	}
	var res Result
	if err := json.Unmarshal([]byte(RunJSON(context.Background(), joinQuery, string(sources))), &res); err != nil {
		t.Fatal(err)
	}
	if res.Error != "" {
		t.Fatalf("error: %s", res.Error)
	}
	if got := pairs(t, res.Rows); !slices.Equal(got, wantJoin) {
		t.Errorf("rows\n got %q\nwant %q", got, wantJoin)
	}
}

func TestRunQueryErrorIsPositioned(t *testing.T) {
	res := Run(context.Background(), `@Users | where (`, joinInputs())
	if !strings.Contains(res.Error, "1:") || !strings.Contains(res.Error, "expected") {
		t.Errorf("error %q: want a position (1:…) and what was expected", res.Error)
	}
	if res.Columns != nil || res.Rows != nil {
		t.Errorf("an error result has columns %q and %d rows", res.Columns, len(res.Rows))
	}
}

// The tests below do not reach the engine's query code.

func TestRunJSONBadSources(t *testing.T) {
	var res Result
	if err := json.Unmarshal([]byte(RunJSON(context.Background(), joinQuery, `{"Users": [`)), &res); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Error, "sources: ") {
		t.Errorf("error %q, want one about the sources", res.Error)
	}
}

func TestRunUnknownFormat(t *testing.T) {
	res := Run(context.Background(), joinQuery, map[string]Input{"Users": {Format: "xml", Data: "<u/>"}})
	if want := `source Users: unknown format "xml"`; !strings.HasPrefix(res.Error, want) {
		t.Errorf("error %q, want it to start with %q", res.Error, want)
	}
}

func TestRowCollector(t *testing.T) {
	c := &rowCollector{max: 2}
	// Lines split across writes, a blank line and a last line with no newline.
	for _, chunk := range []string{`{"a":1}` + "\n" + `{"a"`, `:2}` + "\n\n", `{"a":3}` + "\n" + `{"a":4}`} {
		if n, err := c.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	if c.total != 4 {
		t.Errorf("total %d, want 4", c.total)
	}
	var got []string
	for _, r := range c.rows {
		got = append(got, string(r))
	}
	if want := []string{`{"a":1}`, `{"a":2}`}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	if _, err := (&rowCollector{max: 9}).Write([]byte("not json\n")); err == nil {
		t.Error("a line that is not JSON was accepted")
	}
}
