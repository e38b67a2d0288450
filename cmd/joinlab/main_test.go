package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runCmd calls run with args and stdin, returning the exit status and both outputs.
func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	var code int
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("joinlab %s: panic: %v", strings.Join(args, " "), r)
			}
		}()
		code = run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr)
	}()
	return code, stdout.String(), stderr.String()
}

var (
	users  = "--source=users=testdata/users.jsonl"
	orders = "--source=orders=testdata/orders.csv"
)

func TestOutputFormats(t *testing.T) {
	for _, tc := range []struct {
		format, query, want string
	}{
		{"jsonl", "@users | sort by id asc",
			`{"id":1,"name":"Alice","joined":"2024-01-05T10:00:00Z","score":88.5}` + "\n" +
				`{"id":2,"name":"bob","joined":"2024-02-10T08:30:00Z","score":72}` + "\n" +
				`{"id":3,"name":"Carol","joined":null,"score":null}` + "\n"},
		{"csv", "@users | sort by id asc",
			"id,name,joined,score\n1,Alice,2024-01-05T10:00:00Z,88.5\n2,bob,2024-02-10T08:30:00Z,72\n3,Carol,,\n"},
		{"table", "@users | sort by id asc | project id, name",
			"id  name\n--  -----\n1   Alice\n2   bob\n3   Carol\n(3 rows)\n"},
		{"csv", `@orders | where paid | project order_id, note = strcat("a,", "b")`,
			"order_id,note\n10,\"a,b\"\n12,\"a,b\"\n"},
	} {
		code, out, errOut := runCmd(t, "", "query", users, orders, "--format", tc.format, tc.query)
		if code != 0 {
			t.Errorf("--format %s %q: exit %d, stderr %s", tc.format, tc.query, code, errOut)
			continue
		}
		if out != tc.want {
			t.Errorf("--format %s %q:\ngot:\n%s\nwant:\n%s", tc.format, tc.query, out, tc.want)
		}
	}
}

