package scenario

import (
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/sims/devices"
)

// The metrics-events-alerting scenario (source document 002): the CPU of each device's per-minute report is
// projected from its JSON payload by path (payload.cpu.pct, extracted at scan time); the high-CPU windows of
// the last 30 minutes are joined with the intervals the devices spent in each state (an interval join, run by the sweep), then
// with the routing table, to say which team to alert for which device and window: INITIALIZING goes to the
// init team, ENCODING to the encoding team, anything else to operations. Both time-partitioned tables are
// pruned to the partitions that overlap the window (state events from devices.MaxState earlier, so each
// device's state at the window's start is known).
func init() {
	Register(&Scenario{
		Name:  "metrics-events-alerting",
		Title: "Alert routing: high-CPU windows ⋈ device-state intervals ⋈ teams (sweep join)",
		Description: "Per-minute device reports (a JSON payload whose CPU is projected by path, payload.cpu.pct) " +
			"and device-state events over three hours. The last 30 minutes' high-CPU windows are joined by device with the intervals between state events (make-intervals), " +
			"by overlap, with a sweep line that keeps an active set per side expired by end; the state picks " +
			"the team to alert. Only the partitions overlapping the window are read.",
		Query: metricsEventsAlertingQuery,
		Knobs: []Knob{
			{Name: "devices", Help: "devices in the fleet", Default: 500, Min: 1, Max: 20000},
			{Name: "faulty", Help: "fraction of devices that run hot in one state", Default: 0.1, Min: 0, Max: 1},
			{Name: "partition_minutes", Help: "minutes of data per partition of Metrics and Events", Default: 10, Min: 1, Max: 180},
		},
		Sources: func(seed uint64, knobs map[string]float64) (map[string]source.Source, error) {
			ds, err := devices.Generate(seed, devices.Config{Devices: int(knobs["devices"]), Faulty: knobs["faulty"],
				PartitionMinutes: int(knobs["partition_minutes"])})
			if err != nil {
				return nil, err
			}
			// DeviceMetrics, DeviceStates and Teams are the names the sims catalogue gives these tables; the
			// scenario's query uses the short ones.
			return map[string]source.Source{"Metrics": ds.Metrics, "Events": ds.Events, "Devices": ds.Devices,
				"Routing": ds.Routing, "DeviceMetrics": ds.Metrics, "DeviceStates": ds.Events, "Teams": ds.Routing}, nil
		},
	})
}

// metricsEventsAlertingQuery is the alert: the window is the data's last 30 minutes (devices.Epoch + 2h30m to
// + 3h), and state events are read from devices.MaxState (20 minutes) before it.
const metricsEventsAlertingQuery = `@Metrics
| where timestamp >= datetime(2024-05-01T02:30:00Z) and timestamp < datetime(2024-05-01T03:00:00Z)
| project timestamp, device, host = payload.host, cpu = payload.cpu.pct
| where cpu > 90
| extend start = timestamp, end = timestamp + 1m
| join kind=inner (
    @Events
    | where timestamp >= datetime(2024-05-01T02:10:00Z) and timestamp < datetime(2024-05-01T03:00:00Z)
    | make-intervals timestamp by device until datetime(2024-05-01T03:00:00Z)
  ) on device, $left.start < $right.end and $right.start < $left.end
| join kind=leftouter (@Routing) on $left.device_state == $right.state
| extend team = coalesce(team, "operations")
| join kind=inner (@Devices) on device
| summarize windows = count(), peak_cpu = max(cpu), first = min(overlap_start), last = max(overlap_end) by team, device_id, host, device_state
| sort by team asc, device_id asc`
