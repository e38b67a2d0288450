package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/sims/profile"
)

// queryTests are the query texts of engine/query's semantics cases (testdata/queries.txt; its header gives the
// format), with whether each expects rows (else an error).
func queryTests(t *testing.T) (queries []string, wantRows []bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "engine", "query", "testdata", "queries.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "query:":
			in, text = true, nil
		case in && (line == "want:" || strings.HasPrefix(line, "error:")):
			queries, wantRows = append(queries, strings.Join(text, "\n")), append(wantRows, line == "want:")
			in = false
		case in && !strings.HasPrefix(line, "columns:"):
			text = append(text, line)
		}
	}
	if len(queries) < 80 {
		t.Fatalf("read only %d cases from queries.txt", len(queries))
	}
	return queries, wantRows
}

// outerOrder finds a sort, order or top in the outer pipeline (outside parentheses and strings) after its
// last summarize, join or distinct: then the output order is defined and must be kept.
var outerOrder = regexp.MustCompile(`^\s*(sort|order|top)\b`)
var outerReorder = regexp.MustCompile(`^\s*(summarize|join|distinct)\b`)

func orderDefined(text string) bool {
	depth, start, quote := 0, 0, byte(0)
	var ops []string
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			ops, start = append(ops, text[start:i]), i+1
		}
	}
	defined := false
	for _, op := range append(ops, text[start:]) {
		switch {
		case outerOrder.MatchString(op):
			defined = true
		case outerReorder.MatchString(op):
			defined = false
		}
	}
	return defined
}

// sameRows compares two JSON-lines outputs: in order when the query defines one, else as multisets.
func sameRows(query, got, want string) bool {
	if orderDefined(query) {
		return got == want
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}

// TestQueryTestsThroughEveryProfile runs every case of engine/query's query tests over its fixture files, and
// the --profile tests' join over this command's testdata, read directly and then served through each connector
// profile with --profile '*=PROFILE' (the command's own wiring: a simulated service per file on one virtual
// clock, its caps, rate limit, latency and deadline), and requires the same rows — or, for a case that
// expects an error, an error again.
func TestQueryTestsThroughEveryProfile(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "engine", "query", "testdata", "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	var srcArgs []string
	for _, f := range files {
		if ext := filepath.Ext(f); ext == ".jsonl" || ext == ".csv" {
			srcArgs = append(srcArgs, "--source", strings.TrimSuffix(filepath.Base(f), ext)+"="+f)
		}
	}
	queries, wantRows := queryTests(t)
	compareThroughProfiles(t, srcArgs, queries, wantRows)
	compareThroughProfiles(t, []string{"--source", "Users=testdata/users.jsonl", "--source", "Orders=testdata/orders.csv"},
		[]string{`@Users | join kind=inner (@Orders | where amount > 0) on $left.id == $right.user | count`}, []bool{true})
}

// TestJoinsOfLargerFilesThroughEveryProfile: ordinary joins over a file of 15,000 rows, hundreds of responses
// under the small profiles' row caps and, under teaching's 10 requests a second, more throttles on one scan
// than the retry budget allows faults (about a hundred), give the rows of the files read directly: a rate
// limit is waited out, never a failure.
func TestJoinsOfLargerFilesThroughEveryProfile(t *testing.T) {
	dir := t.TempDir()
	var users, orders strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&users, "{\"id\":%d,\"name\":\"u%03d\",\"team\":\"t%d\"}\n", i, i, i%7)
	}
	orders.WriteString("order_id,user,amount\n")
	for i := 0; i < 15000; i++ {
		fmt.Fprintf(&orders, "%d,%d,%d\n", i, (i*7919)%350, (i*31)%1000)
	}
	for name, body := range map[string]string{"users.jsonl": users.String(), "orders.csv": orders.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srcArgs := []string{"--source", "Users=" + filepath.Join(dir, "users.jsonl"), "--source", "Orders=" + filepath.Join(dir, "orders.csv")}
	queries := []string{
		`@Users | join kind=inner (@Orders | where amount > 900) on $left.id == $right.user | count`,
		`@Users | join kind=inner hint.strategy=hash (@Orders) on $left.id == $right.user | summarize n = count(), s = sum(amount)`,
		`@Users | join kind=leftouter (@Orders) on $left.id == $right.user | summarize n = count(), s = sum(amount) by team`,
		`@Orders | join kind=leftanti (@Users) on $left.user == $right.id | summarize n = count()`,
		`@Users | where team == "t3" | join kind=inner (@Orders) on $left.id == $right.user | sort by amount desc, order_id asc | take 25`,
		`@Orders | where amount between (10 .. 20) | join kind=rightouter (@Users) on $left.user == $right.id | summarize c = count() by name | top 5 by c desc, name asc`,
	}
	compareThroughProfiles(t, srcArgs, queries, slices.Repeat([]bool{true}, len(queries)))
}

// compareThroughProfiles runs each query over the sources srcArgs name, directly and through every profile.
func compareThroughProfiles(t *testing.T, srcArgs, queries []string, wantRows []bool) {
	t.Helper()
	for i, q := range queries {
		args := append(append([]string{"query"}, srcArgs...), "--format", "jsonl", q)
		code, direct, stderr := runCmd(t, "", args...)
		if wantRows[i] != (code == 0) {
			t.Fatalf("%s\nread directly: exit %d (%s), want rows: %v", q, code, stderr, wantRows[i])
		}
		for _, prof := range profile.Names() {
			code, served, servedErr := runCmd(t, "", append([]string{"query", "--profile", "*=" + prof}, args[1:]...)...)
			switch {
			case !wantRows[i] && code == 0:
				t.Errorf("%s\nthrough %s: rows %q, want an error as read directly (%s)", q, prof, served, stderr)
			case wantRows[i] && code != 0:
				t.Errorf("%s\nthrough %s: exit %d: %s", q, prof, code, servedErr)
			case wantRows[i] && !sameRows(q, served, direct):
				t.Errorf("%s\nthrough %s the rows changed:\n%s\nread directly:\n%s", q, prof, served, direct)
			}
		}
	}
	t.Logf("%d queries, each read directly and through %d profiles", len(queries), len(profile.Names()))
}
