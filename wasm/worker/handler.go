package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/joinlab/joinlab/web/bundle"
	"github.com/joinlab/joinlab/web/linkstore"
	"github.com/joinlab/joinlab/web/share"
)

const (
	// idBytes is the randomness in a link id: 128 bits, past the 96 that make guessing any of billions of
	// links hopeless, and a whole number of base64 sextets short of 22 characters.
	idBytes = 16
	// rateWindow and linksPerWindow bound how fast one client creates links: a person sharing by hand makes a
	// few an hour; a script filling the store is stopped after linksPerWindow.
	rateWindow     = 10 * time.Minute
	linksPerWindow = 30
	// stateCacheControl lets browsers and Cloudflare's cache keep a link's state: a link never changes.
	stateCacheControl = "public, max-age=86400"
)

// Store keys, by prefix: a link's state, the id already given to a state (so identical states share one
// link), and a client's count of links in a rate window.
const (
	linkKeyPrefix = "link:"
	sumKeyPrefix  = "sum:"
	rateKeyPrefix = "rate:"
)

var idEncoding = base64.RawURLEncoding

// handler is the whole Worker: the share API, and the site when site is set (natively; in workerd, Workers
// Static Assets answers for the site's files before the Worker runs, so only misses arrive here).
//
//	POST /api/links       body: a share state as JSON (≤ share.MaxJSONBytes) → 201 {"id", "url"}
//	GET  /api/links/{id}  → 200 the state as JSON
//	GET  /s/{id}          → 302 to /#<the state's fragment>
//	GET  /…               → the site's files (natively)
//
// No Go state survives between requests in workerd (each request gets a new Go instance), so everything that
// must last is in store (links) and limiter (rate counters). Absolute URLs in answers are on origin, which is
// configured, never read from the request: a Host header is the client's to choose.
type handler struct {
	store   linkstore.Store
	limiter linkstore.Limiter
	site    *bundle.Bundle // nil: no static files
	origin  string         // scheme://host[:port], from parseOrigin

	// Test knobs.
	linksPerWindow int
	now            func() time.Time
	newID          func() (string, error)
}

// newHandler returns the Worker over store and limiter, serving site if it is not nil, with links on origin
// (already checked by parseOrigin).
func newHandler(store linkstore.Store, limiter linkstore.Limiter, site *bundle.Bundle, origin string) http.Handler {
	h := &handler{store: store, limiter: limiter, site: site, origin: origin,
		linksPerWindow: linksPerWindow, now: time.Now, newID: randomID}
	return h.routes()
}

