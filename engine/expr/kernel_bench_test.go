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
	batch := column.NewBatch(testColumns(rng, rows), rows)
	for _, src := range []string{
		"l1 + l2 > 1200 and l1 % 3 != 0",
		"iff(isnull(l1), 0, l1 * 2)",
		"iff(l1 > l2, l1, l2)",
		"iff(l1 > l2, r1, r2)",
		"iff(l1 > l2, s1, s2)",
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

// BenchmarkSelect compares a filter's selection (Select: the right operand of an `and` runs only at the rows
// the left kept) with evaluating both operands over the whole batch and picking the true rows, as a filter did
// before selections, on 4096-row batches of values uniform in 0–999 with a tenth null:
// go test -bench Select -run '^$' ./engine/expr
func BenchmarkSelect(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	const rows = 4096
	cols := make([]*column.Vector, len(testSchema))
	for i, f := range testSchema {
		switch f.Type {
		case column.Long:
			v := column.NewVector(column.Long, rows)
			for range rows {
				if rng.Intn(10) == 0 {
					v.AppendNull()
				} else {
					v.AppendInt(rng.Int63n(1000))
				}
			}
			cols[i] = v
		default:
			cols[i] = testColumn(rng, f.Type, rows)
		}
	}
	batch := column.NewBatch(cols, rows)
	for _, src := range []string{
		"l1 + l2 > 1200 and l1 % 3 != 0",
		"l1 > 900 and strlen(strcat(s1, s2)) > 5",
		"l1 < 100 or l2 % 7 == 3",
	} {
		x, err := Compile(parseExpr(&testing.T{}, src), testSchema)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(src+"/select", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Select(x, BatchInput(batch), nil)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
		b.Run(src+"/whole", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				v := wholeEval(x, batch)
				var keep []int32
				for r := 0; r < rows; r++ {
					if truth(v, r) {
						keep = append(keep, int32(r))
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
	}
}

// wholeEval evaluates e with both operands of every and/or computed over the whole batch.
func wholeEval(e Expr, b *column.Batch) *column.Vector {
	if l, ok := e.(*logic); ok {
		return l.combine(wholeEval(l.l, b), wholeEval(l.r, b), b.N)
	}
	return e.Eval(b)
}
