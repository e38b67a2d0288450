package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/ui"
)

// smallRowsTables writes two small JSON-lines tables, L (30 rows) and R (24), joined on k, into dir: keys
// repeat, some are null, key 1 holds a third of each side (the salted join finds it heavy), and keys 8 and 9
// are the right side's only, so a right outer join has rows no left row matches.
func smallRowsTables(t *testing.T, dir string) (paths []string, sources map[string]protocol.Input) {
	t.Helper()
	sources = map[string]protocol.Input{}
	for _, tab := range []struct {
		name string
		rows int
		keys []string
	}{
		{"L", 30, []string{"1", "2", "1", "null", "3", "1", "4", "5", "1", "2", "null", "6", "1", "3", "7"}},
		{"R", 24, []string{"1", "9", "2", "1", "null", "3", "1", "8", "5", "1", "4", "null"}},
	} {
		var b strings.Builder
		for i := range tab.rows {
			fmt.Fprintf(&b, "{\"k\":%s,\"id\":\"%s%d\"}\n", tab.keys[i%len(tab.keys)], tab.name, i)
		}
		path := filepath.Join(dir, tab.name+".jsonl")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
		sources[tab.name] = protocol.Input{Format: "jsonl", Data: b.String()}
	}
	return paths, sources
}

// TestSmallGraceAndSaltedRunsDrawTheirRows adds two small tables to the page, runs a Grace join and the
// salted join's teaching variant over them, and reads the rows each view draws — the keys in each partition,
// level by level, and each worker's rows after salting with their salts, the copies and the wrongly
// null-extended copies marked — against a native fold of the same run's events. Screenshots:
// view-grace-rows.png, view-salted-rows.png.
func TestSmallGraceAndSaltedRunsDrawTheirRows(t *testing.T) {
	paths, sources := smallRowsTables(t, t.TempDir())
	p := openPlayground(t)
	p.addFiles(paths...)
	p.waitTable("L")
	p.waitTable("R")

	// The Grace join is asked for 4 partitions: the budget would hold these tables in one.
	for _, c := range []struct{ strategy, join, shot string }{
		{"grace", "kind=inner hint.partitions=4", "view-grace-rows"},
		{"salted_naive_wrong", "kind=rightouter", "view-salted-rows"},
	} {
		query := "@L | join " + c.join + " (@R) on $left.k == $right.k"
		f := ui.Fold(nativeEvents(t, &protocol.Run{Query: query, Seed: 1, Strategy: c.strategy, Sources: sources}))
		p.setQuery(query)
		p.pick("#strategy", c.strategy)
		p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
		if s := p.waitDone(2 * runTimeout); !strings.HasPrefix(s, "Done") {
			t.Fatalf("%s: status %q\n%s", c.strategy, s, p.state())
		}
		if c.strategy == "grace" {
			var want []string
			for _, pr := range f.Grace.InOrder() {
				want = append(want, fmt.Sprintf("%s@%d:%s|%s", pr.ID, pr.Level, strings.Join(pr.Left, ","), strings.Join(pr.Right, ",")))
			}
			if len(want) < 3 {
				t.Fatalf("natively the Grace run lists %d partitions' rows: want the null keys and several partitions", len(want))
			}
			p.waitFor("the rows by partition", `document.querySelector("#grace-rows") !== null`, runTimeout)
			got := evaluate[[]string](p, `[...document.querySelectorAll("#grace-rows tbody tr")].map(r => {
				const keys = side => [...r.querySelectorAll("td[data-side=" + side + "] .key")].map(k => k.textContent).join(",");
				return r.dataset.partition + "@" + r.dataset.level + ":" + keys("left") + "|" + keys("right"); })`)
			if strings.Join(got, " ; ") != strings.Join(want, " ; ") {
				t.Errorf("partitions drawn (id@level:left keys|right keys)\n%q\na native fold of the run's events\n%q", got, want)
			}
		} else {
			var want []string
			for _, w := range f.Salted.Small {
				row := func(rs []joinevent.SaltedRow) string {
					var out []string
					for _, r := range rs {
						out = append(out, fmt.Sprintf("%d/%d", r.Row, r.Salt))
					}
					return strings.Join(out, ",")
				}
				want = append(want, fmt.Sprintf("%d:%s|%s", w.Worker, row(w.Left), row(w.Right)))
			}
			wrong := len(f.Salted.NullExtendedCopies())
			if len(want) == 0 || wrong == 0 {
				t.Fatalf("natively the run lists %d workers' rows and %d wrong copies: want both", len(want), wrong)
			}
			p.waitFor("the rows by worker", `document.querySelector("#salted-rows") !== null`, runTimeout)
			got := evaluate[[]string](p, `[...document.querySelectorAll("#salted-rows tbody tr")].map(r => {
				const rows = side => [...r.querySelectorAll("td.after[data-side=" + side + "] .row")].map(k => k.dataset.row + "/" + k.dataset.salt).join(",");
				return r.dataset.worker + ":" + rows("left") + "|" + rows("right"); })`)
			if strings.Join(got, " ; ") != strings.Join(want, " ; ") {
				t.Errorf("workers drawn (worker:row/salt…|…)\n%q\na native fold of the run's events\n%q", got, want)
			}
			if n := evaluate[int](p, `document.querySelectorAll("#salted-rows td.after .row.wrong").length`); n != wrong {
				t.Errorf("%d copies drawn as wrongly null-extended, the native fold finds %d", n, wrong)
			}
		}
		p.screenshot(c.shot)
	}
}
