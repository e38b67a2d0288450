//go:build !js

package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/web/share"
)

// FuzzCreateLink posts arbitrary bodies to the API. Whatever the body, the answer is 201/200 for a valid state
// (and the link then reads back as exactly that state), 400 for anything else, or 413 past the size limit; never
// a panic or a 500. The checked-in corpus is in testdata/fuzz.
func FuzzCreateLink(f *testing.F) {
	f.Add(sampleState)
	f.Add(`{}`)
	f.Add(`{"query":"<script>alert(1)</script>"}`)
	f.Add(`{"knobs":{"a":1,"a":2}}`)
	f.Add(`{"seed":18446744073709551616}`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, body string) {
		fx := newFixture(t)
		fx.h.linksPerWindow = 1 << 30
		w := fx.do("POST", "/api/links", "application/json", body)
		switch w.Code {
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			if _, err := share.ParseJSON([]byte(body)); err == nil {
				t.Fatalf("refused (%d) a body that parses: %q", w.Code, body)
			}
			return
		case http.StatusCreated, http.StatusOK:
		default:
			t.Fatalf("status %d for %q: %s", w.Code, body, w.Body)
		}
		want, err := share.ParseJSON([]byte(body))
		if err != nil {
			t.Fatalf("accepted a body that does not parse (%v): %q", err, body)
		}
		var resp createResponse
		if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || !validID(resp.ID) {
			t.Fatalf("answer %s: %v", w.Body, err)
		}
		got := fx.do("GET", "/api/links/"+resp.ID, "", "")
		state, err := share.ParseJSON(got.Body.Bytes())
		if err != nil || !state.Equal(want) {
			t.Fatalf("link reads back %s (%v), want %s", got.Body, err, want)
		}
		if strings.ContainsAny(got.Body.String(), "<>") {
			t.Fatalf("state served with raw markup characters: %s", got.Body)
		}
	})
}
