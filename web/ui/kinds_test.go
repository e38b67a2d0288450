package ui

import (
	"testing"

	"github.com/joinlab/joinlab/engine/connector"
	"github.com/joinlab/joinlab/engine/dynfilter"
	"github.com/joinlab/joinlab/engine/join"
	"github.com/joinlab/joinlab/engine/plan"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner"
)

// The page spells the kinds it folds (kinds.go) so as not to link the engine; each must be the engine's.
func TestKindsMatchTheEngine(t *testing.T) {
	for _, c := range []struct{ page, engine trace.Kind }{
		{kindScanRows, runner.KindScanRows},
		{kindRequestSent, connector.RequestSent},
		{kindRequestThrottled, connector.RequestThrottled},
		{kindRequestRetried, connector.RequestRetried},
		{kindPartitionsPruned, plan.PartitionsPruned},
		{kindDynamicFilter, dynfilter.Applied},
		{kindSpill, join.EventSpill},
		{kindPartitionWritten, join.EventPartitionWritten},
		{kindPartitionRead, join.EventPartitionRead},
		{kindRepartition, join.EventRepartition},
		{kindHotKey, join.EventHotKey},
		{kindPairJoined, join.EventPairJoined},
		{kindHeavyKey, join.TraceHeavyKey},
		{kindSaltAssigned, join.TraceSaltAssigned},
		{kindRowsReplicated, join.TraceRowsReplicated},
		{kindWorkerLoad, join.TraceWorkerLoad},
		{kindSweepAdvanced, join.SweepAdvanced},
		{kindPageRequested, join.PageRequested},
		{kindPageFetched, join.PageFetched},
		{kindTieGroupCut, join.TieGroupCut},
		{kindFilterSplit, join.FilterSplit},
		{kindRefetched, join.Refetched},
	} {
		if c.page != c.engine {
			t.Errorf("the page folds %q, the engine emits %q", c.page, c.engine)
		}
	}
	if opOutput != runner.OpOutput {
		t.Errorf("the page reads output rows from op %q, the runner posts them as %q", opOutput, runner.OpOutput)
	}
}

// Every strategy the planner registers has a drawing (viewOf), so none falls to the generic tally.
func TestEveryStrategyHasAView(t *testing.T) {
	for _, s := range runner.Catalogue().Strategies {
		if viewOf(s.Name) == viewGeneric {
			t.Errorf("strategy %s has no view", s.Name)
		}
	}
}
