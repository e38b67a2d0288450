package join

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// outerCase is one generated input of the outer and anti kinds: logs with dense ties (tie groups larger than
// a page), skewed and null keys and null timestamps; detections with duplicates, null users and users absent
// from the logs, or none at all.
type outerCase struct {
	seed uint64
	logs *column.Table
	dets []string
}

func outerCases() []outerCase {
	var cases []outerCase
	for seed := uint64(1); seed <= 7; seed++ {
		r := rand.New(rand.NewPCG(seed, 123))
		n := []int{0, 1, 30, 90, 160, 240, 120}[seed-1]
		logs := logTable(genLogs(r, n, 9))
		var dets []string
		if seed != 7 { // seed 7: an empty probe side
			for i := 0; i < 22; i++ {
				u := fmt.Sprintf("u%02d", r.IntN(14)) // u09…u13 are in no log
				if r.IntN(8) == 0 {
					u = ""
				}
				dets = append(dets, u)
			}
		}
		cases = append(cases, outerCase{seed: seed, logs: logs, dets: dets})
	}
	return cases
}

// outerCaps are the caps the outer cases run under: the first lets the probe overflow its 4-row responses
// (windows, one-key windows under take), the second also makes the paged side answer 6 rows a response, so
// re-fetches of tie groups larger than that continue by keyset and thin pages stay small.
var outerCaps = []struct {
	name      string
	logs, det connector.Caps
}{
	{"caps=probe4", connector.Caps{MaxRows: 50, MaxInValues: 3, MaxQueryBytes: 4096}, connector.Caps{MaxRows: 4, MaxInValues: 2}},
	{"caps=both-small", connector.Caps{MaxRows: 6, MaxInValues: 2, MaxQueryBytes: 4096}, connector.Caps{MaxRows: 3, MaxInValues: 2}},
}

// TestPagedOuterOracle pages Logs (the left side) for the kinds that output unmatched rows — the paged
// side's (leftouter, leftanti: null-extended or alone, page by page, null keys merged in order) and the probe
// side's (rightouter, fullouter, rightanti: after the last page) — against the nested loop: the same rows in
// the same order, the first N of them under take N, over fixed pages of 1, 2 and 7 rows and adaptive ones,
// two sets of small caps, with and without 10% injected faults.
func TestPagedOuterOracle(t *testing.T) {
	for _, oc := range outerCases() {
		for _, kind := range []Kind{LeftOuter, LeftAnti, RightOuter, FullOuter, RightAnti} {
			for _, caps := range outerCaps {
				for _, page := range []int{1, 2, 7, 0} {
					for _, faults := range []float64{0, 0.1} {
						for _, limit := range []int64{-1, 5} {
							name := fmt.Sprintf("seed=%d/rows=%d/dets=%d/%s/%s/page=%d/faults=%g/take=%d", oc.seed, oc.logs.N, len(oc.dets), kind, caps.name, page, faults, limit)
							t.Run(name, func(t *testing.T) {
								c := pagedCase{logs: oc.logs, dets: detTable(oc.dets...), faults: faults, seed: oc.seed, logCaps: caps.logs, detCaps: caps.det}
								spec, err := NewSpec(kind, logSchema, detSchema, []int{1}, []int{0})
								if err != nil {
									t.Fatal(err)
								}
								want := oracle(t, spec, c)
								l, rr, _, _ := c.remotes()
								op, err := NewPaged(spec, l, rr, outerConfig(true, page, limit), exec.NewEnv(memory.NewBudget(0), nil))
								compareOracle(t, op, err, want, limit)
							})
						}
					}
				}
			}
		}
	}
}

