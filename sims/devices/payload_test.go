package devices

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/source"
)

// TestMetricsPayloadPaths scans Metrics for flat columns and payload paths mixed, over partitions larger than
// a batch, and checks every row's paths against its flat columns and its raw document: the table's and the
// documents' batches pair up row for row, and the paths are typed as the documents write them.
func TestMetricsPayloadPaths(t *testing.T) {
	const seed = 3
	t.Logf("seed=%d", seed)
	// Enough devices that each partition's hour of rows spans more than one batch.
	devices := source.BatchRows/60 + 10
	ds, err := Generate(seed, Config{Devices: devices, Faulty: 0.5, PartitionMinutes: 60})
	if err != nil {
		t.Fatal(err)
	}
	m := ds.Metrics
	schema := m.Schema([]string{"payload.cpu.pct", "payload.host"})
	want := map[string]column.Type{"timestamp": column.DateTime, "device": column.Long, "payload": column.Dynamic,
		"payload.cpu.pct": column.Real, "payload.host": column.String}
	var cols []column.Field
	for _, name := range []string{"payload.cpu.pct", "timestamp", "payload.host", "device", "payload"} {
		i := schema.Index(name)
		if i < 0 || schema[i].Type != want[name] {
			t.Fatalf("schema %v: want %s of type %v", schema, name, want[name])
		}
		cols = append(cols, schema[i])
	}
	if m.Rows() != devices*3*60 || m.Partitions() != 3 {
		t.Fatalf("%d rows in %d partitions, want %d in 3", m.Rows(), m.Partitions(), devices*3*60)
	}
	it := m.Scan(context.Background(), cols)
	rows, batches, hot := 0, 0, 0
	for {
		b, err := it.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		batches++
		for r := 0; r < b.N; r++ {
			pct, ts, host, dev, doc := b.Cols[0].Reals[r], b.Cols[1].Ints[r], b.Cols[2].Strs[r], b.Cols[3].Ints[r], b.Cols[4].Strs[r]
			if host != fmt.Sprintf("dev-%05d", dev) {
				t.Fatalf("row %d: host %q beside device %d", rows+r, host, dev)
			}
			if !strings.Contains(doc, `"pct":`+strconv.FormatFloat(pct, 'f', 1, 64)+`}`) {
				t.Fatalf("row %d: cpu.pct %g is not its document's: %s", rows+r, pct, doc)
			}
			if ts < Epoch.UnixNano() || ts >= Epoch.Add(Span).UnixNano() {
				t.Fatalf("row %d: time %d outside the data's span", rows+r, ts)
			}
			if pct > HighCPU {
				hot++
			}
		}
		rows += b.N
	}
	if rows != m.Rows() || batches <= m.Partitions() || hot == 0 {
		t.Fatalf("scanned %d rows in %d batches (%d hot), want %d rows, more batches than partitions and some hot",
			rows, batches, hot, m.Rows())
	}
	view, pruned := m.Prune(Epoch.Add(2*Span).UnixNano(), Epoch.Add(3*Span).UnixNano())
	if pruned != 3 || view.Rows() != 0 || view.Schema(nil).Index("payload") < 0 {
		t.Fatalf("pruned to nothing: %d pruned, %d rows, schema %v", pruned, view.Rows(), view.Schema(nil))
	}
	if b, err := view.Scan(context.Background(), cols).Next(context.Background()); b != nil || err != nil {
		t.Fatalf("an empty view scanned %v, %v", b, err)
	}
}
