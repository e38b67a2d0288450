package ui

import (
	"strings"
	"testing"
)

// smallOktaJoin is a paged join small enough to draw row by row: the day's last successful sign-ins of
// users with a detection of severity 100, in pages of 8 rows, so a few pages hold its rows.
const smallOktaJoin = `@OktaSystemLogs
| where eventType == "user.session.start" and outcome.result == "SUCCESS" and published >= datetime(2024-05-31T15:00:00Z)
| join kind=inner hint.page_rows=8 (@CrowdStrikeDetections | where severity >= 100) on $left.actor.alternateId == $right.user_name
| project published, user = actor.alternateId, tactic
| sort by published desc`

// TestSmallPagedRunDrawsItsRows runs a small paged join through the real engine, as the page does, and
// checks the rows its view lays out by page: the pages' rows add up to the run's output, in its order, each
// page's cursor is the last sort tuple page_fetched reported for it, and a cut tie group is drawn on its page.
func TestSmallPagedRunDrawsItsRows(t *testing.T) {
	s := compareQuery(t, "okta-crowdstrike-small", smallOktaJoin, "paged", "keyset-lt")
	for _, r := range []*Run{s.Run, s.CompareRun} {
		if r.Status != StatusDone {
			t.Fatalf("%s ended %s: %v", r.Strategy, r.Status, r.Err)
		}
		v := &PagedView{Run: r}
		prs := v.PageRows()
		t.Logf("%s: %d rows out, %d pages, %d page groups drawn", r.Strategy, r.Rows.Len(), len(r.Trace.Paged.Pages), len(prs))
		if r.Rows.Len() == 0 || r.Rows.Len() > smallRows {
			t.Fatalf("%s: %d rows: the query is not a small run any more", r.Strategy, r.Rows.Len())
		}
		if len(prs) < 2 {
			t.Fatalf("%s: %d pages of rows drawn; want the rows over several pages", r.Strategy, len(prs))
		}
		n := 0
		cursors, ties := map[int64]string{}, map[int64]bool{}
		for _, p := range r.Trace.Paged.Pages {
			cursors[int64(p.N)], ties[int64(p.N)] = p.Cursor, p.Tie
		}
		all := r.Rows.Slice(0, r.Rows.Len(), len(r.Columns))
		for _, pr := range prs {
			if pr.First != n+1 {
				t.Errorf("page %d starts at row %d, want %d", pr.Page, pr.First, n+1)
			}
			for i, row := range pr.Rows {
				if strings.Join(row, "|") != strings.Join(all[n+i], "|") {
					t.Errorf("page %d's row %d is %v, the run's row %d is %v", pr.Page, i, row, n+i+1, all[n+i])
				}
			}
			if ties[pr.Page] != (pr.Tie != "") {
				t.Errorf("page %d: tie cut %v in the trace, drawn tuple %q", pr.Page, ties[pr.Page], pr.Tie)
			}
			n += len(pr.Rows)
			if pr.Cursor != cursors[pr.Page] || pr.Cursor == "" {
				t.Errorf("page %d's cursor %q, page_fetched said %q", pr.Page, pr.Cursor, cursors[pr.Page])
			}
		}
		if n != r.Rows.Len() {
			t.Errorf("%d rows drawn on pages, the run has %d", n, r.Rows.Len())
		}
	}
	html, _ := render(t, s)
	checkUniqueIDs(t, html)
	for _, id := range []string{`id="a-paged-rows"`, `id="b-paged-rows"`} {
		if !strings.Contains(html, id) {
			t.Errorf("the page has no %s", id)
		}
	}
	// Scrubbed back to its first event, nothing is out yet: no rows drawn.
	s.SeekTo(1)
	if prs := (&PagedView{Run: s.Run}).PageRows(); prs != nil {
		t.Errorf("at the first event, %d page groups drawn", len(prs))
	}
}