// TestPagedRightOuterOracle is TestPagedOuterOracle's mirror: Dets ⋈ Logs with the right side (Logs) paged,
// for rightouter and rightanti (the paged side's) and leftouter, fullouter, leftanti (the probe side's).
func TestPagedRightOuterOracle(t *testing.T) {
	for _, oc := range outerCases() {
		for _, kind := range []Kind{RightOuter, RightAnti, LeftOuter, FullOuter, LeftAnti} {
			for _, caps := range outerCaps {
				for _, page := range []int{1, 7, 0} {
					for _, faults := range []float64{0, 0.1} {
						name := fmt.Sprintf("seed=%d/rows=%d/dets=%d/%s/%s/page=%d/faults=%g", oc.seed, oc.logs.N, len(oc.dets), kind, caps.name, page, faults)
						t.Run(name, func(t *testing.T) {
							c := pagedCase{logs: oc.logs, dets: detTable(oc.dets...), faults: faults, seed: oc.seed, logCaps: caps.logs, detCaps: caps.det}
							spec, err := NewSpec(kind, detSchema, logSchema, []int{0}, []int{1})
							if err != nil {
								t.Fatal(err)
							}
							want := rightOracle(t, spec, c)
							l, rr, _, _ := c.remotes()
							op, err := NewPaged(spec, rr, l, outerConfig(false, page, -1), exec.NewEnv(memory.NewBudget(0), nil))
							compareOracle(t, op, err, want, -1)
						})
					}
				}
			}
		}
	}
}

func outerConfig(pagedLeft bool, page int, limit int64) PagedConfig {
	return PagedConfig{PagedLeft: pagedLeft, Limit: limit, FirstPage: max(page, 1), FixedPage: page > 0,
		Sort: []SortColumn{{Column: "ts", Desc: true}}}
}

