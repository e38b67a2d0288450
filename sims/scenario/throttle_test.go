package scenario

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/query"
)

// runScenario runs text on scenario name with knobs set over its defaults, and returns the rows as text.
func runScenario(t *testing.T, name string, seed uint64, set map[string]float64, text string) ([]string, *query.Stats, error) {
	rows, _, st, err := runScenarioFirst(t, name, seed, set, text)
	return rows, st, err
}

// runScenarioFirst is runScenario that also returns the values of the first output column, row by row.
func runScenarioFirst(t *testing.T, name string, seed uint64, set map[string]float64, text string) ([]string, []column.Value, *query.Stats, error) {
	t.Helper()
	sc, err := Get(name)
	if err != nil {
		t.Fatal(err)
	}
	knobs, err := sc.Resolve(set)
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := sc.Sources(seed, knobs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := query.Prepare(context.Background(), text, srcs, query.Options{MemoryBudget: sc.MemoryBudget})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	var first []column.Value
	st, err := p.Run(context.Background(), func(b *column.Batch) error {
		for r := 0; r < b.N; r++ {
			first = append(first, b.Cols[0].Value(r))
			var line strings.Builder
			for _, c := range b.Cols {
				line.WriteString(connector.Literal(c.Value(r)) + "|")
			}
			rows = append(rows, line.String())
		}
		return nil
	})
	return rows, first, st, err
}

// throttledJoin is the query of issue 22: sign-ins joined with severe detections, counted. At 50 rows per
// Okta response it takes hundreds of requests, several times what Okta's 120 a minute lets through at once.
func throttledJoin(strategy string) string {
	return `@OktaSystemLogs | where eventType == "user.session.start"
| join kind=inner hint.strategy=` + strategy + ` (@CrowdStrikeDetections | where severity >= 70)
  on $left.actor.alternateId == $right.user_name
| count`
}

// TestThrottleOnlyRunEqualsUnthrottled: with no faults and a response cap small enough that the rate limit
// throttles the run far more often than the retry budget allows faults, the connector scan (hash join) and
// the paged join both wait the throttles out and give the answer of a run without a rate limit.
func TestThrottleOnlyRunEqualsUnthrottled(t *testing.T) {
	small := map[string]float64{"okta_max_rows": 50}
	free := map[string]float64{"okta_max_rows": 50, "okta_requests": 0, "crowdstrike_requests": 0}
	for _, strategy := range []string{"hash", "paged"} {
		want, _, err := runScenario(t, "okta-crowdstrike-small", 3, free, throttledJoin(strategy))
		if err != nil {
			t.Fatalf("%s without a rate limit: %v", strategy, err)
		}
		got, st, err := runScenario(t, "okta-crowdstrike-small", 3, small, throttledJoin(strategy))
		if err != nil {
			t.Fatalf("%s throttled: %v", strategy, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || len(want) != 1 {
			t.Errorf("%s: throttled %v, unthrottled %v", strategy, got, want)
		}
		if st.Strategy != strategy || st.Retries <= int64(connector.DefaultRetry.Budget) {
			t.Errorf("%s: ran %s with %d retries, want more throttles than the %d-retry budget: the test proves nothing",
				strategy, st.Strategy, st.Retries, connector.DefaultRetry.Budget)
		}
	}
}

// TestDeadlineKnob: the profile's deadline, cut to 30 virtual seconds by its knob, stops the throttled run
// with an error naming the deadline and the time reached.
func TestDeadlineKnob(t *testing.T) {
	_, _, err := runScenario(t, "okta-crowdstrike-small", 3, map[string]float64{"okta_max_rows": 50, "okta_deadline_s": 30},
		throttledJoin("hash"))
	var dl *connector.DeadlineError
	if !errors.As(err, &dl) || dl.Source != "OktaSystemLogs" || dl.Deadline.Seconds() != 30 || dl.Reached <= dl.Deadline ||
		!strings.Contains(err.Error(), "30s deadline") {
		t.Fatalf("got %v, want the 30 s deadline of @OktaSystemLogs passed", err)
	}
}
