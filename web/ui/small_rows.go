package ui

import (
	"slices"
	"strconv"
	"strings"

	"github.com/joinlab/joinlab/engine/join/joinevent"
)

// A small Grace or salted run's rows, drawn one by one. When an input has at most joinevent.SmallSideRows rows
// the Grace join lists the join keys of that side's rows in each partition it writes, at every level
// (partition_keys), and the salted join lists the rows each worker received, after salting (worker_rows). The
// folds below collect those lists as the engine wrote them; the views draw a small table per partition and per
// worker from them, so every key drawn is a row the engine placed there.

// PartitionRows is one partition's rows in a small Grace run: the keys of each side's rows written to it, in
// the order written. ID "" is a side's rows with a null key, set aside at level 0 and never spilled.
type PartitionRows struct {
	Op, ID      string
	Level       int
	Left, Right []string
	// Split says the pair was re-partitioned (its rows are drawn again in its sub-partitions); else, once
	// joined, Build is the side held in memory ("left", "right") and Method "hash" or "blocks" (hot keys).
	Split         bool
	Build, Method string
}

// Spilled says the partition's rows went to the store: every partition does; the null-key rows do not.
func (p *PartitionRows) Spilled() bool { return p.ID != "" }

// maxSmallGroups bounds the partitions and workers drawn row by row: with inputs of at most SmallSideRows rows
// a side there are at most that many non-empty partitions a side and level, and the views stay small.
const maxSmallGroups = maxBins

// smallPart is partition id's rows of join op, if a small run listed them.
func (g *GraceSummary) smallPart(op, id string) *PartitionRows {
	if i, ok := g.smallIndex[op+"\x00"+id]; ok {
		return g.Small[i]
	}
	return nil
}

func (g *GraceSummary) addKeys(op string, p joinevent.PartitionKeys) {
	if g.smallIndex == nil {
		g.smallIndex = map[string]int{}
	}
	key := op + "\x00" + p.Partition
	i, seen := g.smallIndex[key]
	if !seen {
		if len(g.Small) >= maxSmallGroups {
			g.SmallCut = true
			return
		}
		i = len(g.Small)
		g.smallIndex[key] = i
		g.Small = append(g.Small, &PartitionRows{Op: op, ID: p.Partition, Level: p.Level})
	}
	pr := g.Small[i]
	if p.Side == "left" {
		pr.Left = append(pr.Left, p.Keys...)
	} else {
		pr.Right = append(pr.Right, p.Keys...)
	}
}

// InOrder is Small as a table lists it: each join's partitions (in the order the trace first named the join)
// by id, a sub-partition right after its parent (3, 3.0, 3.1, 4), and the null-key rows last.
func (g *GraceSummary) InOrder() []*PartitionRows {
	ops := map[string]int{}
	for _, p := range g.Small {
		if _, ok := ops[p.Op]; !ok {
			ops[p.Op] = len(ops)
		}
	}
	out := slices.Clone(g.Small)
	slices.SortStableFunc(out, func(a, b *PartitionRows) int {
		if c := ops[a.Op] - ops[b.Op]; c != 0 {
			return c
		}
		if (a.ID == "") != (b.ID == "") {
			if a.ID == "" {
				return 1
			}
			return -1
		}
		return comparePartitionIDs(a.ID, b.ID)
	})
	return out
}

// comparePartitionIDs orders partition ids as paths of numbers: 2 < 10, and 3 < 3.0 < 3.1 < 4.
func comparePartitionIDs(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x - y
		}
	}
	return len(as) - len(bs)
}

// WorkerRows is one worker's rows in a small salted run, each side's in the order routed. Worker -1 is the
// full outer join's expanded rows kept apart from the workers. KeepsLeft and KeepsRight say the worker's
// join outputs that side's rows that match nothing on it (joinevent.WorkerRows.KeepsUnmatched).
type WorkerRows struct {
	Worker                int
	Left, Right           []joinevent.SaltedRow
	KeepsLeft, KeepsRight bool
}

