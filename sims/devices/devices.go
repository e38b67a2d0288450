// Package devices generates the device-fleet dataset of the metrics-events-alerting scenario: per-minute
// device metrics, device-state events, a dictionary of device ids and a team routing table.
//
// Device ids are dictionary-encoded: the metric and event tables carry a small integer code (column device),
// and the Devices table maps each code to the device's UUID (device_id) and location. Joins then compare
// int64 codes — the sweep numbers keys by their offset from the smallest code, with no hashing — and the
// 36-byte UUID is looked up once per result row at the end.
//
// Metrics and Events are time-partitioned (source.TimePartitioned): each partition holds PartitionMinutes of
// data, so a query over a recent window reads only the partitions that overlap it. A metrics row carries the
// device agent's report as a JSON document (column payload: host, cpu.pct, io.bytes, tags), which a query
// reads by path (payload.cpu.pct), extracted at scan time.
package devices

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/source"
)

// States a device reports. The routing table sends INITIALIZING to the init team and ENCODING to the encoding
// team; every other state goes to operations, who can replace the device.
var States = []string{"INITIALIZING", "WAITING", "ENCODING"}

// Epoch is when the generated data begins; Span is how long it lasts.
var Epoch = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)

const (
	Span = 3 * time.Hour
	// MaxState bounds how long a device stays in one state, so a query that reads state events from MaxState
	// before its window always sees the state each device was in when the window opened.
	MaxState = 20 * time.Minute
	// minState is the shortest state.
	minState = 2 * time.Minute
	// HighCPU is the utilisation above which a metric window counts as high.
	HighCPU = 90.0
)

// Config sizes the dataset.
type Config struct {
	Devices int
	// Faulty is the fraction of devices whose CPU runs hot in one state (INITIALIZING, ENCODING or WAITING).
	Faulty float64
	// PartitionMinutes is the time each partition of Metrics and Events covers.
	PartitionMinutes int
}

// Dataset is the generated tables.
type Dataset struct {
	Metrics          source.TimePartitioned
	Events           *source.Partitioned
	Devices, Routing *source.Table
}

