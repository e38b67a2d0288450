package scenario

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/exec"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/source"
)

func runAlert(t *testing.T, sources map[string]source.Source) ([]string, *query.Stats) {
	t.Helper()
	sc, err := Get("metrics-events-alerting")
	if err != nil {
		t.Fatal(err)
	}
	p, err := query.Prepare(context.Background(), sc.Query, sources, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	st, err := p.Run(context.Background(), func(b *column.Batch) error {
		for r := 0; r < b.N; r++ {
			var cells []string
			for _, c := range b.Cols {
				switch v := c.Value(r); v.Type {
				case column.String:
					cells = append(cells, v.Str)
				case column.DateTime:
					cells = append(cells, column.FormatDateTime(v.Int))
				case column.Real:
					cells = append(cells, strconv.FormatFloat(v.Real, 'f', 1, 64))
				default:
					cells = append(cells, strconv.FormatInt(v.Int, 10))
				}
			}
			rows = append(rows, strings.Join(cells, " "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows, st
}

// TestMetricsEventsAlerting runs the scenario end to end and checks that pruning changed nothing but what was
// read (the same query over unpartitioned copies of the tables gives the same rows), that partitions were
// pruned, that the metrics scan reads only the payload's paths the query projects (not the documents), that
// the projected CPU is what the filter kept, and that every alert goes to the team its state routes to.
func TestMetricsEventsAlerting(t *testing.T) {
	sc, _ := Get("metrics-events-alerting")
	knobs, err := sc.Resolve(map[string]float64{"devices": 120, "faulty": 0.3})
	if err != nil {
		t.Fatal(err)
	}
	const seed = 7
	srcs, err := sc.Sources(seed, knobs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := query.Prepare(context.Background(), sc.Query, srcs, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "scan @Metrics (3600 rows) reading [timestamp, device, payload.host, payload.cpu.pct]"; !strings.Contains(p.Explain(), want) {
		t.Errorf("explain lacks %q:\n%s", want, p.Explain())
	}
	rows, st := runAlert(t, srcs)
	if len(rows) == 0 {
		t.Fatalf("seed %d: no alerts", seed)
	}
	if st.Details["partitions_pruned"].(int64) == 0 || st.Details["overlaps"].(int64) == 0 {
		t.Errorf("details %v: want partitions pruned and overlaps", st.Details)
	}
	teams := map[string]bool{}
	for _, r := range rows {
		f := strings.Fields(r) // team, device_id, host, device_state, windows, peak_cpu, first, last
		team, host, state := f[0], f[2], f[3]
		if !strings.HasPrefix(host, "dev-") {
			t.Errorf("alert %q: host %q is not a payload's host", r, host)
		}
		if cpu, err := strconv.ParseFloat(f[5], 64); err != nil || cpu <= 90 {
			t.Errorf("alert %q: peak CPU %s is not above the alert's 90%%", r, f[5])
		}
		want := map[string]string{"INITIALIZING": "init", "ENCODING": "encoding"}[state]
		if want == "" {
			want = "operations"
		}
		if team != want {
			t.Errorf("alert %q: state %s should go to %s", r, state, want)
		}
		teams[team] = true
	}
	if len(teams) != 3 {
		t.Errorf("seed %d: alerts reach teams %v, want all three", seed, teams)
	}
	// The unpartitioned copies keep the payload's paths as the columns a JSON source would extract.
	paths := []string{"payload.host", "payload.cpu.pct"}
	flat := map[string]source.Source{}
	for name, s := range srcs {
		schema := s.Schema(paths)
		tab, err := exec.Materialize(context.Background(), exec.NewScan(context.Background(), s, schema, allLive(len(schema))))
		if err != nil {
			t.Fatal(err)
		}
		flat[name] = source.FromTable(name, tab)
	}
	flatRows, flatStats := runAlert(t, flat)
	if strings.Join(flatRows, "\n") != strings.Join(rows, "\n") {
		t.Errorf("pruned run gave %d rows, unpartitioned %d", len(rows), len(flatRows))
	}
	if flatStats.Details["partitions_pruned"] != nil {
		t.Errorf("unpartitioned run pruned: %v", flatStats.Details)
	}
}

func allLive(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}
