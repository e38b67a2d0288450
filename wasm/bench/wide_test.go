package main

import (
	"cmp"
	"slices"
	"strconv"
	"testing"
)

// bruteWide computes a wide workload's digest by nested loops over the generated tables, each query read as
// plainly as it is written (KQL's join kinds: null keys match nothing, outer sides null-extended).
func bruteWide(t *testing.T, name string, d *Data) Digest {
	b, p := cols(t, d.Sources["B"]), cols(t, d.Sources["P"])
	cv, dv := cols(t, d.Sources["C"]).Cols[1].Ints, cols(t, d.Sources["D"]).Cols[1].Ints
	bk, bk2, bv, bg, bgb := b.Cols[0].Ints, b.Cols[1].Ints, b.Cols[2].Ints, b.Cols[3].Ints, b.Cols[4].Ints
	pk, pk2, pw, pts, ppg := p.Cols[0], p.Cols[1].Ints, p.Cols[2].Ints, p.Cols[3].Ints, p.Cols[4].Ints
	// matches[j] lists the build rows whose key equals probe row j's.
	matches := make([][]int, p.N)
	bMatched := make([]bool, b.N)
	for j := range p.N {
		if pk.IsNull(j) {
			continue
		}
		for i := range b.N {
			if bk[i] == pk.Ints[j] {
				matches[j] = append(matches[j], i)
				bMatched[i] = true
			}
		}
	}
	var n, s1, s2 int64
	groups := func(group func(i, j int) int64, sum func(i, j int) int64, ext func(i, j int) int64, better func(a, b int64) bool) {
		s, m := map[int64]int64{}, map[int64]int64{}
		for j := range p.N {
			for _, i := range matches[j] {
				g := group(i, j)
				if cur, ok := m[g]; !ok || better(ext(i, j), cur) {
					m[g] = ext(i, j)
				}
				s[g] += sum(i, j)
			}
		}
		n = int64(len(s))
		for g := range s {
			s1, s2 = s1+s[g], s2+m[g]
		}
	}
	gt := func(a, b int64) bool { return a > b }
	lt := func(a, b int64) bool { return a < b }
	switch name {
	case "by100":
		groups(func(i, _ int) int64 { return bg[i] }, func(_, j int) int64 { return pw[j] }, func(i, _ int) int64 { return bv[i] }, gt)
	case "by100k":
		groups(func(i, _ int) int64 { return bgb[i] }, func(_, j int) int64 { return pw[j] }, func(i, _ int) int64 { return bv[i] }, gt)
	case "byprobe":
		groups(func(_, j int) int64 { return ppg[j] }, func(i, _ int) int64 { return bv[i] }, func(_, j int) int64 { return pw[j] }, lt)
	case "leftouter":
		for j := range p.N {
			if len(matches[j]) == 0 {
				n, s2 = n+1, s2+pw[j]
			}
			for _, i := range matches[j] {
				n, s1, s2 = n+1, s1+2*bv[i], s2+pw[j]
			}
		}
	case "rightouter":
		for j := range p.N {
			for _, i := range matches[j] {
				n, s1, s2 = n+1, s1+pw[j], s2+bv[i]
			}
		}
		for i := range b.N {
			if !bMatched[i] {
				n, s1, s2 = n+1, s1+1000, s2+bv[i]
			}
		}
	case "fullouter":
		for j := range p.N {
			if len(matches[j]) == 0 {
				n++
				if pk.IsNull(j) {
					s1++
				}
			}
			for _, i := range matches[j] {
				n, s2 = n+1, s2+bv[i]
			}
		}
		for i := range b.N {
			if !bMatched[i] {
				n, s1, s2 = n+1, s1+1, s2+bv[i]
			}
		}
	case "leftanti":
		for j := range p.N {
			if len(matches[j]) == 0 {
				n, s1, s2 = n+1, s1+pw[j], s2+pts[j]%1000
			}
		}
	case "sorttop":
		rows := make([]int, p.N)
		for j := range rows {
			rows[j] = j
		}
		slices.SortStableFunc(rows, func(a, b int) int {
			if c := cmp.Compare(pw[a], pw[b]); c != 0 {
				return c
			}
			return cmp.Compare(pts[b], pts[a])
		})
		for _, j := range rows[:min(1_000_000, len(rows))] {
			n, s1, s2 = n+1, s1+pts[j]%1000, s2+ppg[j]
		}
	case "distinct2":
		seen := map[[2]int64]bool{}
		for j := range p.N {
			for _, i := range matches[j] {
				if g := [2]int64{bg[i], ppg[j]}; !seen[g] {
					seen[g] = true
					n, s1, s2 = n+1, s1+g[0], s2+g[1]
				}
			}
		}
	case "dcountby":
		sums, pgs := map[int64]int64{}, map[int64]map[int64]bool{}
		for j := range p.N {
			for _, i := range matches[j] {
				g := bg[i]
				if pgs[g] == nil {
					pgs[g] = map[int64]bool{}
				}
				sums[g] += pw[j]
				pgs[g][ppg[j]] = true
			}
		}
		for g := range sums {
			n, s1, s2 = n+1, s1+sums[g], s2+int64(len(pgs[g]))
		}
	case "wheretop":
		var ts []int64 // with each row's w beside it: ts values are unique per probe row
		w := map[int64]int64{}
		for j := range p.N {
			for _, i := range matches[j] {
				if bv[i] > pw[j] {
					ts, w[pts[j]] = append(ts, pts[j]), pw[j]
				}
			}
		}
		slices.Sort(ts)
		slices.Reverse(ts)
		for _, x := range ts[:min(topN, len(ts))] {
			n, s1, s2 = n+1, s1+x, s2+w[x]
		}
	default:
		for j := range p.N {
			for _, i := range matches[j] {
				switch name {
				case "sparse":
					n, s1, s2 = n+1, s1+bv[i], s2+pw[j]
				case "twokey":
					if bk2[i] == pk2[j] {
						n, s1, s2 = n+1, s1+bv[i], s2+pw[j]
					}
				case "where2":
					if bv[i]+pw[j] > 1200 && pts[j]%3 != 0 {
						n, s1, s2 = n+1, s1+bv[i], s2+pw[j]
					}
				case "threeway":
					n, s1, s2 = n+1, s1+cv[bgb[i]], s2+pw[j]
				case "fourway":
					n, s1, s2 = n+1, s1+cv[bgb[i]]+dv[ppg[j]], s2+pw[j]
				case "wide6":
					n, s1, s2 = n+1, s1+bv[i]+pw[j]+bg[i]+ppg[j], s2+pts[j]%1000
				default:
					t.Fatalf("no brute force for workload %s", name)
				}
			}
		}
	}
	f := strconv.FormatInt
	return Digest{f(n, 10), f(s1, 10), f(s2, 10)}
}

