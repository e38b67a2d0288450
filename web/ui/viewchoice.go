package ui

// The views that draw strategies, by the names the root component switches on.
const (
	viewHash    = "hash"
	viewGrace   = "grace"
	viewSalted  = "salted"
	viewSweep   = "sweep"
	viewPaged   = "paged"
	viewGeneric = "generic"
)

// viewOf names the view that draws a strategy, by the name the planner registers it under (engine/plan);
// TestEveryStrategyHasAView holds the catalogue to it.
func viewOf(strategy string) string {
	switch strategy {
	case "hash", "nestedloop":
		return viewHash
	case "grace":
		return viewGrace
	case "salted", "salted_naive_wrong", "broadcast", "shuffle":
		return viewSalted
	case "sweep":
		return viewSweep
	case "paged", "fetchall", "timewindow", "distinctkeys", "keyset-lt", "keyset-le":
		return viewPaged
	}
	return viewGeneric
}

// viewFor picks the view for a query's joins, as strategy_chose lists them (outermost first). A query often
// wraps the join that shows its scenario in small hash joins (the alerting scenario's sweep sits under two
// lookups), so the first strategy with a drawing beyond the hash join's is the one drawn; failing that, the
// first's.
func viewFor(strategies []string) string {
	for _, s := range strategies {
		if v := viewOf(s); v != viewHash && v != viewGeneric {
			return v
		}
	}
	if len(strategies) == 0 {
		return viewGeneric
	}
	return viewOf(strategies[0])
}

// View names the strategy view that draws the run: from the engine's strategy_chose event once it has come,
// before that from the strategy the run was asked to use.
func (r *Run) View() string {
	if t := r.live(); len(t.Strategies) > 0 {
		return viewFor(t.Strategies)
	}
	return viewOf(r.Strategy)
}

// DrawnStrategy is the strategy the view draws: of the run's joins, the one viewFor picked.
func (r *Run) DrawnStrategy() string {
	v := r.View()
	for _, s := range r.live().Strategies {
		if viewOf(s) == v {
			return s
		}
	}
	return r.Strategy
}
