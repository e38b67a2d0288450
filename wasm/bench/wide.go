package main

import (
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/source"
)

// The wide suite (issue 19): query shapes users write that the five workloads of issue 12 do not, at the same
// sizes (1M ⋈ 5M), with no strategy hint, so each takes whatever path the planner gives a user. Its data:
//
//	B (1M)   k sparse int64 (1M keys spread over 8·10¹²), k2 (0–1), v (0–999), g (100 groups), gb (100K groups)
//	P (5M)   k sparse, null on a tenth of the rows; k2; w (0–999); ts (unique); pg (1,000 groups)
//	C (100K) c = gb's values, cv        D (1K) d = pg's values, dv
//
// and the string datasets s31 and s58 (workload.go): issue 12's int data with its keys as 31- and 58-byte
// strings.
const (
	sparseStride = 7_919_003 // a sparse key is its dense key times this, plus sparseOffset
	sparseOffset = 13
	groupsSmall  = 100
	groupsLarge  = 100_000
	groupsProbe  = 1_000
	nullTenths   = 1 // P.k is null where mix(15, i) % 10 < nullTenths
	tsSpread     = 8_388_608
)

// wideWorkloads are the wide suite's queries: joins, and a sort, a distinct and a distinct count. Each returns the digest: a count and two sums (every sum stays far
// inside int64).
var wideWorkloads = []Workload{
	{Name: "sparse", Title: "sparse int64 keys, count and sums", Data: "wide",
		KQL: `@B | join kind=inner (@P) on k | summarize n=count(), s1=sum(v), s2=sum(w)`,
		SQL: `SELECT count(*)::VARCHAR, sum(b.v)::VARCHAR, sum(p.w)::VARCHAR FROM wb b JOIN wp p ON b.k = p.k`},
	{Name: "str31", Title: "31-byte string keys, count and sums", Data: "s31",
		KQL: `@B | join kind=inner (@P) on k | summarize n=count(), s1=sum(v), s2=sum(w)`,
		SQL: `SELECT count(*)::VARCHAR, sum(b.v)::VARCHAR, sum(p.w)::VARCHAR FROM b31 b JOIN p31 p ON b.k = p.k`},
	{Name: "str58", Title: "58-byte string keys, count and sums", Data: "s58",
		KQL: `@B | join kind=inner (@P) on k | summarize n=count(), s1=sum(v), s2=sum(w)`,
		SQL: `SELECT count(*)::VARCHAR, sum(b.v)::VARCHAR, sum(p.w)::VARCHAR FROM b58 b JOIN p58 p ON b.k = p.k`},
	{Name: "twokey", Title: "a two-column key (k, k2)", Data: "wide",
		KQL: `@B | join kind=inner (@P) on k, k2 | summarize n=count(), s1=sum(v), s2=sum(w)`,
		SQL: `SELECT count(*)::VARCHAR, sum(b.v)::VARCHAR, sum(p.w)::VARCHAR FROM wb b JOIN wp p ON b.k = p.k AND b.k2 = p.k2`},
	{Name: "by100", Title: "summarize by a build column, 100 groups", Data: "wide",
		KQL: `@B | join kind=inner (@P) on k | summarize s=sum(w), m=max(v) by g | summarize n=count(), s1=sum(s), s2=sum(m)`,
		SQL: `SELECT count(*)::VARCHAR, sum(s)::VARCHAR, sum(m)::VARCHAR FROM ` +
			`(SELECT b.g, sum(p.w) s, max(b.v) m FROM wb b JOIN wp p ON b.k = p.k GROUP BY b.g)`},
	{Name: "by100k", Title: "summarize by a build column, 100,000 groups", Data: "wide",
		KQL: `@B | join kind=inner (@P) on k | summarize s=sum(w), m=max(v) by gb | summarize n=count(), s1=sum(s), s2=sum(m)`,
		SQL: `SELECT count(*)::VARCHAR, sum(s)::VARCHAR, sum(m)::VARCHAR FROM ` +
			`(SELECT b.gb, sum(p.w) s, max(b.v) m FROM wb b JOIN wp p ON b.k = p.k GROUP BY b.gb)`},
	{Name: "byprobe", Title: "summarize by a probe column, 1,000 groups", Data: "wide",
		KQL: `@B | join kind=inner (@P) on k | summarize s=sum(v), m=min(w) by pg | summarize n=count(), s1=sum(s), s2=sum(m)`,
		SQL: `SELECT count(*)::VARCHAR, sum(s)::VARCHAR, sum(m)::VARCHAR FROM ` +
			`(SELECT p.pg, sum(b.v) s, min(p.w) m FROM wb b JOIN wp p ON b.k = p.k GROUP BY p.pg)`},
	{Name: "leftouter", Title: "leftouter with null keys, a computed column", Data: "wide",
		KQL: `@P | join kind=leftouter (@B) on k | extend x = iff(isnull(v), 0, v * 2) | summarize n=count(), s1=sum(x), s2=sum(w)`,
		SQL: `SELECT count(*)::VARCHAR, sum(CASE WHEN b.v IS NULL THEN 0 ELSE b.v * 2 END)::VARCHAR, sum(p.w)::VARCHAR ` +
			`FROM wp p LEFT JOIN wb b ON p.k = b.k`},
	{Name: "rightouter", Title: "rightouter with null keys, a computed column", Data: "wide",
		KQL: `@P | join kind=rightouter (@B) on k | extend x = iff(isnull(w), 1000, w) | summarize n=count(), s1=sum(x), s2=sum(v)`,
		SQL: `SELECT count(*)::VARCHAR, sum(CASE WHEN p.w IS NULL THEN 1000 ELSE p.w END)::VARCHAR, sum(b.v)::VARCHAR ` +
			`FROM wp p RIGHT JOIN wb b ON p.k = b.k`},
	{Name: "fullouter", Title: "fullouter with null keys", Data: "wide",
		KQL: `@P | join kind=fullouter (@B) on k | extend x = iff(isnull(k), 1, 0) | summarize n=count(), s1=sum(x), s2=sum(v)`,
		SQL: `SELECT count(*)::VARCHAR, sum(CASE WHEN p.k IS NULL THEN 1 ELSE 0 END)::VARCHAR, sum(b.v)::VARCHAR ` +
			`FROM wp p FULL JOIN wb b ON p.k = b.k`},
	{Name: "leftanti", Title: "leftanti with null keys", Data: "wide",
		KQL: `@P | join kind=leftanti (@B) on k | summarize n=count(), s1=sum(w), s2=sum(ts % 1000)`,
		SQL: `SELECT count(*)::VARCHAR, sum(p.w)::VARCHAR, sum(p.ts % 1000)::VARCHAR FROM wp p ` +
			`WHERE NOT EXISTS (SELECT 1 FROM wb b WHERE b.k = p.k)`},
	{Name: "where2", Title: "a where across both sides, then sums", Data: "wide",
		KQL: `@B | join kind=inner (@P) on k | where v + w > 1200 and ts % 3 != 0 | summarize n=count(), s1=sum(v), s2=sum(w)`,
		SQL: `SELECT count(*)::VARCHAR, sum(b.v)::VARCHAR, sum(p.w)::VARCHAR FROM wb b JOIN wp p ON b.k = p.k ` +
			`WHERE b.v + p.w > 1200 AND p.ts % 3 != 0`},
	{Name: "wheretop", Title: "a where across both sides, then top 100", Data: "wide",
		KQL: `@B | join kind=inner (@P) on k | where v > w | top 100 by ts desc | summarize n=count(), s1=sum(ts), s2=sum(w)`,
		SQL: `SELECT count(*)::VARCHAR, sum(ts)::VARCHAR, sum(w)::VARCHAR FROM ` +
			`(SELECT p.ts, p.w FROM wb b JOIN wp p ON b.k = p.k WHERE b.v > p.w ORDER BY p.ts DESC LIMIT 100)`},
	{Name: "threeway", Title: "a three-way join", Data: "wide",
		KQL: `@P | join kind=inner (@B) on k | join kind=inner (@C) on $left.gb == $right.c | summarize n=count(), s1=sum(cv), s2=sum(w)`,
		SQL: `SELECT count(*)::VARCHAR, sum(c.cv)::VARCHAR, sum(p.w)::VARCHAR FROM wp p JOIN wb b ON p.k = b.k JOIN wc c ON b.gb = c.c`},
	{Name: "fourway", Title: "a four-way join", Data: "wide",
		KQL: `@P | join kind=inner (@B) on k | join kind=inner (@C) on $left.gb == $right.c | join kind=inner (@D) on $left.pg == $right.d` +
			` | summarize n=count(), s1=sum(cv + dv), s2=sum(w)`,
		SQL: `SELECT count(*)::VARCHAR, sum(c.cv + d.dv)::VARCHAR, sum(p.w)::VARCHAR FROM wp p JOIN wb b ON p.k = b.k ` +
			`JOIN wc c ON b.gb = c.c JOIN wd d ON p.pg = d.d`},
	{Name: "wide6", Title: "the join's output materialised: six columns, then counted", Data: "wide",
		KQL: `@B | join kind=inner (@P) on k | project k, v, w, ts, g, pg | summarize n=count(), s1=sum(v + w + g + pg), s2=sum(ts % 1000)`,
		SQL: `SELECT count(*)::VARCHAR, sum(b.v + p.w + b.g + p.pg)::VARCHAR, sum(p.ts % 1000)::VARCHAR FROM wb b JOIN wp p ON b.k = p.k`},
	// Beyond the join: a sort, a distinct and a distinct count, which every query ending in them runs.
	{Name: "sorttop", Title: "a top of a million rows by two keys", Data: "wide",
		KQL: `@P | top 1000000 by w asc, ts desc | summarize n=count(), s1=sum(ts % 1000), s2=sum(pg)`,
		SQL: `SELECT count(*)::VARCHAR, sum(ts % 1000)::VARCHAR, sum(pg)::VARCHAR FROM ` +
			`(SELECT ts, pg FROM wp ORDER BY w ASC, ts DESC LIMIT 1000000)`},
	{Name: "distinct2", Title: "a join, then distinct of a column of each side", Data: "wide",
		KQL: `@B | join kind=inner (@P) on k | distinct g, pg | summarize n=count(), s1=sum(g), s2=sum(pg)`,
		SQL: `SELECT count(*)::VARCHAR, sum(g)::VARCHAR, sum(pg)::VARCHAR FROM (SELECT DISTINCT b.g, p.pg FROM wb b JOIN wp p ON b.k = p.k)`},
	{Name: "dcountby", Title: "a join, then a sum and a distinct count by a build column", Data: "wide",
		KQL: `@B | join kind=inner (@P) on k | summarize s=sum(w), m=dcount(pg) by g | summarize n=count(), s1=sum(s), s2=sum(m)`,
		SQL: `SELECT count(*)::VARCHAR, sum(s)::VARCHAR, sum(m)::VARCHAR FROM ` +
			`(SELECT b.g, sum(p.w) s, count(DISTINCT p.pg) m FROM wb b JOIN wp p ON b.k = p.k GROUP BY b.g)`},
}

