package source

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestEachMemberMatchesGJSON walks generated objects (escaped keys, strings holding brackets and quotes,
// nested objects and arrays, odd spacing) and checks the members against gjson's own walk.
func TestEachMemberMatchesGJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var value func(depth int) string
	value = func(depth int) string {
		switch n := rng.Intn(9); {
		case n == 0 && depth > 0:
			var items []string
			for range rng.Intn(4) {
				items = append(items, value(depth-1))
			}
			return "[" + strings.Join(items, " ,") + "]"
		case n == 1 && depth > 0:
			return object(rng, value, depth-1)
		case n == 2:
			return fmt.Sprint(rng.Intn(2000) - 1000)
		case n == 3:
			return "-1.5e3"
		case n == 4:
			return `"a \"quoted\" {brace] \\"`
		case n == 5:
			return `"plain"`
		case n == 6:
			return "null"
		case n == 7:
			return "true"
		}
		return `"\u00e9t\u00e9"`
	}
	for i := 0; i < 2000; i++ {
		obj := object(rng, value, 3)
		if !gjson.Valid(obj) {
			t.Fatalf("generated invalid JSON %s", obj)
		}
		var want, got []string
		gjson.Parse(obj).ForEach(func(k, v gjson.Result) bool {
			want = append(want, k.Str+"="+v.Raw)
			return true
		})
		eachMember([]byte(obj), func(k, v []byte) bool {
			got = append(got, string(k)+"="+string(v))
			return true
		})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s:\n got %q\nwant %q", obj, got, want)
		}
	}
}

func object(rng *rand.Rand, value func(int) string, depth int) string {
	keys := []string{`"a"`, `"b.c"`, `"k\"q"`, `"\u0061b"`, `"{x}"`, `""`, `"a"`}
	var members []string
	for range rng.Intn(6) {
		sp := []string{"", " ", "\t", "\r\n "}[rng.Intn(4)]
		members = append(members, sp+keys[rng.Intn(len(keys))]+sp+":"+sp+value(depth)+sp)
	}
	return "{" + strings.Join(members, ",") + "}"
}

// TestEachMemberStopsOnGarbage feeds cut and scrambled text (a file changed after it was opened): the walk
// must end without reading past the end.
func TestEachMemberStopsOnGarbage(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	base := []byte(`{"a": [1, {"b": "x]}"}], "c": "d\\\"", "e": {"f": [true, null]}, "g": -2.5}`)
	for i := 0; i < 5000; i++ {
		b := append([]byte(nil), base[:rng.Intn(len(base)+1)]...)
		for range rng.Intn(3) {
			if len(b) > 0 {
				const junk = `{}[]",:\ a1`
				b[rng.Intn(len(b))] = junk[rng.Intn(len(junk))]
			}
		}
		eachMember(b, func(k, v []byte) bool {
			if len(v) == 0 {
				t.Fatalf("%q: an empty value", b)
			}
			return true
		})
	}
}
