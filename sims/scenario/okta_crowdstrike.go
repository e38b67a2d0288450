package scenario

import (
	"fmt"
	"time"

	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/sims/clock"
	"github.com/joinlab/joinlab/sims/dataset"
	"github.com/joinlab/joinlab/sims/profile"
	"github.com/joinlab/joinlab/sims/service"
)

// The Okta ⋈ CrowdStrike investigation of source document 000: a month of sign-in events joined with
// detections behind CrowdStrike's API, each throttled and capped by its profile. The Okta table is a virtual
// table. okta-crowdstrike is the document's case — 70 billion rows behind Sentinel's caps (500,000 rows or
// 64 MB per response), which only the paged join can serve; okta-crowdstrike-small is a table of 20,000 rows
// behind Okta's own API, small enough that every strategy and baseline runs, with a login storm (knob storm)
// that puts more than Okta's 1,000-row cap on one timestamp after the query's filters.
func init() {
	Register(oktaCrowdStrike("okta-crowdstrike", "Okta sign-ins (70 billion rows, Sentinel caps) ⋈ CrowdStrike detections",
		"sentinel", 70e9, 200_000, 100_000, 0))
	Register(oktaCrowdStrike("okta-crowdstrike-small", "Okta sign-ins ⋈ CrowdStrike detections behind throttled APIs (small)",
		"okta", 20_000, 2_000, 2_000, 1))
}

func oktaCrowdStrike(name, title, oktaProfile string, rows, users, detections, storm float64) *Scenario {
	return &Scenario{
		Name:  name,
		Title: title,
		Description: "Okta System Log events (a virtual table, up to 70 billion rows) joined on the user with " +
			"CrowdStrike detections, each source behind its published caps, rate limit and latency (OktaSystemLogs " +
			"behind the " + oktaProfile + " profile).",
		Query: `@OktaSystemLogs
| where eventType == "user.session.start" and outcome.result == "SUCCESS"
| join kind=inner (@CrowdStrikeDetections | where severity >= 70) on $left.actor.alternateId == $right.user_name
| project published, user = actor.alternateId, ip = client.ipAddress, tactic, detection_severity = severity1, device.hostname
| sort by published desc
| take 100`,
		Knobs: append([]Knob{
			{Name: "okta_rows", Help: "rows of OktaSystemLogs (a virtual table)", Default: rows, Min: 1, Max: 70e9},
			{Name: "detections", Help: "rows of CrowdStrikeDetections", Default: detections, Min: 0, Max: 1e6},
			{Name: "users", Help: "distinct users", Default: users, Min: 1, Max: 1e6},
			{Name: "skew", Help: "Zipf exponent of user activity", Default: 1.2, Min: 1.01, Max: 4},
			{Name: "ties", Help: "mean Okta rows sharing one timestamp", Default: 4, Min: 1, Max: 4096},
			{Name: "storm", Help: "1: a login storm, 4,096 Okta rows on one timestamp (placed by the seed; needs okta_rows >= 8192); 0: none", Default: storm, Min: 0, Max: 1},
			{Name: "transient_rate", Help: "fraction of requests failing with a 503", Default: 0, Min: 0, Max: 0.9},
			{Name: "truncate_rate", Help: "fraction of pages cut short", Default: 0, Min: 0, Max: 0.9},
		}, append(profileKnobs("okta", "OktaSystemLogs", mustProfile(oktaProfile)),
			profileKnobs("crowdstrike", "CrowdStrikeDetections", mustProfile("crowdstrike"))...)...),
		Sources: func(seed uint64, k map[string]float64) (map[string]source.Source, error) {
			return oktaCrowdStrikeSources(oktaProfile, seed, k)
		},
	}
}

// mustProfile is a preset known at registration.
func mustProfile(name string) profile.Profile {
	p, err := profile.Get(name)
	if err != nil {
		panic("scenario: " + err.Error())
	}
	return p
}

func oktaCrowdStrikeSources(oktaProfile string, seed uint64, k map[string]float64) (map[string]source.Source, error) {
	clk := clock.New()
	p := dataset.DefaultOkta
	p.Rows, p.Users, p.Skew, p.TieRows, p.Seed = int64(k["okta_rows"]), int(k["users"]), k["skew"], k["ties"], seed
	p.Storm = k["storm"] != 0
	okta, err := dataset.NewOktaLogs(p)
	if err != nil {
		return nil, err
	}
	det := dataset.CrowdStrikeDetections(int(k["detections"]), int(k["users"]), k["skew"], p.End, p.Span, seed)
	out := map[string]source.Source{}
	for _, s := range []struct {
		prof  string
		table service.Table
		knobs string
	}{{oktaProfile, okta, "okta"}, {"crowdstrike", det, "crowdstrike"}} {
		prof, err := profile.Get(s.prof)
		if err != nil {
			return nil, err
		}
		prof = applyProfileKnobs(s.knobs, prof, k)
		prof.Faults.Transient, prof.Faults.Truncate = k["transient_rate"], k["truncate_rate"]
		prof.Faults.TimeoutAfter = 30 * time.Second
		svc, err := service.New(prof, clk, seed, s.table)
		if err != nil {
			return nil, err
		}
		info := s.table.Info()
		src, err := svc.Source(info.Name, info, seed)
		if err != nil {
			return nil, fmt.Errorf("okta-crowdstrike: %w", err)
		}
		out[info.Name] = src
	}
	return out, nil
}