func TestJoinAcrossFormats(t *testing.T) {
	code, out, errOut := runCmd(t, "", "query", users, orders,
		"@orders | join kind=inner (@users) on $left.user == $right.id | project order_id, name | sort by order_id asc")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `{"order_id":10,"name":"Alice"}` + "\n" + `{"order_id":11,"name":"Alice"}` + "\n" + `{"order_id":12,"name":"bob"}` + "\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

func TestExplainAndStats(t *testing.T) {
	stats := filepath.Join(t.TempDir(), "stats.json")
	code, out, errOut := runCmd(t, "", "query", users, orders, "--explain", "--stats", stats,
		"@orders | join kind=leftouter (@users) on $left.user == $right.id")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "physical plan") || !strings.Contains(errOut, "logical plan") {
		t.Errorf("--explain: stderr lacks the plans:\n%s", errOut)
	}
	if n := strings.Count(out, "\n"); n != 4 {
		t.Errorf("want 4 rows, got %d:\n%s", n, out)
	}
	data, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("--stats wrote invalid JSON: %v\n%s", err, data)
	}
	if st["rows_out"] != float64(4) {
		t.Errorf("rows_out = %v, want 4 (%s)", st["rows_out"], data)
	}

	code, out, errOut = runCmd(t, "", "explain", users, "@users | where id > 1")
	if code != 0 || !strings.Contains(out, "physical plan") || !strings.Contains(out, "filter") {
		t.Errorf("explain: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestQuerySources(t *testing.T) {
	want := `{"name":"bob"}` + "\n" + `{"name":"Carol"}` + "\n"
	if code, out, errOut := runCmd(t, "", "query", users, "-f", "testdata/query.kql"); code != 0 || out != want {
		t.Errorf("-f: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "@users\n| where id >= 2 | project name\n", "query", users); code != 0 || out != want {
		t.Errorf("stdin: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Flags may follow the query.
	if code, out, errOut := runCmd(t, "", "query", "@users | where id >= 2 | project name", users); code != 0 || out != want {
		t.Errorf("flags after the query: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestErrors checks that bad input of every kind exits 2 with a clear message, never a panic.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		want  []string // substrings of stderr
	}{
		{"unknown source", "", []string{"query", users, "@nosuch | take 1"}, []string{"1:1:", "unknown source @nosuch", "@users"}},
		{"unknown column", "", []string{"query", users, "@users | where nosuch > 1"}, []string{"1:16:", `unknown column "nosuch"`, "^"}},
		{"type mismatch", "", []string{"query", users, "@users | where name > 5"}, []string{"1:21:", "type mismatch"}},
		{"parse error", "", []string{"query", users, "@users | where"}, []string{"1:"}},
		{"malformed JSON", "", []string{"query", "--source", "bad=testdata/bad.jsonl", "@bad | count"}, []string{"bad.jsonl", "line 3"}},
		{"CSV field count", "", []string{"query", "--source", "bad=testdata/badfields.csv", "@bad | count"}, []string{"badfields.csv", "line 3"}},
		{"unreadable file", "", []string{"query", "--source", "x=testdata/nosuch.jsonl", "@x | count"}, []string{"nosuch.jsonl"}},
		{"unknown file type", "", []string{"query", "--source", "x=testdata/query.kql", "@x | count"}, []string{"unknown file type"}},
		{"bad --source", "", []string{"query", "--source", "users", "@users"}, []string{"--source", "NAME=FILE"}},
		{"empty --source name", "", []string{"query", "--source", "=testdata/users.jsonl", "@users"}, []string{"NAME=FILE"}},
		{"duplicate --source", "", []string{"query", users, users, "@users"}, []string{"defined twice"}},
		{"unknown format", "", []string{"query", users, "--format", "xml", "@users"}, []string{"unknown format", "xml"}},
		{"empty query on stdin", "  \n", []string{"query", users}, []string{"no query"}},
		{"empty query argument", "", []string{"query", users, ""}, []string{"1:"}},
		{"query and -f", "", []string{"query", users, "-f", "testdata/query.kql", "@users"}, []string{"not both"}},
		{"missing -f file", "", []string{"query", users, "-f", "testdata/nosuch.kql"}, []string{"nosuch.kql"}},
		{"unknown command", "", []string{"frobnicate"}, []string{"unknown command"}},
		{"unknown flag", "", []string{"query", "--bogus", "@users"}, []string{"bogus"}},
		{"bad --mem", "", []string{"query", users, "--mem", "lots", "@users"}, []string{"--mem"}},
		{"--mem too small", "", []string{"query", users, orders, "--mem", "100",
			"@orders | join kind=inner (@users) on $left.user == $right.id"}, []string{"memory budget"}},
		{"--mem too small for sort", "", []string{"query", users, "--mem", "10", "@users | sort by id"}, []string{"memory budget"}},
		{"no arguments", "", nil, []string{"usage"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCmd(t, tc.stdin, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr:\n%s", code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			if strings.Contains(errOut, "panic") || strings.Contains(errOut, "goroutine") {
				t.Errorf("stderr shows a panic:\n%s", errOut)
			}
		})
	}
}

func TestMemSuffixes(t *testing.T) {
	for s, want := range map[string]int64{"": 0, "1048576": 1 << 20, "64M": 64 << 20, "64MiB": 64 << 20, "2GB": 2e9, "1k": 1 << 10} {
		if got, err := parseBytes(s); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"0", "-5", "x", "5X"} {
		if _, err := parseBytes(s); err == nil {
			t.Errorf("parseBytes(%q): want an error", s)
		}
	}
}

// TestBinary builds the command and runs it as a process: the exit status and streams seen from outside.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "joinlab")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	cmd := exec.Command(bin, "query", users, orders, "--format", "csv",
		"@orders | summarize n = count(), total = sum(amount) by paid | sort by paid asc")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if want := "paid,n,total\nfalse,2,6.75\ntrue,2,119.99\n"; stdout.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", stdout.String(), want)
	}

	cmd = exec.Command(bin, "query", users)
	cmd.Stdin = strings.NewReader("@users | where id == 1 | project name")
	out, err := cmd.Output()
	if err != nil || string(out) != `{"name":"Alice"}`+"\n" {
		t.Errorf("stdin query: %v, %q", err, out)
	}

	cmd = exec.Command(bin, "query", users, "@users | where nosuch == 1")
	stderr.Reset()
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("unknown column: want exit status 2, got %v", err)
	}
	if !strings.Contains(stderr.String(), `unknown column "nosuch"`) {
		t.Errorf("unknown column: stderr %q", stderr.String())
	}
}
