//go:build !js

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joinlab/joinlab/web/bundle"
	"github.com/joinlab/joinlab/web/linkstore"
)

// Burst sizes from the report that found the limit leaking: 300 POSTs over 50 connections from one client.
const (
	burstPosts = 300
	burstConns = 50
)

// startNative serves the Worker as serve_native.go does — over a bbolt file, on a loopback listener with
// headedListener — with the clock held 200 s into a rate window, so that a burst stays in one window. It
// returns the server's base URL.
func startNative(t *testing.T) string {
	t.Helper()
	store, err := linkstore.OpenBolt(filepath.Join(t.TempDir(), "links.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	site, err := bundle.Load(testSite)
	if err != nil {
		t.Fatal(err)
	}
	h := &handler{store: store, limiter: store, site: site, origin: testOrigin, linksPerWindow: linksPerWindow,
		now: func() time.Time { return time.Unix(1_700_000_000, 0) }, newID: randomID}
	ln, err := listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(h.routes())
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() }) // before store.Close: cleanups run last-in first-out
	return "http://" + ln.Addr().String()
}

// TestRateLimitHoldsUnderBurstNatively: of 300 distinct states posted at once over 50 connections by one
// client, exactly the limit are created and every other answer is 429.
func TestRateLimitHoldsUnderBurstNatively(t *testing.T) {
	base := startNative(t)
	counts := burst(t, base, "", 0, burstPosts, burstConns, false).counts
	if counts[http.StatusCreated] != linksPerWindow || counts[http.StatusTooManyRequests] != burstPosts-linksPerWindow {
		t.Fatalf("answers by status %v; want %d × 201 and %d × 429", counts, linksPerWindow, burstPosts-linksPerWindow)
	}
}

// burstResult counts a burst's answers by status (0: no answer), and how many requests the dev proxy lost.
type burstResult struct {
	counts map[int]int
	lost   int
}

// devProxyLost is the body of wrangler dev's 503 when its proxy in front of workerd fails to reach the Worker.
// Under 50 concurrent connections it does so for a few requests in a hundred, while the same burst sent
// straight to workerd's own port loses none; Cloudflare has no such proxy.
const devProxyLost = "Your worker restarted mid-request"

// maxDevProxyRetries bounds the resends of one request that wrangler dev's proxy lost.
const maxDevProxyRetries = 5

// burst posts n distinct states ({"seed": first+i}) to base's API over conns concurrent connections and counts
// the final answers by status. A clientIP other than "" is sent as CF-Connecting-IP, which wrangler dev keeps
// when a request has one (Cloudflare overwrites it). With devProxy set, a request wrangler dev's proxy lost
// (its 503, or a reset connection) is sent again, up to maxDevProxyRetries times, and counted in lost: the
// Worker may have counted it, so a lost 201 can come back as a 200 (the state exists) or a 429.
func burst(t *testing.T, base, clientIP string, first, n, conns int, devProxy bool) burstResult {
	t.Helper()
	tr := &http.Transport{MaxConnsPerHost: conns, MaxIdleConnsPerHost: conns}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 2 * time.Minute}
	post := func(seed int) (int, error) {
		req, err := http.NewRequest("POST", base+"/api/links", strings.NewReader(fmt.Sprintf(`{"seed":%d}`, seed)))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		if clientIP != "" {
			req.Header.Set("CF-Connecting-IP", clientIP)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode == http.StatusServiceUnavailable && strings.Contains(string(body), devProxyLost) {
			return 0, fmt.Errorf("%d %s", resp.StatusCode, body)
		}
		return resp.StatusCode, nil
	}
	var (
		mu     sync.Mutex
		res    = burstResult{counts: map[int]int{}}
		failed []string
		wg     sync.WaitGroup
	)
	seeds := make(chan int)
	for range conns {
		wg.Go(func() {
			for seed := range seeds {
				status, err := post(seed)
				lost := 0
				for ; err != nil && devProxy && lost < maxDevProxyRetries; lost++ {
					status, err = post(seed)
				}
				mu.Lock()
				res.counts[status]++
				if lost > 0 {
					res.lost++
				}
				if err != nil && len(failed) < 3 {
					failed = append(failed, err.Error())
				}
				mu.Unlock()
			}
		})
	}
	for i := range n {
		seeds <- first + i
	}
	close(seeds)
	wg.Wait()
	if len(failed) > 0 {
		t.Errorf("requests without an answer, for instance: %v", failed)
	}
	return res
}

// malformedTargets are request targets with bad percent escapes in the path or the query, which no client
// library sends: they go over a raw connection.
var malformedTargets = []string{"/%zz", "/s/abc%", "/?q=%", "/api/links/%zz", "/s/%E0%A4%A", "/index.html?a=%4g"}

