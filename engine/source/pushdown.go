package source

import (
	"context"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/kql"
	"github.com/joinlab/joinlab/engine/trace"
)

// Pushdown is implemented by sources that evaluate part of a query themselves: a connector to a remote
// service that filters and projects before shipping rows. The planner's pushdown pass (engine/plan/pushdown.go)
// offers each where over a scan of such a source to Push, and scans it with ScanTraced so its requests appear
// in the run's trace.
//
// Push never changes the source it is called on. Projection needs no method: Scan already names the only
// columns the query reads, and a Pushdown source asks the remote side for just those.
type Pushdown interface {
	Source
	// Push returns a source that applies the conjuncts it accepts (each one an operand of the where's
	// top-level ands), and the conjuncts it rejected, which the engine keeps evaluating itself. A conjunct is
	// accepted only when the source computes exactly what the engine would; accepted conjuncts are also
	// checked against the source's caps (values per IN list, query bytes), so a pushed filter always fits.
	Push(conjuncts []kql.Expr) (pushed Pushdown, rejected []kql.Expr)
	// Pushed describes what the source applies, for explain ("" when nothing).
	Pushed() string
	// ScanTraced is Scan, emitting the events of every request to sink and adding the request figures to
	// details.
	ScanTraced(ctx context.Context, columns []column.Field, sink trace.Sink, details *trace.Details) Iterator
}
