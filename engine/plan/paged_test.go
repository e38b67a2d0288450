package plan

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/sims/clock"
	"github.com/joinlab/joinlab/sims/dataset"
	"github.com/joinlab/joinlab/sims/profile"
	"github.com/joinlab/joinlab/sims/service"
)

// pagedSources are Logs (ts, user, id; logRows rows behind a connector of logMaxRows rows per response) and
// Dets (user_name, tactic; 4 rows, one per user), both on the teaching profile and one virtual clock.
func pagedSources(t *testing.T, logRows, logMaxRows int) map[string]source.Source {
	t.Helper()
	clk := clock.New()
	mk := func(name string, schema column.Schema, key []connector.OrderKey, maxRows int, fill func(*column.Table)) source.Source {
		tab := column.NewTable(schema)
		fill(tab)
		prof, err := profile.Get("teaching")
		if err != nil {
			t.Fatal(err)
		}
		prof.Caps.MaxRows = maxRows
		info := connector.TableInfo{Name: name, Schema: schema, Rows: int64(tab.N), Key: key}
		svc, err := service.New(prof, clk, 1, dataset.NewMemTable(info, tab))
		if err != nil {
			t.Fatal(err)
		}
		src, err := connector.NewSource(name, svc, info, connector.Options{Clock: clk, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	users := []string{"ana", "bob", "carl", "dan"}
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	logs := mk("Logs", column.Schema{{Name: "ts", Type: column.DateTime}, {Name: "user", Type: column.String}, {Name: "id", Type: column.String}},
		[]connector.OrderKey{{Column: "ts", Desc: true}, {Column: "user"}, {Column: "id"}}, logMaxRows, func(tab *column.Table) {
			for i := 0; i < logRows; i++ {
				tab.Cols[0].AppendInt(base.Add(-time.Duration(i/3) * time.Minute).UnixNano()) // ties of 3
				tab.Cols[1].AppendString(users[i%len(users)])
				tab.Cols[2].AppendString(fmt.Sprintf("e%04d", i))
				tab.N++
			}
		})
	dets := mk("Dets", column.Schema{{Name: "user_name", Type: column.String}, {Name: "tactic", Type: column.String}},
		[]connector.OrderKey{{Column: "user_name"}}, 50, func(tab *column.Table) {
			for _, u := range users {
				tab.Cols[0].AppendString(u)
				tab.Cols[1].AppendString("t-" + u)
				tab.N++
			}
		})
	return map[string]source.Source{"Logs": logs, "Dets": dets}
}

func buildErr(t *testing.T, q string, srcs map[string]source.Source) error {
	t.Helper()
	parsed, err := kql.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(context.Background(), parsed, srcs, Options{})
	return err
}

func runRows(t *testing.T, p *Plan) (*column.Table, map[string]any) {
	t.Helper()
	return runTraced(t, p, nil)
}

// runTraced runs p to the end with its events sent to sink, and returns its rows and details.
func runTraced(t *testing.T, p *Plan, sink trace.Sink) (*column.Table, map[string]any) {
	t.Helper()
	env := exec.NewEnv(memory.NewBudget(0), sink)
	op, err := p.Open(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := exec.Materialize(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	return tab, env.Details.Map()
}

const pagedJoinQuery = "@Logs | join kind=inner %s(@Dets) on $left.user == $right.user_name"

// TestPagedChosenWhenOneRequestCannot: the paged join is chosen, unforced, exactly when the connector side holds
// more rows than one response may carry, and explain says why; below the cap the hash join runs.
func TestPagedChosenWhenOneRequestCannot(t *testing.T) {
	for _, c := range []struct {
		rows, maxRows int
		want          string
	}{{60, 50, "paged join"}, {50, 50, "hash join"}, {40, 50, "hash join"}} {
		p := buildPlan(t, fmt.Sprintf(pagedJoinQuery, ""), pagedSources(t, c.rows, c.maxRows))
		ex := p.Explain()
		if !strings.Contains(ex, c.want) {
			t.Errorf("%d rows under a %d-row cap: want %s, explain:\n%s", c.rows, c.maxRows, c.want, ex)
		}
		if c.want == "paged join" && !strings.Contains(ex, "@Logs holds 60 rows, over the 50 one response may carry") {
			t.Errorf("explain does not say why paged was chosen:\n%s", ex)
		}
		tab, _ := runRows(t, p)
		if tab.N != c.rows {
			t.Errorf("%d rows joined with one detection each: %d out", c.rows, tab.N)
		}
	}
}

// TestPagedForcedBaselines: every baseline is forced by name (quoted when it has a dash), labelled in explain,
// and never chosen unforced.
func TestPagedForcedBaselines(t *testing.T) {
	srcs := pagedSources(t, 12, 50)
	for name, label := range map[string]string{"fetchall": "BASELINE (limited)", "timewindow": "BASELINE (limited)",
		"distinctkeys": "BASELINE (wrong order)", "keyset-lt": "BASELINE (wrong: loses rows)",
		"keyset-le": "BASELINE (wrong: repeats rows, stalls)", "paged": "thin keyset pages"} {
		p := buildPlan(t, fmt.Sprintf(pagedJoinQuery+" | sort by ts desc", fmt.Sprintf("hint.strategy=%q ", name)), srcs)
		ex := p.Explain()
		if !strings.Contains(ex, name+" join") || !strings.Contains(ex, label) || !strings.Contains(ex, "forced by hint.strategy="+name) {
			t.Errorf("%s: explain lacks its name, label or reason:\n%s", name, ex)
		}
		if d := strategies[Strategy(name)]; d.Baseline == (name == "paged") {
			t.Errorf("%s: Baseline %v", name, d.Baseline)
		}
	}
}

// TestPagedRefusedKindsArePositioned: kinds the family cannot serve, and a join that is not over two connector
// sources, are errors at the hint, with the reason.
func TestPagedRefusedKindsArePositioned(t *testing.T) {
	srcs := pagedSources(t, 12, 50)
	for _, c := range []struct{ q, want string }{
		{"@Logs | join kind=innerunique hint.strategy=paged (@Dets) on $left.user == $right.user_name",
			`1:31: hint.strategy=paged cannot run this join: paged serves kinds inner, leftsemi, leftouter, leftanti, rightouter, fullouter, rightanti when the left side is paged, not innerunique: the others output a row once`},
		{"@Logs | join kind=rightsemi hint.strategy=paged (@Dets) on $left.user == $right.user_name",
			`1:29: hint.strategy=paged cannot run this join: paged serves kinds inner, leftsemi, leftouter, leftanti, rightouter, fullouter, rightanti when the left side is paged, not rightsemi`},
		{"@Logs | join kind=leftanti hint.strategy=\"keyset-lt\" (@Dets) on $left.user == $right.user_name",
			`1:28: hint.strategy=keyset-lt cannot run this join: keyset-lt serves kinds inner, leftsemi when the left side is paged, not leftanti: a baseline pages keyed rows only`},
		{"@Logs | join kind=inner hint.strategy=paged (@Dets | extend u = strcat(user_name, \"\")) on $left.user == $right.u",
			`1:25: hint.strategy=paged cannot run this join: paged needs both sides to be connector sources`},
		{"@Logs | join kind=inner hint.strategy=paged (@Dets) on $left.user == $right.user_name, $left.id == $right.tactic",
			`1:25: hint.strategy=paged cannot run this join: paged needs exactly one key pair`},
	} {
		err := buildErr(t, c.q, srcs)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s…", c.q, err, c.want)
		}
	}
}

// TestPagedRewriteTakesSortAndTake: `sort by ts desc | take N` over a paged join goes into the join — the sort
// node is gone from the plan, explain says the take stops paging — and the rows are the hash join's, in order.
func TestPagedRewriteTakesSortAndTake(t *testing.T) {
	srcs := pagedSources(t, 60, 50)
	p := buildPlan(t, fmt.Sprintf(pagedJoinQuery, "")+" | sort by ts desc | take 7", srcs)
	ex := p.Explain()
	_, physical, _ := strings.Cut(ex, "physical plan")
	if strings.Contains(physical, "\n  sort") {
		t.Errorf("the sort is still above the join:\n%s", ex)
	}
	for _, want := range []string{"the sort above removed", "stops after 7 rows", "output in the query's order (ts desc"} {
		if !strings.Contains(ex, want) {
			t.Errorf("explain lacks %q:\n%s", want, ex)
		}
	}
	got, details := runRows(t, p)
	want, _ := runRows(t, buildPlan(t, fmt.Sprintf(pagedJoinQuery, "hint.strategy=hash ")+" | sort by ts desc, user asc | take 7", srcs))
	if got.N != 7 || want.N != 7 {
		t.Fatalf("take 7: paged %d rows, hash %d", got.N, want.N)
	}
	for i := 0; i < 7; i++ {
		for c := range got.Cols {
			if g, w := got.Cols[c].Value(i), want.Cols[c].Value(i); g != w {
				t.Fatalf("row %d column %s: paged %v, hash %v", i, got.Schema[c].Name, g, w)
			}
		}
	}
	if details["paged_strategy"] != "paged" {
		t.Errorf("details: %v", details)
	}
	// A sort the join cannot follow (a column of the other side) stays above it.
	ex = buildPlan(t, fmt.Sprintf(pagedJoinQuery, "")+" | sort by tactic desc | take 7", srcs).Explain()
	if !strings.Contains(ex, "top 7 by tactic") && !strings.Contains(ex, "sort by tactic") {
		t.Errorf("a sort on the probe side's column was removed:\n%s", ex)
	}
}

// TestPagedPageRows: hint.page_rows fixes every page (explain and details show it), is validated against the
// paged connector's cap with an error at the parameter, and is refused on a join no paged strategy runs.
func TestPagedPageRows(t *testing.T) {
	srcs := pagedSources(t, 12, 50)
	p := buildPlan(t, fmt.Sprintf(pagedJoinQuery, "hint.strategy=paged hint.page_rows=5 ")+" | sort by ts desc", srcs)
	if ex := p.Explain(); !strings.Contains(ex, "pages of 5 rows (hint.page_rows)") {
		t.Errorf("explain:\n%s", ex)
	}
	tab, details := runRows(t, p)
	if tab.N != 12 || fmt.Sprint(details["page_sizes"]) != "[5 5 5]" {
		t.Errorf("12 rows in pages of 5: %d rows, page_sizes %v", tab.N, details["page_sizes"])
	}
	for _, c := range []struct{ q, want string }{
		{"hint.strategy=paged hint.page_rows=50 ", "1:45: hint.page_rows=50: want a whole number of rows in 1…49 (@Logs's 50 rows per response less the one row"},
		{"hint.strategy=\"keyset-lt\" hint.page_rows=51 ", "1:51: hint.page_rows=51: want a whole number of rows in 1…50 (@Logs's 50 rows per response)"},
		{"hint.page_rows=0 hint.strategy=paged ", "1:25: hint.page_rows=0: want a whole number of rows in 1…49"},
		{"hint.page_rows=many ", "1:25: hint.page_rows=many: want a whole number"},
		{"hint.strategy=hash hint.page_rows=5 ", "1:44: hint.page_rows is a setting of the distinctkeys, fetchall, keyset-le, keyset-lt, paged, timewindow strategy; this join runs hash"},
	} {
		err := buildErr(t, fmt.Sprintf(pagedJoinQuery, c.q), srcs)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s…", c.q, err, c.want)
		}
	}
	err := buildErr(t, fmt.Sprintf(pagedJoinQuery, "hint.strategy=paged hint.first_page=fat "), srcs)
	if err == nil || !strings.Contains(err.Error(), "hint.first_page=fat: want wide (the default) or thin") {
		t.Errorf("bad first page: %v", err)
	}
	// Unforced: a bad value is reported, not a reason to pick another strategy.
	err = buildErr(t, fmt.Sprintf(pagedJoinQuery, "hint.page_rows=0 "), pagedSources(t, 60, 50))
	if err == nil || !strings.Contains(err.Error(), "hint.page_rows=0") {
		t.Errorf("unforced bad page size: %v", err)
	}
}

// TestPagedFirstPage: by default the first page is read at full width and answers its own re-fetch (no
// refetch request); hint.first_page=thin reads it thin and re-fetches, as every later page; the rows are the
// same. A value other than wide or thin is an error at the parameter (TestPagedPageRows' table).
func TestPagedFirstPage(t *testing.T) {
	srcs := pagedSources(t, 12, 50)
	run := func(hint string) (string, map[string]int, string) {
		p := buildPlan(t, fmt.Sprintf(pagedJoinQuery, "hint.strategy=paged "+hint)+" | sort by ts desc", srcs)
		rec := &trace.Recorder{}
		tab, _ := runTraced(t, p, rec)
		sent := map[string]int{}
		for _, e := range rec.Events() {
			if s, ok := e.Payload.(connevent.RequestSent); ok {
				sent[s.Purpose]++
			}
		}
		return rowsText(tab), sent, p.Explain()
	}
	wideRows, wide, _ := run("")
	thinRows, thin, ex := run("hint.first_page=thin ")
	if wideRows != thinRows || wideRows == "" {
		t.Errorf("wide and thin first pages give different rows:\n%s\nagainst\n%s", wideRows, thinRows)
	}
	// Both read one more thin page: the null-sort phase's, empty.
	if wide["wide"] != 1 || wide["thin"] != 1 || wide["refetch"] != 0 {
		t.Errorf("default first page: requests by purpose %v, want one wide page, the null phase's thin page, no refetch", wide)
	}
	if thin["wide"] != 0 || thin["thin"] != 2 || thin["refetch"] == 0 {
		t.Errorf("hint.first_page=thin: requests by purpose %v, want two thin pages and a refetch", thin)
	}
	if !strings.Contains(ex, "the first page thin (hint.first_page)") {
		t.Errorf("explain does not say the first page is thin:\n%s", ex)
	}
}

// TestPagedRewriteTakesTwoColumnSort: a sort over two columns of the paged side goes into the join when the
// second is the join key (never a null phase: null keys never match), and the rows are the hash join's, in
// order; so is one whose second column may hold nulls (id: Logs declares no column never null; see
// TestPagedRewriteTakesNullableLaterColumn for one that holds them).
func TestPagedRewriteTakesTwoColumnSort(t *testing.T) {
	srcs := pagedSources(t, 60, 50)
	q := " | sort by ts desc, user asc | take 7"
	p := buildPlan(t, fmt.Sprintf(pagedJoinQuery, "")+q, srcs)
	ex := p.Explain()
	if !strings.Contains(ex, "output in the query's order (ts desc, user asc, then the key), the sort above removed") {
		t.Errorf("the two-column sort was not handed to the join:\n%s", ex)
	}
	got, _ := runRows(t, p)
	want, _ := runRows(t, buildPlan(t, fmt.Sprintf(pagedJoinQuery, "hint.strategy=hash ")+q, srcs))
	if got.N != 7 || want.N != 7 {
		t.Fatalf("take 7: paged %d rows, hash %d", got.N, want.N)
	}
	for i := 0; i < 7; i++ {
		for c := range got.Cols {
			if g, w := got.Cols[c].Value(i), want.Cols[c].Value(i); g != w {
				t.Fatalf("row %d column %s: paged %v, hash %v", i, got.Schema[c].Name, g, w)
			}
		}
	}
	ex = buildPlan(t, fmt.Sprintf(pagedJoinQuery, "")+" | sort by ts desc, id asc | take 7", srcs).Explain()
	if !strings.Contains(ex, "output in the query's order (ts desc, id asc, then the key), the sort above removed") {
		t.Errorf("a sort with a nullable second column stayed above the join:\n%s", ex)
	}
}

// TestPagedOuterKinds: the outer and anti kinds plan with the paged join (forced, and chosen unforced when
// the paged side cannot come back in one request), and give the hash join's rows. The wheres leave rows
// unmatched on both sides: Logs' bob has no detection, Dets' ana no log. The sort goes into the join, and the
// output follows it, the probe side's unmatched rows (null timestamps) last (rightanti outputs Dets alone:
// no sort).
func TestPagedOuterKinds(t *testing.T) {
	join := `@Logs | where user != "ana" | join kind=%s %s(@Dets | where user_name != "bob") on $left.user == $right.user_name`
	for _, kind := range []string{"leftouter", "leftanti", "rightouter", "fullouter", "rightanti"} {
		q := join + " | sort by ts desc"
		if kind == "rightanti" {
			q = join
		}
		for _, c := range []struct {
			hint         string
			rows, capRow int
		}{{"hint.strategy=paged ", 12, 50}, {"", 60, 50}} {
			srcs := pagedSources(t, c.rows, c.capRow)
			p := buildPlan(t, fmt.Sprintf(q, kind, c.hint), srcs)
			ex := p.Explain()
			if !strings.Contains(ex, "paged join") || (kind != "rightanti" && !strings.Contains(ex, "the sort above removed")) {
				t.Errorf("%s %q: not a paged join with the sort inside:\n%s", kind, c.hint, ex)
			}
			got, _ := runRows(t, p)
			want, _ := runRows(t, buildPlan(t, fmt.Sprintf(q, kind, "hint.strategy=hash "), srcs))
			if g, w := sortedLines(rowsText(got)), sortedLines(rowsText(want)); g != w || got.N == 0 {
				t.Errorf("%s %q: paged rows\n%s\nhash rows\n%s", kind, c.hint, g, w)
			}
			if ts := got.Schema.Index("ts"); ts >= 0 {
				for i := 1; i < got.N; i++ {
					a, b := got.Cols[ts].Value(i-1), got.Cols[ts].Value(i)
					if (a.Null && !b.Null) || (!a.Null && !b.Null && a.Int < b.Int) {
						t.Fatalf("%s %q: row %d (ts %v) after row %d (ts %v): not ts desc, nulls last", kind, c.hint, i, b, i-1, a)
					}
				}
			}
		}
	}
	// Nulls first: the probe side's unmatched rows cannot come first, so the sort stays above the join.
	srcs := pagedSources(t, 12, 50)
	ex := buildPlan(t, fmt.Sprintf(join, "fullouter", "hint.strategy=paged ")+" | sort by ts desc nulls first", srcs).Explain()
	if !strings.Contains(ex, "stays above the join (kind fullouter emits the probe side's unmatched rows") {
		t.Errorf("fullouter with nulls first: the sort was handed to the join:\n%s", ex)
	}
}

func sortedLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
