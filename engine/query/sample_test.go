package query_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/format"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/source"
)

// runFile opens data as the file T.ext with o and runs text over it, returning the output's column names and
// rows as the CLI writes them (the writer made at the first batch, as cmd/joinlab does), or the error.
func runFile(t *testing.T, ext, data, text string, o source.Options) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "T."+ext)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := source.OpenWith("T", path, o)
	if err != nil {
		return "", err
	}
	p, err := query.Prepare(context.Background(), text, map[string]source.Source{"T": src}, query.Options{})
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	var w format.Writer
	write := func(b *column.Batch) error {
		if w == nil {
			if w, err = format.New(&buf, "jsonl", p.Columns()); err != nil {
				return err
			}
		}
		if b == nil {
			return w.Close()
		}
		return w.Write(b)
	}
	if _, err := p.Run(context.Background(), write); err != nil {
		return "", err
	}
	if err := write(nil); err != nil {
		return "", err
	}
	var names []string
	for _, f := range p.Columns() {
		names = append(names, f.Name+":"+f.Type.String())
	}
	return strings.Join(names, ",") + "\n" + buf.String(), nil
}

// sampled reads a file from its first few records, in small chunks; whole reads it typed from every value.
var (
	sampled = source.Options{SampleBytes: 64, ChunkBytes: 32}
	whole   = source.Options{SampleBytes: source.TypeEveryValue}
)

// lines is n JSON lines from line(i), then the extra lines.
func lines(n int, line func(i int) string, extra ...string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(line(i) + "\n")
	}
	for _, e := range extra {
		b.WriteString(e + "\n")
	}
	return b.String()
}

// TestSampleWidensAsTheWholeFile puts, after the sample, a value or a key the sample did not show, and checks
// that the answer (columns, their types and the rows) is the one typing the whole file first gives, and that
// the sampled run really started from narrower types (the file's type differs from the sample's).
func TestSampleWidensAsTheWholeFile(t *testing.T) {
	cases := []struct {
		name, ext, data, query string
	}{
		{"long to real", "jsonl", lines(300, func(i int) string { return fmt.Sprintf(`{"i":%d,"a":%d}`, i, i) }, `{"i":300,"a":1.5}`),
			`@T | summarize s=sum(a), n=count()`},
		{"long to string", "jsonl", lines(300, func(i int) string { return fmt.Sprintf(`{"i":%d,"a":%d}`, i, i) }, `{"i":300,"a":"x"}`),
			`@T | sort by i asc`},
		{"datetime to string", "jsonl", lines(300, func(i int) string { return fmt.Sprintf(`{"i":%d,"a":"2024-05-01T12:00:%02dZ"}`, i, i%60) }, `{"i":300,"a":"soon"}`),
			`@T | sort by i asc | take 5`},
		{"bool to string", "jsonl", lines(300, func(i int) string { return fmt.Sprintf(`{"i":%d,"a":true}`, i) }, `{"i":300,"a":"maybe"}`),
			`@T | summarize n=count() by a`},
		{"nulls to long", "jsonl", lines(300, func(i int) string { return fmt.Sprintf(`{"i":%d,"a":null}`, i) }, `{"i":300,"a":5}`),
			`@T | summarize s=sum(a)`},
		{"nested long to real", "jsonl", lines(300, func(i int) string { return fmt.Sprintf(`{"i":%d,"p":{"x":%d}}`, i, i) }, `{"i":300,"p":{"x":0.25}}`),
			`@T | summarize s=sum(p.x)`},
		{"new key, whole rows", "jsonl", lines(300, func(i int) string { return fmt.Sprintf(`{"i":%d,"a":%d}`, i, i) }, `{"i":300,"a":1,"z":"new"}`),
			`@T | sort by i desc | take 3`},
		{"new key, named", "jsonl", lines(300, func(i int) string { return fmt.Sprintf(`{"i":%d,"a":%d}`, i, i) }, `{"i":300,"a":1,"z":"new"}`),
			`@T | where isnotempty(z) | project i, z`},
		{"csv long to real", "csv", "i,a\n" + lines(300, func(i int) string { return fmt.Sprintf("%d,%d", i, i) }, "300,1.5"),
			`@T | summarize s=sum(a), n=count()`},
		{"csv empty to long", "csv", "i,a\n" + lines(300, func(i int) string { return fmt.Sprintf("%d,", i) }, "300,7"),
			`@T | summarize s=sum(a)`},
		{"csv datetime to string", "csv", "i,a\n" + lines(300, func(i int) string { return fmt.Sprintf("%d,2024-05-01T12:00:%02dZ", i, i%60) }, "300,soon"),
			`@T | sort by i desc | take 2`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := runFile(t, c.ext, c.data, c.query, whole)
			if err != nil {
				t.Fatal(err)
			}
			got, err := runFile(t, c.ext, c.data, c.query, sampled)
			if err != nil {
				t.Fatalf("sampled: %v", err)
			}
			if got != want {
				t.Errorf("sampled answer:\n%s\nwant (typed from every value):\n%s", got, want)
			}
			// Opened from its sample, the file is typed otherwise, so the check above saw a retyping.
			path := writeTemp(t, c.ext, c.data)
			fromSample, err := source.OpenWith("T", path, sampled)
			if err != nil {
				t.Fatal(err)
			}
			fromAll, err := source.OpenWith("T", path, whole)
			if err != nil {
				t.Fatal(err)
			}
			paths := []string{"p.x"}
			if s, w := fromSample.Schema(paths), fromAll.Schema(paths); fmt.Sprint(s) == fmt.Sprint(w) {
				t.Errorf("the sample types the file as the whole file does (%v): the case tests nothing", s)
			}
		})
	}
}

