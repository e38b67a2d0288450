//go:build !js

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/joinlab/joinlab/web/bundle"
	"github.com/joinlab/joinlab/web/linkstore"
	"github.com/joinlab/joinlab/web/share"
)

// memStore is a Store and a Limiter in a map, with a knob that makes every call fail.
type memStore struct {
	mu   sync.Mutex
	m    map[string][]byte
	fail bool
}

func newMemStore() *memStore { return &memStore{m: map[string][]byte{}} }

func (s *memStore) Get(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return nil, errors.New("injected failure")
	}
	v, ok := s.m[key]
	if !ok {
		return nil, linkstore.ErrNotFound
	}
	return v, nil
}

func (s *memStore) Put(_ context.Context, key string, value []byte, _ time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return errors.New("injected failure")
	}
	s.m[key] = append([]byte(nil), value...)
	return nil
}

var testSite = fstest.MapFS{
	"index.html":    {Data: []byte("<!doctype html><html><head><title>t</title><script src=\"app.js\"></script></head><body></body></html>")},
	"app.js":        {Data: []byte(strings.Repeat("console.log('joinlab');\n", 50))},
	"app.wasm":      {Data: append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{0}, 4096)...)},
	"engine.wasm":   {Data: append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{1}, 4096)...)},
	"style.css":     {Data: []byte("body { margin: 0 }\n")},
	"favicon.png":   {Data: []byte("\x89PNG")},
	"_headers":      {Data: []byte("/*\n  X-Bad: 1\n")},
	"sub/page.html": {Data: []byte("<html><head></head></html>")},
}

func (s *memStore) Take(_ context.Context, key string, limit int, _ time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return false, errors.New("injected failure")
	}
	n, _ := strconv.Atoi(string(s.m[key]))
	if n >= limit {
		return false, nil
	}
	s.m[key] = []byte(strconv.Itoa(n + 1))
	return true, nil
}

// testOrigin is the fixture's configured public origin.
const testOrigin = "https://joinlab.example"

type fixture struct {
	h     *handler
	store *memStore
	srv   http.Handler
	ids   int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	site, err := bundle.Load(testSite)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: newMemStore()}
	f.h = &handler{store: f.store, limiter: f.store, site: site, origin: testOrigin, linksPerWindow: linksPerWindow,
		now: func() time.Time { return time.Unix(1_700_000_000, 0) }}
	f.h.newID = func() (string, error) {
		// Deterministic ids of the real shape, so failures replay.
		f.ids++
		b := make([]byte, idBytes)
		b[0] = byte(f.ids)
		return idEncoding.EncodeToString(b), nil
	}
	f.srv = f.h.routes()
	return f
}

func (f *fixture) do(method, target, contentType, body string, header ...string) *httptest.ResponseRecorder {
	var r *http.Request
	if body != "" {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
	} else {
		r = httptest.NewRequest(method, target, nil)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, r)
	return w
}

func (f *fixture) create(t *testing.T, state string) string {
	t.Helper()
	w := f.do("POST", "/api/links", "application/json", state)
	if w.Code != http.StatusCreated && w.Code != http.StatusOK {
		t.Fatalf("POST /api/links %s: %d %s", state, w.Code, w.Body)
	}
	var resp createResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	return resp.ID
}

const sampleState = `{"query":"@Users | join (@Listens) on user_id","scenario":"users-listens","knobs":{"rows":100},"seed":9,"step":1,"strategy":"hash"}`

