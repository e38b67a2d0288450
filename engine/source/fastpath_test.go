package source

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/joinlab/joinlab/engine/column"
)

// columnTypes are the types a scanned column can have.
var columnTypes = []column.Type{column.Bool, column.Long, column.Real, column.DateTime, column.String, column.Dynamic}

// dumpVector writes every row of v exactly (a real by its bits, so -0 and NaN compare), for comparing two
// vectors built by two ways of appending.
func dumpVector(v *column.Vector) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v/%d:", v.Type, v.Len())
	for i := range v.Len() {
		switch {
		case v.IsNull(i):
			b.WriteString(" null")
		case v.Reals != nil:
			fmt.Fprintf(&b, " %x", math.Float64bits(v.Reals[i]))
		case v.Ints != nil:
			fmt.Fprintf(&b, " %d", v.Ints[i])
		case v.Bools != nil:
			fmt.Fprintf(&b, " %t", v.Bools[i])
		default:
			fmt.Fprintf(&b, " %q", v.Strs[i])
		}
	}
	return b.String()
}

// randomRaw is a JSON value of a random kind, biased to the cases the raw fast paths take and their edges.
func randomRaw(rng *rand.Rand) string {
	words := []string{
		`null`, `true`, `false`, `0`, `-0`, `-0.0`, `7`, `-12`, `9007199254740993`, `9223372036854775807`,
		`9223372036854775808`, `-9223372036854775809`, `1.5`, `1e5`, `-2.5E-3`, `1e308`, `""`, `"x"`, `"007"`,
		`"NaN"`, `"Infinity"`, `"true"`, `"2024-06-01T10:00:00Z"`, `"2024-06-01"`, `"soon"`, `"a\"b"`,
		`"\u0041B"`, `"2024-06-01T10:00:00\u005a"`, `{"a":1}`, `[1,"x"]`, `{}`, `[]`,
	}
	if rng.IntN(3) == 0 {
		return fmt.Sprintf("%d", rng.Int64N(1<<40)-1<<39)
	}
	if rng.IntN(4) == 0 {
		return fmt.Sprintf("%d.%d", rng.IntN(1000), rng.IntN(100))
	}
	return words[rng.IntN(len(words))]
}

// TestAppendRawMatchesAppendJSON checks the raw-text fast paths of a JSON-lines scan against the general
// conversion through gjson, for random values into every column type, viewing and copying.
func TestAppendRawMatchesAppendJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 3))
	for _, typ := range columnTypes {
		for _, held := range []bool{true, false} {
			fast, general := column.NewVector(typ, 0), column.NewVector(typ, 0)
			var raws []string
			for range 2000 {
				raw := randomRaw(rng)
				raws = append(raws, raw)
				appendRaw(fast, []byte(raw), held)
				appendJSON(general, gjson.ParseBytes([]byte(raw)))
			}
			if got, want := dumpVector(fast), dumpVector(general); got != want {
				for i := range raws {
					f, g := column.NewVector(typ, 0), column.NewVector(typ, 0)
					appendRaw(f, []byte(raws[i]), held)
					appendJSON(g, gjson.ParseBytes([]byte(raws[i])))
					if dumpVector(f) != dumpVector(g) {
						t.Fatalf("%v column, held %t, %s: fast %s, general %s", typ, held, raws[i], dumpVector(f), dumpVector(g))
					}
				}
				t.Fatalf("%v column: vectors differ", typ)
			}
		}
	}
}

// randomField is a CSV field of a random kind, with the edges of each.
func randomField(rng *rand.Rand) string {
	words := []string{
		"", "true", "FALSE", "True", "truth", "0", "-0", "+5", "007", "-12", "9223372036854775807",
		"9223372036854775808", "123456789012345678", "1234567890123456789", "1.5", "-0.0", "1e5", "1E-5", ".5",
		"5.", "1e", "1e999", "-1e999", "0x10", "inf", "NaN", "Infinity", "-Infinity", "nan", "2024-06-01T10:00:00Z",
		"2024-06-01", "2024-13-01", "soon", "x y", " 1",
	}
	if rng.IntN(3) == 0 {
		return fmt.Sprintf("%d", rng.Int64N(1<<50)-1<<49)
	}
	if rng.IntN(4) == 0 {
		return fmt.Sprintf("%d.%02de%d", rng.IntN(1000), rng.IntN(100), rng.IntN(40)-20)
	}
	return words[rng.IntN(len(words))]
}

