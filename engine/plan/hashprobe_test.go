package plan

import (
	"strings"
	"testing"
)

// TestHashJoinExplainLastRun checks that explain, once a hash join has run, names its key map and how its
// probe ran (join.Hash.ProbeExplain), and says nothing of a run before one.
func TestHashJoinExplainLastRun(t *testing.T) {
	for _, c := range []struct{ key, keyMap string }{{"uid", "int64 open addressing"}, {"user", "string keys"}} {
		p := buildPlan(t, "@Events | join kind=inner hint.strategy=hash (@Accounts) on "+c.key, dynSources(t))
		if strings.Contains(p.Explain(), "last run") {
			t.Fatalf("explain before a run should not describe one:\n%s", p.Explain())
		}
		runRows(t, p)
		x := p.Explain()
		if !strings.Contains(x, "last run: "+c.keyMap) || !strings.Contains(x, "probe streamed in probe order") {
			t.Fatalf("explain after a run on %s should name the %s key map and the streamed probe:\n%s", c.key, c.keyMap, x)
		}
	}
}
