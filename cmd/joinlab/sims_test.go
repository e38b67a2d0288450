package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileServesFileThroughConnector runs a join over files served by the teaching profile: same rows as
// the files read directly, but now requests, bytes and virtual time are counted, and the filter is pushed.
func TestProfileServesFileThroughConnector(t *testing.T) {
	q := `@Users | join kind=inner (@Orders | where amount > 0) on $left.id == $right.user | count`
	code, direct, stderr := runCmd(t, "", "query", "--source", "Users=testdata/users.jsonl",
		"--source", "Orders=testdata/orders.csv", q)
	if code != 0 {
		t.Fatalf("direct run: exit %d: %s", code, stderr)
	}
	stats := filepath.Join(t.TempDir(), "s.json")
	code, served, stderr := runCmd(t, "", "query", "--source", "Users=testdata/users.jsonl",
		"--source", "Orders=testdata/orders.csv", "--profile", "*=teaching", "--stats", stats, q)
	if code != 0 {
		t.Fatalf("served run: exit %d: %s", code, stderr)
	}
	if served != direct {
		t.Fatalf("through the teaching profile the answer changed: %q, directly %q", served, direct)
	}
	data, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Requests         int64            `json:"requests"`
		RequestsBySource map[string]int64 `json:"requests_by_source"`
		VirtualTotal     float64          `json:"virtual_ms_total"`
		Strategy         string           `json:"strategy"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	if st.Requests < 2 || st.RequestsBySource["Users"] < 1 || st.RequestsBySource["Orders"] < 1 || st.VirtualTotal <= 0 {
		t.Fatalf("want requests to both sources and virtual time, got %s", data)
	}
	if st.Strategy == "" {
		t.Fatalf("stats name no strategy: %s", data)
	}
}

func TestProfileErrors(t *testing.T) {
	for _, c := range []struct{ flag, want string }{
		{"Users=nope", `unknown profile "nope"`},
		{"Nobody=okta", "no --source named Nobody"},
		{"okta", "want NAME=PROFILE"},
	} {
		code, _, stderr := runCmd(t, "", "query", "--source", "Users=testdata/users.jsonl", "--profile", c.flag, "@Users")
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("--profile %s: exit %d, stderr %q; want 2 and %q", c.flag, code, stderr, c.want)
		}
	}
}

func TestSimsListsScenariosAndProfiles(t *testing.T) {
	code, out, _ := runCmd(t, "", "sims")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"users-listens-grace", "--set listens=", "teaching", "values per IN list", "a query's deadline 10m0s of virtual time"} {
		if !strings.Contains(out, want) {
			t.Errorf("joinlab sims does not mention %q:\n%s", want, out)
		}
	}
}

// TestProfilePagesALongFile serves a file of more rows than one teaching response carries (50): the scan pages
// through it by its hidden row number instead of failing on the cap, and no row is lost or doubled.
func TestProfilePagesALongFile(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 173; i++ {
		fmt.Fprintf(&b, "{\"id\":%d,\"name\":\"u%d\"}\n", i, i%7)
	}
	file := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	stats := filepath.Join(t.TempDir(), "s.json")
	q := `@Long | summarize n = count(), s = sum(id), d = dcount(id)`
	code, out, stderr := runCmd(t, "", "query", "--source", "Long="+file, "--profile", "Long=teaching", "--stats", stats, q)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := `{"n":173,"s":14878,"d":173}`; strings.TrimSpace(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
	data, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Requests int64 `json:"requests"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	if st.Requests != 4 { // ⌈173 / 50⌉ pages
		t.Fatalf("requests = %d, want 4 pages of at most 50 rows: %s", st.Requests, data)
	}
}
