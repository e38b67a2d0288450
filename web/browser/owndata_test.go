package browser

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// loadBigTimeout covers handing a file of tens of MiB to the engine's worker and parsing it there.
const loadBigTimeout = 5 * time.Minute

// addFiles picks files in the page's file input, as a person choosing them would.
func (p *page) addFiles(paths ...string) {
	p.t.Helper()
	p.do("choose "+strings.Join(paths, ", "), chromedp.SetUploadFiles(chromedp.CSS("#add-files"), paths))
}

// tableCard is the selector of a table's card on the page.
func tableCard(name string) string { return fmt.Sprintf(`[data-table=%q]`, name) }

// waitTable waits until the engine has parsed table name, failing at once if it could not.
func (p *page) waitTable(name string) {
	p.t.Helper()
	p.waitTableWithin(name, runTimeout)
}

func (p *page) waitTableWithin(name string, timeout time.Duration) {
	p.t.Helper()
	sel := tableCard(name)
	p.waitFor("@"+name+" to be parsed", fmt.Sprintf(`(() => { const el = document.querySelector(%q);
		return el !== null && (el.dataset.status === "ready" || el.dataset.status === "failed"); })()`, sel), timeout)
	if st := evaluate[string](p, fmt.Sprintf(`document.querySelector(%q).dataset.status`, sel)); st != "ready" {
		p.t.Fatalf("@%s: %s\n%s", name, evaluate[string](p, fmt.Sprintf(`document.querySelector(%q).textContent`, sel)), p.state())
	}
}

// removeTable presses a table's Remove button and waits for its card to go.
func (p *page) removeTable(name string) {
	p.t.Helper()
	p.do("remove @"+name, chromedp.Click(chromedp.CSS(tableCard(name)+" .table-remove")))
	p.waitFor("@"+name+" to go", fmt.Sprintf(`document.querySelector(%q) === null`, tableCard(name)), runTimeout)
}

