package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func site() fstest.MapFS {
	return fstest.MapFS{
		"index.html":   {Data: []byte("<!doctype html><HTML><Head lang=en><script src=\"app.js\"></script></head></html>")},
		"app.js":       {Data: []byte("fetch('app.wasm')")},
		"app.wasm":     {Data: []byte("\x00asm")},
		"docs/a.html":  {Data: []byte("<html><head></head></html>")},
		"_headers":     {Data: []byte("ignored")},
		".hidden.json": {Data: []byte("{}")},
	}
}

func TestVersionFollowsEveryFile(t *testing.T) {
	b, err := Load(site())
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Version) != versionHexDigits {
		t.Fatalf("version %q", b.Version)
	}
	for _, name := range []string{"index.html", "app.js", "app.wasm", "docs/a.html"} {
		changed := site()
		changed[name] = &fstest.MapFile{Data: append(append([]byte(nil), changed[name].Data...), ' ')}
		b2, err := Load(changed)
		if err != nil {
			t.Fatal(err)
		}
		if b2.Version == b.Version {
			t.Errorf("changing %s kept version %s", name, b.Version)
		}
	}
	// Moving a byte from one file to another is a different site.
	moved := site()
	moved["app.js"] = &fstest.MapFile{Data: []byte("fetch('app.wasm'")}
	moved["app.wasm"] = &fstest.MapFile{Data: []byte(")\x00asm")}
	if b3, _ := Load(moved); b3.Version == b.Version {
		t.Error("moving a byte between files kept the version")
	}
}

func TestBaseAndLookup(t *testing.T) {
	b, err := Load(site())
	if err != nil {
		t.Fatal(err)
	}
	idx, immutable, ok := b.Lookup("/")
	if !ok || immutable {
		t.Fatalf("/: ok %v immutable %v", ok, immutable)
	}
	if want := `<Head lang=en>` + "\n" + `<base href="/v/` + b.Version + `/">`; !strings.Contains(string(idx.Body), want) {
		t.Errorf("index.html:\n%s\nwant %s", idx.Body, want)
	}
	sub, _, _ := b.Lookup("/docs/a.html")
	if !strings.Contains(string(sub.Body), `<base href="/v/`+b.Version+`/docs/">`) {
		t.Errorf("docs/a.html: %s", sub.Body)
	}
	if f, immutable, ok := b.Lookup("/v/" + b.Version + "/app.wasm"); !ok || !immutable || f.ContentType != "application/wasm" || f.Gzip == nil {
		t.Errorf("versioned app.wasm: ok %v immutable %v type %q gzip %v", ok, immutable, f.ContentType, f != nil && f.Gzip != nil)
	}
	for _, miss := range []string{"/v/" + strings.Repeat("0", versionHexDigits) + "/app.js", "/_headers", "/.hidden.json", "/v/", "/nope"} {
		if _, _, ok := b.Lookup(miss); ok {
			t.Errorf("%s found", miss)
		}
	}
}

func TestLoadRefuses(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"no index":   {"app.js": {Data: []byte("x")}},
		"no head":    {"index.html": {Data: []byte("<html><body></body></html>")}},
		"has a base": {"index.html": {Data: []byte("<html><head><base href=/x/></head></html>")}},
	} {
		if _, err := Load(fsys); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

func TestWriteDir(t *testing.T) {
	b, err := Load(site())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(filepath.Join(dir, "stale"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"index.html", "app.wasm", "docs/a.html", "v/" + b.Version + "/app.wasm", "v/" + b.Version + "/index.html"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "stale")); err == nil {
		t.Error("WriteDir kept a stale directory")
	}
	headers, err := os.ReadFile(filepath.Join(dir, "_headers"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/*\n", "  Content-Security-Policy: " + ContentSecurityPolicy + "\n", "/v/*\n  Cache-Control: " + ImmutableCacheControl} {
		if !strings.Contains(string(headers), want) {
			t.Errorf("_headers lacks %q:\n%s", want, headers)
		}
	}
}
