package ui

import "fmt"

// A compare preset is one click that sets up a comparison in which a baseline goes wrong on its scenario's
// default knobs: A runs the strategy that gets the answer right, B the baseline, and the compare panel shows
// B's failure beside A's rows. Each preset names the failure it promises, and presets_test.go runs both
// strategies natively through the page's own state and checks that the failure really happens, so a preset
// cannot quietly turn into "same rows".

// Failure is what a preset promises B does wrong.
type Failure string

const (
	// FailLoses: B returns fewer rows than A (keyset-lt skips the rows tied with a page's last one).
	FailLoses Failure = "loses rows"
	// FailStalls: B repeats a page and its cursor stops advancing, and the run fails (keyset-le on a tie group
	// larger than a page).
	FailStalls Failure = "repeats and stalls"
	// FailOrder: B returns A's rows, but not in the order the query sorts them (distinctkeys).
	FailOrder Failure = "breaks the order"
	// FailWindow: one of B's time windows holds more rows than a response may carry, and the run fails
	// (timewindow on the login storm).
	FailWindow Failure = "overflows a window"
	// FailRowCap: B asks for everything in one request and hits the response's row cap (the fetch-all
	// baseline).
	FailRowCap Failure = "hits the row cap"
	// FailDuplicates: B emits null-extended rows for keys that matched, or more than once
	// (salted_naive_wrong on a right outer join).
	FailDuplicates Failure = "duplicates null-extended rows"
)

// Preset is one comparison the compare panel offers on a click.
type Preset struct {
	// ID names the preset in the page (#preset-ID) and in tests.
	ID string
	// Scenario is the catalogue scenario it runs, on its default knobs.
	Scenario string
	// Query replaces the scenario's query ("" keeps it): the paged presets drop the default's take, so the
	// whole join is compared and not only its first hundred rows.
	Query string
	// Strategy is A's, the reference; Compare is B's, the baseline.
	Strategy, Compare string
	// Failure is what B is promised to do wrong; Lesson says it to the user, beside the button.
	Failure Failure
	Lesson  string
}

// oktaWholeJoin is okta-crowdstrike's query without its take, so every tie group and the login storm are read,
// and with only the most severe detections, so the whole answer stays within the rows the page keeps.
const oktaWholeJoin = `@OktaSystemLogs
| where eventType == "user.session.start" and outcome.result == "SUCCESS"
| join kind=inner (@CrowdStrikeDetections | where severity >= 95) on $left.actor.alternateId == $right.user_name
| project published, user = actor.alternateId, ip = client.ipAddress, tactic, detection_severity = severity1, device.hostname
| sort by published desc`

// skewedRightOuter keeps every listen, of a known song or not: the listens are the preserved side, on the
// right, and the viral songs make them heavy. Salting must spread that side; the naive plan spreads the left
// (the songs) and copies each viral song's listens to every worker, where all but one find no song and come
// out null-extended. The first 5,000 listens keep both answers small enough to check row by row.
const skewedRightOuter = `@Songs
| join kind=rightouter (@Listens | where listen_id < 5000) on song_id
| project listen_id, user_id, song_id1, title`

// Presets are the compare presets, grouped by scenario in the order the panel lists them.
var Presets = []Preset{
	{ID: "keyset-lt", Scenario: "okta-crowdstrike-small", Query: oktaWholeJoin, Strategy: "paged", Compare: "keyset-lt",
		Failure: FailLoses, Lesson: "A cursor that asks for published < the last value skips the rows that share the last timestamp of a page."},
	{ID: "keyset-le", Scenario: "okta-crowdstrike-small", Query: oktaWholeJoin, Strategy: "paged", Compare: "keyset-le",
		Failure: FailStalls, Lesson: "A cursor that asks for published <= the last value fetches the tied rows again, and stalls on a tie group larger than a page."},
	{ID: "distinctkeys", Scenario: "okta-crowdstrike-small", Query: oktaWholeJoin, Strategy: "paged", Compare: "distinctkeys",
		Failure: FailOrder, Lesson: "Paging the distinct join keys gets every row, but not in the query's order."},
	{ID: "timewindow", Scenario: "okta-crowdstrike-small", Query: oktaWholeJoin, Strategy: "paged", Compare: "timewindow",
		Failure: FailWindow, Lesson: "No time window can split the login storm's rows, which share one timestamp."},
	{ID: "fetchall", Scenario: "okta-crowdstrike-small", Query: oktaWholeJoin, Strategy: "paged", Compare: "fetchall",
		Failure: FailRowCap, Lesson: "One request for everything is refused by the response's row cap."},
	{ID: "salted-naive", Scenario: "skewed-listens", Query: skewedRightOuter, Strategy: "salted", Compare: "salted_naive_wrong",
		Failure: FailDuplicates, Lesson: "Spreading the preserved side of a right outer join emits its unmatched rows once per salt."},
}

// PresetByID returns the preset named id, or nil.
func PresetByID(id string) *Preset {
	for i := range Presets {
		if Presets[i].ID == id {
			return &Presets[i]
		}
	}
	return nil
}

// ApplyPreset sets up the comparison of preset id: its scenario on default knobs, its query, A's strategy and
// B's. It does not run: the caller (the preset's button) presses Run next. A preset whose scenario or
// strategies the catalogue lacks is refused with an error saying which.
func (s *State) ApplyPreset(id string) error {
	p := PresetByID(id)
	if p == nil {
		return fmt.Errorf("compare preset %q: no such preset", id)
	}
	if err := s.presetProblem(p); err != nil {
		return err
	}
	s.PickScenario(p.Scenario)
	if p.Query != "" {
		s.Query = p.Query
	}
	s.Strategy = p.Strategy
	s.SetCompare(p.Compare)
	s.saveFragment()
	return nil
}

// presetProblem says why the catalogue cannot run preset p (a scenario or strategy it lacks), or nil.
func (s *State) presetProblem(p *Preset) error {
	id := p.ID
	found := false
	for _, sc := range s.Catalogue.Scenarios {
		found = found || sc.Name == p.Scenario
	}
	if !found {
		return fmt.Errorf("compare preset %s: the catalogue has no scenario %q", id, p.Scenario)
	}
	for _, name := range []string{p.Strategy, p.Compare} {
		if !s.knownStrategy(name) {
			return fmt.Errorf("compare preset %s: the catalogue has no strategy %q", id, name)
		}
	}
	return nil
}

// ActivePreset is the preset the current settings are, or nil once the user changed any of them: the compare
// panel states its lesson only while it holds.
func (s *State) ActivePreset() *Preset {
	for i := range Presets {
		p := &Presets[i]
		query := p.Query
		if query == "" {
			if sc := s.ScenarioInfo(); sc != nil {
				query = sc.Query
			}
		}
		if s.Scenario == p.Scenario && s.Query == query && s.Strategy == p.Strategy && s.Comparing &&
			s.CompareStrategy == p.Compare {
			return p
		}
	}
	return nil
}
