package deploy

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/web/site"
)

func TestStripComments(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a": 1} // end`, `{"a": 1} `},
		{"// head\n{\"a\": 1}", "\n{\"a\": 1}"},
		{`{"url": "https://example.invalid/x"}`, `{"url": "https://example.invalid/x"}`},
		{`{"s": "a \" // b"} // c`, `{"s": "a \" // b"} `},
		{"{/* one\ntwo */\"a\": 1}", "{\n\"a\": 1}"},
		{`{"a": "/* not a comment */"}`, `{"a": "/* not a comment */"}`},
		{`{"a": 1} /* unterminated`, `{"a": 1} `},
		{`{"a": "unterminated`, `{"a": "unterminated`},
	} {
		if got := string(stripComments([]byte(tc.in))); got != tc.want {
			t.Errorf("stripComments(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLocalConfig checks that the scratch configuration is the module's own with only the paths moved.
func TestLocalConfig(t *testing.T) {
	root, err := site.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data, err := LocalConfig(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Main              string  `json:"main"`
		CompatibilityDate string  `json:"compatibility_date"`
		Schema            *string `json:"$schema"`
		Assets            struct {
			Directory        string `json:"directory"`
			NotFoundHandling string `json:"not_found_handling"`
			Binding          string `json:"binding"`
			RunWorkerFirst   bool   `json:"run_worker_first"`
		} `json:"assets"`
		KV []struct {
			Binding string `json:"binding"`
		} `json:"kv_namespaces"`
		DurableObjects struct {
			Bindings []struct {
				Name      string `json:"name"`
				ClassName string `json:"class_name"`
			} `json:"bindings"`
		} `json:"durable_objects"`
		Vars map[string]string `json:"vars"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if cfg.Main != filepath.Join(dir, EntryModule) || cfg.Assets.Directory != filepath.Join(dir, "site") {
		t.Errorf("main %q, assets %q: want them in %s", cfg.Main, cfg.Assets.Directory, dir)
	}
	if cfg.Schema != nil {
		t.Errorf("$schema %q kept; it names a path relative to the module root", *cfg.Schema)
	}
	if !strings.HasPrefix(cfg.CompatibilityDate, "20") || cfg.Assets.NotFoundHandling == "" {
		t.Errorf("compatibility date %q, not_found_handling %q: not carried over from %s",
			cfg.CompatibilityDate, cfg.Assets.NotFoundHandling, ConfigFile)
	}
	if len(cfg.KV) != 1 || cfg.KV[0].Binding != "KV" {
		t.Errorf("KV namespaces %+v, want the one bound as KV", cfg.KV)
	}
	if cfg.Assets.Binding != "ASSETS" || !cfg.Assets.RunWorkerFirst {
		t.Errorf("assets binding %q, run_worker_first %v: %s checks every URL first and fetches files from ASSETS",
			cfg.Assets.Binding, cfg.Assets.RunWorkerFirst, EntryModule)
	}
	if b := cfg.DurableObjects.Bindings; len(b) != 1 || b[0].Name != "LINK_LIMITER" || b[0].ClassName != "LinkLimiter" {
		t.Errorf("Durable Object bindings %+v, want LINK_LIMITER of class LinkLimiter", b)
	}
	if !strings.Contains(string(entryModule), "export class LinkLimiter ") {
		t.Errorf("%s exports no LinkLimiter class", EntryModule)
	}
	if cfg.Vars[OriginVar] == "" {
		t.Errorf("vars %v: no %s", cfg.Vars, OriginVar)
	}
}
