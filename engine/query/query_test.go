package query_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/format"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/source"
)

var update = flag.Bool("update", false, "rewrite the want: sections of testdata/queries.txt from the engine's output")

// loadSources reads every fixture in testdata through the real parsers: a file users.jsonl is the source @users.
func loadSources(t *testing.T) map[string]source.Source {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]source.Source{}
	for _, path := range files {
		ext := filepath.Ext(path)
		name := strings.TrimSuffix(filepath.Base(path), ext)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch ext {
		case ".jsonl":
			s, err := source.FromJSONL(name, data)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			sources[name] = s
		case ".csv":
			s, err := source.FromCSV(name, data)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			sources[name] = s
		}
	}
	return sources
}

// queryCase is one case of testdata/queries.txt.
type queryCase struct {
	line     int      // line of "query:" in the file
	comments []string // lines before "query:"
	query    string
	columns  string   // optional expected column names, comma-separated
	want     []string // expected rows as JSON lines
	err      string   // expected error substring; "" when rows are expected
	isErr    bool
}

func parseCases(t *testing.T, text string) []*queryCase {
	t.Helper()
	var cases []*queryCase
	c := &queryCase{}
	section := ""
	for i, line := range strings.Split(text, "\n") {
		switch {
		case line == "----":
			if section == "" {
				t.Fatalf("queries.txt:%d: case without query:", i+1)
			}
			cases = append(cases, c)
			c, section = &queryCase{}, ""
		case section == "" && (strings.HasPrefix(line, "#") || strings.TrimSpace(line) == ""):
			c.comments = append(c.comments, line)
		case line == "query:":
			c.line, section = i+1, "query"
		case section == "query" && strings.HasPrefix(line, "columns:"):
			c.columns = strings.TrimSpace(strings.TrimPrefix(line, "columns:"))
		case section == "query" && line == "want:":
			section = "want"
		case section == "query" && strings.HasPrefix(line, "error:"):
			c.isErr, c.err, section = true, strings.TrimSpace(strings.TrimPrefix(line, "error:")), "error"
		case section == "query":
			if c.query != "" {
				c.query += "\n"
			}
			c.query += line
		case section == "want":
			if strings.TrimSpace(line) != "" {
				c.want = append(c.want, line)
			}
		case section == "error":
			t.Fatalf("queries.txt:%d: unexpected line after error:", i+1)
		default:
			t.Fatalf("queries.txt:%d: unexpected line %q", i+1, line)
		}
	}
	if section != "" {
		cases = append(cases, c)
	}
	return cases
}

// run executes one query and returns its column names and rows as JSON lines, or the error.
func run(text string, sources map[string]source.Source) (cols []string, rows []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PANIC: %v", r)
		}
	}()
	p, err := query.Prepare(context.Background(), text, sources, query.Options{})
	if err != nil {
		return nil, nil, err
	}
	for _, f := range p.Columns() {
		cols = append(cols, f.Name)
	}
	var buf bytes.Buffer
	w, err := format.New(&buf, "jsonl", p.Columns())
	if err != nil {
		return nil, nil, err
	}
	if _, err := p.Run(context.Background(), func(b *column.Batch) error { return w.Write(b) }); err != nil {
		return cols, nil, err
	}
	if err := w.Close(); err != nil {
		return cols, nil, err
	}
	for _, l := range strings.Split(buf.String(), "\n") {
		if l != "" {
			rows = append(rows, l)
		}
	}
	return cols, rows, nil
}

// canonical rewrites one JSON value with every number in one form, so that 2, 2.0 and 2e0 compare equal but
// a string "2" does not. Nested objects come out with sorted keys; a row's own keys keep their order
// (canonicalRow).
func canonical(raw string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("%q: %v", raw, err)
	}
	var norm func(any) any
	norm = func(v any) any {
		switch v := v.(type) {
		case json.Number:
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil {
				return string(v)
			}
			return f
		case []any:
			for i := range v {
				v[i] = norm(v[i])
			}
		case map[string]any:
			for k := range v {
				v[k] = norm(v[k])
			}
		}
		return v
	}
	b, err := json.Marshal(norm(v))
	return string(b), err
}

// canonicalRow decodes a row object into its ordered keys and canonical values.
func canonicalRow(line string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return "", fmt.Errorf("%q: not a JSON object", line)
	}
	var parts []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return "", fmt.Errorf("%q: %v", line, err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return "", fmt.Errorf("%q: %v", line, err)
		}
		v, err := canonical(string(raw))
		if err != nil {
			return "", err
		}
		kq, _ := json.Marshal(k)
		parts = append(parts, string(kq)+":"+v)
	}
	if _, err := dec.Token(); err != nil {
		return "", fmt.Errorf("%q: %v", line, err)
	}
	if dec.More() {
		return "", fmt.Errorf("%q: trailing data", line)
	}
	return "{" + strings.Join(parts, ",") + "}", nil
}

