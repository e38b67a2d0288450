package scenario

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
)

// baselineQuery is okta-crowdstrike's default query without its take, so a baseline reads the whole join
// and meets every trap the data holds.
func baselineQuery(strategy string) string {
	return `@OktaSystemLogs
| where eventType == "user.session.start" and outcome.result == "SUCCESS"
| join kind=inner hint.strategy="` + strategy + `" (@CrowdStrikeDetections | where severity >= 70)
  on $left.actor.alternateId == $right.user_name
| project published, user = actor.alternateId, ip = client.ipAddress, tactic, detection_severity = severity1, device.hostname
| sort by published desc`
}

// notThrottling fails the test if err comes from the connectors' pacing or retries rather than from the
// strategy itself.
func notThrottling(t *testing.T, strategy string, err error) {
	t.Helper()
	var th *connector.ThrottledError
	var dl *connector.DeadlineError
	var tr *connector.TransientError
	if errors.As(err, &th) || errors.As(err, &dl) || errors.As(err, &tr) || (err != nil && strings.Contains(err.Error(), "retry budget")) {
		t.Fatalf("%s stopped on the connectors' pacing, not for its own reason: %v", strategy, err)
	}
}

// TestBaselinesFailForTheirOwnReasons runs each labelled baseline on okta-crowdstrike-small at its default
// knobs (Okta's 120 requests a minute included) and checks that it goes wrong the way docs/paged.md says,
// never by stopping on a throttle: fetch-all hits the response cap, distinct-key pages break the global order,
// the `<` cursor loses the rows tied with a page's last one, the `<=` cursor stalls on a tie group larger than
// a page, and the time windows meet the scenario's login storm: more than Okta's 1,000-row cap on one
// timestamp, which no window can split (with storm=0 they answer right, at hundreds of times the paged join's
// requests: the storm is the reason). The paged join gets through the storm with the hash join's rows.
func TestBaselinesFailForTheirOwnReasons(t *testing.T) {
	const sc = "okta-crowdstrike-small"
	want, wantFirst, paged, err := runScenarioFirst(t, sc, 1, nil, baselineQuery("paged"))
	if err != nil {
		t.Fatalf("paged: %v", err)
	}
	if !sortedDesc(wantFirst) {
		t.Fatal("the paged join's rows are out of order")
	}
	multiset := func(rows []string) string { return fmt.Sprint(slices.Sorted(slices.Values(rows))) }
	t.Logf("paged: %d rows, %d requests, %.0f virtual ms", len(want), paged.Requests, paged.VirtualTotal)
	hash, _, _, err := runScenarioFirst(t, sc, 1, nil, baselineQuery("hash"))
	if err != nil {
		t.Fatalf("hash: %v", err)
	}
	if multiset(hash) != multiset(want) {
		t.Fatalf("the paged join's %d rows are not the hash join's %d", len(want), len(hash))
	}

	t.Run("fetchall", func(t *testing.T) {
		_, _, _, err := runScenarioFirst(t, sc, 1, nil, baselineQuery("fetchall"))
		notThrottling(t, "fetchall", err)
		var big *connector.ResultTooLargeError
		if !errors.As(err, &big) || big.MaxRows != 1000 {
			t.Fatalf("got %v, want the 1,000-row response cap hit", err)
		}
	})
	t.Run("timewindow", func(t *testing.T) {
		_, _, _, err := runScenarioFirst(t, sc, 1, nil, baselineQuery("timewindow"))
		notThrottling(t, "timewindow", err)
		var big *connector.ResultTooLargeError
		// The storm's rows share one timestamp (TestOktaStorm, sims/dataset), so no width of window holds them.
		if !errors.As(err, &big) || big.MaxRows != 1000 || !strings.Contains(err.Error(), "window (") {
			t.Fatalf("got %v, want a window named over the 1,000-row response cap", err)
		}
		t.Log(err)
	})
	t.Run("timewindow without the storm", func(t *testing.T) {
		calm := map[string]float64{"storm": 0}
		want, _, paged, err := runScenarioFirst(t, sc, 1, calm, baselineQuery("paged"))
		if err != nil {
			t.Fatalf("paged: %v", err)
		}
		rows, _, st, err := runScenarioFirst(t, sc, 1, calm, baselineQuery("timewindow"))
		notThrottling(t, "timewindow", err)
		if err != nil {
			t.Fatalf("no window of the calm table is over the cap, yet: %v", err)
		}
		if fmt.Sprint(rows) != fmt.Sprint(want) {
			t.Errorf("%d rows, want the paged join's %d in its order", len(rows), len(want))
		}
		if st.Requests < 100*paged.Requests {
			t.Errorf("%d requests against the paged join's %d: want the windows' cost, 100× at least", st.Requests, paged.Requests)
		}
	})
	t.Run("distinctkeys", func(t *testing.T) {
		rows, first, _, err := runScenarioFirst(t, sc, 1, nil, baselineQuery("distinctkeys"))
		notThrottling(t, "distinctkeys", err)
		if err != nil {
			t.Fatal(err)
		}
		if multiset(rows) != multiset(want) {
			t.Errorf("%d rows, want the paged join's %d", len(rows), len(want))
		}
		if sortedDesc(first) {
			t.Error("the rows are in global order: the distinct-key pages broke nothing")
		}
	})
	t.Run("keyset-lt", func(t *testing.T) {
		rows, _, _, err := runScenarioFirst(t, sc, 1, nil, baselineQuery("keyset-lt"))
		notThrottling(t, "keyset-lt", err)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) >= len(want) {
			t.Fatalf("%d rows, the paged join's %d: no tied row was lost", len(rows), len(want))
		}
		left := map[string]int{}
		for _, r := range want {
			left[r]++
		}
		for _, r := range rows {
			if left[r]--; left[r] < 0 {
				t.Fatalf("row %s is not in the paged join's answer (or is there fewer times)", r)
			}
		}
	})
	t.Run("keyset-le", func(t *testing.T) {
		_, _, _, err := runScenarioFirst(t, sc, 1, nil, baselineQuery("keyset-le"))
		notThrottling(t, "keyset-le", err)
		if err == nil || !strings.Contains(err.Error(), "has not advanced for 3 pages") {
			t.Fatalf("got %v, want the stalled cursor", err)
		}
	})
}

// sortedDesc reports whether datetime values never increase.
func sortedDesc(vs []column.Value) bool {
	for i := 1; i < len(vs); i++ {
		if vs[i].Int > vs[i-1].Int {
			return false
		}
	}
	return true
}