func (s *SaltedSummary) addRows(p joinevent.WorkerRows) {
	var w *WorkerRows
	for _, x := range s.Small {
		if x.Worker == p.Worker {
			w = x
		}
	}
	if w == nil {
		if len(s.Small) >= maxSmallGroups {
			return
		}
		w = &WorkerRows{Worker: p.Worker}
		s.Small = append(s.Small, w)
	}
	if p.Side == "left" {
		w.Left = append(w.Left, p.Rows...)
		w.KeepsLeft = p.KeepsUnmatched
	} else {
		w.Right = append(w.Right, p.Rows...)
		w.KeepsRight = p.KeepsUnmatched
	}
}

// NullExtendedCopies finds, in a small run of the teaching variant, the copies of expanded rows that its
// workers null-extend although the right answer would not: a copy that matches nothing on its worker, where
// the worker keeps such rows, comes out null-extended there. Of one input row's copies, all are wrong when
// the row matches on some worker, and all but the first (by worker) when it matches nowhere, since the right
// answer null-extends it once. The result maps a side ("left", "right") and worker to the positions of its
// wrong copies in that worker's rows.
func (s *SaltedSummary) NullExtendedCopies() map[CopyAt]bool {
	type tally struct{ copies, alone int }
	rows := map[[2]int]*tally{} // side (0 left), input row
	each := func(f func(side int, w *WorkerRows, i int, r joinevent.SaltedRow, keeps bool)) {
		for _, w := range s.Small {
			if w.Worker < 0 {
				continue
			}
			for i, r := range w.Left {
				f(0, w, i, r, w.KeepsLeft)
			}
			for i, r := range w.Right {
				f(1, w, i, r, w.KeepsRight)
			}
		}
	}
	each(func(side int, _ *WorkerRows, _ int, r joinevent.SaltedRow, keeps bool) {
		if !r.Copy || !keeps {
			return
		}
		t := rows[[2]int{side, r.Row}]
		if t == nil {
			t = &tally{}
			rows[[2]int{side, r.Row}] = t
		}
		t.copies++
		if r.Alone {
			t.alone++
		}
	})
	out := map[CopyAt]bool{}
	firstKept := map[[2]int]bool{}
	// Workers are folded in the order the engine emitted them (0, 1, …), so "first" is the lowest worker.
	each(func(side int, w *WorkerRows, i int, r joinevent.SaltedRow, keeps bool) {
		if !r.Copy || !keeps || !r.Alone {
			return
		}
		id := [2]int{side, r.Row}
		if t := rows[id]; t.alone == t.copies && !firstKept[id] {
			firstKept[id] = true // unmatched everywhere: its first null-extended copy is the right one
			return
		}
		out[CopyAt{Side: side, Worker: w.Worker, Index: i}] = true
	})
	return out
}

// CopyAt is one row of a worker's side (0 left, 1 right), by its position there.
type CopyAt struct{ Side, Worker, Index int }

// BeforeSalting places a small run's rows where a plain shuffle would have sent them: a row's home worker is
// the one of its salt 0, so a row received at worker w under salt s is at home on worker (w - s) mod W, and of
// an expanded row's copies only the one of salt 0 counts. The rows kept apart are left out (their home is not
// in the trace). It returns each worker's left and right rows, indexed by worker.
func (s *SaltedSummary) BeforeSalting() (left, right [][]joinevent.SaltedRow) {
	n := s.Workers
	if n == 0 || n > maxSmallGroups {
		return nil, nil
	}
	left, right = make([][]joinevent.SaltedRow, n), make([][]joinevent.SaltedRow, n)
	for _, w := range s.Small {
		if w.Worker < 0 || w.Worker >= n {
			continue
		}
		place := func(out [][]joinevent.SaltedRow, rows []joinevent.SaltedRow) {
			for _, r := range rows {
				if r.Copy && r.Salt != 0 {
					continue
				}
				home := ((w.Worker-r.Salt)%n + n) % n
				r.Salt, r.Copy, r.Alone = 0, false, false
				out[home] = append(out[home], r)
			}
		}
		place(left, w.Left)
		place(right, w.Right)
	}
	for _, rows := range append(left, right...) {
		slices.SortStableFunc(rows, func(a, b joinevent.SaltedRow) int { return a.Row - b.Row })
	}
	return left, right
}
