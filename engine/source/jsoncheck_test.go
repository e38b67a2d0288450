package source

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/tidwall/gjson"
)

// firstOutOfRange is the range check checkJSON replaced, kept as its oracle: the first number in a valid JSON
// text beyond the range of a real, found by a walk of its own that skips strings.
func firstOutOfRange(doc []byte) string {
	for i := 0; i < len(doc); i++ {
		switch c := doc[i]; {
		case c == '"':
			i = stringEnd(doc, i)
		case c == '-' || isDigit(c):
			j := numberEnd(doc, i)
			if magnitude(doc[i:j]) >= maxFiniteMagnitude {
				if _, err := strconv.ParseFloat(string(doc[i:j]), 64); err != nil {
					return string(doc[i:j])
				}
			}
			i = j - 1
		}
	}
	return ""
}

// numberEnd is the offset just past the JSON number starting at doc[start].
func numberEnd(doc []byte, start int) int {
	j := start + 1
	for ; j < len(doc); j++ {
		switch c := doc[j]; {
		case isDigit(c), c == '.', c == 'e', c == 'E', c == '+', c == '-':
		default:
			return j
		}
	}
	return j
}

// TestCheckJSONMatchesGJSON holds checkJSON to gjson.ValidBytes and firstOutOfRange on valid documents, their
// random mutations (a byte changed, dropped or doubled, the text cut short) and the corner cases of the
// grammar.
func TestCheckJSONMatchesGJSON(t *testing.T) {
	docs := []string{
		`{}`, `[]`, ` {"a":1} `, `{"a":[1,2,{"b":null}],"c":"x\"y\u00e9\n"}`, `{"a":-0.5e+3,"b":1E400,"c":"1e999"}`,
		`{"a":-1e400}`, `[1e308,2e308]`, `{"a":1}`, `"s"`, `true`, `false`, `null`, `0`, `-0`,
		`01`, `1.`, `.5`, `1e`, `1e+`, `-`, `--1`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{"a":}`, `{,}`, `[,1]`, `"\x"`, `"\u12g4"`,
		"\"a\tb\"", `{"a":1}}`, `{"a":1} x`, ``, `   `, `nul`, `tru`, `{"a":[1 2]}`, `["\u00"]`,
		`{"n":123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890}`,
	}
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte(`{}[]:," \-+.eE0123456789tfnulrsa` + "\t\n")
	for _, d := range append([]string(nil), docs...) {
		for range 300 {
			b := []byte(d)
			switch r := rng.IntN(4); {
			case len(b) == 0:
				b = append(b, alphabet[rng.IntN(len(alphabet))])
			case r == 0:
				b[rng.IntN(len(b))] = alphabet[rng.IntN(len(alphabet))]
			case r == 1:
				i := rng.IntN(len(b))
				b = append(b[:i], b[i+1:]...)
			case r == 2:
				i := rng.IntN(len(b))
				b = append(b[:i+1], b[i:]...)
			default:
				b = b[:rng.IntN(len(b))]
			}
			docs = append(docs, string(b))
		}
	}
	for _, line := range genLines(rng, 200) {
		docs = append(docs, line)
	}
	for _, d := range docs {
		ok, big := checkJSON([]byte(d))
		wantOK := gjson.ValidBytes([]byte(d))
		if ok != wantOK {
			t.Fatalf("checkJSON(%q) valid %v, gjson says %v", d, ok, wantOK)
		}
		if !ok {
			continue // firstOutOfRange reads valid documents only
		}
		if want := firstOutOfRange([]byte(d)); big != want {
			t.Fatalf("checkJSON(%q) out of range %q, want %q", d, big, want)
		}
	}
}

// genLines is n generated JSON lines, as genJSONL writes them.
func genLines(rng *rand.Rand, n int) []string {
	var out []string
	cur := ""
	for _, c := range genJSONL(rng, n) {
		if c == '\n' {
			out = append(out, cur)
			cur = ""
			continue
		}
		cur += string(c)
	}
	return out
}

