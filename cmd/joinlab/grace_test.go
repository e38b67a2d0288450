package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScenarioUsersListensGrace runs the users-listens-grace scenario end to end, as a user would, and checks
// that both joins ran as Grace joins and that their figures reached the stats file and nothing is left spilled.
func TestScenarioUsersListensGrace(t *testing.T) {
	dir := t.TempDir()
	spill := filepath.Join(dir, "spill")
	if err := os.Mkdir(spill, 0o700); err != nil {
		t.Fatal(err)
	}
	stats := filepath.Join(dir, "s.json")
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"query", "--scenario", "users-listens-grace", "--knob", "listens=40000",
		"--stats", stats, "--spill-dir", spill, "--explain"}, strings.NewReader(""), &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if n := strings.Count(errOut.String(), "grace join"); n != 2 {
		t.Fatalf("want both joins planned as Grace joins, explain says:\n%s", errOut.String())
	}
	var s struct {
		Details map[string]float64 `json:"details"`
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"partitions", "repartition_levels", "hot_keys", "io_pages_read", "io_pages_written",
		"io_pages_bound", "page_bytes"} {
		if _, ok := s.Details[k]; !ok {
			t.Fatalf("stats details lack %s: %s", k, b)
		}
	}
	if s.Details["io_pages_written"] == 0 || s.Details["partitions"] < 2 {
		t.Fatalf("nothing was spilled: %s", b)
	}
	if ents, _ := os.ReadDir(spill); len(ents) != 0 {
		t.Fatalf("%d entries left in the spill folder", len(ents))
	}
}
