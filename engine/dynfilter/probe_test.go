package dynfilter

import (
	"context"
	"fmt"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/memory"
	"github.com/joinlab/joinlab/sims/clock"
	"github.com/joinlab/joinlab/sims/dataset"
	"github.com/joinlab/joinlab/sims/profile"
	"github.com/joinlab/joinlab/sims/service"
)

// probeSource is a table of 600 rows (k, id), 6 rows per k over 100 keys, behind the teaching profile with at
// most 4 rows a response and 3 requests in flight: a slice of 5 keys is 30 rows, 8 pages.
func probeSource(t *testing.T, concurrent int) *connector.Source {
	t.Helper()
	schema := column.Schema{{Name: "k", Type: column.Long}, {Name: "id", Type: column.Long}}
	tab := column.NewTable(schema)
	for i := 0; i < 600; i++ {
		tab.Cols[0].AppendInt(int64(i % 100))
		tab.Cols[1].AppendInt(int64(i))
		tab.N++
	}
	prof, err := profile.Get("teaching")
	if err != nil {
		t.Fatal(err)
	}
	prof.Caps.MaxRows, prof.Caps.MaxInValues, prof.Caps.Concurrent = 4, 5, concurrent
	info := connector.TableInfo{Name: "T", Schema: schema, Rows: int64(tab.N), Key: []connector.OrderKey{{Column: "id"}}}
	clk := clock.New()
	svc, err := service.New(prof, clk, 1, dataset.NewMemTable(info, tab))
	if err != nil {
		t.Fatal(err)
	}
	src, err := svc.Source("T", info, 1)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestProbeHoldsTheWindowOnly: with 3 slices' requests in flight, the probe never holds pages of more than 3
// slices, the budget is charged exactly the bytes of the pages it holds, and nothing is left charged at the
// end; its rows are those of a probe that scans one slice at a time, in the same order.
func TestProbeHoldsTheWindowOnly(t *testing.T) {
	run := func(concurrent int) (string, int) {
		src := probeSource(t, concurrent)
		schema := column.Schema{{Name: "k", Type: column.Long}, {Name: "id", Type: column.Long}}
		budget := memory.NewBudget(0)
		p := NewProbe(src, "k", schema, []bool{true, true}, 0, exec.NewEnv(budget, nil))
		c := p.NewCollector()
		keys := column.NewVector(column.Long, 0)
		for k := 0; k < 40; k += 2 {
			keys.AppendInt(int64(k))
		}
		c.Add(keys, keys.Len())
		if err := p.SetKeys(c); err != nil {
			t.Fatal(err)
		}
		if n := len(p.Filter().Slices); n != 4 {
			t.Fatalf("%d slices, want 20 keys in 4 IN lists of 5", n)
		}
		var out string
		most := 0
		for {
			b, err := p.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				break
			}
			holding, held := 0, int64(0)
			for _, s := range p.scans {
				if s != nil && s.page != nil {
					holding++
					held += s.held
				}
			}
			most = max(most, holding)
			if used := budget.Limit() - budget.Available(); used != held {
				t.Fatalf("the budget is charged %d bytes, the probe holds pages of %d", used, held)
			}
			for r := 0; r < b.N; r++ {
				out += fmt.Sprintf("%d:%d ", b.Cols[0].Value(r).Int, b.Cols[1].Value(r).Int)
			}
		}
		if used := budget.Limit() - budget.Available(); used != 0 {
			t.Errorf("%d bytes left charged after the last row", used)
		}
		return out, most
	}
	seq, seqMost := run(1)
	got, most := run(3)
	if got != seq {
		t.Errorf("overlapped rows:\n%s\none slice at a time:\n%s", got, seq)
	}
	if most > 3 || most < 2 || seqMost > 1 {
		t.Errorf("pages of %d slices held at once overlapped (want 2 to 3), %d one at a time (want 1)", most, seqMost)
	}
}