func TestStatusCodes(t *testing.T) {
	big := `{"query":"` + strings.Repeat("x", share.MaxJSONBytes) + `"}`
	unknown := idEncoding.EncodeToString(bytes.Repeat([]byte{0xff}, idBytes))
	tests := []struct {
		name                     string
		setup                    func(f *fixture) // may create links; returns nothing
		method, target, ct, body string
		want                     int
		wantHeader               map[string]string
	}{
		{name: "create", method: "POST", target: "/api/links", ct: "application/json", body: sampleState, want: 201,
			wantHeader: map[string]string{"Location": "/s/AQAAAAAAAAAAAAAAAAAAAA", "Content-Type": "application/json"}},
		{name: "create again shares the id", setup: func(f *fixture) { f.do("POST", "/api/links", "application/json", sampleState) },
			method: "POST", target: "/api/links", ct: "application/json", body: sampleState, want: 200,
			wantHeader: map[string]string{"Location": "/s/AQAAAAAAAAAAAAAAAAAAAA"}},
		{name: "create with charset", method: "POST", target: "/api/links", ct: "application/json; charset=utf-8", body: `{}`, want: 201},
		{name: "get state", setup: createSample, method: "GET", target: "/api/links/AQAAAAAAAAAAAAAAAAAAAA", want: 200,
			wantHeader: map[string]string{"Content-Type": "application/json", "Cache-Control": stateCacheControl}},
		{name: "head state", setup: createSample, method: "HEAD", target: "/api/links/AQAAAAAAAAAAAAAAAAAAAA", want: 200},
		{name: "follow", setup: createSample, method: "GET", target: "/s/AQAAAAAAAAAAAAAAAAAAAA", want: 302},
		{name: "index", method: "GET", target: "/", want: 200,
			wantHeader: map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache"}},
		{name: "not modified", method: "GET", target: "/app.js", want: 304},
		{name: "malformed body", method: "POST", target: "/api/links", ct: "application/json", body: `{"query":`, want: 400},
		{name: "invalid state", method: "POST", target: "/api/links", ct: "application/json", body: `{"scenario":"<script>"}`, want: 400},
		{name: "unknown field", method: "POST", target: "/api/links", ct: "application/json", body: `{"html":"x"}`, want: 400},
		{name: "empty body", method: "POST", target: "/api/links", ct: "application/json", want: 400},
		{name: "too large", method: "POST", target: "/api/links", ct: "application/json", body: big, want: 413},
		{name: "wrong content type", method: "POST", target: "/api/links", ct: "text/plain", body: sampleState, want: 415},
		{name: "no content type", method: "POST", target: "/api/links", body: sampleState, want: 415},
		{name: "GET the collection", method: "GET", target: "/api/links", want: 405, wantHeader: map[string]string{"Allow": "POST"}},
		{name: "PUT the collection", method: "PUT", target: "/api/links", ct: "application/json", body: `{}`, want: 405},
		{name: "DELETE a link", setup: createSample, method: "DELETE", target: "/api/links/AQAAAAAAAAAAAAAAAAAAAA", want: 405,
			wantHeader: map[string]string{"Allow": "GET, HEAD"}},
		{name: "POST a short link", method: "POST", target: "/s/AQAAAAAAAAAAAAAAAAAAAA", want: 405},
		{name: "POST the site", method: "POST", target: "/index.html", want: 405},
		{name: "unknown id", method: "GET", target: "/api/links/" + unknown, want: 404},
		{name: "unknown short link", method: "GET", target: "/s/" + unknown, want: 404},
		{name: "malformed id", method: "GET", target: "/s/..%2f..%2fetc", want: 404},
		{name: "short id", method: "GET", target: "/api/links/abc", want: 404},
		{name: "unknown API", method: "GET", target: "/api/other", want: 404},
		{name: "malformed query", method: "GET", target: "/?q=%", want: 400},
		{name: "malformed query on the API", method: "POST", target: "/api/links?x=%G1", ct: "application/json", body: `{}`, want: 400},
		{name: "truncated escape in the query", method: "GET", target: "/s/AQAAAAAAAAAAAAAAAAAAAA?a=%4", want: 400},
		{name: "unknown file", method: "GET", target: "/missing.js", want: 404},
		{name: "another version", method: "GET", target: "/v/0000000000000000/app.js", want: 404},
		{name: "config file is not content", method: "GET", target: "/_headers", want: 404},
		{name: "rate limited", setup: func(f *fixture) { f.h.linksPerWindow = 0 },
			method: "POST", target: "/api/links", ct: "application/json", body: sampleState, want: 429,
			wantHeader: map[string]string{"Retry-After": "400"}}, // 1_700_000_000 is 200 s into its 600 s window
		{name: "store fails on create", setup: func(f *fixture) { f.store.fail = true },
			method: "POST", target: "/api/links", ct: "application/json", body: sampleState, want: 500},
		{name: "store fails on get", setup: func(f *fixture) { createSample(f); f.store.fail = true },
			method: "GET", target: "/api/links/AQAAAAAAAAAAAAAAAAAAAA", want: 500},
		{name: "damaged stored state", setup: func(f *fixture) { f.store.m[linkKeyPrefix+"AQAAAAAAAAAAAAAAAAAAAA"] = []byte("<b>") },
			method: "GET", target: "/s/AQAAAAAAAAAAAAAAAAAAAA", want: 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.setup != nil {
				tt.setup(f)
			}
			var hdr []string
			if tt.want == 304 {
				file, _, _ := f.h.site.Lookup(tt.target)
				hdr = []string{"If-None-Match", file.ETag}
			}
			w := f.do(tt.method, tt.target, tt.ct, tt.body, hdr...)
			if w.Code != tt.want {
				t.Fatalf("%s %s: status %d, want %d; body %s", tt.method, tt.target, w.Code, tt.want, w.Body)
			}
			for k, v := range tt.wantHeader {
				if got := w.Header().Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
			// Every answer, errors included, carries the security headers.
			if csp := w.Header().Get("Content-Security-Policy"); csp != bundle.ContentSecurityPolicy {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			if w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("Referrer-Policy") != "no-referrer" {
				t.Errorf("security headers missing: %v", w.Header())
			}
			if tt.want >= 400 {
				var e struct{ Error string }
				if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error == "" {
					t.Errorf("error body %q is not {\"error\": …}", w.Body)
				}
			}
		})
	}
}

func createSample(f *fixture) { f.do("POST", "/api/links", "application/json", sampleState) }

func TestCSPIsStrict(t *testing.T) {
	csp := bundle.ContentSecurityPolicy
	for _, bad := range []string{"'unsafe-inline'", "'unsafe-eval'", "*", "data:", "blob:"} {
		if strings.Contains(csp, bad) {
			t.Errorf("CSP allows %s: %s", bad, csp)
		}
	}
	if !strings.Contains(csp, "script-src 'self' 'wasm-unsafe-eval'") {
		t.Errorf("CSP does not let the site's own WebAssembly run: %s", csp)
	}
}

// TestLinkRoundTrip creates a link, follows it and reads it back, and checks the three agree. The request names
// another host, and the link is on the configured origin all the same.
func TestLinkRoundTrip(t *testing.T) {
	f := newFixture(t)
	w := f.do("POST", "http://evil.example/api/links", "application/json", sampleState, "Host", "evil.example")
	var resp createResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	if !validID(resp.ID) || resp.URL != testOrigin+"/s/"+resp.ID {
		t.Fatalf("answer %+v", resp)
	}
	want, _ := share.ParseJSON([]byte(sampleState))

	w = f.do("GET", "/s/"+resp.ID, "", "")
	loc := w.Header().Get("Location")
	frag, ok := strings.CutPrefix(loc, "/#")
	if !ok {
		t.Fatalf("redirect to %q, want /#…", loc)
	}
	fromLink, err := share.DecodeFragment(frag)
	if err != nil || !fromLink.Equal(want) {
		t.Fatalf("fragment state %v (%v), want %v", fromLink, err, want)
	}

	w = f.do("GET", "/api/links/"+resp.ID, "", "")
	fromAPI, err := share.ParseJSON(w.Body.Bytes())
	if err != nil || !fromAPI.Equal(want) {
		t.Fatalf("API state %s (%v), want %v", w.Body, err, want)
	}
}

// TestMarkupStaysData: a state full of markup comes back as JSON with the markup escaped, and its redirect
// carries only base64url, so no answer of the Worker puts the state where a browser would parse it as HTML.
func TestMarkupStaysData(t *testing.T) {
	f := newFixture(t)
	id := f.create(t, `{"query":"</script><img src=x onerror=alert(1)>"}`)
	w := f.do("GET", "/api/links/"+id, "", "")
	if strings.ContainsAny(w.Body.String(), "<>") || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("state served as %q: %s", w.Header().Get("Content-Type"), w.Body)
	}
	w = f.do("GET", "/s/"+id, "", "")
	if loc := w.Header().Get("Location"); strings.ContainsAny(loc, "<>\"' ") {
		t.Errorf("redirect %q carries markup characters", loc)
	}
	if w.Body.Len() != 0 {
		t.Errorf("redirect has a body: %q", w.Body)
	}
}

func TestRateLimitCountsPerClientAndWindow(t *testing.T) {
	f := newFixture(t)
	f.h.linksPerWindow = 2
	post := func(addr string) int {
		r := httptest.NewRequest("POST", "/api/links", strings.NewReader(`{}`))
		r.Header.Set("Content-Type", "application/json")
		r.RemoteAddr = addr
		w := httptest.NewRecorder()
		f.srv.ServeHTTP(w, r)
		return w.Code
	}
	got := []int{post("10.0.0.1:1"), post("10.0.0.1:2"), post("10.0.0.1:3"), post("10.0.0.2:1")}
	want := []int{201, 200, 429, 200}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("statuses %v, want %v (the third request of one client is over its limit; another client is not)", got, want)
		}
	}
	f.h.now = func() time.Time { return time.Unix(1_700_000_000, 0).Add(rateWindow) }
	if c := post("10.0.0.1:4"); c != 200 {
		t.Fatalf("in the next window: %d, want 200", c)
	}
	for k := range f.store.m {
		if strings.Contains(k, "10.0.0") {
			t.Errorf("store key %q holds a client address", k)
		}
	}
}