// Generate makes the dataset for seed. The same seed and config always give the same tables.
func Generate(seed uint64, cfg Config) (*Dataset, error) {
	if cfg.Devices <= 0 || cfg.PartitionMinutes <= 0 {
		return nil, fmt.Errorf("devices: need at least one device and a positive partition size")
	}
	r := rand.New(rand.NewPCG(seed, 0xde71ce5))
	devs := column.NewTable(column.Schema{{Name: "device", Type: column.Long}, {Name: "device_id", Type: column.String},
		{Name: "location_id", Type: column.Long}})
	// hotState[d] is the state in which device d runs hot, or -1.
	hotState := make([]int, cfg.Devices)
	location := make([]int64, cfg.Devices)
	for d := range cfg.Devices {
		location[d] = 100000 + r.Int64N(900000)
		devs.Cols[0].AppendInt(int64(d))
		devs.Cols[1].AppendString(uuid(r))
		devs.Cols[2].AppendInt(location[d])
		hotState[d] = -1
		if r.Float64() < cfg.Faulty {
			hotState[d] = r.IntN(len(States))
		}
	}
	devs.N = cfg.Devices

	part := time.Duration(cfg.PartitionMinutes) * time.Minute
	nparts := int((Span + part - 1) / part)
	metricSchema := column.Schema{{Name: "timestamp", Type: column.DateTime}, {Name: "device", Type: column.Long},
		{Name: "location_id", Type: column.Long}}
	eventSchema := column.Schema{{Name: "timestamp", Type: column.DateTime}, {Name: "device_state", Type: column.String},
		{Name: "device", Type: column.Long}}
	metrics, events := make([]*column.Table, nparts), make([]*column.Table, nparts)
	payloads := make([][]byte, nparts) // JSON lines, one a metrics row, in the rows' order
	for p := range nparts {
		metrics[p], events[p] = column.NewTable(metricSchema), column.NewTable(eventSchema)
	}
	partOf := func(t time.Duration) int { return int(t / part) }

	// Each device walks through states; it reports a state event at each change, and a metrics report (CPU
	// and I/O in one JSON payload) a minute.
	for d := range cfg.Devices {
		state := r.IntN(len(States))
		until := time.Duration(0)
		for m := time.Duration(0); m < Span; m += time.Minute {
			for m >= until { // a state change, at a minute boundary plus a few seconds
				if until > 0 {
					state = (state + 1 + r.IntN(len(States)-1)) % len(States)
				}
				at := until
				if at > 0 {
					at += time.Duration(r.IntN(50)) * time.Second
				}
				e := events[partOf(at)]
				e.Cols[0].AppendInt(Epoch.Add(at).UnixNano())
				e.Cols[1].AppendString(States[state])
				e.Cols[2].AppendInt(int64(d))
				e.N++
				until = at.Truncate(time.Minute) + minState + time.Duration(r.Int64N(int64(MaxState-minState)/int64(time.Minute)))*time.Minute
			}
			cpu := 20 + 40*r.Float64()
			if state == hotState[d] && r.Float64() < 0.8 {
				cpu = HighCPU + 1 + 8*r.Float64()
			}
			p := partOf(m)
			mt := metrics[p]
			mt.Cols[0].AppendInt(Epoch.Add(m).UnixNano())
			mt.Cols[1].AppendInt(int64(d))
			mt.Cols[2].AppendInt(location[d])
			mt.N++
			payloads[p] = appendPayload(payloads[p], d, location[d], float64(int(cpu*10))/10, r.IntN(1<<20))
		}
	}
	toParts := func(tabs []*column.Table) []source.Partition {
		out := make([]source.Partition, len(tabs))
		for p, t := range tabs {
			lo := Epoch.Add(time.Duration(p) * part).UnixNano()
			out[p] = source.Partition{Lo: lo, Hi: lo + int64(part) - 1, Table: t}
		}
		return out
	}
	ds := &Dataset{}
	var err error
	starts := make([]int64, nparts)
	for p := range starts {
		starts[p] = Epoch.Add(time.Duration(p) * part).UnixNano()
	}
	if ds.Metrics, err = newMetricsSource("Metrics", starts, int64(part), metrics, payloads); err != nil {
		return nil, err
	}
	if ds.Events, err = source.NewPartitioned("Events", "timestamp", toParts(events)); err != nil {
		return nil, err
	}
	ds.Devices = source.FromTable("Devices", devs)
	routing := column.NewTable(column.Schema{{Name: "state", Type: column.String}, {Name: "team", Type: column.String}})
	for _, rt := range [][2]string{{"INITIALIZING", "init"}, {"ENCODING", "encoding"}} {
		routing.Cols[0].AppendString(rt[0])
		routing.Cols[1].AppendString(rt[1])
		routing.N++
	}
	ds.Routing = source.FromTable("Routing", routing)
	return ds, nil
}

// appendPayload appends the JSON line of device d's report of one minute: its host name, CPU utilisation in
// percent (cpu.pct, always written with a decimal so every document types it as a real), I/O bytes and tags,
// as a device agent sends them: {"payload":{"host":"dev-00042","cpu":{"pct":93.1},"io":{"bytes":5120},
// "tags":["loc-123456","fw-2"]}}.
func appendPayload(dst []byte, d int, location int64, cpuPct float64, ioBytes int) []byte {
	dst = fmt.Appendf(dst, `{"payload":{"host":"dev-%05d","cpu":{"pct":%s},"io":{"bytes":%d},"tags":["loc-%d","fw-%d"]}}`,
		d, strconv.FormatFloat(cpuPct, 'f', 1, 64), ioBytes, location, d%firmwareVersions)
	return append(dst, '\n')
}

// firmwareVersions is how many firmware versions the fleet runs; a device's is its code modulo this, so the
// tags vary without drawing from the seeded stream (which would change every generated value).
const firmwareVersions = 3

// uuid draws a version-4 UUID from r.
func uuid(r *rand.Rand) string {
	a, b := r.Uint64(), r.Uint64()
	a = a&^0xf000 | 0x4000     // version 4
	b = b&^(0xc<<60) | 0x8<<60 // RFC 4122 variant
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}