// BenchmarkCheckJSON compares checkJSON with the two walks it replaced, on a line of the okta sample.
func BenchmarkCheckJSON(b *testing.B) {
	line := []byte(`{"uuid":"u-1","published":"2024-05-01T12:00:01Z","eventType":"user.session.start",` +
		`"actor":{"alternateId":"user1@corp","id":1},"client":{"ip":"10.0.1.1","geo":{"lat":1.25e-1,"lon":-1.5}},` +
		`"outcome":{"result":"SUCCESS"},"severity":1}`)
	b.Run("one walk", func(b *testing.B) {
		for b.Loop() {
			if ok, big := checkJSON(line); !ok || big != "" {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("gjson and range", func(b *testing.B) {
		for b.Loop() {
			if !gjson.ValidBytes(line) || firstOutOfRange(line) != "" {
				b.Fatal("invalid")
			}
		}
	})
}

// TestCheckMembersMatchesTwoWalks holds checkMembers to what it replaces in a sampled file's scan: checkJSON
// and the object check for validity, and eachMember for the members it hands over, on valid lines, their
// mutations and objects with escaped keys, duplicates and nested values; and it checks that a walk stopped by
// fn still validates the rest of the line.
func TestCheckMembersMatchesTwoWalks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	docs := []string{`{}`, ` { } `, `{"a":1}`, `{"a\\u0062":[1,{"c":"}"}],"a":2, "n":null}`, `{"x":1e400,"y":"1e999"}`, `[1]`, `"s"`,
		`{"a":1,}`, `{"a" 1}`, `{"a":1} x`, `{"k":"v\\"w","t":true,"f":false}`}
	docs = append(docs, genLines(rng, 100)...)
	for _, d := range append([]string(nil), docs...) {
		for range 100 {
			b := []byte(d)
			if len(b) == 0 {
				continue
			}
			i := rng.IntN(len(b))
			switch rng.IntN(3) {
			case 0:
				const alphabet = `{}[]:,"\ -1e0tfnu`
				b[i] = alphabet[rng.IntN(len(alphabet))]
			case 1:
				b = append(b[:i], b[i+1:]...)
			default:
				b = b[:i]
			}
			docs = append(docs, string(b))
		}
	}
	type member struct{ k, v string }
	for _, d := range docs {
		line := []byte(d)
		var got, want []member
		ok, big := checkMembers(line, func(k, v []byte) bool { got = append(got, member{string(k), string(v)}); return true })
		valid, wantBig := checkJSON(line)
		trimmed := bytes.TrimSpace(line)
		wantOK := valid && len(trimmed) > 0 && trimmed[0] == '{'
		if ok != wantOK {
			t.Fatalf("checkMembers(%q) ok %v, want %v", d, ok, wantOK)
		}
		if !ok {
			continue
		}
		if big != wantBig {
			t.Fatalf("checkMembers(%q) out of range %q, want %q", d, big, wantBig)
		}
		eachMember(line, func(k, v []byte) bool { want = append(want, member{string(k), string(v)}); return true })
		if !slices.Equal(got, want) {
			t.Fatalf("checkMembers(%q) members %q, eachMember %q", d, got, want)
		}
		// Stopped after its first member, the walk still finds a fault later in the line.
		if len(want) > 1 {
			broken := append([]byte(nil), line...)
			broken = append(bytes.TrimRight(broken, " }"), ',', '}')
			if ok, _ := checkMembers(broken, func(k, v []byte) bool { return false }); ok {
				t.Fatalf("checkMembers(%q) stopped early and missed the fault", broken)
			}
		}
	}
}

// TestPlainRunStopsAtTheFirstStop checks the eight-bytes-at-a-time scan of a string's plain contents against
// the byte loop: from any start, it must pass no quote, backslash or control byte, and stop either at the first
// one or where fewer than eight bytes remain. The bytes are drawn so that stops sit at every position of a word,
// next to bytes just above and below the control range and to UTF-8 bytes.
func TestPlainRunStopsAtTheFirstStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	alphabet := []byte{'"', '\\', 0, 0x1f, ' ', '!', '#', '[', ']', 'a', 0x7f, 0x80, 0xc3, 0xdf, 0xff}
	for range 20000 {
		d := make([]byte, rng.IntN(40))
		for j := range d {
			if rng.IntN(6) == 0 {
				d[j] = alphabet[rng.IntN(len(alphabet))]
			} else {
				d[j] = byte(' ' + rng.IntN(0x5f))
				if d[j] == '"' || d[j] == '\\' {
					d[j] = 'x'
				}
			}
		}
		i := rng.IntN(len(d) + 1)
		got := plainRun(d, i)
		first := i
		for first < len(d) && !strStop[d[first]] {
			first++
		}
		if got > first || (got < first && len(d)-got >= 8) {
			t.Fatalf("plainRun(%q, %d) = %d; the first stop is at %d", d, i, got, first)
		}
	}
}
