package plan

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/expr"
)

// engineCondQuery joins Logs and Dets with a condition on each side that their connectors cannot compute (a
// string operator), besides one Logs can (id > "e0005"), under kind %s and hint %s.
const engineCondQuery = `@Logs | where id > "e0005" and not(id endswith "3") | join kind=%s %s(@Dets | where tactic contains "a") on $left.user == $right.user_name`

// rowMultiset renders t's rows, sorted: the multiset of rows, whatever their order.
func rowMultiset(t *column.Table) []string {
	out := make([]string, t.N)
	for r := 0; r < t.N; r++ {
		var parts []string
		for _, c := range t.Cols {
			if c == nil || c.IsNull(r) {
				parts = append(parts, "∅")
				continue
			}
			parts = append(parts, expr.ToString(c.Value(r)))
		}
		out[r] = strings.Join(parts, "|")
	}
	sort.Strings(out)
	return out
}

// TestPagedEngineCondsPlanned: conditions the connectors cannot compute no longer keep the paged join away —
// chosen unforced, or forced — and explain names the split: what each side pushed, what the engine applies,
// and the column the thin page carries for it. The rows are the hash join's, for every kind served, with and
// without take; the details count the thin rows the condition dropped. A baseline still refuses them.
func TestPagedEngineCondsPlanned(t *testing.T) {
	srcs := pagedSources(t, 60, 50)
	for _, kind := range []string{"inner", "leftsemi", "leftouter", "leftanti", "rightouter", "fullouter", "rightanti"} {
		for _, hint := range []string{"", "hint.strategy=paged "} {
			p := buildPlan(t, fmt.Sprintf(engineCondQuery, kind, hint), srcs)
			ex := p.Explain()
			for _, want := range []string{"paged join kind=" + kind, `@Logs pushed id > "e0005", in the engine `, `endswith "3"`,
				"the thin page carries [id] for it", `@Dets pushed nothing, in the engine (tactic contains "a") (each probe answer filtered)`} {
				if !strings.Contains(ex, want) {
					t.Errorf("%s %s: explain lacks %q:\n%s", kind, hint, want, ex)
				}
			}
			got, details := runRows(t, p)
			want, _ := runRows(t, buildPlan(t, fmt.Sprintf(engineCondQuery, kind, "hint.strategy=hash "), srcs))
			if g, w := rowMultiset(got), rowMultiset(want); strings.Join(g, "\n") != strings.Join(w, "\n") || (len(g) == 0 && kind != "rightanti") {
				t.Errorf("%s %s: paged %d rows, hash %d:\npaged:\n%s\nhash:\n%s", kind, hint, len(g), len(w), strings.Join(g, "\n"), strings.Join(w, "\n"))
			}
			if d, _ := details["engine_dropped"].(int64); d == 0 {
				t.Errorf("%s %s: details count no thin row dropped by the condition: %v", kind, hint, details)
			}
		}
	}
	// Under take the paged join stops early, and its first rows are the hash join's in the query's order.
	q := fmt.Sprintf(engineCondQuery, "inner", "")
	got, _ := runRows(t, buildPlan(t, q+" | sort by ts desc | take 7", srcs))
	want, _ := runRows(t, buildPlan(t, fmt.Sprintf(engineCondQuery, "inner", "hint.strategy=hash ")+" | sort by ts desc, user asc | take 7", srcs))
	if g, w := rowMultiset(got), rowMultiset(want); got.N != 7 || strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("take 7: paged %d rows %q, hash %q", got.N, g, w)
	}
	err := buildErr(t, fmt.Sprintf(engineCondQuery, "inner", "hint.strategy=fetchall "), srcs)
	if err == nil || !strings.Contains(err.Error(), `fetchall needs every condition on the left side pushed to its connector; "not((id endswith \"3\"))" cannot be (only the paged join applies conditions in the engine)`) {
		t.Errorf("fetchall with an engine condition: %v, want the refusal", err)
	}
}
