package plan

// IsBaseline reports whether name is a registered strategy kept as a baseline: a deliberately naive
// alternative that the planner never chooses by itself and that the playground labels as such, so that its
// failure can be shown beside the right strategy. An unknown name is no baseline. It reads the registry, so a
// strategy marks itself a baseline in its own file (StrategyDef.Baseline) and nothing else needs a list.
func IsBaseline(name string) bool {
	d, ok := strategies[Strategy(name)]
	return ok && d.Baseline
}
