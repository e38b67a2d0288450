package runner

import "github.com/joinlab/joinlab/web/runner/protocol"

// drawnJoin picks the view for a query's joins (outermost first) and the strategy it draws. A query often
// wraps the join that shows its scenario in small hash joins (the alerting scenario's sweep sits under two
// lookups), so the first strategy with a drawing beyond the hash join's is the one drawn; failing that, the
// first's.
func drawnJoin(strategies []string) (view, strategy string) {
	for _, s := range strategies {
		if v := protocol.ViewOf(s); v != protocol.ViewHash && v != protocol.ViewGeneric {
			return v, s
		}
	}
	if len(strategies) == 0 {
		return protocol.ViewGeneric, ""
	}
	return protocol.ViewOf(strategies[0]), strategies[0]
}
