// Package profile holds connector profiles: the published limits of real services, as named, editable
// presets. A profile fixes a simulated connector's caps, its dialect, its latency, its faults and the deadline
// of a query over it.
//
// Where a service publishes a figure it is used as published; where it does not (latency, some rate
// limits), the figure is an assumption chosen to be plausible, and says so in Notes.
package profile

import (
	"fmt"
	"sort"
	"time"

	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/sims/throttle"
)

// Profile is one preset. Copy it and change fields to edit it.
type Profile struct {
	Name    string
	Title   string
	Dialect string // kql, spl, fql or sql
	Caps    connector.Caps
	Latency throttle.Latency
	Faults  throttle.Faults
	// Deadline is the most virtual time a whole query over a source with this profile may take, the waits
	// its rate limit asks for included; past it the query stops with a *connector.DeadlineError naming the
	// time reached (connector.RetryPolicy.Deadline). No service publishes one for a query of many requests:
	// each figure is assumed, long enough for every scenario the profile serves at its default knobs.
	Deadline time.Duration
	Notes    string
}

// serviceDeadline is the deadline of the real services' presets: four hours of virtual time, an afternoon's
// investigation. It is far longer than any one request takes, throttled or not, and leaves room for the
// slowest baseline on okta-crowdstrike-small to reach its own failure (timewindow: 9,183 requests, 36 minutes
// at Okta's 120 a minute, before the login storm; about an hour with storm=0), yet it bounds a query that
// pages at a rate limit through a table of billions.
const serviceDeadline = 4 * time.Hour

// teachingDeadline is the teaching preset's: its tables are a few hundred rows, so a run that has not ended
// after ten virtual minutes at ten requests a second is stuck, not slow.
const teachingDeadline = 10 * time.Minute

const (
	kb = 1 << 10
	mb = 1 << 20
)

var presets = map[string]Profile{
	"sentinel": {
		Name: "sentinel", Title: "Microsoft Sentinel / Log Analytics", Dialect: "kql",
		Caps: connector.Caps{MaxRows: 500_000, MaxBytes: 64 * mb, MaxQueryBytes: 64 * kb,
			Requests: 200, Window: 30 * time.Second, Burst: 200, Concurrent: 5},
		Latency:  throttle.Latency{Base: 400 * time.Millisecond, PerKB: 20 * time.Microsecond, Jitter: 100 * time.Millisecond},
		Deadline: serviceDeadline,
		Notes:    "500,000 rows or 64 MB per response (the lower), 200 requests per 30 s, 5 concurrent: published. Query text cap and latency assumed.",
	},
	"splunk": {
		Name: "splunk", Title: "Splunk search", Dialect: "spl",
		Caps: connector.Caps{MaxRows: 50_000, MaxQueryBytes: 32 * kb, Requests: 60, Window: time.Minute, Burst: 10,
			Concurrent: 4, TruncatesResults: true},
		Latency:  throttle.Latency{Base: 600 * time.Millisecond, PerKB: 30 * time.Microsecond, Jitter: 200 * time.Millisecond},
		Deadline: serviceDeadline,
		Notes:    "50,000 rows per fetch: published. Query size, rate and latency assumed; oversized results are cut, not refused.",
	},
	"crowdstrike": {
		Name: "crowdstrike", Title: "CrowdStrike Falcon API", Dialect: "fql",
		Caps: connector.Caps{MaxRows: 5_000, MaxInValues: 500, MaxQueryBytes: 8 * kb, Requests: 6000, Window: time.Minute,
			Burst: 100, Concurrent: 10},
		Latency:  throttle.Latency{Base: 150 * time.Millisecond, PerKB: 10 * time.Microsecond, Jitter: 50 * time.Millisecond},
		Deadline: serviceDeadline,
		Notes:    "limit ≤ 5,000 and offset+limit ≤ 10,000 (so the engine pages by keyset filter, never offset): published. Filter length, IN size and rate assumed.",
	},
	"okta": {
		Name: "okta", Title: "Okta System Log API", Dialect: "kql",
		Caps: connector.Caps{MaxRows: 1_000, MaxQueryBytes: 4 * kb, MaxInValues: 100, Requests: 120, Window: time.Minute,
			Burst: 20, Concurrent: 2},
		Latency:  throttle.Latency{Base: 200 * time.Millisecond, PerKB: 15 * time.Microsecond, Jitter: 60 * time.Millisecond},
		Deadline: serviceDeadline,
		Notes:    "limit ≤ 1,000 (default 100) with cursor links: published. The simulation answers filter expressions in KQL syntax; rate, sizes and latency assumed.",
	},
	"s3": {
		Name: "s3", Title: "S3 / Athena-like SQL store", Dialect: "sql",
		Caps: connector.Caps{MaxRows: 1_000, MaxQueryBytes: 256 * kb, Requests: 20, Window: time.Second, Burst: 20,
			Concurrent: 20},
		Latency:  throttle.Latency{Base: time.Second, PerKB: 5 * time.Microsecond, Jitter: 300 * time.Millisecond},
		Deadline: serviceDeadline,
		Notes:    "1,000 rows per result page and a 256 KB query string: Athena's published figures. Rate and latency assumed.",
	},
	"teaching": {
		Name: "teaching", Title: "Teaching profile (every effect visible on small data)", Dialect: "kql",
		Caps: connector.Caps{MaxRows: 50, MaxBytes: 16 * kb, MaxInValues: 20, MaxQueryBytes: 2 * kb, Requests: 10,
			Window: time.Second, Burst: 5, Concurrent: 1},
		Latency:  throttle.Latency{Base: 50 * time.Millisecond, PerKB: 100 * time.Microsecond, Jitter: 10 * time.Millisecond},
		Deadline: teachingDeadline,
		Notes:    "Scaled down on purpose: 50 rows or 16 KB per response, 20 values per IN list, 2 KB queries, 10 requests/s.",
	},
}

// Get returns a copy of the named preset.
func Get(name string) (Profile, error) {
	p, ok := presets[name]
	if !ok {
		return Profile{}, fmt.Errorf("profile: unknown profile %q (profiles: %v)", name, Names())
	}
	return p, nil
}

// Names lists the presets, sorted.
func Names() []string {
	var out []string
	for n := range presets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
