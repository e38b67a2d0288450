package expr

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/kql"
)

// The kernels are tested against the row functions: random well-typed expressions over generated columns
// (nulls, NaN, ±0, ±Inf, the int64 extremes, empty and non-ASCII strings) must give the same value, type and
// nullness in every row, for every batch size, with the zero value in every null row; and the same again under
// selections (none, empty, full, one row, sparse, dense), both as values (evalSel) and, for predicates, as the
// rows a filter keeps (Select).

var testSchema = column.Schema{
	{Name: "l1", Type: column.Long}, {Name: "l2", Type: column.Long},
	{Name: "r1", Type: column.Real}, {Name: "r2", Type: column.Real},
	{Name: "s1", Type: column.String}, {Name: "s2", Type: column.String},
	{Name: "b1", Type: column.Bool}, {Name: "b2", Type: column.Bool},
	{Name: "d1", Type: column.DateTime}, {Name: "d2", Type: column.DateTime},
	{Name: "t1", Type: column.Timespan}, {Name: "t2", Type: column.Timespan},
	{Name: "y", Type: column.Dynamic},
	{Name: "n1", Type: column.Long}, // no nulls in TestKernelsMatchRows (see noNulls)
}

// noNulls is a long column of n rows with no null, values in -5…5 and the int64 extremes: the operand that
// takes a filter's direct loops (kernel_range.go), which a column with nulls leaves to the general way.
func noNulls(rng *rand.Rand, n int) *column.Vector {
	v := column.NewVector(column.Long, n)
	for range n {
		switch rng.Intn(12) {
		case 0:
			v.AppendInt(math.MinInt64)
		case 1:
			v.AppendInt(math.MaxInt64)
		default:
			v.AppendInt(rng.Int63n(11) - 5)
		}
	}
	return v
}

var (
	testLongs   = []int64{0, 1, -1, 2, 3, 7, -7, 10, 1000, math.MinInt64, math.MaxInt64, 1 << 40}
	testReals   = []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1.5, -2.5, 3, 1e300, 0.1}
	testStrings = []string{"", "a", "A", "abc", "ABC def", "hello world", "x-y", "Straße", "σς", "\u212a", " 42 ", "7", "2.5", "1e400", "2024-01-02T03:04:05Z", "héllo Wörld"}
	testDyn     = []string{"1", "2.5", "s", "true", "false", `{"a":1}`, "", "-3"}
)

func testColumn(rng *rand.Rand, t column.Type, n int) *column.Vector {
	v := column.NewVector(t, n)
	for i := 0; i < n; i++ {
		if rng.Intn(5) == 0 {
			v.AppendNull()
			continue
		}
		switch t {
		case column.Long:
			if rng.Intn(3) == 0 {
				v.AppendInt(rng.Int63n(21) - 10)
			} else {
				v.AppendInt(testLongs[rng.Intn(len(testLongs))])
			}
		case column.Real:
			if rng.Intn(3) == 0 {
				v.AppendReal(float64(rng.Intn(21)-10) / 4)
			} else {
				v.AppendReal(testReals[rng.Intn(len(testReals))])
			}
		case column.String:
			v.AppendString(testStrings[rng.Intn(len(testStrings))])
		case column.Bool:
			v.AppendBool(rng.Intn(2) == 0)
		case column.DateTime:
			v.AppendInt(1_700_000_000_000_000_000 + rng.Int63n(1000)*3_600_000_000_000 - 500*3_600_000_000_000)
		case column.Timespan:
			v.AppendInt((rng.Int63n(200) - 100) * 1_800_000_000_000)
		default:
			v.AppendString(testDyn[rng.Intn(len(testDyn))])
		}
	}
	return v
}

// gen writes a random expression of type t, at most depth levels deep.
type gen struct{ rng *rand.Rand }

func (g gen) one(options ...string) string { return options[g.rng.Intn(len(options))] }

