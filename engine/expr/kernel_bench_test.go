package expr

import (
	"math/rand"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
)

// BenchmarkExpr compares the kernels with the row functions on 1024-row batches of the generated columns:
// go test -bench Expr -run '^$' ./engine/expr
func BenchmarkExpr(b *testing.B) {
	rng := rand.New(rand.NewSource(2))
	const rows = 1024
	cols := make([]*column.Vector, len(testSchema))
	for i, f := range testSchema {
		cols[i] = testColumn(rng, f.Type, rows)
	}
	batch := column.NewBatch(cols, rows)
	for _, src := range []string{
		"l1 + l2 > 1200 and l1 % 3 != 0",
		"iff(isnull(l1), 0, l1 * 2)",
		"r1 * 2.5 + toreal(l2)",
		`s1 contains "wor"`,
		"l1 in (1, 2, 7) or d1 - d2 > 1h",
	} {
		e := parseExpr(&testing.T{}, src)
		for _, mode := range []struct {
			name    string
			compile func() (Expr, error)
		}{
			{"kernels", func() (Expr, error) { return Compile(e, testSchema) }},
			{"rows", func() (Expr, error) { return compileRows(e, testSchema) }},
		} {
			x, err := mode.compile()
			if err != nil {
				b.Fatal(err)
			}
			b.Run(src+"/"+mode.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					x.Eval(batch)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
			})
		}
	}
}
