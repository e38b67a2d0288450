package plan

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/join"
)

// TestWheresBelowProjectsKeepTheAnswer runs a where over projects over a join, for every kind, with the where
// sunk below the projects it reads through and without: the rows must be the same (as multisets), a where
// must sink where it reads only columns passed through under their names, and one that reads a computed or
// renamed column must stay above.
func TestWheresBelowProjectsKeepTheAnswer(t *testing.T) {
	cases := []struct {
		tail string
		sink bool // the where must end below every project
	}{
		{"project a, b, s, t | where a > b", true},
		{"project a, b, s | where isnull(b) or s == 'x'", true},
		{"extend c = a + 1 | project-away s | where a > 1 and b < 4", true},
		{"project a, b | project b | where b > 2", true},
		{"extend c = a + 1 | where c > 2", false},
		{"project a2 = a, b | where a2 > b", false},
		{"project a = b, b = a | where a > 2", false},
	}
	sunk := 0
	defer func() { wheresBelowProjects = true }()
	for seed := range uint64(4) {
		srcs := filterSources(seed)
		for _, kind := range join.Kinds {
			for _, c := range cases {
				q := fmt.Sprintf("@L | join kind=%s (@R) on k | %s", kind, c.tail)
				want, got, ex, ok := rewriteAnswers(t, q, srcs, &wheresBelowProjects, false)
				if !ok {
					continue // a column the kind does not output
				}
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d, %s:\nsunk  %v\nabove %v\n%s", seed, q, got, want, ex)
				}
				// The plan prints top down: a where below every project prints after the last compute line (as a
				// filter, or as the join's where on its row pairs); one above, as a filter before the first.
				_, physical, _ := strings.Cut(ex, "physical plan")
				last := strings.LastIndex(physical, "compute ")
				below := strings.LastIndex(physical, "filter (") > last || strings.Index(physical, "on the row pairs") > last
				if f := strings.Index(physical, "filter ("); !c.sink && (f < 0 || f > strings.Index(physical, "compute ")) {
					t.Fatalf("%s: no filter above the projects:\n%s", q, ex)
				}
				if c.sink && !below {
					t.Fatalf("%s: the where stayed above a project:\n%s", q, ex)
				}
				if !c.sink && below {
					t.Fatalf("%s: a where over a computed or renamed column went below its project:\n%s", q, ex)
				}
				if below {
					sunk++
				}
			}
		}
	}
	if sunk == 0 {
		t.Fatal("no where sank below a project: the test compared nothing")
	}
}