func (g gen) expr(t column.Type, depth int) string {
	if depth == 0 || g.rng.Intn(4) == 0 {
		return g.leaf(t)
	}
	d := depth - 1
	switch t {
	case column.Long:
		switch g.rng.Intn(11) {
		case 0, 1:
			return fmt.Sprintf("(%s %s %s)", g.expr(t, d), g.one("+", "-", "*", "/", "%"), g.expr(t, d))
		case 2:
			return fmt.Sprintf("strlen(%s)", g.expr(column.String, d))
		case 3:
			return fmt.Sprintf("%s(%s)", g.one("tolong", "toint"), g.expr(g.anyType(), d))
		case 4:
			return fmt.Sprintf("bin(%s, %s)", g.expr(t, d), g.one("3", "0", "-2", "l2", "1", "1000", "1024"))
		case 5:
			return fmt.Sprintf("%s(%s)", g.one("abs", "-", "round"), g.expr(t, d))
		case 6:
			return fmt.Sprintf("iff(%s, %s, %s)", g.expr(column.Bool, d), g.expr(t, d), g.expr(t, d))
		case 7:
			return fmt.Sprintf("coalesce(%s, %s, %s)", g.expr(t, d), g.expr(t, d), g.expr(column.Real, d))
		case 8:
			return fmt.Sprintf("tolong(%s)", g.expr(column.Timespan, d))
		case 9:
			return fmt.Sprintf("case(%s, %s, %s, %s, %s)", g.expr(column.Bool, d), g.expr(t, d), g.expr(column.Bool, d), g.expr(t, d), g.expr(t, d))
		default: // a constant operand: a product, or a quotient or remainder by a reciprocal (kernel_divide.go)
			return fmt.Sprintf("(%s %s %s)", g.expr(t, d), g.one("*", "/", "%"),
				g.one("2", "3", "-7", "1000", "1024", "1", "-1", "9223372036854775807", "4611686018427387905"))
		}
	case column.Real:
		switch g.rng.Intn(9) {
		case 0, 1:
			return fmt.Sprintf("(%s %s %s)", g.expr(g.one2(column.Real, column.Long), d), g.one("+", "-", "*", "/", "%"), g.expr(column.Real, d))
		case 2:
			return fmt.Sprintf("%s(%s)", g.one("toreal", "todouble"), g.expr(g.anyType(), d))
		case 3:
			return fmt.Sprintf("bin(%s, %s)", g.expr(t, d), g.one("0.5", "2", "0", "r2"))
		case 4:
			return fmt.Sprintf("%s(%s)", g.one("abs", "-", "round"), g.expr(t, d))
		case 5:
			return fmt.Sprintf("round(%s, %s)", g.expr(t, d), g.one("1", "2", "l2 % 3"))
		case 6:
			if g.rng.Intn(2) == 0 { // a real and a long: the case is real
				return fmt.Sprintf("case(%s, %s, %s, %s, %s)", g.expr(column.Bool, d), g.expr(column.Long, d), g.expr(column.Bool, d), g.expr(t, d), g.expr(column.Long, d))
			}
			return fmt.Sprintf("iff(%s, %s, %s)", g.expr(column.Bool, d), g.expr(t, d), g.expr(column.Long, d))
		case 7:
			return fmt.Sprintf("(%s / %s)", g.expr(column.Timespan, d), g.expr(column.Timespan, d))
		default:
			return fmt.Sprintf("coalesce(%s, %s)", g.expr(t, d), g.expr(column.Long, d))
		}
	case column.String:
		switch g.rng.Intn(7) {
		case 0:
			return fmt.Sprintf("%s(%s)", g.one("tolower", "toupper"), g.expr(t, d))
		case 1:
			return fmt.Sprintf("strcat(%s, %s)", g.expr(t, d), g.expr(t, d))
		case 2:
			return fmt.Sprintf("tostring(%s)", g.expr(g.anyType(), d))
		case 3:
			return fmt.Sprintf("iff(%s, %s, %s)", g.expr(column.Bool, d), g.expr(t, d), g.expr(t, d))
		case 4:
			return fmt.Sprintf("coalesce(%s, %s)", g.expr(t, d), g.expr(t, d))
		case 5:
			return fmt.Sprintf("case(%s, %s, %s)", g.expr(column.Bool, d), g.expr(t, d), g.expr(t, d))
		default:
			return g.leaf(t)
		}
	case column.Bool:
		switch g.rng.Intn(15) {
		case 0, 1:
			u := g.one2(column.Long, column.Real)
			if g.rng.Intn(3) == 0 {
				u = g.one2(column.String, column.DateTime)
			}
			w := u
			if u == column.Long || u == column.Real {
				w = g.one2(column.Long, column.Real)
			}
			return fmt.Sprintf("(%s %s %s)", g.expr(u, d), g.one("==", "!=", "<", "<=", ">", ">="), g.expr(w, d))
		case 2:
			return fmt.Sprintf("(%s %s %s)", g.expr(t, d), g.one("==", "!="), g.expr(t, d))
		case 3, 4:
			return fmt.Sprintf("(%s %s %s)", g.expr(t, d), g.one("and", "or"), g.expr(t, d))
		case 5:
			return fmt.Sprintf("not(%s)", g.expr(t, d))
		case 6:
			return fmt.Sprintf("%s(%s)", g.one("isnull", "isnotnull", "isempty", "isnotempty"), g.expr(g.anyType(), d))
		case 7:
			return fmt.Sprintf("(%s %s %s)", g.expr(column.String, d),
				g.one("=~", "!~", "has", "!has", "contains", "!contains", "startswith", "!startswith", "endswith", "!endswith"),
				g.one(`"a"`, `"ABC"`, `"world"`, `""`, `"SS"`, `"Σ"`, `"ß"`, `"k"`, "s2", `"x"`))
		case 8:
			return fmt.Sprintf("(%s %s (%s))", g.expr(column.Long, d), g.one("in", "!in"), g.one("1, 2, 7", "-1", "0, 2.5, 3", "1000, 9223372036854775807"))
		case 9:
			return fmt.Sprintf("(%s %s (%s))", g.one("r1", "r2", "l1 / 2.0"), g.one("in", "!in"), g.one("1.5, 3", "0", "-2.5, 7"))
		case 10:
			return fmt.Sprintf("(%s %s (%s))", g.expr(column.String, d), g.one("in", "!in"), g.one(`"a", "abc"`, `""`, `"7", "A"`))
		case 11:
			return fmt.Sprintf("(%s %s (%s .. %s))", g.expr(column.Long, d), g.one("between", "!between"), g.one("1", "-1", "l2"), g.one("7", "2.5", "1000"))
		case 12: // an int operand against a constant of its type, either side: kernel_range.go's range tests
			u := []column.Type{column.Long, column.DateTime, column.Timespan}[g.rng.Intn(3)]
			x := g.expr(u, d)
			if u == column.Long && g.rng.Intn(2) == 0 {
				x = "n1"
			}
			c := map[column.Type]string{column.Long: g.one("0", "3", "-5", "9223372036854775807", "-9223372036854775807 - 1"),
				column.DateTime: "datetime(2023-11-14)", column.Timespan: g.one("1h", "-30m", "0s")}[u]
			op := g.one("==", "!=", "<", "<=", ">", ">=")
			if g.rng.Intn(2) == 0 {
				return fmt.Sprintf("(%s %s %s)", c, op, x)
			}
			return fmt.Sprintf("(%s %s %s)", x, op, c)
		case 13:
			return fmt.Sprintf("(%s %s (%s .. %s))", g.one("n1", g.expr(column.Long, d)), g.one("between", "!between"), g.one("1", "-7", "0", "5"), g.one("7", "-7", "1000", "9223372036854775807"))
		default:
			return fmt.Sprintf("iff(%s, %s, %s)", g.expr(t, d), g.expr(t, d), g.expr(t, d))
		}
	case column.DateTime:
		switch g.rng.Intn(4) {
		case 0:
			return fmt.Sprintf("(%s %s %s)", g.expr(t, d), g.one("+", "-"), g.expr(column.Timespan, d))
		case 1:
			return fmt.Sprintf("bin(%s, %s)", g.expr(t, d), g.one("1h", "1d", "0s"))
		case 2:
			return fmt.Sprintf("todatetime(%s)", g.expr(g.one2(column.String, column.DateTime), d))
		default:
			return fmt.Sprintf("iff(%s, %s, %s)", g.expr(column.Bool, d), g.expr(t, d), g.expr(t, d))
		}
	case column.Timespan:
		switch g.rng.Intn(4) {
		case 0:
			return fmt.Sprintf("(%s - %s)", g.expr(column.DateTime, d), g.expr(column.DateTime, d))
		case 1:
			return fmt.Sprintf("(%s %s %s)", g.expr(t, d), g.one("*", "/"), g.one("2", "1.5", "0", "l2", "r2"))
		case 2:
			return fmt.Sprintf("(%s %s %s)", g.expr(t, d), g.one("+", "-"), g.expr(t, d))
		default:
			return fmt.Sprintf("-%s", g.expr(t, d))
		}
	}
	return g.leaf(t)
}

