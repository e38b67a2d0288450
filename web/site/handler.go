package site

import (
	"compress/gzip"
	"io"
	"net/http"
	"path"
	"strings"
)

// contentTypes are set explicitly rather than read from the system's MIME table, which may lack
// application/wasm (WebAssembly.instantiateStreaming refuses any other type). Each entry says whether
// the type is worth compressing.
var contentTypes = map[string]struct {
	typ      string
	compress bool
}{
	".html": {"text/html; charset=utf-8", true},
	".js":   {"text/javascript; charset=utf-8", true},
	".css":  {"text/css; charset=utf-8", true},
	".wasm": {"application/wasm", true},
	".json": {"application/json", true},
	".svg":  {"image/svg+xml", true},
	".png":  {"image/png", false},
}

// contentSecurityPolicy allows only the site's own scripts and styles; 'wasm-unsafe-eval' is what
// WebAssembly compilation needs, and nothing else in the page evaluates code.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'"

// Handler serves the built site in dir: index.html for a directory, the content types above, and gzip for
// compressible files when the client accepts it. It compresses on each request, which is fine for a
// development server; the Worker that replaces it in production serves precompressed assets.
func Handler(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Path
		if strings.HasSuffix(name, "/") {
			name += "index.html"
		}
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		ct, known := contentTypes[path.Ext(name)]
		if known {
			h.Set("Content-Type", ct.typ)
		}
		if !known || !ct.compress || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			files.ServeHTTP(w, r)
			return
		}
		h.Add("Vary", "Accept-Encoding")
		if !acceptsGzip(r) {
			files.ServeHTTP(w, r)
			return
		}
		f, err := http.Dir(dir).Open(name)
		if err != nil {
			files.ServeHTTP(w, r) // the file server writes the right 404 or 403
			return
		}
		defer f.Close()
		if st, err := f.Stat(); err != nil || st.IsDir() {
			files.ServeHTTP(w, r)
			return
		}
		h.Set("Content-Encoding", "gzip")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodHead {
			return
		}
		gz := gzip.NewWriter(w)
		if _, err := io.Copy(gz, f); err != nil {
			return // the client went away; nothing more can be sent
		}
		gz.Close()
	})
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
