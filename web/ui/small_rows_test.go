package ui

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/trace"
	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// smallInputs makes two small JSON-lines tables, L and R, joined on k: a third of each side's rows share key
// 1 (so the salted join measures it heavy), about one in seven has a null key, and the rest spread over a few
// keys with duplicates, two of them on the right side only. It returns each side's keys as the engine writes them, in input order.
func smallInputs(seed uint64, left, right int) (sources map[string]protocol.Input, keys [2][]string) {
	rng := rand.New(rand.NewPCG(seed, 7))
	table := func(side string, n, domain int) (string, []string) {
		var b strings.Builder
		var ks []string
		for i := range n {
			k := "null"
			switch x := rng.IntN(21); {
			case x < 3:
			case x < 10:
				k = "1"
			default:
				k = fmt.Sprint(2 + rng.IntN(domain))
			}
			ks = append(ks, k)
			fmt.Fprintf(&b, "{\"k\":%s,\"id\":\"%s%d\"}\n", k, side, i)
		}
		return b.String(), ks
	}
	l, lk := table("L", left, 7)
	r, rk := table("R", right, 9) // keys 9 and 10 are the right side's only: rows no left row matches
	return map[string]protocol.Input{"L": {Format: "jsonl", Data: l}, "R": {Format: "jsonl", Data: r}}, [2][]string{lk, rk}
}

// smallRun runs kind over the small inputs under strategy through the real engine and the page's decoding, and
// returns the events as the page folds them.
func smallRun(t *testing.T, sources map[string]protocol.Input, kind, strategy string, budget int64) []trace.Event {
	t.Helper()
	run := &protocol.Run{Query: "@L | join kind=" + kind + " (@R) on $left.k == $right.k", Seed: 1, Strategy: strategy,
		Sources: sources, MemoryBudget: budget}
	var events []trace.Event
	var failed string
	runner.Stream(t.Context(), 1, run, func(m protocol.Message) {
		if m.Type == protocol.MessageError {
			failed = fmt.Sprint(m.Error)
		}
		events = append(events, throughThePage(t, m)...)
	}, nil)
	if failed != "" {
		t.Fatalf("%s %s: %s", strategy, kind, failed)
	}
	return events
}

// smallSeed is the seed of the small inputs; JOINLAB_TEST_SEED draws others (testSeed logs it).
func smallSeed(t *testing.T) uint64 {
	seed := uint64(1)
	if v := os.Getenv("JOINLAB_TEST_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("JOINLAB_TEST_SEED=%q: %v", v, err)
		}
		seed = n
	}
	t.Logf("small inputs from seed %d (JOINLAB_TEST_SEED=%d replays them)", seed, seed)
	return seed
}

