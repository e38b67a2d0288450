package share

import (
	"bytes"
	"compress/flate"
	"strings"
	"testing"
)

// encodeRaw writes any bytes in the fragment format, valid state or not, for tests and the corpus.
func encodeRaw(data []byte) string {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write(data)
	w.Close()
	return fragmentPrefix + fragmentEncoding.EncodeToString(buf.Bytes())
}

// FuzzDecodeFragment checks that no fragment panics the decoder, and that whatever it accepts is a valid
// state whose own fragment decodes to the same state. The checked-in corpus is in testdata/fuzz.
func FuzzDecodeFragment(f *testing.F) {
	f.Add(sample().Fragment())
	f.Add((&State{}).Fragment())
	f.Add(encodeRaw([]byte(`{"scenario":"<script>"}`)))
	f.Add(encodeRaw([]byte(`{"knobs":{"a":1e308}}`)))
	f.Add("s1.")
	f.Add("#s1.AAAA")
	f.Fuzz(func(t *testing.T, fragment string) {
		s, err := DecodeFragment(fragment)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("decoded an invalid state %s: %v", s, err)
		}
		again, err := DecodeFragment(s.Fragment())
		if err != nil {
			t.Fatalf("re-encoded state %s does not decode: %v", s, err)
		}
		if !again.Equal(s) {
			t.Fatalf("round trip changed the state: %s became %s", s, again)
		}
	})
}

// FuzzParseJSON checks the JSON reader the Worker's API uses: no panic, and what it accepts has canonical JSON
// that parses to the same state and stays free of raw markup characters.
func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add(sample().JSON())
	f.Add([]byte(`{"query":"</script><script>alert(1)</script>"}`))
	f.Add([]byte(`{"knobs":{"a":-0,"b":1e-320}}`))
	f.Add([]byte(`{"Query":"case"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseJSON(data)
		if err != nil {
			return
		}
		canon := s.JSON()
		if strings.ContainsAny(string(canon), "<>") {
			t.Fatalf("canonical JSON carries markup characters: %s", canon)
		}
		again, err := ParseJSON(canon)
		if err != nil {
			t.Fatalf("canonical JSON %s does not parse: %v", canon, err)
		}
		if !again.Equal(s) {
			t.Fatalf("round trip changed the state: %s became %s", s, again)
		}
	})
}