// renameTable types a new name into a table's name field and commits it, as leaving the field does.
func (p *page) renameTable(from, to string) {
	p.t.Helper()
	ok := evaluate[bool](p, fmt.Sprintf(`(() => { const el = document.querySelector(%q);
		if (!el) return false;
		el.value = %q; el.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, tableCard(from)+" .table-name", to))
	if !ok {
		p.t.Fatalf("no table @%s\n%s", from, p.state())
	}
}

// ownDataMiB is the size of the large generated file; JOINLAB_OWNDATA_MIB sets another (100 measures the
// issue's figure).
func ownDataMiB(t *testing.T) int {
	if v := os.Getenv("JOINLAB_OWNDATA_MIB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("JOINLAB_OWNDATA_MIB=%q: want a positive number of MiB", v)
		}
		return n
	}
	return 50
}

// Generated own data: users (CSV), songs (JSON lines) and listens (JSON lines, the large one), a function
// of the row's position, so the test knows what each holds.
const (
	genUsers     = 5000
	genSongs     = 2000
	genCountries = 5
	genGenres    = 4
)

func writeOwnData(t *testing.T, dir string, listensMiB int) (users, songs, listens string, listenRows int) {
	t.Helper()
	write := func(name string, fill func(w *bufio.Writer)) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		fill(w)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	users = write("users.csv", func(w *bufio.Writer) {
		w.WriteString("user_id,name,country\n")
		for i := range genUsers {
			fmt.Fprintf(w, "%d,user %d,C%d\n", i+1, i+1, mix(uint64(i))%genCountries)
		}
	})
	songs = write("songs.jsonl", func(w *bufio.Writer) {
		for i := range genSongs {
			fmt.Fprintf(w, `{"song_id": %d, "title": "song %d", "genre": "G%d"}`+"\n", i+1, i+1, mix(uint64(i)+1e9)%genGenres)
		}
	})
	limit := int64(listensMiB) << 20
	listens = write("listens.jsonl", func(w *bufio.Writer) {
		var n int64
		for i := 0; n < limit; i++ {
			h := mix(uint64(i) + 2e9)
			line := fmt.Sprintf(`{"user_id": %d, "song_id": %d, "ms": %d, "at": "2024-05-%02dT%02d:%02d:00Z", "client": {"os": "os%d", "version": "1.%d.%d"}}`+"\n",
				h%genUsers+1, (h>>20)%genSongs+1, (h>>40)%300000, (h>>8)%28+1, (h>>13)%24, (h>>17)%60, h%3, (h>>3)%10, (h>>5)%10)
			w.WriteString(line)
			n += int64(len(line))
			listenRows++
		}
	})
	return users, songs, listens, listenRows
}

func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

const ownJoinQuery = `@listens
| join kind=inner (@users) on user_id
| join kind=inner (@songs) on song_id
| summarize plays = count(), listened_ms = sum(ms), clients = dcount(client.os) by country, genre
| sort by country asc, genre asc`

// TestOwnDataThreeTablesAtSize loads a generated 50 MiB JSON-lines file and two more tables (CSV and JSON
// lines) in one pick, waits for the engine's summaries, checks the large file's progress reports as the page
// folded them (more than one, never falling, within [0, 1], the last at the file's end), joins the three,
// checks the rows against the
// engine's native result, then downloads the result as CSV and JSON lines, and the trace, and checks the
// downloaded bytes against the native engine's.
func TestOwnDataThreeTablesAtSize(t *testing.T) {
	dir := t.TempDir()
	mib := ownDataMiB(t)
	users, songs, listens, listenRows := writeOwnData(t, dir, mib)
	downloads := t.TempDir()

	// A browser of its own: its download folder is set for the whole browser, and the large file's memory
	// leaves with it.
	p := startOwnBrowser(t)
	p.open(serveSite(t))
	defer p.screenshot("own-data-at-size")
	if _, err := chromedp.Call(p.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads}); err != nil {
		t.Fatalf("set the download folder: %v", err)
	}

	picked := time.Now()
	p.addFiles(users, songs, listens)
	for _, name := range []string{"users", "songs"} {
		p.waitTable(name)
	}
	p.waitTableWithin("listens", loadBigTimeout)
	wall := time.Since(picked)
	st, _ := os.Stat(listens)
	parseMs := evaluate[string](p, `document.querySelector('[data-table="listens"]').dataset.parseMs`)
	t.Logf("listens.jsonl: %.1f MiB, %d rows: parsed in the engine's worker in %s ms (its own clock); "+
		"picked to summary on the page %.2fs (the test's clock, polling every %v)",
		float64(st.Size())/(1<<20), listenRows, parseMs, wall.Seconds(), pollEvery)
	// The engine reports a table's progress after its first read (at most a block of 4 MiB) and at its end,
	// and every 100 ms between them, so a file of several blocks gets two reports at least however fast it
	// loads. The page folds every report it applies (ui.ProgressFold), whichever a render drew, and the table
	// card carries the fold: that is what the test reads, never the bar.
	fold := progressFold(p, `[data-table="listens"]`)
	checkProgress(t, "listens' load", fold, 2)
	if fold.First >= 1 {
		t.Errorf("listens' first progress report says %v of the file: want the first read's share, below 1", fold.First)
	}
	if fold.Last != 1 {
		t.Errorf("listens' last progress report says %v of the file: want its end's, 1", fold.Last)
	}
	t.Logf("listens' load: %+v", fold)
	v := evaluate[string](p, `document.querySelector('[data-table="listens"]').dataset.read`)
	if read, err := strconv.ParseInt(v, 10, 64); err != nil || read != st.Size() {
		t.Errorf("listens read %q bytes, want the file's %d", v, st.Size())
	}
	// The small tables are typed from every value, and counted; the large one from its first 8 MiB, and its
	// rows estimated from them (a query reads the rest).
	rows := evaluate[[]string](p, `["users", "songs", "listens"].map(n => document.querySelector('[data-table="' + n + '"]').dataset.rows)`)
	if want := []string{strconv.Itoa(genUsers), strconv.Itoa(genSongs)}; !slices.Equal(rows[:2], want) {
		t.Errorf("table rows %q, want %q", rows[:2], want)
	}
	if est, err := strconv.Atoi(strings.TrimPrefix(rows[2], "~")); err != nil || !strings.HasPrefix(rows[2], "~") ||
		est < listenRows*95/100 || est > listenRows*105/100 {
		t.Errorf("listens rows %q: want an estimate within 5%% of %d, led by ~", rows[2], listenRows)
	}
	summary := evaluate[string](p, `document.querySelector('[data-table="listens"] .table-summary').textContent`)
	if !strings.Contains(summary, "5 columns: user_id long, song_id long, ms long, at datetime, client dynamic") ||
		!strings.HasPrefix(summary, "about ") || !strings.Contains(summary, "typed from its first MiBs") {
		t.Errorf("listens summary %q", summary)
	}

	p.setQuery(ownJoinQuery)
	ran := time.Now()
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(loadBigTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	t.Logf("the three-way join over %d listens ran in %.2fs (Run to done on the page)", listenRows, time.Since(ran).Seconds())

	// The same run natively, over the same files.
	tabs := runner.NewTables()
	run := &protocol.Run{Query: ownJoinQuery, Sources: map[string]protocol.Input{}}
	for i, f := range []struct{ name, path, format string }{{"users", users, "csv"}, {"songs", songs, "jsonl"}, {"listens", listens, "jsonl"}} {
		path := f.path
		if _, err := tabs.Load(context.Background(), i+1, f.format, func() (io.Reader, error) { return os.Open(path) }, nil); err != nil {
			t.Fatalf("native load of %s: %v", f.name, err)
		}
		run.Sources[f.name] = protocol.Input{Table: i + 1}
	}
	var cols []string
	var want [][]string
	tabs.Stream(context.Background(), 1, run, func(m protocol.Message) {
		switch m.Type {
		case protocol.MessageStarted:
			cols = m.Columns
		case protocol.MessageBatch:
			if m.Rows != "" {
				want = append(want, protocol.UnpackRows(m.Rows, len(cols))...)
			}
		case protocol.MessageError:
			t.Fatalf("native run: %s", m.Error.Message)
		}
	}, nil)
	if len(want) != genCountries*genGenres {
		t.Fatalf("native result has %d rows, want %d", len(want), genCountries*genGenres)
	}
	if got := evaluate[[][]string](p, domRows); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("rows on the page\n%q\nwant the native engine's\n%q", got, want)
	}

	for _, f := range []string{protocol.DownloadCSV, protocol.DownloadJSONL, protocol.DownloadTrace} {
		name := runner.DownloadName(f)
		p.waitFor("the download buttons", `!document.querySelector("#download-`+f+`").disabled`, runTimeout)
		p.do("download "+f, chromedp.Click(chromedp.CSS("#download-"+f)))
		got := waitDownload(t, p, filepath.Join(downloads, name))
		if f == protocol.DownloadTrace {
			checkTrace(t, got)
			continue
		}
		var native bytes.Buffer
		if err := tabs.Download(context.Background(), run, f, &native); err != nil {
			t.Fatalf("native %s download: %v", f, err)
		}
		if !bytes.Equal(got, native.Bytes()) {
			t.Errorf("%s: downloaded\n%s\nwant the native engine's\n%s", name, got, native.Bytes())
		}
	}
	if note := evaluate[string](p, `document.querySelector("#download-note").textContent`); !strings.HasPrefix(note, "Saved joinlab-trace.jsonl") {
		t.Errorf("download note %q", note)
	}
	if note := evaluate[string](p, `document.querySelector("#share-note").textContent`); !strings.Contains(note, "Your data stayed on this device") {
		t.Errorf("share note %q, want it to say the data stayed on the device", note)
	}

	// A link to the run names the tables; the small starting ones travel inside it, the rest stay here.
	link := evaluate[string](p, `location.href`)
	q := openPlayground(t)
	defer q.screenshot("own-data-link")
	q.do("open the link", chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	q.waitFor("the link's tables", `document.querySelector('[data-table="listens"]') !== null`, loadTimeout)
	q.waitTable("Users")
	for _, name := range []string{"users", "songs", "listens"} {
		if st := evaluate[string](q, fmt.Sprintf(`document.querySelector(%q).dataset.status`, tableCard(name))); st != "missing" {
			t.Errorf("@%s in the opened link: %s, want missing", name, st)
		}
	}
	if n := evaluate[string](q, `document.querySelector("#notice").textContent`); !strings.Contains(n, "stayed on their device: @users, @songs, @listens") {
		t.Errorf("notice %q", n)
	}
	q.checkConsole()
	p.checkConsole()
}

// waitDownload waits until the page says it saved the file at path, then until the browser has written all
// of its bytes (the note's data-bytes), and returns them.
func waitDownload(t *testing.T, p *page, path string) []byte {
	t.Helper()
	p.waitFor("the note that "+filepath.Base(path)+" is saved", fmt.Sprintf(`(() => { const el = document.querySelector("#download-note");
		return el !== null && el.textContent.startsWith(%q); })()`, "Saved "+filepath.Base(path)), runTimeout)
	size, err := strconv.ParseInt(evaluate[string](p, `document.querySelector("#download-note").dataset.bytes`), 10, 64)
	if err != nil {
		t.Fatalf("the download note's size: %v", err)
	}
	for deadline := time.Now().Add(runTimeout); ; {
		if st, err := os.Stat(path); err == nil && st.Size() == size {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(filepath.Dir(path))
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Fatalf("no download %s of %d bytes after %v (the folder holds %q)\n%s", path, size, runTimeout, names, p.state())
		}
		time.Sleep(pollEvery)
	}
}

// checkTrace checks a downloaded trace is JSON lines of events, among them the scans of the three tables.
func checkTrace(t *testing.T, data []byte) {
	t.Helper()
	scanned := map[string]bool{}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	for i, line := range lines {
		var e struct {
			Kind  string         `json:"kind"`
			Attrs map[string]any `json:"attrs"`
		}
		if err := json.Unmarshal(line, &e); err != nil || e.Kind == "" {
			t.Fatalf("trace line %d %.100q: %v", i+1, line, err)
		}
		if e.Kind == string(trace.KindScanRows) {
			src, _ := e.Attrs["source"].(string)
			scanned[src] = true
		}
	}
	for _, name := range []string{"users", "songs", "listens"} {
		if !scanned[name] {
			t.Errorf("the trace (%d events) has no scan of @%s", len(lines), name)
		}
	}
}

// TestOwnDataNamesAndErrors: a table is named from its file; a rename to a name a query cannot write, or
// to another table's, is refused beside the table; a good rename is what the query uses; a malformed line
// is reported beside its table with its line number; a dropped file and a paste become tables too.
func TestOwnDataNamesAndErrors(t *testing.T) {
	dir := t.TempDir()
	clicks := filepath.Join(dir, "my clicks-2024.jsonl")
	bad := filepath.Join(dir, "broken.jsonl")
	files := map[string]string{
		clicks: `{"user_id": 7, "page": "/a"}` + "\n" + `{"user_id": 42, "page": "/b"}` + "\n" + `{"user_id": 7, "page": "/c"}` + "\n",
		bad:    `{"user_id": 1}` + "\n" + `{"user_id": 2}` + "\n" + `{"user_id": 3, "page": }` + "\n" + `{"user_id": 4}` + "\n",
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := openPlayground(t)
	defer p.screenshot("own-data-names-errors")
	p.addFiles(clicks)
	p.waitTable("my_clicks_2024")

	for _, c := range []struct{ name, says string }{
		{"2clicks", "is not a name a query can use"},
		{"Users", "Another table is already named @Users"},
	} {
		p.renameTable("my_clicks_2024", c.name)
		p.waitFor("the refusal of "+c.name, fmt.Sprintf(`(() => { const el = document.querySelector(%q);
			return el !== null && el.textContent.includes(%q); })()`, tableCard("my_clicks_2024")+" .name-error", c.says), runTimeout)
	}
	p.renameTable("my_clicks_2024", "clicks")
	p.waitTable("clicks")
	p.setQuery("@clicks | join kind=inner (@Users) on user_id | summarize n = count() by name | sort by name asc")
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "Done") {
		t.Fatalf("status %q\n%s", s, p.state())
	}
	if got, want := evaluate[[][]string](p, domRows), [][]string{{"Mickey", "2"}, {"Pluto", "1"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("rows %q, want %q", got, want)
	}

	p.addFiles(bad)
	p.waitFor("the parse error of @broken", fmt.Sprintf(`(() => { const el = document.querySelector(%q);
		return el !== null && el.dataset.status === "failed"; })()`, tableCard("broken")), runTimeout)
	sel := tableCard("broken") + " .table-error"
	if line := evaluate[string](p, fmt.Sprintf(`document.querySelector(%q).dataset.line`, sel)); line != "3" {
		t.Errorf("error line %q, want 3", line)
	}
	if msg := evaluate[string](p, fmt.Sprintf(`document.querySelector(%q).textContent`, sel)); !strings.HasPrefix(msg, "line 3: malformed JSON") {
		t.Errorf("error %q, want line 3: malformed JSON", msg)
	}
	// A query over the broken table fails with its error, not with a missing table.
	p.setQuery("@broken | count")
	p.do("click Run", chromedp.Click(chromedp.CSS("#run")))
	if s := p.waitDone(runTimeout); !strings.HasPrefix(s, "The query failed") {
		t.Fatalf("status %q, want a failure\n%s", s, p.state())
	}
	if e := evaluate[string](p, `document.querySelector("#error").textContent`); !strings.Contains(e, "source broken: line 3") {
		t.Errorf("run error %q", e)
	}

	// A file dropped on the drop zone, and a paste.
	evaluate[bool](p, `(() => { const dt = new DataTransfer();
		dt.items.add(new File(["id,score\n1,10\n2,20\n"], "scores.csv", {type: "text/csv"}));
		document.querySelector("#drop-zone").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
		return true; })()`)
	p.waitTable("scores")
	if f := evaluate[string](p, `document.querySelector('[data-table="scores"] .table-format').value`); f != "csv" {
		t.Errorf("dropped CSV's format %q", f)
	}
	p.do("paste a table", chromedp.SetValue(chromedp.CSS("#paste"), `{"a": 1}`+"\n"+`{"a": 2}`), chromedp.Click(chromedp.CSS("#paste-add")))
	p.waitTable("pasted")
	if rows := evaluate[string](p, `document.querySelector('[data-table="pasted"]').dataset.rows`); rows != "2" {
		t.Errorf("pasted table has %s rows, want 2", rows)
	}
	if v := evaluate[string](p, `document.querySelector("#paste").value`); v != "" {
		t.Errorf("the paste box still holds %q", v)
	}
	// A paste of 200 KiB (the 33 KB paste stopped the page) becomes a table at once, never shown.
	evaluate[bool](p, `(() => { const dt = new DataTransfer();
		let text = "id,word\n"; for (let i = 0; text.length < 200 * 1024; i++) text += i + ",word" + i + "\n";
		dt.setData("text/plain", text);
		const box = document.querySelector("#paste"); box.focus();
		box.dispatchEvent(new ClipboardEvent("paste", {clipboardData: dt, bubbles: true, cancelable: true}));
		return true; })()`)
	p.waitTable("pasted2")
	if f := evaluate[string](p, `document.querySelector('[data-table="pasted2"] .table-format').value`); f != "csv" {
		t.Errorf("the large paste's format %q, want csv", f)
	}
	if v := evaluate[string](p, `document.querySelector("#paste").value`); v != "" {
		t.Errorf("the large paste went into the box: %.40q…", v)
	}
	p.checkConsole()
}
