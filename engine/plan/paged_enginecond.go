package plan

import (
	"fmt"
	"strings"
)

// explainEngineConds says, for a paged join whose sides keep conditions their connectors refused (after the
// pushdown pass), which conditions each such side pushed and which the engine applies, and what that costs:
// on the paged side the thin page carries the columns the conditions read and every re-fetched row is checked
// again; on the probe side every probe answer is filtered. "" when no side keeps one.
func explainEngineConds(jp *JoinPlan) string {
	var out []string
	pagedNode := pagedSideNode(jp)
	for _, n := range []Node{jp.left, jp.right} {
		cs, ok := sideSource(n)
		if !ok || cs.scan == nil || len(cs.engine) == 0 {
			continue
		}
		var conds []string
		read := make([]bool, len(n.Schema()))
		for _, w := range cs.engine {
			conds = append(conds, w.text)
			for i, r := range refs(len(read), w.pred) {
				read[i] = read[i] || r
			}
		}
		var cols []string
		for i, r := range read {
			if r {
				cols = append(cols, n.Schema()[i].Name)
			}
		}
		pushed := "nothing"
		if p := cs.src.Pushed(); p != "" {
			pushed = p
		}
		how := "each probe answer filtered"
		if n == pagedNode {
			how = fmt.Sprintf("the thin page carries [%s] for it, failing rows advance the cursor but are not probed, re-fetched rows checked again",
				strings.Join(cols, ", "))
		}
		out = append(out, fmt.Sprintf("@%s pushed %s, in the engine %s (%s)", cs.src.Name(), pushed, strings.Join(conds, " and "), how))
	}
	if len(out) == 0 {
		return ""
	}
	return "; " + strings.Join(out, "; ")
}