// TestWideData: the wide data is what its SQL twin makes — sparse keys, a tenth of probe keys null, unique
// timestamps, group columns within C's and D's keys — so the workloads mean what their titles say.
func TestWideData(t *testing.T) {
	d, err := Generate("wide", testScale)
	if err != nil {
		t.Fatal(err)
	}
	p, c := cols(t, d.Sources["P"]), cols(t, d.Sources["C"])
	nulls, seen := 0, map[int64]bool{}
	for j := range p.N {
		if p.Cols[0].IsNull(j) {
			nulls++
		} else if (p.Cols[0].Ints[j]-sparseOffset)%sparseStride != 0 {
			t.Fatalf("probe key %d is not on the sparse grid", p.Cols[0].Ints[j])
		}
		if seen[p.Cols[3].Ints[j]] {
			t.Fatalf("timestamp %d repeats", p.Cols[3].Ints[j])
		}
		seen[p.Cols[3].Ints[j]] = true
	}
	if nulls < p.N/20 || nulls > p.N/5 {
		t.Errorf("%d of %d probe keys are null, want about a tenth", nulls, p.N)
	}
	b := cols(t, d.Sources["B"])
	for i := range b.N {
		if gb := b.Cols[4].Ints[i]; gb < 0 || gb >= int64(c.N) {
			t.Fatalf("build row %d: gb %d outside C's %d keys", i, gb, c.N)
		}
	}
	for _, name := range []string{"s31", "s58"} {
		d, err := Generate(name, testScale)
		if err != nil {
			t.Fatal(err)
		}
		k := cols(t, d.Sources["B"]).Cols[0].Strs[0]
		if want := map[string]int{"s31": 31, "s58": 58}[name]; len(k) != want {
			t.Errorf("%s: key %q is %d bytes, want %d", name, k, len(k), want)
		}
	}
}