// TestMalformedURLsNatively: every one of them is a 400 with the security headers and a JSON error, from the
// handler (query) or from net/http through headedListener (path).
func TestMalformedURLsNatively(t *testing.T) {
	base := startNative(t)
	for _, target := range malformedTargets {
		for _, method := range []string{"GET", "POST"} {
			resp, body := rawRequest(t, base, method, target, "Content-Type: application/json", "Content-Length: 2", "", "{}")
			checkMalformed(t, method+" "+target, resp, body)
		}
	}
}

// TestBareErrorsNatively: net/http's other answers of its own, to a request it cannot parse, carry the
// security headers too. (Not the 431 for oversized headers: net/http closes that connection with the request
// partly unread, and the reset can lose the answer before the test reads it.)
func TestBareErrorsNatively(t *testing.T) {
	base := startNative(t)
	for _, tc := range []struct {
		name   string
		lines  []string
		status int
	}{
		{"header line without a colon", []string{"no colon here", ""}, http.StatusBadRequest},
		{"unsupported transfer coding", []string{"Transfer-Encoding: gzip", ""}, http.StatusNotImplemented},
	} {
		resp, body := rawRequest(t, base, "GET", "/", tc.lines...)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d; body %q", tc.name, resp.StatusCode, tc.status, body)
		}
		checkSecurityHeaders(t, tc.name, resp.Header)
		var e struct{ Error string }
		if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
			t.Errorf("%s: body %q is not {\"error\": …}", tc.name, body)
		}
	}
}

// TestHostIsNotTheOrigin: a link made through a request naming another host is on the configured origin.
func TestHostIsNotTheOrigin(t *testing.T) {
	base := startNative(t)
	resp, body := rawRequest(t, base, "POST", "/api/links", "Host: evil.example", "Content-Type: application/json",
		"Content-Length: 2", "", "{}")
	checkOrigin(t, resp, body, testOrigin)
}

// rawRequest writes "METHOD target HTTP/1.1", a Host header for base (unless lines has one) and lines, each
// followed by CRLF (an empty line ends the head, a body may follow), on a new connection to base, and reads
// the answer.
func rawRequest(t *testing.T, base, method, target string, lines ...string) (*http.Response, []byte) {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Minute))
	var req strings.Builder
	fmt.Fprintf(&req, "%s %s HTTP/1.1\r\n", method, target)
	if !strings.HasPrefix(strings.Join(lines, "\n"), "Host:") {
		fmt.Fprintf(&req, "Host: %s\r\n", u.Host)
	}
	req.WriteString("Connection: close\r\n")
	if len(lines) == 0 {
		lines = []string{""}
	}
	req.WriteString(strings.Join(lines, "\r\n"))
	if lines[len(lines)-1] == "" {
		req.WriteString("\r\n")
	}
	if _, err := io.WriteString(conn, req.String()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	return resp, body
}

// checkMalformed checks the answer to a malformed URL: 400, the security headers, a JSON error, and nothing
// of a stack trace or a file path.
func checkMalformed(t *testing.T, what string, resp *http.Response, body []byte) {
	t.Helper()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("%s: status %d, want 400; body %q", what, resp.StatusCode, body)
	}
	checkSecurityHeaders(t, what, resp.Header)
	var e struct{ Error string }
	if err := json.Unmarshal(body, &e); err != nil || e.Error == "" || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("%s: body %q (%s) is not {\"error\": …}", what, body, resp.Header.Get("Content-Type"))
	}
	for _, leak := range []string{"    at ", ".go", ".js", ".mjs", "/tmp/", "/work/", "/root/", "Error:"} {
		if strings.Contains(string(body), leak) {
			t.Errorf("%s: body %q holds %q", what, body, leak)
		}
	}
}

func checkSecurityHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	if h.Get("Content-Security-Policy") != bundle.ContentSecurityPolicy || h.Get("X-Content-Type-Options") != "nosniff" ||
		h.Get("Referrer-Policy") != "no-referrer" || h.Get("Cross-Origin-Opener-Policy") != "same-origin" {
		t.Errorf("%s: security headers missing: %v", what, h)
	}
}

// checkOrigin checks that a link creation answered 201 with a link on origin.
func checkOrigin(t *testing.T, resp *http.Response, body []byte, origin string) {
	t.Helper()
	var created createResponse
	if err := json.Unmarshal(body, &created); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST with Host: evil.example: %d %s", resp.StatusCode, body)
	}
	if want := origin + "/s/" + created.ID; created.URL != want {
		t.Errorf("link %q, want %q: the Host header chose it", created.URL, want)
	}
}
