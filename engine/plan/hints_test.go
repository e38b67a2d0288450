package plan

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/kql"
)

// TestKustoHints: every join hint is honoured or refused at its position, never accepted and ignored.
func TestKustoHints(t *testing.T) {
	const join = "@Users | join "
	cases := []struct{ params, kind, want string }{
		// honoured
		{"hint.strategy=broadcast", "inner", "broadcast join kind=inner, W=4 logical workers; the left side (est. 4 rows) is copied to each of them"},
		{"hint.strategy=shuffle", "leftouter", "shuffle join kind=leftouter, W=4 logical workers; both sides partitioned by all the join keys"},
		{"hint.strategy=shuffle hint.shufflekey=user_id hint.num_partitions=3", "fullouter", "shuffle join kind=fullouter, W=3 logical workers; both sides partitioned by user_id"},
		{"hint.shufflekey=user_id", "inner", "hint.shufflekey=user_id selects the shuffle strategy, as in Kusto"},
		{"hint.strategy=fetchall", "inner", "error: 1:15: hint.strategy=fetchall cannot run this join"},
		// refused, at the hint's position
		{"hint.foo=1", "inner", "error: 1:15: unknown join parameter \"hint.foo\""},
		{"hint.remote=auto", "inner", "error: 1:15: hint.remote=auto chooses the cluster that runs a cross-cluster join"},
		{"hint.strategy=hash hint.shufflekey=user_id", "inner", "error: 1:34: hint.shufflekey is a setting of the shuffle strategy; this join runs hash"},
		{"hint.strategy=broadcast hint.num_partitions=2", "inner", "error: 1:39: hint.num_partitions is a setting of the shuffle strategy; this join runs broadcast"},
		{"hint.strategy=broadcast hint.page_rows=2", "inner", "hint.strategy=fetchall"},
		{"hint.shufflekey=song_id", "inner", "error: 1:15: hint.shufflekey=song_id: want one of the join's keys (user_id)"},
		{"hint.strategy=shuffle hint.num_partitions=0", "inner", "error: 1:37: hint.num_partitions=0: want a whole number of partitions in 1…64"},
		{"hint.strategy=broadcast", "leftouter", "error: 1:15: hint.strategy=broadcast cannot run this join: broadcast join: kind=leftouter decides each left row over every right row"},
	}
	for _, c := range cases {
		query := join + c.params + " kind=" + c.kind + " (@Listens) on user_id"
		q, err := kql.Parse(query)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		got := ""
		if p, err := Build(context.Background(), q, explainSources(t), Options{}); err != nil {
			got = "error: " + err.Error()
		} else {
			got = p.Explain()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s:\ngot  %s\nwant %s", query, got, c.want)
		}
	}
}

// TestBroadcastTooLargePointsToFetchAll: a broadcast whose left side cannot be copied to every worker — what a
// query written for the old meaning of the name (fetch a connector side whole) asks — is refused at the hint,
// naming hint.strategy=fetchall; a broadcast that fits runs.
func TestBroadcastTooLargePointsToFetchAll(t *testing.T) {
	srcs := pagedSources(t, 12, 50)
	q, err := kql.Parse(fmt.Sprintf(pagedJoinQuery, "hint.strategy=broadcast "))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(context.Background(), q, srcs, Options{MemoryBudget: 1024})
	if err == nil || !strings.HasPrefix(err.Error(), "1:25: hint.strategy=broadcast cannot run this join") ||
		!strings.Contains(err.Error(), "hint.strategy=fetchall") {
		t.Fatalf("got %v, want a refusal at the hint that points to fetchall", err)
	}
	p, err := Build(context.Background(), q, srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tab, _ := runRows(t, p); tab.N != 12 {
		t.Fatalf("broadcast over connector sources: %d rows, want 12", tab.N)
	}
}
