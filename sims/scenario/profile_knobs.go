package scenario

import (
	"math"
	"time"

	"github.com/joinlab/joinlab/sims/profile"
)

// A profile knob edits one field of a source's connector profile. Every scenario whose sources sit behind
// simulated connectors lists them per source, named SOURCE_FIELD (okta_max_rows, detections_latency_ms…), with
// the preset's figures as defaults, so the playground, share links and `--set` edit caps, latency and rate
// limits like any other setting, and an unset knob leaves the preset exactly as published.
type profileKnob struct {
	field, help string
	max         float64
	get         func(p *profile.Profile) float64
	set         func(p *profile.Profile, v float64)
}

var profileFields = []profileKnob{
	{"max_rows", "rows one response may carry (0: no cap)", 1e7,
		func(p *profile.Profile) float64 { return float64(p.Caps.MaxRows) },
		func(p *profile.Profile, v float64) { p.Caps.MaxRows = int(v) }},
	{"max_kb", "KiB one response may carry (0: no cap)", 1e7,
		func(p *profile.Profile) float64 { return float64(p.Caps.MaxBytes) / 1024 },
		func(p *profile.Profile, v float64) { p.Caps.MaxBytes = int64(v * 1024) }},
	{"max_in_values", "values one IN list may hold (0: no cap)", 1e6,
		func(p *profile.Profile) float64 { return float64(p.Caps.MaxInValues) },
		func(p *profile.Profile, v float64) { p.Caps.MaxInValues = int(v) }},
	{"max_query_bytes", "bytes of native query text one request may carry (0: no cap)", 1e8,
		func(p *profile.Profile) float64 { return float64(p.Caps.MaxQueryBytes) },
		func(p *profile.Profile, v float64) { p.Caps.MaxQueryBytes = int(v) }},
	{"requests", "requests per rate-limit window (0: no limit)", 1e7,
		func(p *profile.Profile) float64 { return float64(p.Caps.Requests) },
		func(p *profile.Profile, v float64) { p.Caps.Requests = int(v) }},
	{"window_s", "seconds of the rate-limit window", 86400,
		func(p *profile.Profile) float64 { return p.Caps.Window.Seconds() },
		func(p *profile.Profile, v float64) { p.Caps.Window = time.Duration(v * float64(time.Second)) }},
	{"burst", "requests the rate limit lets through at once", 1e7,
		func(p *profile.Profile) float64 { return float64(p.Caps.Burst) },
		func(p *profile.Profile, v float64) { p.Caps.Burst = int(v) }},
	{"concurrent", "requests that may be in flight at once (0 or 1: one at a time)", 1000,
		func(p *profile.Profile) float64 { return float64(p.Caps.Concurrent) },
		func(p *profile.Profile, v float64) { p.Caps.Concurrent = int(v) }},
	{"latency_ms", "base latency of a response, ms", 600_000,
		func(p *profile.Profile) float64 { return ms(p.Latency.Base) },
		func(p *profile.Profile, v float64) { p.Latency.Base = fromMs(v) }},
	{"per_kb_ms", "latency per KiB of response, ms", 10_000,
		func(p *profile.Profile) float64 { return ms(p.Latency.PerKB) },
		func(p *profile.Profile, v float64) { p.Latency.PerKB = fromMs(v) }},
	{"jitter_ms", "most seeded random latency added to a response, ms", 600_000,
		func(p *profile.Profile) float64 { return ms(p.Latency.Jitter) },
		func(p *profile.Profile, v float64) { p.Latency.Jitter = fromMs(v) }},
	{"deadline_s", "virtual seconds a whole query may take, rate-limit waits included (0: none)", 30 * 86400,
		func(p *profile.Profile) float64 { return p.Deadline.Seconds() },
		func(p *profile.Profile, v float64) { p.Deadline = time.Duration(v * float64(time.Second)) }},
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fromMs(v float64) time.Duration { return time.Duration(math.Round(v * float64(time.Millisecond))) }

// profileKnobs are the knobs, prefixed source, of table's connector profile p (see profileKnob).
func profileKnobs(source, table string, p profile.Profile) []Knob {
	out := make([]Knob, 0, len(profileFields))
	for _, f := range profileFields {
		out = append(out, Knob{Name: source + "_" + f.field, Help: table + " (" + p.Name + " profile): " + f.help,
			Default: f.get(&p), Min: 0, Max: f.max})
	}
	return out
}

// applyProfileKnobs returns p with source's profile knobs from k (resolved: every knob present).
func applyProfileKnobs(source string, p profile.Profile, k map[string]float64) profile.Profile {
	for _, f := range profileFields {
		if v, ok := k[source+"_"+f.field]; ok && v != f.get(&p) {
			f.set(&p, v)
		}
	}
	return p
}