func (g gen) leaf(t column.Type) string {
	switch t {
	case column.Long:
		return g.one("l1", "l2", "0", "3", "-7", "9223372036854775807")
	case column.Real:
		return g.one("r1", "r2", "1.5", "0.0", "-2.5")
	case column.String:
		return g.one("s1", "s2", `"abc"`, `""`, `"Straße"`)
	case column.Bool:
		return g.one("b1", "b2", "true", "false")
	case column.DateTime:
		return g.one("d1", "d2", "datetime(2023-11-14)")
	case column.Timespan:
		return g.one("t1", "t2", "1h", "-30m")
	}
	return "y"
}

func (g gen) one2(a, b column.Type) column.Type {
	if g.rng.Intn(2) == 0 {
		return a
	}
	return b
}

func (g gen) anyType() column.Type {
	types := []column.Type{column.Long, column.Real, column.String, column.Bool, column.DateTime, column.Timespan, column.Dynamic}
	return types[g.rng.Intn(len(types))]
}

func parseExpr(t *testing.T, src string) kql.Expr {
	t.Helper()
	q, err := kql.Parse("@T | extend x = " + src)
	if err != nil {
		t.Fatalf("parse %s: %v", src, err)
	}
	return q.Ops[0].(*kql.Extend).Items[0].Expr
}

