package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/connector/connevent"
	"github.com/joinlab/joinlab/engine/dynfilter"
	"github.com/joinlab/joinlab/engine/dynfilter/dfevent"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/sims/clock"
	"github.com/joinlab/joinlab/sims/dataset"
	"github.com/joinlab/joinlab/sims/profile"
	"github.com/joinlab/joinlab/sims/service"
)

// dynSources are Events (ts, uid, user, id: 300 rows over 97 uids, a few null) and Accounts (uid, user, tier:
// 80 rows, duplicate and null uids, some uids no event has), both behind the teaching profile: 50 rows per
// response, 20 values per IN list, 2 KB of query text, so a filter of the accounts' keys takes several slices.
func dynSources(t *testing.T) map[string]source.Source { return dynSourcesCapped(t, connector.Caps{}) }

// dynSourcesCapped are dynSources with the IN-value, query-byte and concurrency caps of caps where it sets them
// (a negative MaxInValues lifts the value cap, so only bytes cut the slices).
func dynSourcesCapped(t *testing.T, caps connector.Caps) map[string]source.Source {
	t.Helper()
	clk := clock.New()
	mk := func(name string, schema column.Schema, key []connector.OrderKey, fill func(*column.Table)) source.Source {
		tab := column.NewTable(schema)
		fill(tab)
		prof, err := profile.Get("teaching")
		if err != nil {
			t.Fatal(err)
		}
		if caps.MaxInValues != 0 {
			prof.Caps.MaxInValues = max(0, caps.MaxInValues)
		}
		if caps.MaxQueryBytes != 0 {
			prof.Caps.MaxQueryBytes = caps.MaxQueryBytes
		}
		if caps.Concurrent != 0 {
			prof.Caps.Concurrent = caps.Concurrent
		}
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
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	events := mk("Events", column.Schema{{Name: "ts", Type: column.DateTime}, {Name: "uid", Type: column.Long},
		{Name: "user", Type: column.String}, {Name: "id", Type: column.String}},
		[]connector.OrderKey{{Column: "ts", Desc: true}, {Column: "id"}}, func(tab *column.Table) {
			for i := 0; i < 300; i++ {
				tab.Cols[0].AppendInt(base.Add(-time.Duration(i/3) * time.Minute).UnixNano())
				u := (i * 37) % 97
				if i%41 == 0 {
					tab.Cols[1].AppendNull()
					tab.Cols[2].AppendNull()
				} else {
					tab.Cols[1].AppendInt(int64(u * 1000))
					tab.Cols[2].AppendString(fmt.Sprintf("user%02d@corp.example", u))
				}
				tab.Cols[3].AppendString(fmt.Sprintf("e%04d", i))
				tab.N++
			}
		})
	accounts := mk("Accounts", column.Schema{{Name: "uid", Type: column.Long}, {Name: "user", Type: column.String},
		{Name: "tier", Type: column.String}}, []connector.OrderKey{{Column: "tier"}}, func(tab *column.Table) {
		for i := 0; i < 80; i++ {
			u := (i * 3) % 120 // uids past 96 have no event
			if i%17 == 5 {
				tab.Cols[0].AppendNull()
				tab.Cols[1].AppendNull()
			} else {
				tab.Cols[0].AppendInt(int64(u * 1000))
				tab.Cols[1].AppendString(fmt.Sprintf("user%02d@corp.example", u))
			}
			tab.Cols[2].AppendString(fmt.Sprintf("t%03d", i))
			tab.N++
		}
	})
	return map[string]source.Source{"Events": events, "Accounts": accounts}
}

// tableRowsSorted renders a table's rows, sorted, for comparing results whose order the strategies choose.
func tableRowsSorted(tab *column.Table) []string {
	out := make([]string, tab.N)
	for i := range out {
		var b strings.Builder
		for _, c := range tab.Cols {
			fmt.Fprintf(&b, "%v|", c.Value(i))
		}
		out[i] = b.String()
	}
	sort.Strings(out)
	return out
}

// filterEvents returns the dynamic_filter events of a recorded run.
func filterEvents(rec *trace.Recorder) []trace.Event {
	var out []trace.Event
	for _, e := range rec.Events() {
		if e.Kind() == dfevent.KindApplied {
			out = append(out, e)
		}
	}
	return out
}

// byteCap is the query-byte cap of TestDynamicFilterOracle's second run, with no value cap: bytes alone cut the
// IN lists, and eight ranges of uid no longer fit.
const byteCap = 450

// TestDynamicFilterOracle runs every join kind over two connector sources with the hash join (which builds
// Accounts, the smaller side, and probes Events) and the Grace join (which reads its left side first and
// filters the right) and the salted join (which routes its spread side first and filters the expanded one),
// with Events on either side, and checks the rows equal the nested loop's. The filter appears exactly for the kinds that drop no needed
// probe row, on the long key (uid) and the string key (user), with the IN set's threshold at the default
// (IN slices under the 20-value cap) and lowered to 10 (ranges for uid, min/max for user), then again under
// byteCap alone; every slice fits the caps.
func TestDynamicFilterOracle(t *testing.T) {
	kinds := []string{"innerunique", "inner", "leftouter", "rightouter", "fullouter", "leftsemi", "leftanti", "rightsemi", "rightanti"}
	for _, caps := range []connector.Caps{{}, {MaxInValues: -1, MaxQueryBytes: byteCap}} {
		for _, maxDistinct := range []int{0, 10} {
			for _, key := range []string{"uid", "user"} {
				for _, eventsLeft := range []bool{true, false} {
					for _, strategy := range []string{"hash", "grace", "salted"} {
						for _, kind := range kinds {
							name := fmt.Sprintf("bytes%d/max%d/%s/eventsLeft=%v/%s/%s", caps.MaxQueryBytes, maxDistinct, key, eventsLeft, strategy, kind)
							t.Run(name, func(t *testing.T) {
								dynFilterMaxDistinct = maxDistinct
								defer func() { dynFilterMaxDistinct = 0 }()
								l, r := "Events", "Accounts"
								if !eventsLeft {
									l, r = r, l
								}
								q := fmt.Sprintf("@%s | join kind=%s hint.strategy=%%s (@%s) on %s", l, kind, r, key)
								want, _ := runRows(t, buildPlan(t, fmt.Sprintf(q, "nestedloop"), dynSourcesCapped(t, caps)))
								rec := &trace.Recorder{}
								p := buildPlan(t, fmt.Sprintf(q, strategy), dynSourcesCapped(t, caps))
								got, details := runTraced(t, p, rec)
								if g, w := tableRowsSorted(got), tableRowsSorted(want); strings.Join(g, "\n") != strings.Join(w, "\n") {
									t.Fatalf("%s with dynamic filter: %d rows, nested loop: %d\nexplain:\n%s", strategy, len(g), len(w), p.Explain())
								}
								k, ok := join.ParseKind(kind)
								if !ok {
									t.Fatalf("unknown kind %s", kind)
								}
								// Accounts (80 rows) is the smaller side, which the hash join builds; Grace reads the left first.
								buildLeft := !eventsLeft
								switch strategy {
								case "grace":
									buildLeft = true
								case "salted":
									sp, err := saltPlanOf(p.root.(*joinNode).jp, false)
									if err != nil {
										t.Fatal(err)
									}
									buildLeft = sp.SpreadLeft
								}
								buildAccounts := buildLeft != eventsLeft
								filtered := join.ProbeMayBeFiltered(k, buildLeft)
								evs := filterEvents(rec)
								if !filtered {
									if len(evs) != 0 || strings.Contains(p.Explain(), "dynamic filter") {
										t.Fatalf("the probe side is preserved, yet a dynamic filter ran: %v", evs)
									}
									return
								}
								if len(evs) != 1 || !strings.Contains(p.Explain(), "dynamic filter on "+key) {
									t.Fatalf("want one dynamic filter on %s, got %v; explain:\n%s", key, evs, p.Explain())
								}
								a := evs[0].Payload.(dfevent.Applied)
								wantForm := "in"
								if maxDistinct > 0 {
									wantForm = map[string]string{"uid": "ranges", "user": "minmax"}[key]
									if caps.MaxQueryBytes == byteCap && key == "uid" && buildAccounts {
										wantForm = "minmax" // eight ranges over the longer Events request are over the byte cap
									}
								}
								if a.Form != wantForm || (buildAccounts && a.Keys != 40) {
									t.Fatalf("filter %v: want form %s over the accounts' 40 distinct keys", a, wantForm)
								}
								if wantForm != "in" && !strings.Contains(a.Why, "over the 10 an IN set carries") {
									t.Fatalf("a compacted filter does not say why: %v", a)
								}
								if key == "uid" && wantForm == "minmax" && !strings.Contains(a.Why, "the ranges are over the query cap") {
									t.Fatalf("uid fell back to min/max without saying the ranges did not fit: %v", a)
								}
								slices := a.Slices
								if wantForm == "in" && slices < 2 {
									t.Fatalf("40 keys under the caps in %d slice(s)", slices)
								}
								for i, v := range a.SliceValues {
									if mv := a.MaxValues; (mv > 0 && v > mv) || a.SliceBytes[i] > a.MaxBytes {
										t.Fatalf("slice %d over the caps: %v", i, a)
									}
								}
								if n := details[dynfilter.DetailSlices]; n != int64(slices) {
									t.Fatalf("%v slices scanned, %d cut", n, slices)
								}
								for _, e := range rec.Events() {
									if s, ok := e.Payload.(connevent.RequestSent); ok && s.QueryBytes > s.MaxQueryBytes {
										t.Fatalf("a request over the cap: %+v", s)
									}
								}
							})
						}
					}
				}
			}
		}
	}
}

// TestDynamicFilterExplainGolden checks explain after a run, which names the filter the run made, for each of
// the filter's forms, against testdata/dynfilter.txt (format in its header; -update rewrites it).
func TestDynamicFilterExplainGolden(t *testing.T) {
	path := filepath.Join("testdata", "dynfilter.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	header, cases := parseGolden(string(data))
	var out strings.Builder
	out.WriteString(header)
	for _, c := range cases {
		var maxDistinct int
		var q string
		if _, err := fmt.Sscanf(c.query, "max_distinct=%d", &maxDistinct); err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		q = c.query[strings.Index(c.query, " ")+1:]
		dynFilterMaxDistinct = maxDistinct
		p := buildPlan(t, q, dynSources(t))
		runRows(t, p)
		got := p.Explain()
		dynFilterMaxDistinct = 0
		if !*update && got != c.want {
			t.Errorf("query: %s\ngot:\n%s\nwant:\n%s", c.query, got, c.want)
		}
		out.WriteString("query: " + c.query + "\n" + got + "----\n")
	}
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
