package plan

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/sims/clock"
	"github.com/joinlab/joinlab/sims/dataset"
	"github.com/joinlab/joinlab/sims/profile"
	"github.com/joinlab/joinlab/sims/service"
)

// nullSevSources are Logs (ts in ties of 6, a severity null in half the rows, four users; Logs declares no
// column never null) and Dets (one detection per user), both behind the teaching profile with logMaxRows rows a
// response. Inside each ts tie group, (sev, user) never repeats, so `ts desc, sev asc, user asc` has no ties.
func nullSevSources(t *testing.T, logRows, logMaxRows int) map[string]source.Source {
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
	sevs := []int64{-1, 2, 1, -1, 1, -1} // by place in the tie group; -1: null
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	logs := mk("Logs", column.Schema{{Name: "ts", Type: column.DateTime}, {Name: "sev", Type: column.Long}, {Name: "user", Type: column.String},
		{Name: "id", Type: column.String}}, []connector.OrderKey{{Column: "id"}}, logMaxRows, func(tab *column.Table) {
		for i := 0; i < logRows; i++ {
			tab.Cols[0].AppendInt(base.Add(-time.Duration(i/6) * time.Minute).UnixNano())
			if s := sevs[i%6]; s < 0 {
				tab.Cols[1].AppendNull()
			} else {
				tab.Cols[1].AppendInt(s)
			}
			tab.Cols[2].AppendString(users[i%len(users)])
			tab.Cols[3].AppendString(fmt.Sprintf("e%04d", i))
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

// TestPagedRewriteTakesNullableLaterColumn: a sort whose second column holds nulls (sev asc: nulls first, as
// KQL's asc puts them) is handed to the paged join, explain says so and that take stops it, and the rows are
// the hash join's, in the same order; with nulls last (desc) too.
func TestPagedRewriteTakesNullableLaterColumn(t *testing.T) {
	srcs := nullSevSources(t, 90, 20)
	for _, c := range []struct{ sort, text string }{
		{"ts desc, sev asc, user asc", "ts desc, sev asc, user asc"},
		{"ts desc, sev desc, user asc", "ts desc, sev desc, user asc"},
		{"sev asc nulls last, ts desc, user asc", "sev asc, ts desc, user asc"},
	} {
		for _, take := range []string{" | take 13", ""} {
			q := fmt.Sprintf(pagedJoinQuery, "") + " | sort by " + c.sort + take
			p := buildPlan(t, q, srcs)
			ex := p.Explain()
			if !strings.Contains(ex, "paged join") || !strings.Contains(ex, "output in the query's order ("+c.text+", then the key), the sort above removed") {
				t.Errorf("%s: the sort was not handed to the paged join:\n%s", q, ex)
			}
			if take != "" && !strings.Contains(ex, "stops after 13 rows") {
				t.Errorf("%s: explain does not say take stops the join:\n%s", q, ex)
			}
			got, _ := runRows(t, p)
			want, _ := runRows(t, buildPlan(t, fmt.Sprintf(pagedJoinQuery, "hint.strategy=hash ")+" | sort by "+c.sort+take, srcs))
			if g, w := rowsText(got), rowsText(want); g != w || got.N == 0 {
				t.Errorf("%s: paged rows\n%s\nhash rows\n%s", q, g, w)
			}
		}
	}
}