// testColumns generates a column of rows rows for every field of testSchema, n1 with no null (noNulls).
func testColumns(rng *rand.Rand, rows int) []*column.Vector {
	cols := make([]*column.Vector, len(testSchema))
	for i, f := range testSchema {
		cols[i] = testColumn(rng, f.Type, rows)
	}
	cols[len(cols)-1] = noNulls(rng, rows)
	return cols
}

func TestKernelsMatchRows(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const rows = 1000
	cols := testColumns(rng, rows)
	full := column.NewBatch(cols, rows)
	batches := []*column.Batch{full, full.Slice(3, 4), full.Slice(10, 12), full.Slice(100, 107), full.Slice(200, 264), full.Slice(1, 66)}
	// A batch whose vectors run past its N: kernels must read only N rows, null bits included.
	batches = append(batches, column.NewBatch(cols, 65), column.NewBatch(cols, 0))

	g := gen{rng: rng}
	types := []column.Type{column.Long, column.Real, column.String, column.Bool, column.DateTime, column.Timespan}
	compiled, kernels := 0, 0
	for i := 0; i < 3000; i++ {
		src := g.expr(types[i%len(types)], 1+i%4)
		e := parseExpr(t, src)
		got, err := Compile(e, testSchema)
		want, errRows := compileRows(e, testSchema)
		if (err == nil) != (errRows == nil) {
			t.Fatalf("%s: kernel compile error %v, row compile error %v", src, err, errRows)
		}
		if err != nil {
			continue
		}
		compiled++
		if _, ok := got.(*rowFunc); !ok {
			kernels++
		}
		if got.Type() != want.Type() {
			t.Fatalf("%s: kernel type %s, row type %s", src, got.Type(), want.Type())
		}
		for _, b := range batches {
			w := want.Eval(b)
			checkSame(t, src, got.Eval(b), w, b.N)
			for _, sel := range selections(rng, b.N) {
				checkSelected(t, src, got, w, b, sel)
			}
		}
	}
	// The generator must exercise the kernels, not only type errors or row functions.
	t.Logf("%d compiled, %d kernels", compiled, kernels)
	if compiled < 2000 || kernels < compiled*3/4 {
		t.Fatalf("only %d of 3000 expressions compiled, %d of them to kernels", compiled, kernels)
	}
}

// selections returns the selections an expression is checked under over n rows: every row (nil), none, all
// rows listed, the first row, a sparse fifth and a dense fifteen sixteenths (over the denseSelection share, so
// Select evaluates every row and picks).
func selections(rng *rand.Rand, n int) [][]int32 {
	all, sparse, denseSel := []int32{}, []int32{}, []int32{}
	for i := 0; i < n; i++ {
		all = append(all, int32(i))
		if rng.Intn(5) == 0 {
			sparse = append(sparse, int32(i))
		}
		if rng.Intn(16) != 0 {
			denseSel = append(denseSel, int32(i))
		}
	}
	out := [][]int32{nil, {}, all, sparse, denseSel}
	if n > 0 {
		out = append(out, []int32{0}, []int32{int32(n - 1)})
	}
	return out
}