// compareOracle runs op and compares its rows, in order, with the oracle's first limit rows (all for -1).
func compareOracle(t *testing.T, op exec.Operator, err error, want []string, limit int64) {
	t.Helper()
	if limit >= 0 && int64(len(want)) > limit {
		want = want[:limit]
	}
	got, err := runPaged(t, op, err)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %d rows, want %d\ngot:\n%s\nwant:\n%s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPagedLeftOuterNullKeysInOrder: the paged side's rows with a null key come out null-extended among the
// others, where the order puts them (after their timestamp's keyed rows), read by one request per null phase.
func TestPagedLeftOuterNullKeysInOrder(t *testing.T) {
	rows := []logRow{{minute(0), "ana"}, {minute(0), ""}, {minute(1), "bob"}, {minute(2), ""}, {minute(2), "ana"}, {-1, ""}, {-1, "bob"}}
	c := pagedCase{logs: logTable(rows), dets: detTable("ana")}
	spec, _ := NewSpec(LeftOuter, logSchema, detSchema, []int{1}, []int{0})
	l, r, lc, _ := c.remotes()
	rec := &trace.Recorder{}
	op, err := NewPaged(spec, l, r, outerConfig(true, 1, -1), exec.NewEnv(memory.NewBudget(0), rec))
	got, err := runPaged(t, op, err)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0m|ana|e000|ana|d000-ana", "0m|∅|e001|∅|∅", "1m|bob|e002|∅|∅", "2m|ana|e004|ana|d000-ana", "2m|∅|e003|∅|∅",
		"∅|bob|e006|∅|∅", "∅|∅|e005|∅|∅"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	nullReads := 0
	for _, e := range rec.Events() {
		if e.Kind() == joinevent.KindNullKeyRows {
			nullReads++
		}
	}
	if nullReads != 2 {
		t.Errorf("%d responses of null-key rows, want 2 (one per null phase of ts)", nullReads)
	}
	_ = lc
}

// TestPagedLeftAntiTakeStops: under take N the anti join stops paging once N rows are out.
func TestPagedLeftAntiTakeStops(t *testing.T) {
	var rows []logRow
	for i := 0; i < 300; i++ {
		rows = append(rows, logRow{minute(i), fmt.Sprintf("u%d", i%7)})
	}
	c := pagedCase{logs: logTable(rows), dets: detTable("u0", "u1", "u2"), logCaps: connector.Caps{MaxRows: 1000}}
	spec, _ := NewSpec(LeftAnti, logSchema, detSchema, []int{1}, []int{0})
	l, r, lc, _ := c.remotes()
	cfg := PagedConfig{PagedLeft: true, Limit: 5, Sort: []SortColumn{{Column: "ts", Desc: true}}}
	op, err := NewPaged(spec, l, r, cfg, exec.NewEnv(memory.NewBudget(0), nil))
	got, err := runPaged(t, op, err)
	if err != nil || len(got) != 5 {
		t.Fatalf("%v, %d rows", err, len(got))
	}
	if want := "3m|u3|e003"; got[0] != want {
		t.Errorf("first row %s, want %s", got[0], want)
	}
	// The first (wide) page of 20 rows (take 5 × pageGrowth) and one request for the phase's null keys.
	if lc.sent > 2 {
		t.Errorf("take 5 sent %d requests to the paged side, want at most 2", lc.sent)
	}
}

// TestPagedMatchedKeysOverBudget: the probe side's unmatched rows need every matched key kept; past the
// budget the join fails with the budget's error, saying why the keys are held.
func TestPagedMatchedKeysOverBudget(t *testing.T) {
	var rows []logRow
	var users []string
	for i := 0; i < 2000; i++ {
		u := fmt.Sprintf("user-%04d", i)
		rows = append(rows, logRow{minute(i), u})
		users = append(users, u)
	}
	c := pagedCase{logs: logTable(rows), dets: detTable(users...)}
	spec, _ := NewSpec(RightOuter, logSchema, detSchema, []int{1}, []int{0})
	l, r, _, _ := c.remotes()
	op, err := NewPaged(spec, l, r, outerConfig(true, 50, -1), exec.NewEnv(memory.NewBudget(64<<10), nil))
	_, err = runPaged(t, op, err)
	var over *memory.ExceededError
	if !errors.As(err, &over) || !strings.Contains(err.Error(), "unmatched rows") {
		t.Fatalf("rightouter over 2,000 keys under a 64 KiB budget: %v, want the budget's error about the kept keys", err)
	}
}

// TestPagedProbeKindsRefuseNullsFirst: a probe side's unmatched rows come last, so an order that puts the
// paged columns' nulls first is refused, by NewPaged and by CheckPagedSort (the planner keeps the sort then).
func TestPagedProbeKindsRefuseNullsFirst(t *testing.T) {
	sort := []SortColumn{{Column: "ts", Desc: true, NullsFirst: true}}
	if err := CheckPagedSort(LeftOuter, true, sort); err != nil {
		t.Errorf("leftouter with the left side paged: %v, want no error (its unmatched rows are the paged side's)", err)
	}
	if err := CheckPagedSort(FullOuter, true, sort); err == nil {
		t.Errorf("fullouter with nulls first: no error")
	}
	c := pagedCase{logs: logTable(anaBob), dets: detTable("ana")}
	spec, _ := NewSpec(RightAnti, logSchema, detSchema, []int{1}, []int{0})
	l, r, _, _ := c.remotes()
	_, err := NewPaged(spec, l, r, PagedConfig{PagedLeft: true, Limit: -1, Sort: sort}, exec.NewEnv(memory.NewBudget(0), nil))
	if err == nil || !strings.Contains(err.Error(), "nulls of ts first") {
		t.Fatalf("rightanti with nulls first: %v", err)
	}
}

// TestPagedBaselinesKeepTheirKinds: the baselines page rows with a key only and keep nothing across pages, so
// they still refuse the outer and anti kinds.
func TestPagedBaselinesKeepTheirKinds(t *testing.T) {
	c := pagedCase{logs: logTable(anaBob), dets: detTable("ana")}
	spec, _ := NewSpec(LeftOuter, logSchema, detSchema, []int{1}, []int{0})
	l, r, _, _ := c.remotes()
	_, err := NewFetchAll(spec, l, r, PagedConfig{PagedLeft: true, Limit: -1}, exec.NewEnv(memory.NewBudget(0), nil))
	if err == nil || !strings.Contains(err.Error(), "not served") {
		t.Fatalf("fetchall leftouter: %v, want not served", err)
	}
}