// sameKeys compares two lists of keys as multisets.
func sameKeys(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// graceBudgets are the memory budgets the Grace runs are made under: the engine's default (one partition for
// inputs this small) and one that splits them in a few. TestSmallGraceRunDrawsRowsByPartition adds one so
// tight that a pair no longer fits and is split again (then sent to the hot-key path when the split barely
// shrank it: key 1 holds a third of the rows).
var graceBudgets = []int64{0, 4 << 10}

// splittingBudget is the largest budget, from 1 KiB down, under which the Grace join of the small inputs
// re-partitions a pair and still finishes (below a few hundred bytes the hot-key path has no room for a row).
func splittingBudget(t *testing.T, src map[string]protocol.Input) int64 {
	for b := int64(1 << 10); b >= 512; b -= 32 {
		run := &protocol.Run{Query: "@L | join kind=inner (@R) on $left.k == $right.k", Seed: 1, Strategy: "grace",
			Sources: src, MemoryBudget: b}
		split, failed := false, false
		runner.Stream(t.Context(), 1, run, func(m protocol.Message) {
			failed = failed || m.Type == protocol.MessageError
			for _, e := range m.Events {
				_, ok := e.Payload.(joinevent.Repartition)
				split = split || ok
			}
		}, nil)
		if split && !failed {
			return b
		}
	}
	t.Fatal("no budget from 1 KiB to 512 B re-partitions the small inputs and finishes")
	return 0
}

// TestSmallGraceRunDrawsRowsByPartition runs the real Grace join over small inputs with duplicate and null
// keys, as the page receives it, and checks the rows its view draws per partition: at level 0 every input row
// of each side appears exactly once (the null-key rows set aside), each partition holds as many keys as its
// partition_written rows, a re-partitioned pair's sub-partitions hold exactly its keys, and a side over the
// threshold lists none.
func TestSmallGraceRunDrawsRowsByPartition(t *testing.T) {
	seed := smallSeed(t)
	src, keys := smallInputs(seed, 40, 30)
	split := 0
	budgets := append(slices.Clone(graceBudgets), splittingBudget(t, src))
	t.Logf("budgets %v", budgets)
	for _, kind := range []string{"inner", "leftouter", "fullouter", "rightanti"} {
		for _, budget := range budgets {
			events := smallRun(t, src, kind, "grace", budget)
			g := Fold(events).Grace
			written := map[string]int64{}
			for _, e := range events {
				if w, ok := e.Payload.(joinevent.PartitionWritten); ok {
					written[w.Side+"/"+w.Partition] = w.Rows
				}
			}
			if len(g.Small) == 0 {
				t.Fatalf("%s, budget %d: no partition drawn row by row", kind, budget)
			}
			var top [2][]string
			for _, p := range g.Small {
				for side, ks := range [2][]string{p.Left, p.Right} {
					name := [2]string{"left", "right"}[side]
					if p.Level == 0 {
						top[side] = append(top[side], ks...)
					}
					if p.ID == "" {
						if slices.ContainsFunc(ks, func(k string) bool { return k != "null" }) {
							t.Errorf("%s, budget %d: the %s null-key rows hold %v", kind, budget, name, ks)
						}
					} else if n := written[name+"/"+p.ID]; int64(len(ks)) != n {
						t.Errorf("%s, budget %d: partition %s has %d %s keys drawn, partition_written says %d rows",
							kind, budget, p.ID, len(ks), name, n)
					}
				}
				if !p.Split {
					continue
				}
				split++
				var sub [2][]string
				for _, c := range g.Small {
					if strings.HasPrefix(c.ID, p.ID+".") && c.Level == p.Level+1 {
						sub[0], sub[1] = append(sub[0], c.Left...), append(sub[1], c.Right...)
					}
				}
				if !sameKeys(sub[0], p.Left) || !sameKeys(sub[1], p.Right) {
					t.Errorf("%s, budget %d: partition %s's sub-partitions hold %v | %v, it held %v | %v",
						kind, budget, p.ID, sub[0], sub[1], p.Left, p.Right)
				}
			}
			for side := range 2 {
				if !sameKeys(top[side], keys[side]) {
					t.Errorf("%s, budget %d: the %s keys drawn at level 0 are %v, the input's %v",
						kind, budget, [2]string{"left", "right"}[side], top[side], keys[side])
				}
			}
			for id, n := range written {
				if n > 0 && !strings.Contains(id, ".") && g.smallPart(g.Small[0].Op, strings.SplitN(id, "/", 2)[1]) == nil {
					t.Errorf("%s, budget %d: partition %s was written with %d rows and is not drawn", kind, budget, id, n)
				}
			}
		}
	}
	if split == 0 {
		t.Errorf("no run re-partitioned under budgets %v: the sub-partitions' rows went untested", budgets)
	}
	// One row over the threshold on the left: the left side lists nothing, the right side still does.
	big, _ := smallInputs(seed, joinevent.SmallSideRows+1, 30)
	for _, e := range smallRun(t, big, "inner", "grace", 0) {
		if k, ok := e.Payload.(joinevent.PartitionKeys); ok && k.Side == "left" {
			t.Fatalf("a left side of %d rows listed its keys: %+v", joinevent.SmallSideRows+1, k)
		}
	}
}

// TestSmallSaltedRunDrawsRowsByWorker runs the real salted join, and its teaching variant, over small inputs
// with duplicate and null keys and checks the rows its view draws per worker: each row's key is its input
// row's, the spread side's rows appear once each, an expanded row's copies are one per worker under distinct
// salts and add up to the run's rows_replicated, and the rows and pairs drawn on each worker before and after
// salting are the loads worker_load reported. For the teaching variant, the copies drawn as wrongly
// null-extended are exactly the extra rows its output has over the correct join's.
func TestSmallSaltedRunDrawsRowsByWorker(t *testing.T) {
	seed := smallSeed(t)
	src, keys := smallInputs(seed, 40, 30)
	for _, kind := range []string{"inner", "leftouter", "rightouter", "innerunique"} {
		outputs := map[string]int64{}
		for _, strategy := range []string{"salted", "salted_naive_wrong"} {
			events := smallRun(t, src, kind, strategy, 0)
			tv := Fold(events)
			s := &tv.Salted
			outputs[strategy] = tv.Output
			name := kind + "/" + strategy
			if len(s.Small) == 0 || s.Workers == 0 {
				t.Fatalf("%s: no worker drawn row by row", name)
			}
			loads := map[int]joinevent.WorkerLoad{}
			for _, e := range events {
				if l, ok := e.Payload.(joinevent.WorkerLoad); ok {
					loads[l.Worker] = l
				}
			}
			type id struct{ side, row int }
			seen := map[id][]int{} // the salts each input row was received under
			copied := map[id]bool{}
			for _, w := range s.Small {
				for side, rows := range [2][]joinevent.SaltedRow{w.Left, w.Right} {
					for _, r := range rows {
						if r.Row < 1 || r.Row > len(keys[side]) || r.Key != keys[side][r.Row-1] {
							t.Fatalf("%s: worker %d drew row %d of side %d with key %q, the input's is %q",
								name, w.Worker, r.Row, side, r.Key, keys[side][min(max(r.Row, 1), len(keys[side]))-1])
						}
						seen[id{side, r.Row}] = append(seen[id{side, r.Row}], r.Salt)
						copied[id{side, r.Row}] = copied[id{side, r.Row}] || r.Copy
					}
				}
			}
			var replicated int
			for row, salts := range seen {
				if !copied[row] {
					if len(salts) != 1 {
						t.Errorf("%s: row %d of side %d, not a copy, was received %d times", name, row.row, row.side, len(salts))
					}
					continue
				}
				slices.Sort(salts)
				if len(salts) != s.Workers || salts[0] != 0 || salts[len(salts)-1] != s.Workers-1 || slices.Compact(salts) == nil || len(slices.Compact(salts)) != s.Workers {
					t.Errorf("%s: row %d of side %d was copied under salts %v, want one per worker of %d", name, row.row, row.side, salts, s.Workers)
				}
				replicated += len(salts) - 1
			}
			if float64(replicated) != s.Replicated {
				t.Errorf("%s: %d extra copies drawn, rows_replicated says %v", name, replicated, s.Replicated)
			}
			before := [2][][]joinevent.SaltedRow{}
			before[0], before[1] = s.BeforeSalting()
			for _, w := range s.Small {
				l, ok := loads[w.Worker]
				if !ok {
					t.Fatalf("%s: worker %d drawn with no worker_load", name, w.Worker)
				}
				rows, pairs := int64(len(w.Left)+len(w.Right)), pairsOf(w.Left, w.Right)
				if rows != l.RowsAfter || pairs != l.PairsAfter || rows+pairs != l.LoadAfter {
					t.Errorf("%s: worker %d drawn after salting with %d rows and %d pairs, worker_load says %d and %d",
						name, w.Worker, rows, pairs, l.RowsAfter, l.PairsAfter)
				}
				bl, br := before[0][w.Worker], before[1][w.Worker]
				rows, pairs = int64(len(bl)+len(br)), pairsOf(bl, br)
				if rows != l.RowsBefore || pairs != l.PairsBefore || rows+pairs != l.LoadBefore {
					t.Errorf("%s: worker %d drawn before salting with %d rows and %d pairs, worker_load says %d and %d",
						name, w.Worker, rows, pairs, l.RowsBefore, l.PairsBefore)
				}
			}
			if len(loads) != len(s.Small) {
				t.Errorf("%s: %d workers drawn, %d in worker_load", name, len(s.Small), len(loads))
			}
			wrong := s.NullExtendedCopies()
			if strategy == "salted" && len(wrong) > 0 {
				t.Errorf("%s: the correct join has %d copies drawn as wrongly null-extended", name, len(wrong))
			}
			// innerunique's teaching variant is wrong another way too (it keeps every left row of a key), so
			// only the other kinds' extra rows are all null-extended copies.
			if strategy == "salted_naive_wrong" && kind != "innerunique" {
				extra := outputs["salted_naive_wrong"] - outputs["salted"]
				if int64(len(wrong)) != extra {
					t.Errorf("%s: %d copies drawn as wrongly null-extended, the output has %d rows more than the correct join's",
						name, len(wrong), extra)
				}
				if kind == "rightouter" && extra == 0 {
					t.Errorf("%s: the teaching variant made no wrong row: the inputs no longer show its fault", name)
				}
			}
		}
	}
}

// pairsOf counts the pairs the rows of two sides on one worker form: rows sharing a key that is not null.
func pairsOf(left, right []joinevent.SaltedRow) int64 {
	n := map[string]int64{}
	for _, r := range left {
		if r.Key != "null" {
			n[r.Key]++
		}
	}
	var pairs int64
	for _, r := range right {
		pairs += n[r.Key]
	}
	return pairs
}

// TestSmallRowsCloneApart folds part of a small Grace run's and a small salted run's events, clones the view
// (as the tape's checkpoints do) and folds the rest into the original: the clone must still draw the rows of
// the part it was made from, so a timeline scrubbed back never shows partitions or workers filled later.
func TestSmallRowsCloneApart(t *testing.T) {
	src, _ := smallInputs(smallSeed(t), 40, 30)
	for _, strategy := range []string{"grace", "salted"} {
		events := smallRun(t, src, "leftouter", strategy, 0)
		for _, k := range positions(len(events)) {
			v := Fold(events[:k])
			c := v.Clone()
			for _, e := range events[k:] {
				v.Add(e)
			}
			want := Fold(events[:k])
			if smallDump(c) != smallDump(want) {
				t.Fatalf("%s: a clone at event %d of %d changed when the original folded on", strategy, k, len(events))
			}
		}
	}
}

// smallDump writes a view's small-run rows out in full (the lists hold pointers, which fmt would print as such).
func smallDump(v *TraceView) string {
	var b strings.Builder
	for _, p := range v.Grace.Small {
		fmt.Fprintf(&b, "%+v\n", *p)
	}
	for _, w := range v.Salted.Small {
		fmt.Fprintf(&b, "%+v\n", *w)
	}
	return b.String()
}

// TestPartitionsInTableOrder: the Grace table lists partitions as paths of numbers, each sub-partition after
// its parent, the null-key rows last.
func TestPartitionsInTableOrder(t *testing.T) {
	g := &GraceSummary{}
	for _, id := range []string{"10", "2", "", "3.1", "3", "3.0", "0"} {
		g.addKeys("grace on k", joinevent.PartitionKeys{Side: "left", Partition: id, Keys: []string{"1"}})
	}
	var got []string
	for _, p := range g.InOrder() {
		got = append(got, p.ID)
	}
	if want := []string{"0", "2", "3", "3.0", "3.1", "10", ""}; !slices.Equal(got, want) {
		t.Errorf("partitions in the order %q, want %q", got, want)
	}
}