// checkSelected checks e under selection sel of b against want, the row oracle's value at every row of b: the
// value at each selected row, and for a predicate the rows Select keeps.
func checkSelected(t *testing.T, src string, e Expr, want *column.Vector, b *column.Batch, sel []int32) {
	t.Helper()
	in := BatchInput(b)
	n := rows(in, sel)
	checkAt(t, fmt.Sprintf("%s under %d selected of %d", src, n, b.N), e.evalSel(in, sel), want, sel, n)
	if e.Type() != column.Bool {
		return
	}
	got := Select(e, in, sel)
	var keep []int32
	for k := 0; k < n; k++ {
		if r := at(sel, k); want.Bools[r] && !want.IsNull(int(r)) {
			keep = append(keep, r)
		}
	}
	for i := 0; i < max(len(got), len(keep)); i++ {
		if i >= len(got) || i >= len(keep) || got[i] != keep[i] {
			t.Fatalf("%s: Select over %d of %d rows kept %d rows, rows keep %d; they differ from the %d-th",
				src, n, b.N, len(got), len(keep), i)
		}
	}
}

func checkSame(t *testing.T, src string, got, want *column.Vector, n int) {
	t.Helper()
	checkAt(t, src, got, want, nil, n)
}

// checkAt checks that row k of got is row sel[k] of want (row k when sel is nil), for n rows.
func checkAt(t *testing.T, src string, got, want *column.Vector, sel []int32, n int) {
	t.Helper()
	if got.Len() < n {
		t.Fatalf("%s: kernel gave %d rows for %d", src, got.Len(), n)
	}
	for i := 0; i < n; i++ {
		g, w := got.Value(i), want.Value(int(at(sel, i)))
		if !sameValue(g, w) {
			t.Fatalf("%s: row %d: kernel %+v, rows %+v", src, i, g, w)
		}
		if got.IsNull(i) {
			zero := true
			switch {
			case got.Ints != nil:
				zero = got.Ints[i] == 0
			case got.Reals != nil:
				zero = got.Reals[i] == 0
			case got.Strs != nil:
				zero = got.Strs[i] == ""
			case got.Bools != nil:
				zero = !got.Bools[i]
			}
			if !zero {
				t.Fatalf("%s: row %d is null but holds a value", src, i)
			}
		}
	}
}

func sameValue(a, b column.Value) bool {
	if a.Type != b.Type || a.Null != b.Null {
		return false
	}
	if a.Null {
		return true
	}
	switch a.Type {
	case column.Real:
		return math.Float64bits(a.Real) == math.Float64bits(b.Real) || (math.IsNaN(a.Real) && math.IsNaN(b.Real))
	case column.Bool:
		return a.Bool == b.Bool
	case column.String, column.Dynamic:
		return a.Str == b.Str
	}
	return a.Int == b.Int
}

// TestKernelsFold checks that a subexpression of constants becomes one constant, and one that reads a column
// does not.
func TestKernelsFold(t *testing.T) {
	for src, folded := range map[string]bool{
		"1 + 2 * 3":                 true,
		`strlen(strcat("ab", "c"))`: true,
		"iff(1 < 2, 1h, 2h)":        true,
		"l1 + 2 * 3":                false,
		"1 / 0":                     true,
	} {
		e, err := Compile(parseExpr(t, src), testSchema)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if _, isConst := e.(*Const); isConst != folded {
			t.Errorf("%s: folded %v, want %v", src, isConst, folded)
		}
	}
	e, _ := Compile(parseExpr(t, "1 / 0"), testSchema)
	if v := e.(*Const).V; !v.Null || v.Type != column.Long {
		t.Errorf("1 / 0 folded to %+v, want a null long", v)
	}
	if e, _ := Compile(parseExpr(t, "l1 + 2 * 3"), testSchema); !strings.Contains(fmt.Sprintf("%T", e), "kernel") {
		t.Errorf("l1 + 2 * 3 compiled to %T, want a kernel", e)
	}
}

// TestRangeConjunctions: two range tests of one column joined by and are compiled to one range (rangeAnd),
// and Select lists a range's rows from a column with nulls directly; both must agree with the row functions
// as values and as filters, under every selection, on a column with nulls (l1) and one without (n1), for
// ranges that overlap, nest, touch, miss each other and share no null rule.
func TestRangeConjunctions(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const rows = 500
	b := column.NewBatch(testColumns(rng, rows), rows)
	tests := []string{"> -3", ">= -3", "< 4", "<= 4", "== 2", "!= 2", "> 5", "< -5", "between (-2 .. 3)", "!between (-2 .. 3)"}
	merged := 0
	for _, col := range []string{"l1", "n1"} {
		for _, x := range tests {
			for _, y := range tests {
				src := fmt.Sprintf("%s %s and %s %s", col, x, col, y)
				e := parseExpr(t, src)
				got, err := Compile(e, testSchema)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := got.(*intRange); ok {
					merged++
				}
				want, err := compileRows(e, testSchema)
				if err != nil {
					t.Fatal(err)
				}
				w := want.Eval(b)
				checkSame(t, src, got.Eval(b), w, b.N)
				for _, sel := range selections(rng, b.N) {
					checkSelected(t, src, got, w, b, sel)
				}
			}
		}
	}
	if merged == 0 {
		t.Error("no conjunction compiled to one range")
	}
}

