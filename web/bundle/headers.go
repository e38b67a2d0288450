package bundle

import (
	"net/http"
	"strings"
)

// ContentSecurityPolicy allows only the site's own files. No inline script or style, no eval: the one exception
// is 'wasm-unsafe-eval', which WebAssembly compilation needs. worker-src covers the engine's Web Worker;
// frame-ancestors, base-uri and form-action close clickjacking, base-tag and form-redirect tricks.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
	"img-src 'self'; connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'self'; " +
	"form-action 'self'; frame-ancestors 'none'"

// ImmutableCacheControl is for versioned copies: their content never changes under their name.
const ImmutableCacheControl = "public, max-age=31536000, immutable"

// RevalidateCacheControl is for everything else: cache, but ask (with the ETag) before each use.
const RevalidateCacheControl = "no-cache"

// securityHeaders go on every response, page or API.
var securityHeaders = [][2]string{
	{"Content-Security-Policy", ContentSecurityPolicy},
	{"X-Content-Type-Options", "nosniff"},
	// A short link is a capability: never leak it, or anything else, in a Referer.
	{"Referrer-Policy", "no-referrer"},
	{"Cross-Origin-Opener-Policy", "same-origin"},
}

// SetSecurityHeaders adds the security headers to h.
func SetSecurityHeaders(h http.Header) {
	for _, kv := range securityHeaders {
		h.Set(kv[0], kv[1])
	}
}

// HeadersFile is the _headers file of Workers Static Assets: the security headers on every file and immutable
// caching under the version prefix. Unversioned files keep Cloudflare's default, which revalidates each use.
func HeadersFile() string {
	var b strings.Builder
	b.WriteString("# Written by web/bundle: the headers of the joinlab site's static files.\n/*\n")
	for _, kv := range securityHeaders {
		b.WriteString("  " + kv[0] + ": " + kv[1] + "\n")
	}
	b.WriteString(VersionPrefix + "*\n  Cache-Control: " + ImmutableCacheControl + "\n")
	return b.String()
}
