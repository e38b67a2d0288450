//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/web/bundle"
	"github.com/joinlab/joinlab/web/deploy"
	"github.com/joinlab/joinlab/web/share"
	"github.com/joinlab/joinlab/web/site"
)

// TestWorkerd builds the Worker for js/wasm, runs it in real workerd with `wrangler dev` offline (local KV in a
// temporary directory) over a small site, and checks what only the real runtime can show: the KV store, the
// request conversion of syumai/workers, and Workers Static Assets applying the bundle's _headers. It creates a
// link, follows /s/{id}, reads /api/links/{id}, and checks the static files' types, compression and caching;
// then what the JavaScript entry and the Durable Object limiter add: malformed URLs answered 400 with the
// security headers, links on PUBLIC_ORIGIN whatever the Host header, and a rate limit that holds under a burst
// of 300 POSTs over 50 connections.
//
// It needs wrangler from `npm ci`, which `go run mage.go test` runs when node_modules is missing. Without it the
// test skips, except in CI (CI set), where it fails.
func TestWorkerd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not starting workerd")
	}
	root, err := site.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := deploy.CheckWrangler(root); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("not starting workerd: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	tmp := t.TempDir()
	siteDir := filepath.Join(tmp, "site")
	for name, f := range testSite {
		p := filepath.Join(siteDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	defer func() {
		if t.Failed() {
			t.Logf("build and wrangler output:\n%s", log.String())
		}
	}()
	start := time.Now()
	w, err := deploy.StartLocal(ctx, deploy.LocalOptions{Root: root, SiteDir: siteDir, Dir: tmp, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	dev, b := w.Dev, w.Bundle
	t.Logf("built the Worker and started wrangler dev on %s in %v", dev.URL, time.Since(start).Round(time.Millisecond))

	// The timeout only ends a request workerd never answers: on a loaded 2-core machine an answer can take
	// tens of seconds, and no assertion depends on how long one takes.
	client := &http.Client{
		Timeout:       2 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	do := func(method, path, body string, header ...string) (*http.Response, []byte) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, dev.URL+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, data
	}
	expect := func(resp *http.Response, data []byte, status int) {
		t.Helper()
		if resp.StatusCode != status {
			t.Fatalf("%s %s: %d, want %d: %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, status, data)
		}
		if resp.Header.Get("Content-Security-Policy") != bundle.ContentSecurityPolicy ||
			resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: security headers %v", resp.Request.URL.Path, resp.Header)
		}
	}

	// The share API, through workerd and KV.
	state := `{"query":"@Users | where name == \"<script>alert(1)</script>\"","scenario":"users-listens","knobs":{"rows":5000},"seed":11,"step":4}`
	want, err := share.ParseJSON([]byte(state))
	if err != nil {
		t.Fatal(err)
	}
	resp, data := do("POST", "/api/links", state, "Content-Type", "application/json")
	expect(resp, data, http.StatusCreated)
	var created createResponse
	if err := json.Unmarshal(data, &created); err != nil || !validID(created.ID) {
		t.Fatalf("created %s: %v", data, err)
	}
	if created.URL != dev.URL+"/s/"+created.ID {
		t.Errorf("url %q, want %q", created.URL, dev.URL+"/s/"+created.ID)
	}
	resp, data = do("POST", "/api/links", state, "Content-Type", "application/json")
	expect(resp, data, http.StatusOK) // the same state shares its link

	// The link is on PUBLIC_ORIGIN (here the dev server's URL, which web/deploy passes), whatever Host says. A
	// client of its own, so that the rate limit below counts as before.
	resp, data = rawRequest(t, dev.URL, "POST", "/api/links", "Host: evil.example", "CF-Connecting-IP: 192.0.2.1",
		"Content-Type: application/json", "Content-Length: 2", "", "{}")
	checkOrigin(t, resp, data, dev.URL)

	// Malformed URLs: the JavaScript entry answers them before Go's url.Parse can refuse them, or the handler
	// does (the query, which url.Parse leaves alone).
	for _, target := range malformedTargets {
		resp, data := rawRequest(t, dev.URL, "GET", target)
		checkMalformed(t, "GET "+target, resp, data)
	}

	resp, data = do("GET", "/s/"+created.ID, "")
	expect(resp, data, http.StatusFound)
	frag, ok := strings.CutPrefix(resp.Header.Get("Location"), "/#")
	if !ok {
		t.Fatalf("redirect to %q", resp.Header.Get("Location"))
	}
	if got, err := share.DecodeFragment(frag); err != nil || !got.Equal(want) {
		t.Fatalf("followed link carries %v (%v), want %v", got, err, want)
	}

	resp, data = do("GET", "/api/links/"+created.ID, "")
	expect(resp, data, http.StatusOK)
	if got, err := share.ParseJSON(data); err != nil || !got.Equal(want) || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /api/links/%s: %s (%v, %s)", created.ID, data, err, resp.Header.Get("Content-Type"))
	}

	resp, data = do("GET", "/api/links/"+strings.Repeat("A", 22), "")
	expect(resp, data, http.StatusNotFound)
	resp, data = do("GET", "/api/links", "")
	expect(resp, data, http.StatusMethodNotAllowed)
	resp, data = do("POST", "/api/links", `{"scenario":"<b>"}`, "Content-Type", "application/json")
	expect(resp, data, http.StatusBadRequest)
	resp, data = do("POST", "/api/links", `{"query":"`+strings.Repeat("q", share.MaxJSONBytes)+`"}`, "Content-Type", "application/json")
	expect(resp, data, http.StatusRequestEntityTooLarge)

	// The static files, served by Workers Static Assets with the bundle's _headers.
	for _, tc := range []struct{ path, ct, cache string }{
		{"/", "text/html; charset=utf-8", "public, max-age=0, must-revalidate"},
		{"/v/" + b.Version + "/app.wasm", "application/wasm", bundle.ImmutableCacheControl},
		{"/v/" + b.Version + "/engine.wasm", "application/wasm", bundle.ImmutableCacheControl},
		{"/v/" + b.Version + "/app.js", "text/javascript; charset=utf-8", bundle.ImmutableCacheControl},
	} {
		// net/http's transport would ask for gzip and decode it silently; ask explicitly to see the encoding.
		resp, data := do("GET", tc.path, "", "Accept-Encoding", "gzip")
		expect(resp, data, http.StatusOK)
		if ct, cc := resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"); ct != tc.ct || cc != tc.cache {
			t.Errorf("%s: Content-Type %q, Cache-Control %q; want %q, %q", tc.path, ct, cc, tc.ct, tc.cache)
		}
		if enc := resp.Header.Get("Content-Encoding"); enc != "gzip" {
			t.Errorf("%s: Content-Encoding %q, want gzip", tc.path, enc)
		}
	}

	// The rate limit, with its counters in KV. Three POSTs above counted (the two creations and the invalid
	// state: every attempt that reaches the body counts; the 413 was refused on its Content-Length first).
	// Windows are fixed and aligned to the clock, so a burst may straddle a boundary, which resets the count once:
	// the 429 must come exactly after the limit, or (across a boundary) within a second window's worth, and
	// never before the limit.
	var limited *http.Response
	for i := 3; i < 2*linksPerWindow+1 && limited == nil; i++ {
		resp, data := do("POST", "/api/links", fmt.Sprintf(`{"seed":%d}`, i), "Content-Type", "application/json")
		if resp.StatusCode == http.StatusTooManyRequests {
			if i < linksPerWindow {
				t.Fatalf("POST %d of a window answered 429; the limit is %d", i+1, linksPerWindow)
			}
			limited = resp
			break
		}
		expect(resp, data, http.StatusCreated)
	}
	if limited == nil {
		t.Fatalf("no 429 after %d links from one client", 2*linksPerWindow+1)
	}
	if limited.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}

	// The rate limit under a burst from a new client: its counters are Durable Objects, atomic, so however
	// many requests are in flight no more than the limit are created. Windows are fixed and aligned to the
	// clock; a burst that straddles a boundary may create up to the limit in each window it touches. In one
	// window exactly the limit must be created, less the requests wrangler dev's proxy lost (a lost answer may
	// have been a creation: see burst).
	burstStart := time.Now()
	res := burst(t, dev.URL, "192.0.2.2", 1000, burstPosts, burstConns, true)
	windows := int(time.Now().Truncate(rateWindow).Sub(burstStart.Truncate(rateWindow))/rateWindow) + 1
	counts := res.counts
	made, again, refused := counts[http.StatusCreated], counts[http.StatusOK], counts[http.StatusTooManyRequests]
	t.Logf("burst of %d POSTs over %d connections in %v: %v, %d resent after wrangler dev's proxy lost them",
		burstPosts, burstConns, time.Since(burstStart).Round(time.Millisecond), counts, res.lost)
	if made+again+refused != burstPosts || again > res.lost || made < 1 || made > windows*linksPerWindow ||
		(windows == 1 && made < linksPerWindow-res.lost) {
		t.Fatalf("answers by status %v over %d rate window(s), %d lost by the dev proxy; want at most %d × 201 "+
			"(in one window at least %d less those lost), the rest 429 (or 200 for a resent creation)",
			counts, windows, res.lost, windows*linksPerWindow, linksPerWindow)
	}
}
