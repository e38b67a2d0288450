// Package bundle turns a built site into a content-versioned one, and holds the response headers every joinlab
// page and API answer carries.
//
// Versioning: every file is published twice, at its own path (revalidated on each use) and under
// /v/VERSION/path (cached for a year, immutable), where VERSION is a hash of the whole site. Each HTML file gets
// a <base href="/v/VERSION/…"> as the first element of its head, so every relative URL the page uses — its
// scripts, styles, both WebAssembly programs, and what scripts fetch or start as Web Workers relative to the
// document — resolves to the immutable copy. Only the HTML itself is fetched again, and it is small. This needs
// no rewriting of references inside JavaScript or WebAssembly, at the price of one rule for the site's authors:
// refer to the site's files with relative URLs (a URL starting with '/' reaches the revalidated copy, which is
// still correct, only cached less); and in-page anchors resolve against the base too, so navigate to fragments
// from script (location.hash) rather than with href="#…".
package bundle

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// VersionPrefix is the URL path under which versioned copies live: /v/VERSION/….
const VersionPrefix = "/v/"

// versionHexDigits is the length of VERSION: 64 bits of SHA-256 make a collision between two builds that are
// both still cached somewhere vanishingly unlikely.
const versionHexDigits = 16

// File is one file of the site, ready to serve.
type File struct {
	Body        []byte
	Gzip        []byte // nil when the type does not compress
	ContentType string
	ETag        string // quoted, from the body's hash
}

// Bundle is a loaded, versioned site.
type Bundle struct {
	// Version names this build of the site.
	Version string
	files   map[string]*File // by path without the leading '/': "index.html", "app.wasm"
}

// contentTypes are set explicitly rather than read from the system's MIME table, which may lack
// application/wasm (WebAssembly.instantiateStreaming refuses any other type). Each says whether it compresses.
var contentTypes = map[string]struct {
	typ      string
	compress bool
}{
	".html":  {"text/html; charset=utf-8", true},
	".js":    {"text/javascript; charset=utf-8", true},
	".mjs":   {"text/javascript; charset=utf-8", true},
	".css":   {"text/css; charset=utf-8", true},
	".wasm":  {"application/wasm", true},
	".json":  {"application/json", true},
	".svg":   {"image/svg+xml", true},
	".txt":   {"text/plain; charset=utf-8", true},
	".png":   {"image/png", false},
	".ico":   {"image/x-icon", false},
	".woff2": {"font/woff2", false},
}

// Load reads every file of the site in fsys, computes its version, inserts the base element into its HTML and
// compresses what compresses. It holds the whole site in memory, twice for compressible files.
func Load(fsys fs.FS) (*Bundle, error) {
	raw := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), "_") || strings.HasPrefix(d.Name(), ".") {
			return nil // _headers and the like are configuration, never content
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		raw[name] = body
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bundle: read site: %w", err)
	}
	if _, ok := raw["index.html"]; !ok {
		return nil, fmt.Errorf("bundle: the site has no index.html")
	}
	b := &Bundle{Version: version(raw), files: map[string]*File{}}
	for name, body := range raw {
		ext := path.Ext(name)
		if ext == ".html" {
			dir := path.Dir(name)
			base := VersionPrefix + b.Version + "/"
			if dir != "." {
				base += dir + "/"
			}
			if body, err = insertBase(body, base); err != nil {
				return nil, fmt.Errorf("bundle: %s: %w", name, err)
			}
		}
		ct, known := contentTypes[ext]
		if !known {
			ct.typ = "application/octet-stream"
		}
		f := &File{Body: body, ContentType: ct.typ, ETag: etag(body)}
		if ct.compress {
			if f.Gzip, err = gzipBytes(body); err != nil {
				return nil, fmt.Errorf("bundle: compress %s: %w", name, err)
			}
		}
		b.files[name] = f
	}
	return b, nil
}

// Lookup finds the file an URL path names. immutable reports a versioned path of the current version; a path
// under another version is not found, since its content is gone.
func (b *Bundle) Lookup(urlPath string) (f *File, immutable, ok bool) {
	name := strings.TrimPrefix(urlPath, "/")
	if rest, found := strings.CutPrefix(urlPath, VersionPrefix); found {
		v, file, _ := strings.Cut(rest, "/")
		if v != b.Version {
			return nil, false, false
		}
		name, immutable = file, true
	}
	if name == "" || strings.HasSuffix(name, "/") {
		name += "index.html"
	}
	f, ok = b.files[name]
	return f, immutable && ok, ok
}

// Names returns the site's file names, sorted.
func (b *Bundle) Names() []string {
	names := make([]string, 0, len(b.files))
	for n := range b.files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// WriteDir writes the bundle as Workers Static Assets expect it: every file at its path and under v/VERSION/,
// and a _headers file that gives the versioned copies their year-long caching and every file the security
// headers. dir is emptied first.
func (b *Bundle) WriteDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	for _, name := range b.Names() {
		for _, target := range []string{name, path.Join(strings.TrimPrefix(VersionPrefix, "/")+b.Version, name)} {
			p := filepath.Join(dir, filepath.FromSlash(target))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return fmt.Errorf("bundle: %w", err)
			}
			if err := os.WriteFile(p, b.files[name].Body, 0o644); err != nil {
				return fmt.Errorf("bundle: %w", err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "_headers"), []byte(HeadersFile()), 0o644); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	return nil
}

// version hashes every name and body, in name order, with their lengths so that no two sites hash alike by
// moving bytes between files.
func version(raw map[string][]byte) string {
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%d:%s:%d:", len(n), n, len(raw[n]))
		h.Write(raw[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:versionHexDigits]
}

var headTag = regexp.MustCompile(`(?i)<head(\s[^>]*)?>`)

// insertBase puts <base href="…"> right after the <head> tag, before anything that loads a URL.
func insertBase(html []byte, href string) ([]byte, error) {
	if bytes.Contains(bytes.ToLower(html), []byte("<base")) {
		return nil, fmt.Errorf("already has a <base> element; the bundle sets its own")
	}
	loc := headTag.FindIndex(html)
	if loc == nil {
		return nil, fmt.Errorf("no <head> tag to put the <base> element in")
	}
	var out bytes.Buffer
	out.Write(html[:loc[1]])
	fmt.Fprintf(&out, "\n<base href=\"%s\">", href)
	out.Write(html[loc[1]:])
	return out.Bytes(), nil
}

func etag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

func gzipBytes(body []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(body); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
