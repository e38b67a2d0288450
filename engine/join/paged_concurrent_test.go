package join

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// SetNow makes testClock a connector.LaneClock, so the paged join overlaps requests on it when the caps allow.
func (c *testClock) SetNow(t time.Duration) { c.now = t }

// textLatency is a latency of 50–250 ms drawn from the request's text: the same request takes the same time
// on every run, and the requests of one group end in an order of their own, not the order they were sent.
func textLatency(req connector.Request) time.Duration {
	h := fnv.New64a()
	fmt.Fprint(h, req.Table, req.Columns, req.Where, req.OrderBy, req.Limit)
	return 50*time.Millisecond + time.Duration(h.Sum64()%200)*time.Millisecond
}

// concurrentRun runs one paged join of c, with Logs allowed logConc requests in flight and Dets detConc (or one
// at a time, sequential), and returns the rows, the trace as JSON lines, the trace and the virtual time.
func concurrentRun(t *testing.T, spec *Spec, c pagedCase, cfg PagedConfig, logConc, detConc int, sequential bool) ([]string, string, []trace.Event, time.Duration) {
	t.Helper()
	c.logCaps.Concurrent, c.detCaps.Concurrent = logConc, detConc
	l, r, lc, rc := c.remotes()
	lc.latency, rc.latency = textLatency, textLatency
	rec := &trace.Recorder{}
	cfg.Sequential = sequential
	op, err := NewPaged(spec, l, r, cfg, exec.NewEnv(memory.NewBudget(0), rec))
	got, err := runPaged(t, op, err)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range rec.Events() {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return got, b.String(), rec.Events(), lc.clock.now
}

// TestPagedConcurrentOracle runs the paged join with Logs allowed 2 requests in flight and Dets 3 — a
// window's probe slices (2 keys an IN list) and re-fetch slices (3) overlap — over the oracle's inputs, kinds,
// page sizes, injected throttles and faults and take N, and checks that: the rows are the oracle's, in order;
// they are the rows of the same join run one request at a time, in the same order; a second run gives the same
// trace, byte for byte; no source ever has more requests in flight than it allows; and, over the cases, the
// overlap happened and saved virtual time.
func TestPagedConcurrentOracle(t *testing.T) {
	overlapped, faster := 0, 0
	for seed := uint64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		n := []int{0, 1, 30, 120, 200, 300}[seed-1]
		logs := logTable(genLogs(r, n, 9))
		var dets []string
		for i := 0; i < 25; i++ {
			dets = append(dets, fmt.Sprintf("u%02d", r.IntN(12)))
		}
		for _, kind := range []Kind{Inner, LeftSemi, LeftOuter, RightOuter} {
			for _, page := range []int{1, 7, 0} {
				for _, faults := range []float64{0, 0.1} {
					for _, limit := range []int64{-1, 6} {
						name := fmt.Sprintf("seed=%d/rows=%d/%s/page=%d/faults=%g/take=%d", seed, logs.N, kind, page, faults, limit)
						t.Run(name, func(t *testing.T) {
							c := pagedCase{logs: logs, dets: detTable(dets...), faults: faults, seed: seed,
								logCaps: connector.Caps{MaxRows: 50, MaxInValues: 3, MaxQueryBytes: 4096},
								detCaps: connector.Caps{MaxRows: 4, MaxInValues: 2}}
							spec, err := NewSpec(kind, logSchema, detSchema, []int{1}, []int{0})
							if err != nil {
								t.Fatal(err)
							}
							want := oracle(t, spec, c)
							if limit >= 0 && int64(len(want)) > limit {
								want = want[:limit]
							}
							cfg := outerConfig(true, page, limit)
							got, tr, events, end := concurrentRun(t, spec, c, cfg, 2, 3, false)
							if strings.Join(got, "\n") != strings.Join(want, "\n") {
								t.Fatalf("got %d rows, want %d\ngot:\n%s\nwant:\n%s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
							}
							seq, _, _, seqEnd := concurrentRun(t, spec, c, cfg, 2, 3, true)
							if strings.Join(got, "\n") != strings.Join(seq, "\n") {
								t.Fatalf("concurrent and sequential rows differ:\n%s\n---\n%s", strings.Join(got, "\n"), strings.Join(seq, "\n"))
							}
							again, tr2, _, _ := concurrentRun(t, spec, c, cfg, 2, 3, false)
							if tr2 != tr || strings.Join(again, "\n") != strings.Join(got, "\n") {
								t.Fatalf("a second run differs: traces of %d and %d bytes", len(tr), len(tr2))
							}
							m := connector.MaxInFlight(events)
							if m["Logs"] > 2 || m["Dets"] > 3 {
								t.Fatalf("in flight at once: Logs %d (cap 2), Dets %d (cap 3)", m["Logs"], m["Dets"])
							}
							if m["Logs"] > 1 || m["Dets"] > 1 {
								overlapped++
							}
							if end > seqEnd {
								t.Fatalf("concurrent run took %s of virtual time, the sequential one %s", end, seqEnd)
							}
							if end < seqEnd {
								faster++
							}
						})
					}
				}
			}
		}
	}
	if overlapped == 0 || faster == 0 {
		t.Fatalf("%d cases overlapped requests, %d were faster: the test does not exercise concurrency", overlapped, faster)
	}
}

// With every cap at one request in flight, or with Sequential, the trace is the sequential trace exactly: no
// request overlaps.
func TestPagedConcurrencyOneIsSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 99))
	logs := logTable(genLogs(r, 120, 9))
	c := pagedCase{logs: logs, dets: detTable("u00", "u01", "u02", "u03", "u04", "u05", "u06", "u07"), seed: 4,
		logCaps: connector.Caps{MaxRows: 50, MaxInValues: 3, MaxQueryBytes: 4096}, detCaps: connector.Caps{MaxRows: 4, MaxInValues: 2}}
	spec, err := NewSpec(Inner, logSchema, detSchema, []int{1}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	cfg := outerConfig(true, 0, -1)
	_, one, events, _ := concurrentRun(t, spec, c, cfg, 1, 1, false)
	_, seq, _, _ := concurrentRun(t, spec, c, cfg, 2, 3, true)
	if one != seq {
		t.Fatal("a run with one request in flight differs from the sequential run")
	}
	if m := connector.MaxInFlight(events); m["Logs"] != 1 || m["Dets"] != 1 {
		t.Fatalf("in flight at once: %v, want one per source", m)
	}
}