func writeTemp(t *testing.T, ext, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "T."+ext)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSampleErrors: a malformed record after the sample is the scan's error with its line, and a value past
// the sample that arrives after rows were returned stops the run with the reason instead of mixing types.
func TestSampleErrors(t *testing.T) {
	data := lines(300, func(i int) string { return fmt.Sprintf(`{"i":%d,"a":%d}`, i, i) }, `{"i":300,"a":`)
	if _, err := runFile(t, "jsonl", data, `@T | count`, sampled); err == nil || !strings.Contains(err.Error(), "line 301: malformed JSON") {
		t.Errorf("a malformed line past the sample: %v, want line 301: malformed JSON", err)
	}
	csv := "i,a\n" + lines(300, func(i int) string { return fmt.Sprintf("%d,%d", i, i) }, "300,1,2")
	if _, err := runFile(t, "csv", csv, `@T | count`, sampled); err == nil || !strings.Contains(err.Error(), "line 302") {
		t.Errorf("a CSV record with a field too many past the sample: %v, want its line 302", err)
	}
	late := lines(3000, func(i int) string { return fmt.Sprintf(`{"i":%d,"a":%d}`, i, i) }, `{"i":3000,"a":1.5}`)
	_, err := runFile(t, "jsonl", late, `@T | project a`, sampled)
	if err == nil || !strings.Contains(err.Error(), "rows were already returned") || !strings.Contains(err.Error(), "line 3001: column a holds a real") {
		t.Errorf("a real past the sample after rows were returned: %v", err)
	}
	if _, err := runFile(t, "jsonl", late, `@T | project a`, whole); err != nil {
		t.Errorf("the same typed from every value: %v", err)
	}
}

// TestSampleMatchesWholeTyping is differential: random files whose columns change kind at random lines, read
// with random samples and chunk sizes, answer every query as the file typed from every value does.
func TestSampleMatchesWholeTyping(t *testing.T) {
	values := [][]string{
		{`1`, `-7`, `null`, `""`},
		{`2.5`, `1e3`, `-0`},
		{`"x"`, `"007"`, `"2024-05-01T12:00:00Z"`},
		{`true`, `false`},
		{`{"q":1}`, `[1,2]`},
	}
	queries := []string{`@T | sort by i asc`, `@T | summarize n=count() by tostring(a)`, `@T | summarize n=count(), m=max(i) by tostring(b)`}
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 20 + r.IntN(200)
		kinds := [2]int{r.IntN(len(values)), r.IntN(len(values))}
		var b strings.Builder
		for i := range n {
			if r.IntN(40) == 0 {
				kinds[r.IntN(2)] = r.IntN(len(values))
			}
			fmt.Fprintf(&b, `{"i":%d`, i)
			for c, name := range []string{"a", "b"} {
				if r.IntN(10) > 0 {
					vs := values[kinds[c]]
					fmt.Fprintf(&b, `,"%s":%s`, name, vs[r.IntN(len(vs))])
				}
			}
			if r.IntN(100) == 0 {
				b.WriteString(`,"late":1`)
			}
			b.WriteString("}\n")
		}
		data := b.String()
		o := source.Options{SampleBytes: 1 + r.Int64N(int64(len(data))), ChunkBytes: 16 + r.IntN(256)}
		for _, q := range queries {
			want, werr := runFile(t, "jsonl", data, q, whole)
			got, gerr := runFile(t, "jsonl", data, q, o)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || got != want {
				t.Fatalf("seed %d, sample %d bytes, chunks of %d, %s:\n%s(err %v)\nwant:\n%s(err %v)\ndata:\n%s", seed, o.SampleBytes, o.ChunkBytes, q, got, gerr, want, werr, data)
			}
		}
	}
}