var (
	sortOp    = regexp.MustCompile(`^\s*(sort|order|top)\b`)
	reorderOp = regexp.MustCompile(`^\s*(summarize|join|distinct)\b`)
)

// ordered reports whether a query's output order is defined: its outer pipeline sorts (sort, order or top)
// after the last operator that makes order unspecified (summarize, join, distinct).
func ordered(text string) bool {
	var ops []string
	depth, start := 0, 0
	inStr := byte(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inStr != 0:
			if c == '\\' {
				i++
			} else if c == inStr {
				inStr = 0
			}
		case c == '"' || c == '\'':
			inStr = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			ops = append(ops, text[start:i])
			start = i + 1
		}
	}
	ops = append(ops, text[start:])
	isOrdered := false
	for _, op := range ops {
		switch {
		case sortOp.MatchString(op):
			isOrdered = true
		case reorderOp.MatchString(op):
			isOrdered = false
		}
	}
	return isOrdered
}

var positioned = regexp.MustCompile(`^\d+:\d+: `)

func TestQueries(t *testing.T) {
	sources := loadSources(t)
	const file = "testdata/queries.txt"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cases := parseCases(t, string(data))
	if len(cases) < 80 {
		t.Errorf("only %d cases in %s", len(cases), file)
	}
	for _, c := range cases {
		name := fmt.Sprintf("line%d", c.line)
		t.Run(name, func(t *testing.T) {
			cols, rows, err := run(c.query, sources)
			if *update {
				if err != nil {
					c.isErr, c.err, c.want = true, err.Error(), nil
				} else {
					c.isErr, c.err, c.want = false, "", rows
				}
				return
			}
			if c.isErr {
				if err == nil {
					t.Fatalf("%s:%d: %s\nwant error containing %q, got rows:\n%s", file, c.line, c.query, c.err, strings.Join(rows, "\n"))
				}
				if !strings.Contains(err.Error(), c.err) {
					t.Fatalf("%s:%d: %s\nwant error containing %q, got %q", file, c.line, c.query, c.err, err)
				}
				if !positioned.MatchString(err.Error()) {
					t.Errorf("%s:%d: error %q carries no line:col position", file, c.line, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s:%d: %s\nunexpected error: %v", file, c.line, c.query, err)
			}
			if c.columns != "" {
				if got := strings.Join(cols, ", "); got != c.columns {
					t.Errorf("%s:%d: %s\ncolumns: got %s, want %s", file, c.line, c.query, got, c.columns)
				}
			}
			got, want := canonicalRows(t, rows), canonicalRows(t, c.want)
			how := "in order"
			if !ordered(c.query) {
				sort.Strings(got)
				sort.Strings(want)
				how = "as a multiset"
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s:%d: %s\ncompared %s\ngot:\n%s\nwant:\n%s", file, c.line, c.query, how,
					strings.Join(rows, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
	if *update {
		var b strings.Builder
		for _, c := range cases {
			for _, l := range c.comments {
				b.WriteString(l + "\n")
			}
			b.WriteString("query:\n" + c.query + "\n")
			if c.columns != "" {
				b.WriteString("columns: " + c.columns + "\n")
			}
			if c.isErr {
				b.WriteString("error: " + c.err + "\n")
			} else {
				b.WriteString("want:\n")
				for _, r := range c.want {
					b.WriteString(r + "\n")
				}
			}
			b.WriteString("----\n")
		}
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func canonicalRows(t *testing.T, rows []string) []string {
	t.Helper()
	out := make([]string, len(rows))
	for i, r := range rows {
		c, err := canonicalRow(r)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = c
	}
	return out
}

func TestOrdered(t *testing.T) {
	for q, want := range map[string]bool{
		"@a | sort by x":                           true,
		"@a | top 3 by x":                          true,
		"@a | where x > 1":                         false,
		"@a | sort by x | summarize count() by y":  false,
		"@a | summarize count() by y | order by y": true,
		"@a | join (@b | sort by x) on k":          false,
		"@a | where s == '|sort by' ":              false,
	} {
		if got := ordered(q); got != want {
			t.Errorf("ordered(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestPrefixesDoNotPanic runs every prefix of every case's query: each must give rows or an error, never a
// panic (run turns a panic into an error that says so).
func TestPrefixesDoNotPanic(t *testing.T) {
	sources := loadSources(t)
	data, err := os.ReadFile("testdata/queries.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range parseCases(t, string(data)) {
		for i := 0; i <= len(c.query); i++ {
			if _, _, err := run(c.query[:i], sources); err != nil && strings.HasPrefix(err.Error(), "PANIC") {
				t.Errorf("%q: %v", c.query[:i], err)
			}
		}
	}
}