func (h *handler) routes() http.Handler {
	// Patterns without methods, and methods checked in allow: the mux's own method matching would let "GET /"
	// answer GET /api/links with the site's 404 instead of a 405.
	mux := http.NewServeMux()
	mux.HandleFunc("/api/links", allow(h.createLink, http.MethodPost))
	mux.HandleFunc("/api/links/{id}", allow(h.getLink, http.MethodGet, http.MethodHead))
	mux.HandleFunc("/s/{id}", allow(h.followLink, http.MethodGet, http.MethodHead))
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such API")
	})
	mux.HandleFunc("/", allow(h.serveSite, http.MethodGet, http.MethodHead))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bundle.SetSecurityHeaders(w.Header())
		// A malformed escape in the path never gets here: net/http refuses it natively (bareerror.go) and the
		// JavaScript entry refuses it in workerd (web/deploy). The query is parsed by no one but a handler.
		if !wellEscaped(r.URL.RawQuery) {
			writeError(w, http.StatusBadRequest, malformedURL)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// malformedURL is the error of every answer to a URL with a malformed percent escape, from the handler, from
// net/http natively (bareerror.go) and from the JavaScript entry in workerd.
const malformedURL = "malformed percent escape in the URL"

// wellEscaped reports whether every % in s starts an escape of two hexadecimal digits.
func wellEscaped(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// allow answers 405, with the Allow header, to any method but those given.
func allow(f http.HandlerFunc, methods ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, m := range methods {
			if r.Method == m {
				f(w, r)
				return
			}
		}
		w.Header().Set("Allow", strings.Join(methods, ", "))
		writeError(w, http.StatusMethodNotAllowed, r.Method+" is not allowed here")
	}
}

type createResponse struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

func (h *handler) createLink(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		// Requiring JSON also makes a cross-site page's request a CORS one, which this origin never allows.
		writeError(w, http.StatusUnsupportedMediaType, "the body must be application/json")
		return
	}
	if r.ContentLength > share.MaxJSONBytes {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("a state is at most %d bytes", share.MaxJSONBytes))
		return
	}
	if retry, err := h.charge(ctx, clientOf(r)); err != nil {
		h.internal(w, err)
		return
	} else if retry > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((retry+time.Second-1)/time.Second)))
		writeError(w, http.StatusTooManyRequests, "too many links from this client: try again later")
		return
	}
	if r.Body == nil {
		writeError(w, http.StatusBadRequest, "no body")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, share.MaxJSONBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("a state is at most %d bytes", share.MaxJSONBytes))
		return
	} else if err != nil {
		writeError(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	state, err := share.ParseJSON(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	canon := state.JSON()
	sum := sha256.Sum256(canon)
	sumKey := sumKeyPrefix + hex.EncodeToString(sum[:])
	status := http.StatusOK
	id, err := h.existingID(ctx, sumKey)
	if err != nil {
		h.internal(w, err)
		return
	}
	if id == "" {
		if id, err = h.newID(); err != nil {
			h.internal(w, err)
			return
		}
		// The link first, then the pointer to it: a failure in between leaves an unshared link, never a pointer
		// to nothing.
		if err := h.store.Put(ctx, linkKeyPrefix+id, canon, 0); err != nil {
			h.internal(w, err)
			return
		}
		if err := h.store.Put(ctx, sumKey, []byte(id), 0); err != nil {
			h.internal(w, err)
			return
		}
		status = http.StatusCreated
	}
	w.Header().Set("Location", "/s/"+id)
	writeJSON(w, status, createResponse{ID: id, URL: h.origin + "/s/" + id})
}

// existingID returns the id already given to the state whose sum key is sumKey, or "".
func (h *handler) existingID(ctx context.Context, sumKey string) (string, error) {
	v, err := h.store.Get(ctx, sumKey)
	if errors.Is(err, linkstore.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if id := string(v); validID(id) {
		return id, nil
	}
	return "", nil
}

// charge counts one link creation against client's current window and returns how long until the window ends
// if the client is over its limit (0: go ahead). Windows are fixed (now truncated to rateWindow), one counter
// each, and the limiter's Take checks and increments atomically, so concurrent requests cannot share a count:
// a client gets at most linksPerWindow per window, however many connections it opens.
func (h *handler) charge(ctx context.Context, client string) (time.Duration, error) {
	now := h.now()
	window := now.Truncate(rateWindow)
	key := fmt.Sprintf("%s%s:%d", rateKeyPrefix, client, window.Unix())
	// The counter outlives its window a little: the key names the window, so a late Take is harmless.
	taken, err := h.limiter.Take(ctx, key, h.linksPerWindow, rateWindow+linkstore.MinTTL)
	if err != nil {
		return 0, err
	}
	if !taken {
		return window.Add(rateWindow).Sub(now), nil
	}
	return 0, nil
}

func (h *handler) lookup(w http.ResponseWriter, r *http.Request) (*share.State, bool) {
	id := r.PathValue("id")
	if !validID(id) {
		writeError(w, http.StatusNotFound, "no such link")
		return nil, false
	}
	v, err := h.store.Get(r.Context(), linkKeyPrefix+id)
	if errors.Is(err, linkstore.ErrNotFound) {
		writeError(w, http.StatusNotFound, "no such link")
		return nil, false
	}
	if err != nil {
		h.internal(w, err)
		return nil, false
	}
	// Stored states were validated on the way in; checking again keeps a damaged store from serving junk.
	state, err := share.ParseJSON(v)
	if err != nil {
		h.internal(w, fmt.Errorf("stored link %s: %w", id, err))
		return nil, false
	}
	return state, true
}

func (h *handler) getLink(w http.ResponseWriter, r *http.Request) {
	state, ok := h.lookup(w, r)
	if !ok {
		return
	}
	w.Header().Set("Cache-Control", stateCacheControl)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(state.JSON())
}

// followLink sends the browser to the playground with the state in the fragment: the state reaches the page
// as data its script decodes, never as markup the server writes.
func (h *handler) followLink(w http.ResponseWriter, r *http.Request) {
	state, ok := h.lookup(w, r)
	if !ok {
		return
	}
	w.Header().Set("Cache-Control", stateCacheControl)
	w.Header().Set("Location", "/#"+state.Fragment())
	w.WriteHeader(http.StatusFound)
}

// serveSite serves the site's files from memory: versioned paths cached for a year, the rest revalidated by
// ETag, compressed files as gzip to clients that accept it.
func (h *handler) serveSite(w http.ResponseWriter, r *http.Request) {
	if h.site == nil {
		writeError(w, http.StatusNotFound, "not found")
		return
	}
	f, immutable, ok := h.site.Lookup(r.URL.Path)
	if !ok {
		writeError(w, http.StatusNotFound, "not found")
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", f.ContentType)
	hd.Set("ETag", f.ETag)
	if immutable {
		hd.Set("Cache-Control", bundle.ImmutableCacheControl)
	} else {
		hd.Set("Cache-Control", bundle.RevalidateCacheControl)
	}
	body := f.Body
	if f.Gzip != nil {
		hd.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r) {
			hd.Set("Content-Encoding", "gzip")
			body = f.Gzip
		}
	}
	if etagMatches(r.Header.Get("If-None-Match"), f.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

func (h *handler) internal(w http.ResponseWriter, err error) {
	log.Printf("joinlab worker: %v", err)
	writeError(w, http.StatusInternalServerError, "the link store failed; try again")
}

func randomID() (string, error) {
	b := make([]byte, idBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("link id: %w", err)
	}
	return idEncoding.EncodeToString(b), nil
}

// validID accepts exactly the ids randomID makes, so nothing else reaches the store as a key.
func validID(id string) bool {
	if len(id) != idEncoding.EncodedLen(idBytes) {
		return false
	}
	b, err := idEncoding.DecodeString(id)
	return err == nil && len(b) == idBytes
}

// clientOf names the client for the rate limit: the peer's address (in workerd, syumai/workers fills RemoteAddr
// from CF-Connecting-IP, which Cloudflare sets and a client cannot forge), hashed so that no address is stored.
func clientOf(r *http.Request) string {
	addr := r.RemoteAddr
	if host, _, err := net.SplitHostPort(addr); err == nil {
		addr = host
	}
	sum := sha256.Sum256([]byte(addr))
	return hex.EncodeToString(sum[:12])
}

// originVar names the public origin's setting: a wrangler var in workerd, an environment variable natively.
const originVar = "PUBLIC_ORIGIN"

// parseOrigin checks a configured public origin — http or https, a host, nothing after it but an optional "/"
// — and returns it as scheme://host[:port].
func parseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", originVar, s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", fmt.Errorf("%s %q: want http://host[:port] or https://host[:port], nothing after", originVar, s)
	}
	return u.Scheme + "://" + u.Host, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, struct {
		Error string `json:"error"`
	}{msg})
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

func etagMatches(ifNoneMatch, etag string) bool {
	for _, t := range strings.Split(ifNoneMatch, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}