// TestCaseKernel: tolower and toupper pass a value with nothing to change through as it is, told eight bytes
// at a time (inCase); they must agree with the row functions on values whose one capital, small letter or
// non-ASCII byte falls anywhere, the letters' neighbours in ASCII ('@', '[', '`', '{') included.
func TestCaseKernel(t *testing.T) {
	schema := column.Schema{{Name: "s1", Type: column.String}}
	v := column.NewVector(column.String, 0)
	for _, base := range []string{"tenant-0042/user-0000001/p", "TENANT-0042/USER-0000001/P"} {
		for i := range len(base) {
			for _, c := range []string{"A", "Z", "a", "z", "@", "[", "`", "{", "\u212a", "İ", "ß"} {
				v.AppendString(base[:i] + c + base[i+1:])
			}
			v.AppendString(base[:i])
		}
	}
	v.AppendNull()
	b := column.NewBatch([]*column.Vector{v}, v.Len())
	for _, src := range []string{"tolower(s1)", "toupper(s1)"} {
		checkAgainstRows(t, src, schema, b)
	}
}

// checkAgainstRows compiles src over schema as a kernel and as the row functions and checks that they give the
// same values over b.
func checkAgainstRows(t *testing.T, src string, schema column.Schema, b *column.Batch) {
	t.Helper()
	e := parseExpr(t, src)
	got, err := Compile(e, schema)
	if err != nil {
		t.Fatal(err)
	}
	want, err := compileRows(e, schema)
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, src, got.Eval(b), want.Eval(b), b.N)
}

// TestAffixKernel: startswith and endswith with a constant ASCII needle compare a window of the value folded
// in place (affixKernel); they must agree with the row functions, which lower the whole value, on every edge
// of that shortcut — values shorter than the needle, capitals, a window holding non-ASCII bytes (the Kelvin
// sign lowers to an ASCII k, İ to i, and ẞ stays longer), the empty needle and null; and, for needles of eight
// bytes and more, which are compared a word at a time, values whose first differing or non-ASCII byte falls in
// each word and on either side of a word's edge.
func TestAffixKernel(t *testing.T) {
	values := []string{"", "k", "K", "\u212a", "a\u212a", "\u212ak", "İ", "xİ", "ABC", "xabc", "abcx", "Straße", "STRASSE",
		"ẞx", "σς", "k\u212a", "abc\u212a"}
	long := "tenant-0042/user-0000001/p"
	for i := range len(long) + 1 {
		values = append(values, long[:i], strings.ToUpper(long[:i]), long[i:], strings.ToUpper(long[i:]))
		if i < len(long) {
			values = append(values, long[:i]+"\u212a"+long[i+1:], long[:i]+"İ"+long[i:], long[:i]+"#"+long[i+1:])
		}
	}
	schema := column.Schema{{Name: "s1", Type: column.String}}
	v := column.NewVector(column.String, len(values)+1)
	for _, s := range values {
		v.AppendString(s)
	}
	v.AppendNull()
	b := column.NewBatch([]*column.Vector{v}, v.Len())
	for _, op := range []string{"startswith", "endswith", "!startswith", "!endswith"} {
		for _, needle := range []string{"", "k", "K", "abc", "ABC", "x", "i", "se", "kk", "tenant-0", "tenant-0042/user-0000001",
			"TENANT-0042/USER-0000001/P", "user-0000001/p", "0042/user-0000001/p", "tenant-0042/kser", "ser-0000001/p", "enant-0042/user-0000001/p",
			// These two end a value whose final Kelvin sign lowers to k, two bytes shorter than the sign.
			"user-0000001/k", "0042/user-0000001/k"} {
			checkAgainstRows(t, fmt.Sprintf("s1 %s %q", op, needle), schema, b)
		}
	}
}
