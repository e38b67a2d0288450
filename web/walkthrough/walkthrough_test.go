package walkthrough

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/sims/clock"
	"github.com/joinlab/joinlab/sims/profile"
)

// assetsDir is where the walkthroughs live, from this package's folder.
const assetsDir = "../../assets/walkthroughs"

var dump = flag.String("dump", "", "print every run of the named walkthrough (events, details, rows, explain) — an aid to writing facts")

// expected lists the walkthroughs the project ships, one per source document: a file that goes missing fails.
var expected = []string{"grace", "interval", "paged", "salting"}

// TestWalkthroughs validates every walkthrough in assets/walkthroughs against the engine: a change that makes
// a story untrue fails here, naming the walkthrough, the step and the fact.
func TestWalkthroughs(t *testing.T) {
	ws, err := LoadDir(os.DirFS(assetsDir), ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range ws {
		names = append(names, w.Name)
		t.Run(w.Name, func(t *testing.T) {
			states, err := w.States()
			if err != nil {
				t.Fatal(err)
			}
			if len(states) != w.StepCount() {
				t.Fatalf("%d of %d steps resolved", len(states), w.StepCount())
			}
			t.Logf("%d chapters, %d steps, %d runs", len(w.Chapters), w.StepCount(), len(w.Runs))
		})
	}
	if fmt.Sprint(names) != fmt.Sprint(expected) {
		t.Fatalf("walkthroughs %v, want %v", names, expected)
	}
}

// TestDump prints the runs of -dump=NAME; it does nothing otherwise.
func TestDump(t *testing.T) {
	if *dump == "" {
		t.Skip("no -dump")
	}
	data, err := os.ReadFile(filepath.Join(assetsDir, *dump+".json"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := Parse(*dump, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range w.runNames() {
		o, err := w.Runs[name].execute()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("=== run %s (error: %v)\n%s\n", name, o.err, o.explain)
		for i, e := range o.events {
			fmt.Printf("  event %d %s %v %s\n", i, e.Kind(), e.At, compact(trace.Attrs(e.Payload)))
		}
		fmt.Printf("  details %s\n", compact(o.details))
		for i, r := range o.rows {
			fmt.Printf("  row %d %s\n", i+1, compact(r))
		}
	}
	if err := w.Validate(); err != nil {
		fmt.Println(err)
	}
}

// figureWalkthrough is a small valid walkthrough: the source document's Grace figure in one step.
const figureWalkthrough = `{
  "name": "tiny", "title": "t", "document": "003", "summary": "s",
  "runs": {"figure": {
    "query": "@Users | join kind=inner hint.strategy=grace hint.partitions=3 hint.seed=51 (@Listens) on user_id",
    "sources": {
      "Users": {"format": "csv", "lines": ["user_id,name", "7,Mickey", "13,Minnie", "42,Pluto", "99,Daffy"]},
      "Listens": {"format": "csv", "lines": ["user_id,song_id", "42,100", "7,200", "13,100", "42,300", "7,100", "13,200", "42,400", "99,500"]}
    }}},
  "chapters": [{"title": "c", "steps": [{
    "id": "one", "title": "t", "narration": "n", "run": "figure",
    "pause": {"event": "partition_written", "where": {"side": "left"}, "nth": 1},
    "highlight": ["event", "partition:left:0", "source:Users:3", "query:hint.seed=51"],
    "facts": [FACT]
  }]}]
}`

func tiny(t *testing.T, fact string) error {
	t.Helper()
	w, err := Parse("tiny", []byte(strings.Replace(figureWalkthrough, "FACT", fact, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return w.Validate()
}

// TestTrueFactsHold checks the checker accepts each form of fact on a state where it is true.
func TestTrueFactsHold(t *testing.T) {
	for _, fact := range []string{
		`{"paused": {"side": "left", "partition": "0", "rows": 2}}`,
		`{"event": "partition_written", "side": "left", "count": 1}`,
		`{"event": "partition_written", "side": "right", "partition": "0", "rows": 4, "scope": "run"}`,
		`{"event": "pair_joined", "count": 3, "scope": "run"}`,
		`{"rows": 8}`,
		`{"row": {"name": "Pluto", "song_id": 300}}`,
		`{"row": {"name": "Pluto"}, "count": 3}`,
		`{"detail": "partitions", "equals": 3}`,
		`{"explain_contains": "3 partitions"}`,
		`{"columns": ["user_id", "name", "user_id1", "song_id"]}`,
	} {
		if err := tiny(t, fact); err != nil {
			t.Errorf("%s: %v", fact, err)
		}
	}
}

// TestWrongFactFails: each wrong fact fails, and the message names the walkthrough, the step, the fact and
// what the engine had instead.
func TestWrongFactFails(t *testing.T) {
	for _, c := range []struct{ fact, want string }{
		{`{"paused": {"rows": 3}}`, `rows: want 3, found 2`},
		{`{"event": "partition_written", "side": "right"}`, `no partition_written events up to the pause point match`},
		{`{"event": "pair_joined", "count": 2, "scope": "run"}`, `3 pair_joined events in the run match, not 2`},
		{`{"rows": 9}`, `the run output 8 rows`},
		{`{"row": {"name": "Goofy"}}`, `no result rows match`},
		{`{"detail": "partitions", "equals": 4}`, `detail partitions is 3: want 4, found 3`},
		{`{"detail": "pages"}`, `the run has no detail "pages"`},
		{`{"explain_contains": "16 partitions"}`, `explain does not contain it`},
		{`{"error_contains": "boom"}`, `the run succeeded`},
		{`{"partitions": 3}`, `unknown fact`},
	} {
		err := tiny(t, c.fact)
		if err == nil {
			t.Errorf("%s: no error", c.fact)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "walkthrough tiny: step 1 (one): fact 1 ") || !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %q; want the step, the fact and %q", c.fact, msg, c.want)
		}
	}
}

// TestMissingPauseFails: a pause point the run never reaches fails, saying how many such events there were.
func TestMissingPauseFails(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{`"nth": 1}`, `"nth": 4}`, `the run has 3 partition_written event(s) with {"side":"left"}, so no event number 4`},
		{`"event": "partition_written"`, `"event": "page_fetched"`, `the run has 0 page_fetched event(s)`},
	} {
		text := strings.Replace(strings.Replace(figureWalkthrough, "FACT", `{"rows": 8}`, 1), c.from, c.to, 1)
		w, err := Parse("tiny", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		err = w.Validate()
		if err == nil || !strings.Contains(err.Error(), "walkthrough tiny: step 1 (one): pause: ") ||
			!strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want %q", c.to, err, c.want)
		}
	}
}

// TestBadHighlightFails: a highlight naming something the state does not have fails.
func TestBadHighlightFails(t *testing.T) {
	text := strings.Replace(strings.Replace(figureWalkthrough, "FACT", `{"rows": 8}`, 1), `"source:Users:3"`, `"source:Users:9"`, 1)
	w, err := Parse("tiny", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), `highlight 3 "source:Users:9": source Users has rows 1…4`) {
		t.Errorf("error %v", err)
	}
}

// TestMalformedFails: broken JSON, unknown fields, wrong types and broken references are reported with the
// walkthrough's name and where.
func TestMalformedFails(t *testing.T) {
	good := strings.Replace(figureWalkthrough, "FACT", `{"rows": 8}`, 1)
	for _, c := range []struct{ from, to, want string }{
		{`"title": "t", "document"`, `"title": "t" "document"`, `walkthrough tiny: line 2, column`},
		{`"narration": "n"`, `"narraton": "n"`, `unknown field "narraton"`},
		{`"nth": 1`, `"nth": "first"`, `field "chapters.steps.pause.nth": want int, found a JSON string`},
		{`"run": "figure"`, `"run": "figures"`, `step 1 (one): "run" "figures" is not one of the runs (figure)`},
		{`"facts": [{"rows": 8}]`, `"facts": []`, `step 1 (one): a step states at least one fact`},
		{`"name": "tiny"`, `"name": "Tiny"`, `its "name" is "Tiny"; it must be the file's base name`},
		{`"format": "csv", "lines": ["user_id,name"`, `"format": "tsv", "lines": ["user_id,name"`, `run "figure": source Users: "format" must be csv or jsonl`},
	} {
		text := strings.Replace(good, c.from, c.to, 1)
		if text == good {
			t.Fatalf("%s: the replacement did not apply", c.to)
		}
		_, err := Parse("tiny", []byte(text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want %q", c.to, err, c.want)
		}
	}
}

func TestLinks(t *testing.T) {
	if got := Link("grace", 3); got != "#w=grace&step=3" {
		t.Fatalf("Link = %q", got)
	}
	for _, c := range []struct {
		in   string
		name string
		step int
		err  bool
	}{
		{"#w=grace&step=3", "grace", 3, false},
		{"w=paged", "paged", 1, false},
		{"#step=2&w=salting", "salting", 2, false},
		{"#w=grace&step=0", "", 0, true},
		{"#w=grace&step=x", "", 0, true},
		{"#step=2", "", 0, true},
	} {
		name, step, err := ParseLink(c.in)
		if (err != nil) != c.err || name != c.name || step != c.step {
			t.Errorf("ParseLink(%q) = %q, %d, %v", c.in, name, step, err)
		}
	}
}

// TestInlineConnectorHasTheProfileDeadline: a table written into a walkthrough behind a connector keeps its
// profile's query deadline (profile.Profile.Deadline), as the scenarios' and the command line's sources do.
func TestInlineConnectorHasTheProfileDeadline(t *testing.T) {
	for _, name := range []string{"teaching", "okta"} {
		prof, err := profile.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if prof.Deadline <= 0 {
			t.Fatalf("profile %s states no deadline: the test proves nothing", name)
		}
		s := &InlineSource{Format: "csv", Lines: []string{"id,v", "1,a", "2,b"}, Connector: &ConnectorSpec{Profile: name, Key: []string{"id"}}}
		var clk *clock.Virtual
		src, err := s.open("T", &clk)
		if err != nil {
			t.Fatal(err)
		}
		cs, ok := src.(*connector.Source)
		if !ok {
			t.Fatalf("profile %s: got a %T, want a *connector.Source", name, src)
		}
		if got := cs.Options().Retry.Deadline; got != prof.Deadline {
			t.Errorf("profile %s: deadline %s, want the profile's %s", name, got, prof.Deadline)
		}
	}
}
