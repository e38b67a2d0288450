package runner

import (
	"strings"

	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/sims/clock"
	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/walkthrough"
)

// connectors opens a run's tables that sit behind a simulated API (protocol.Input.Connector), the way a
// walkthrough's run opens them (walkthrough.OpenInline), on one virtual clock for the whole run as in a
// scenario.
type connectors struct {
	clk *clock.Virtual
}

func (c *connectors) open(name string, in protocol.Input) (source.Source, error) {
	spec := in.Connector
	lines := strings.Split(strings.TrimRight(in.Data, "\n"), "\n")
	return walkthrough.OpenInline(name, &walkthrough.InlineSource{Format: in.Format, Lines: lines,
		Connector: &walkthrough.ConnectorSpec{Profile: spec.Profile, Key: spec.Key, MaxRows: spec.MaxRows,
			MaxBytes: spec.MaxBytes, MaxInValues: spec.MaxInValues, MaxQueryBytes: spec.MaxQueryBytes}}, &c.clk)
}
