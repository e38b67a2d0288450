package plan

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/source"
)

// intervalSources: windows W(k, s, e, w) and states S(k, ts, st), the states partitioned by time in tens.
func intervalSources(t *testing.T) map[string]source.Source {
	t.Helper()
	w := column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "s", Type: column.Long}, {Name: "e", Type: column.Long}, {Name: "w", Type: column.String}})
	for _, r := range []struct {
		k, s, e int64
		w       string
	}{{1, 5, 15, "a"}, {1, 20, 20, "b"}, {2, 0, 3, "c"}, {3, 0, 100, "d"}} {
		w.Cols[0].AppendInt(r.k)
		w.Cols[1].AppendInt(r.s)
		w.Cols[2].AppendInt(r.e)
		w.Cols[3].AppendString(r.w)
		w.N++
	}
	var parts []source.Partition
	for p := int64(0); p < 4; p++ {
		parts = append(parts, source.Partition{Lo: p * 10, Hi: p*10 + 9, Table: column.NewTable(column.Schema{{Name: "k", Type: column.Long}, {Name: "ts", Type: column.Long}, {Name: "st", Type: column.String}})})
	}
	for _, r := range []struct {
		k, ts int64
		st    string
	}{{1, 0, "INIT"}, {1, 10, "ENC"}, {1, 20, "WAIT"}, {2, 3, "INIT"}, {2, 31, "ENC"}} {
		tab := parts[r.ts/10].Table
		tab.Cols[0].AppendInt(r.k)
		tab.Cols[1].AppendInt(r.ts)
		tab.Cols[2].AppendString(r.st)
		tab.N++
	}
	s, err := source.NewPartitioned("S", "ts", parts)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]source.Source{"W": source.FromTable("W", w), "S": s}
}

func runQuery(t *testing.T, text string) ([]string, string, map[string]any) {
	t.Helper()
	q, err := kql.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(context.Background(), q, intervalSources(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := exec.NewEnv(memory.NewBudget(0), nil)
	op, err := p.Open(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := exec.Materialize(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for r := 0; r < tab.N; r++ {
		var cells []string
		for _, c := range tab.Cols {
			v := c.Value(r)
			switch {
			case v.Null:
				cells = append(cells, "null")
			case v.Type == column.String:
				cells = append(cells, v.Str)
			default:
				cells = append(cells, strconv.FormatInt(v.Int, 10))
			}
		}
		rows = append(rows, strings.Join(cells, " "))
	}
	return rows, p.Explain(), env.Details.Map()
}

const intervalQuery = `@W | join kind=%s (@S | where ts < 30 | make-intervals ts by k until 30) on k, $left.s < $right.end and $right.start < $left.e`

// TestIntervalJoinPlan runs a small interval join end to end: make-intervals, the sweep chosen for the
// overlap condition, the interval columns kept live for a semi join, and the time partitions pruned.
func TestIntervalJoinPlan(t *testing.T) {
	rows, explain, det := runQuery(t, strings.Replace(intervalQuery, "%s", "inner", 1)+" | project w, st, overlap_start, overlap_end | sort by w asc, overlap_start asc")
	// b is [20, 20]: zero length at WAIT's start, so no exclusive overlap; c [0, 3] meets INIT [3, 30) only at
	// 3; d's key 3 has no states.
	if got, want := strings.Join(rows, "|"), "a INIT 5 10|a ENC 10 15"; got != want {
		t.Errorf("rows %q, want %q", got, want)
	}
	if !strings.Contains(explain, "sweep join kind=inner") || !strings.Contains(explain, "1 pruned by time") {
		t.Errorf("explain lacks the sweep or the pruning:\n%s", explain)
	}
	if det["partitions_pruned"] != int64(1) || det["overlaps"] == nil {
		t.Errorf("details %v", det)
	}
	rows, _, _ = runQuery(t, strings.Replace(intervalQuery, "%s", "leftsemi", 1)+" | project w | sort by w asc")
	if got := strings.Join(rows, "|"); got != "a" {
		t.Errorf("leftsemi rows %q, want a (c's [0, 3] meets INIT [3, 30] only at 3, excluded)", got)
	}
	rows, _, _ = runQuery(t, strings.Replace(intervalQuery, "%s", "leftanti", 1)+" | project w | sort by w asc")
	if got := strings.Join(rows, "|"); got != "b|c|d" {
		t.Errorf("leftanti rows %q, want b|c|d", got)
	}
}

func TestIntervalJoinErrors(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{`@W | join (@S | make-intervals ts by k) on k, $left.s < $right.end and $right.start < $left.e`, "kind=inner"},
		{`@W | join kind=inner hint.strategy=hash (@S | make-intervals ts by k) on k, $left.s < $right.end and $right.start < $left.e`, "only hint.strategy=sweep"},
		{`@W | join kind=inner hint.strategy=sweep (@S) on k`, "needs an overlap condition"},
		{`@W | join kind=inner (@S | make-intervals ts by k) on k, $left.s < $right.end`, "exactly two comparisons"},
		{`@W | join kind=inner (@S | make-intervals ts by k) on $left.s < $right.end and $right.start < $left.e`, "equality key"},
		{`@W | join kind=inner (@S | make-intervals ts by k) on k, $left.w < $right.end and $right.start < $left.e`, "interval bounds"},
		{`@S | make-intervals st by k`, "time column"},
		{`@S | make-intervals ts by k until k`, "constant"},
	} {
		q, err := kql.Parse(tc.query)
		if err == nil {
			_, err = Build(context.Background(), q, intervalSources(t), Options{})
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.query, err, tc.want)
		}
	}
}