func TestSiteServing(t *testing.T) {
	f := newFixture(t)
	v := f.h.site.Version
	tests := []struct {
		target, ct, cache string
		gzip              bool
	}{
		{"/", "text/html; charset=utf-8", "no-cache", true},
		{"/app.wasm", "application/wasm", "no-cache", true},
		{"/v/" + v + "/app.wasm", "application/wasm", bundle.ImmutableCacheControl, true},
		{"/v/" + v + "/engine.wasm", "application/wasm", bundle.ImmutableCacheControl, true},
		{"/v/" + v + "/app.js", "text/javascript; charset=utf-8", bundle.ImmutableCacheControl, true},
		{"/v/" + v + "/style.css", "text/css; charset=utf-8", bundle.ImmutableCacheControl, true},
		{"/v/" + v + "/favicon.png", "image/png", bundle.ImmutableCacheControl, false},
	}
	for _, tt := range tests {
		w := f.do("GET", tt.target, "", "", "Accept-Encoding", "br, gzip")
		if w.Code != 200 {
			t.Fatalf("%s: %d", tt.target, w.Code)
		}
		h := w.Header()
		if h.Get("Content-Type") != tt.ct || h.Get("Cache-Control") != tt.cache {
			t.Errorf("%s: Content-Type %q Cache-Control %q, want %q %q", tt.target, h.Get("Content-Type"), h.Get("Cache-Control"), tt.ct, tt.cache)
		}
		if gz := h.Get("Content-Encoding") == "gzip"; gz != tt.gzip {
			t.Errorf("%s: gzip %v, want %v", tt.target, gz, tt.gzip)
		}
		body := w.Body.Bytes()
		if tt.gzip {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%s: %v", tt.target, err)
			}
			body, _ = io.ReadAll(zr)
		}
		file, _, _ := f.h.site.Lookup(tt.target)
		if !bytes.Equal(body, file.Body) {
			t.Errorf("%s: body differs from the file", tt.target)
		}
	}
	// Without Accept-Encoding: the plain bytes.
	w := f.do("GET", "/app.js", "", "")
	if w.Header().Get("Content-Encoding") != "" || !strings.HasPrefix(w.Body.String(), "console.log") {
		t.Errorf("identity request got %q encoding", w.Header().Get("Content-Encoding"))
	}
	// The page's relative URLs resolve to the versioned copies.
	w = f.do("GET", "/", "", "")
	if want := `<base href="/v/` + v + `/">`; !strings.Contains(w.Body.String(), want) {
		t.Errorf("index.html lacks %s:\n%s", want, w.Body)
	}
}

