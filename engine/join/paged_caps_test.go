package join

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/engine/trace"
)

// textLog records the rendered text of every request sent to the connector it wraps.
type textLog struct {
	*memConn
	texts []string
}

func (c *textLog) Query(ctx context.Context, req connector.Request) (connector.Page, error) {
	text, err := c.Render(req)
	if err != nil {
		return connector.Page{}, err
	}
	c.texts = append(c.texts, text)
	return c.memConn.Query(ctx, req)
}

var aloneBytes = regexp.MustCompile(`alone makes a (\d+)-byte query`)

// capSweepRun joins logs with a detections table behind a probe capped at queryBytes of rendered text and four
// rows per response, so probe slices continue with a keyset cursor; it returns the rows, the error, the texts
// sent to the probe and how many slices were cut after a cursor was known (the slices counted beyond those
// the traced first splits made).
func capSweepRun(t *testing.T, c pagedCase, queryBytes int) ([]string, error, []string, int64) {
	t.Helper()
	c.detCaps = connector.Caps{MaxRows: 4, MaxQueryBytes: queryBytes}
	spec, err := NewSpec(Inner, logSchema, detSchema, []int{1}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	l, r, _, rc := c.remotes()
	log := &textLog{memConn: rc}
	r.Conn = log
	rec := &trace.Recorder{}
	env := exec.NewEnv(memory.NewBudget(0), rec)
	cfg := PagedConfig{PagedLeft: true, Limit: -1, FirstPage: 40, FixedPage: true, Sort: []SortColumn{{Column: "ts", Desc: true}}}
	op, err := NewPaged(spec, l, r, cfg, env)
	got, err := runPaged(t, op, err)
	resplit := env.Details.Int(DetailFilterSlices)
	for _, e := range rec.Events() {
		if f, ok := e.Payload.(joinevent.FilterSplit); ok {
			resplit -= int64(f.Slices)
		}
	}
	return got, err, log.texts, resplit
}

// TestPagedQueryCapSweep sweeps the probe's query-byte cap: the smallest cap that holds one key plus a
// continuation cursor succeeds, the cap just below it is refused by naming exactly that request's size, and
// from there up every run equals the oracle and every request sent fits the cap. The continuation's cursor
// is measured when it is known, so some caps split a slice again mid-way (more slices than the first split).
func TestPagedQueryCapSweep(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 4))
	logs := logTable(genLogs(r, 120, 9))
	var dets []string
	for i := 0; i < 40; i++ {
		dets = append(dets, fmt.Sprintf("u%02d", r.IntN(10)))
	}
	c := pagedCase{logs: logs, dets: detTable(dets...)}
	spec, err := NewSpec(Inner, logSchema, detSchema, []int{1}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	want := oracle(t, spec, c)

	lowest := 0
	for queryBytes := 1; queryBytes < 4096 && lowest == 0; queryBytes++ {
		if _, err, _, _ := capSweepRun(t, c, queryBytes); err == nil {
			lowest = queryBytes
		}
	}
	if lowest == 0 {
		t.Fatal("no cap under 4096 bytes lets the join run")
	}
	t.Logf("the smallest cap that runs: %d bytes", lowest)
	_, err, texts, _ := capSweepRun(t, c, lowest-1)
	var refused *connector.FilterTooLargeError
	if errors.As(err, &refused) {
		t.Fatalf("cap %d: a request over the cap was sent: %v", lowest-1, err)
	}
	m := aloneBytes.FindStringSubmatch(fmt.Sprint(err))
	if m == nil {
		t.Fatalf("cap %d: want a one-key refusal, got %v", lowest-1, err)
	}
	if n, _ := strconv.Atoi(m[1]); n != lowest {
		t.Fatalf("cap %d refused a %d-byte request, but %d bytes is the smallest cap that runs: a request that fits was refused (%v)", lowest-1, n, lowest, err)
	}
	for _, text := range texts {
		if len(text) >= lowest {
			t.Fatalf("cap %d: sent %d bytes: %s", lowest-1, len(text), text)
		}
	}

	resplit := false
	for queryBytes := lowest; queryBytes <= lowest+600; queryBytes++ {
		got, err, texts, again := capSweepRun(t, c, queryBytes)
		if err != nil {
			t.Fatalf("cap %d (≥ the smallest that runs, %d): %v", queryBytes, lowest, err)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("cap %d: got %d rows, want %d", queryBytes, len(got), len(want))
		}
		cursors := 0
		for _, text := range texts {
			if len(text) > queryBytes {
				t.Fatalf("cap %d: sent %d bytes: %s", queryBytes, len(text), text)
			}
			if strings.Contains(text, "(det) >") {
				cursors++
			}
		}
		if cursors == 0 {
			t.Fatalf("cap %d: no probe request continued with a cursor: the sweep does not test the cursor clause", queryBytes)
		}
		resplit = resplit || again > 0
	}
	if !resplit {
		t.Fatal("no cap split a slice again after its cursor was known")
	}
}