// generateWide builds the wide dataset at 1/scale: B, P, C and D (the string datasets are Generate's).
func generateWide(name string, scale int, d *Data) error {
	nb, np := buildRows/scale, probeRows/scale
	kb, kp := uint64(buildKeys/scale), uint64(probeKeys/scale)
	gl, gp := uint64(max(groupsLarge/scale, 1)), uint64(max(groupsProbe/scale, 1))
	switch name {
	case "wide":
		b := longTable([]string{"k", "k2", "v", "g", "gb"}, nb, func(i uint64, r []int64, _ []bool) {
			r[0] = int64(mix(1, i)%kb)*sparseStride + sparseOffset
			r[1], r[2], r[3], r[4] = int64(mix(14, i)%2), int64(mix(2, i)%1000), int64(mix(12, i)%groupsSmall), int64(mix(13, i)%gl)
		})
		p := longTable([]string{"k", "k2", "w", "ts", "pg"}, np, func(i uint64, r []int64, null []bool) {
			r[0] = int64(mix(3, i)%kp)*sparseStride + sparseOffset
			null[0] = mix(15, i)%10 < nullTenths
			r[1], r[2], r[3], r[4] = int64(mix(18, i)%2), int64(mix(4, i)%1000), int64(mix(5, i)%1_000_000)*tsSpread+int64(i), int64(mix(16, i)%gp)
		})
		c := longTable([]string{"c", "cv"}, int(gl), func(i uint64, r []int64, _ []bool) { r[0], r[1] = int64(i), int64(mix(19, i)%1000) })
		dd := longTable([]string{"d", "dv"}, int(gp), func(i uint64, r []int64, _ []bool) { r[0], r[1] = int64(i), int64(mix(20, i)%1000) })
		for n, t := range map[string]*column.Table{"B": b, "P": p, "C": c, "D": dd} {
			d.Sources[n] = source.FromTable(n, t)
		}
		d.Rows = nb + np + int(gl) + int(gp)
		d.SQL = []string{
			fmt.Sprintf(`CREATE OR REPLACE TABLE wb AS SELECT ((jl_mix(1, i) %% %d) * %d + %d)::BIGINT AS k, (jl_mix(14, i) %% 2)::BIGINT AS k2, `+
				`(jl_mix(2, i) %% 1000)::BIGINT AS v, (jl_mix(12, i) %% %d)::BIGINT AS g, (jl_mix(13, i) %% %d)::BIGINT AS gb FROM range(%d) t(i)`,
				kb, sparseStride, sparseOffset, groupsSmall, gl, nb),
			fmt.Sprintf(`CREATE OR REPLACE TABLE wp AS SELECT (CASE WHEN jl_mix(15, i) %% 10 < %d THEN NULL ELSE (jl_mix(3, i) %% %d) * %d + %d END)::BIGINT AS k, `+
				`(jl_mix(18, i) %% 2)::BIGINT AS k2, (jl_mix(4, i) %% 1000)::BIGINT AS w, ((jl_mix(5, i) %% 1000000) * %d + i)::BIGINT AS ts, `+
				`(jl_mix(16, i) %% %d)::BIGINT AS pg FROM range(%d) t(i)`, nullTenths, kp, sparseStride, sparseOffset, tsSpread, gp, np),
			fmt.Sprintf(`CREATE OR REPLACE TABLE wc AS SELECT i::BIGINT AS c, (jl_mix(19, i) %% 1000)::BIGINT AS cv FROM range(%d) t(i)`, gl),
			fmt.Sprintf(`CREATE OR REPLACE TABLE wd AS SELECT i::BIGINT AS d, (jl_mix(20, i) %% 1000)::BIGINT AS dv FROM range(%d) t(i)`, gp),
		}
	default:
		return fmt.Errorf("bench: no dataset %q", name)
	}
	return nil
}

// longTable makes a table of long columns named names with n rows, row i filled by f (null[c] marks a null).
func longTable(names []string, n int, f func(i uint64, row []int64, null []bool)) *column.Table {
	s := make(column.Schema, len(names))
	cols := make([]*column.Vector, len(names))
	for c, name := range names {
		s[c] = column.Field{Name: name, Type: column.Long}
		cols[c] = column.NewVector(column.Long, n)
	}
	row, null := make([]int64, len(names)), make([]bool, len(names))
	for i := range n {
		clear(null)
		f(uint64(i), row, null)
		for c := range cols {
			if null[c] {
				cols[c].AppendNull()
			} else {
				cols[c].AppendInt(row[c])
			}
		}
	}
	t := column.NewTable(s)
	t.Append(column.NewBatch(cols, n))
	return t
}