// TestLinksSurviveRestart runs the handler over a bbolt file, closes it, reopens it and follows the link.
func TestLinksSurviveRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "links.db")
	open := func() (*linkstore.Bolt, http.Handler) {
		store, err := linkstore.OpenBolt(path)
		if err != nil {
			t.Fatal(err)
		}
		return store, newHandler(store, store, nil, testOrigin)
	}
	store, h := open()
	r := httptest.NewRequest("POST", "/api/links", strings.NewReader(sampleState))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var resp createResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	store.Close()
	store, h = open()
	defer store.Close()
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/s/"+resp.ID, nil))
	if w.Code != 302 {
		t.Fatalf("after a restart, /s/%s: %d %s", resp.ID, w.Code, w.Body)
	}
}

func TestRandomIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id, err := randomID()
		if err != nil {
			t.Fatal(err)
		}
		if !validID(id) || seen[id] {
			t.Fatalf("id %q: valid %v, repeated %v", id, validID(id), seen[id])
		}
		seen[id] = true
	}
	if len(idEncoding.EncodeToString(make([]byte, idBytes)))*6 < 96 {
		t.Fatal("ids carry fewer than 96 bits")
	}
}

func TestParseOrigin(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"https://joinlab.example/", "https://joinlab.example"},
		{"https://joinlab.example", "https://joinlab.example"},
		{"", ""},
		{"joinlab.example", ""},
		{"ftp://joinlab.example", ""},
		{"https://joinlab.example/app", ""},
		{"https://joinlab.example?x", ""},
		{"https://joinlab.example/#x", ""},
		{"https://user@joinlab.example", ""},
		{"https://", ""},
		{"https://joinlab.example:bad", ""},
	} {
		got, err := parseOrigin(tc.in)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("parseOrigin(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestWellEscaped(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "a=1&b=%20": true, "%41%7a%7A": true, "%": false, "%4": false, "a=%zz": false, "%%41": false, "%4%41": false,
	} {
		if got := wellEscaped(s); got != want {
			t.Errorf("wellEscaped(%q) = %v", s, got)
		}
	}
}
