package plan

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/source"
)

var update = flag.Bool("update", false, "rewrite testdata/explain.txt with the plans the planner makes now")

// explainSources are the tables the golden plans run against.
func explainSources(t *testing.T) map[string]source.Source {
	t.Helper()
	users, err := source.FromJSONL("Users", []byte(`{"user_id":7,"name":"Mickey","profile":{"country":"US"}}
{"user_id":13,"name":"Minnie","profile":{"country":"FR"}}
{"user_id":42,"name":"Pluto","profile":{"country":"US"}}
{"user_id":99,"name":"Daffy","profile":{"country":"DE"}}
`))
	if err != nil {
		t.Fatal(err)
	}
	listens, err := source.FromCSV("Listens", []byte("user_id,song_id,ts\n42,100,2024-01-01T00:00:00Z\n7,200,2024-01-01T00:01:00Z\n13,100,2024-01-01T00:02:00Z\n42,300,2024-01-01T00:03:00Z\n7,100,2024-01-01T00:04:00Z\n13,200,2024-01-01T00:05:00Z\n42,400,2024-01-01T00:06:00Z\n99,500,2024-01-01T00:07:00Z\n"))
	if err != nil {
		t.Fatal(err)
	}
	empty, err := source.FromJSONL("Empty", nil)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]source.Source{"Users": users, "Listens": listens, "Empty": empty}
}

// TestExplainGolden checks explain's output for the queries in testdata/explain.txt. The file's format is
// described in its header; `go test ./engine/plan -update` rewrites the expected plans, and the diff is
// reviewed like code.
func TestExplainGolden(t *testing.T) {
	path := filepath.Join("testdata", "explain.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	header, cases := parseGolden(string(data))
	srcs := explainSources(t)
	var out strings.Builder
	out.WriteString(header)
	for _, c := range cases {
		q, err := kql.Parse(c.query)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		got := ""
		if p, err := Build(context.Background(), q, srcs, Options{}); err != nil {
			got = "error: " + err.Error() + "\n"
		} else {
			got = p.Explain()
		}
		if !*update && got != c.want {
			t.Errorf("query: %s\ngot:\n%s\nwant:\n%s", c.query, got, c.want)
		}
		out.WriteString("query: " + c.query + "\n" + got + "----\n")
	}
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type goldenCase struct{ query, want string }

// parseGolden splits the file into its header (lines before the first "query:") and its cases: a
// "query: …" line, the expected explain output, and a "----" line.
func parseGolden(s string) (string, []goldenCase) {
	var header strings.Builder
	var cases []goldenCase
	var cur *goldenCase
	for _, line := range strings.SplitAfter(s, "\n") {
		switch {
		case strings.HasPrefix(line, "query: "):
			cases = append(cases, goldenCase{query: strings.TrimSuffix(strings.TrimPrefix(line, "query: "), "\n")})
			cur = &cases[len(cases)-1]
		case cur == nil:
			header.WriteString(line)
		case strings.TrimSpace(line) == "----":
			cur = nil
		default:
			cur.want += line
		}
	}
	return header.String(), cases
}

func TestUnknownStrategyIsPositionedError(t *testing.T) {
	q, err := kql.Parse("@Users | join hint.strategy=quantum (@Listens) on user_id")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(context.Background(), q, explainSources(t), Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "1:15: unknown join strategy \"quantum\" (available: ") {
		t.Fatalf("got %v", err)
	}
}