// TestTextValueMatchesTextKind checks the one-pass typing and parsing of a stream's CSV fields against typing
// with textKind and converting with appendCSV, for random fields into every column type.
func TestTextValueMatchesTextKind(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	for range 20000 {
		s := randomField(rng)
		k, x, err := textValue(s)
		wantK, wantErr := textKind(s, false)
		if k != wantK || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("%q: textValue %v, %v; textKind %v, %v", s, k, err, wantK, wantErr)
		}
		if err != nil {
			continue
		}
		for _, typ := range columnTypes {
			fast, general := column.NewVector(typ, 1), column.NewVector(typ, 1)
			appendParsed(fast, typ, s, k, x)
			appendCSV(general, typ, s)
			if got, want := dumpVector(fast), dumpVector(general); got != want {
				t.Fatalf("%q into %v: parsed once %s, from the text %s", s, typ, got, want)
			}
		}
	}
}

// TestAddTextKindFoldsAsTextKind types random columns field by field with addTextKind, which stops classing a
// column's fields once it has seen a string, and with textKind's kinds OR-ed together: the same type, and
// the same error at the same field.
func TestAddTextKindFoldsAsTextKind(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 6))
	for range 3000 {
		var fast, all kinds
		long := []string{strings.Repeat("9", 320), strings.Repeat("9", 300), "0." + strings.Repeat("0", 330) + "1",
			"-" + strings.Repeat("1", 299) + ".5"}
		for i := range 1 + rng.IntN(12) {
			s := randomField(rng)
			if rng.IntN(20) == 0 {
				s = long[rng.IntN(len(long))]
			}
			k, err := addTextKind(fast, s)
			want, wantErr := textKind(s, false)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("field %d %q after %v: addTextKind's error %v, textKind's %v", i, s, fast, err, wantErr)
			}
			if err != nil {
				break
			}
			fast, all = k, all|want
			if fast.columnType() != all.columnType() {
				t.Fatalf("field %d %q: addTextKind types the column %v, textKind %v", i, s, fast.columnType(), all.columnType())
			}
		}
	}
}

// TestReadCSVViewsMatchCopies reads random CSV (kinds changing at random lines, so chunks widen and are
// parsed again, quoted fields among them) through Read, whose fields view the chunks, at random chunk sizes,
// and checks every value against FromCSV, which copies them.
func TestReadCSVViewsMatchCopies(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	for round := range 30 {
		var b bytes.Buffer
		b.WriteString("a,b,c\n")
		rows := 1 + rng.IntN(300)
		for range rows {
			for c := range 3 {
				if c > 0 {
					b.WriteByte(',')
				}
				f := randomField(rng)
				if f == "1e999" || f == "-1e999" {
					f = "1e9"
				}
				if rng.IntN(10) == 0 {
					f = `"` + f + `,` + "\n" + `"`
				}
				b.WriteString(f)
			}
			if rng.IntN(2) == 0 {
				b.WriteByte('\r')
			}
			b.WriteByte('\n')
		}
		data := b.Bytes()
		whole, err := FromCSV("T", bytes.Clone(data))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		src, err := Read("T", CSV, bytes.NewReader(data), Options{Workers: 1, ChunkBytes: 1 + rng.IntN(200)})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		got := src.(*Table).table
		for c, f := range whole.table.Schema {
			if got.Schema[c] != f {
				t.Fatalf("round %d: column %d is %v, want %v", round, c, got.Schema[c], f)
			}
			if g, w := dumpVector(got.Cols[c]), dumpVector(whole.table.Cols[c]); g != w {
				t.Fatalf("round %d: column %s:\n got %s\nwant %s", round, f.Name, g, w)
			}
		}
	}
}

// TestJSONLBatchStopsEarlyAsAWholeWalk checks the scan of a few columns, whose walk of a line stops once it
// has met every read key, against reading each column alone from the whole line: the first member with its
// key (a nested path inside it), for random lines with keys in random order, missing, repeated and nested.
func TestJSONLBatchStopsEarlyAsAWholeWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 6))
	keys := []string{"a", "b", "c", "m", "z"}
	for round := range 200 {
		var lines [][]byte
		for range 1 + rng.IntN(40) {
			var b bytes.Buffer
			b.WriteByte('{')
			for i := range rng.IntN(7) {
				if i > 0 {
					b.WriteByte(',')
				}
				k := keys[rng.IntN(len(keys))]
				v := randomRaw(rng)
				if k == "m" && rng.IntN(2) == 0 {
					v = fmt.Sprintf(`{"x":%s,"y":[1,{"x":2}]}`, randomRaw(rng))
				}
				fmt.Fprintf(&b, "%q:%s", k, v)
			}
			b.WriteByte('}')
			lines = append(lines, b.Bytes())
		}
		var cols []column.Field
		top := column.Schema{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "m", Type: column.Dynamic}, {Name: "z"}}
		for _, name := range []string{"a", "b", "c", "m", "z", "m.x"} {
			if rng.IntN(2) == 0 {
				cols = append(cols, column.Field{Name: name, Type: columnTypes[rng.IntN(len(columnTypes))]})
			}
		}
		if len(cols) == 0 {
			continue
		}
		batch, _, bad := jsonlBatch(lines, cols, newScanPlan(top, cols), nil, true)
		if bad != nil {
			t.Fatalf("round %d: %v", round, bad)
		}
		for c, f := range cols {
			want := column.NewVector(f.Type, len(lines))
			key, path, _ := strings.Cut(f.Name, ".")
			for _, line := range lines {
				found := false
				eachMember(line, func(k, v []byte) bool {
					if string(k) != key {
						return true
					}
					found = true
					if path == "" {
						appendRaw(want, v, false)
					} else {
						appendJSON(want, gjson.GetBytes(v, path))
					}
					return false
				})
				if !found {
					want.AppendNull()
				}
			}
			if got, w := dumpVector(batch.Cols[c]), dumpVector(want); got != w {
				t.Fatalf("round %d: column %s:\n got %s\nwant %s\nlines %s", round, f.Name, got, w, bytes.Join(lines, []byte("\n")))
			}
		}
	}
}

// TestJSONLTypingSkipsStringsAsClassingEvery checks the typing of a chunk's keys, which stops classing the
// values of a key once they made it a string, against classing every value of every member.
func TestJSONLTypingSkipsStringsAsClassingEvery(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 7))
	keys := []string{"a", "b", "c"}
	for round := range 300 {
		var b bytes.Buffer
		want := map[string]kinds{}
		for range 1 + rng.IntN(30) {
			b.WriteByte('{')
			for i := range rng.IntN(5) {
				if i > 0 {
					b.WriteByte(',')
				}
				k, v := keys[rng.IntN(len(keys))], randomRaw(rng)
				if v == `1e308` {
					v = `1e30`
				}
				want[k] |= kindOfRaw([]byte(v))
				fmt.Fprintf(&b, "%q:%s", k, v)
			}
			b.WriteString("}\n")
		}
		part, err := parseJSONLChunk(chunk{data: b.Bytes(), line: 1})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for i, k := range part.order {
			if got, w := part.saw[i].columnType(), want[k].columnType(); got != w {
				t.Fatalf("round %d: key %s typed %v, want %v:\n%s", round, k, got, w, b.String())
			}
		}
		if len(part.order) != len(want) {
			t.Fatalf("round %d: keys %v, want %v", round, part.order, want)
		}
	}
}

// TestPathRawMatchesGetBytes checks the nested-path read of a JSON-lines scan (pathRaw, then kindOfRaw and
// appendRaw on the value's own bytes) against reading the path with gjson.GetBytes (kindOf and appendJSON),
// for random member values with nested objects, arrays, whitespace, escaped keys and paths that match nothing
// or compute their result, into every column type, viewing and copying.
func TestPathRawMatchesGetBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 5))
	paths := []string{"a", "b", "a.b", "a.b.c", "x", "1", "a.1", "#", "a.#", "a|b", "a*", `k\.y`, "c.d"}
	member := func() string {
		keys := []string{`"a"`, `"b"`, `"c"`, `"k.y"`, `"\u0061"`, `"d"`}
		var sb strings.Builder
		sb.WriteString("{")
		for i := range rng.IntN(4) {
			if i > 0 {
				sb.WriteString(" ,")
			}
			sb.WriteString(keys[rng.IntN(len(keys))] + " : ")
			switch rng.IntN(4) {
			case 0:
				sb.WriteString(`{"b": ` + randomRaw(rng) + `, "d":{"c":` + randomRaw(rng) + `}}`)
			case 1:
				sb.WriteString("[" + randomRaw(rng) + ", " + randomRaw(rng) + "]")
			default:
				sb.WriteString(randomRaw(rng))
			}
		}
		sb.WriteString(" }")
		return sb.String()
	}
	fast := 0
	for range 10000 {
		val := []byte(member())
		if rng.IntN(5) == 0 {
			val = []byte("[" + randomRaw(rng) + "," + string(val) + "]")
		}
		path := paths[rng.IntN(len(paths))]
		raw, ok := pathRaw(val, path)
		if !ok {
			continue
		}
		fast++
		got := gjson.GetBytes(val, path)
		if k, want := kindOfRaw(raw), kindOf(got); k != want {
			t.Fatalf("%s at %q: kind %v from the raw bytes %s, %v through gjson", val, path, k, raw, want)
		}
		for _, typ := range columnTypes {
			for _, held := range []bool{true, false} {
				f, g := column.NewVector(typ, 0), column.NewVector(typ, 0)
				appendRaw(f, raw, held)
				appendJSON(g, got)
				if dumpVector(f) != dumpVector(g) {
					t.Fatalf("%s at %q into %v, held %t: raw %s gives %s, gjson %s", val, path, typ, held, raw, dumpVector(f), dumpVector(g))
				}
			}
		}
	}
	if fast < 800 {
		t.Fatalf("only %d of 10000 reads took the raw bytes: the test checks too little", fast)
	}
}
