//go:build !js

package deploy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/joinlab/joinlab/web/bundle"
)

// ConfigFile is the Worker's wrangler configuration, relative to the module root.
const ConfigFile = "wrangler.jsonc"

// LocalOptions says where to build and run a scratch copy of the Worker, as the tests that drive workerd do.
type LocalOptions struct {
	Root    string // module root, where node_modules and ConfigFile are
	SiteDir string // a built site to serve as the Worker's static assets (web/site's Build, or any small one)
	Dir     string // scratch directory: Dir/worker (the build), Dir/wrangler.jsonc, Dir/state (local KV)
	// PublicOrigin is the Worker's PUBLIC_ORIGIN; "": the address wrangler dev listens on.
	PublicOrigin string
	Log          io.Writer
}

// Local is a scratch Worker running in `wrangler dev`: its address, and the bundle of the site it serves.
type Local struct {
	*Dev
	Bundle *bundle.Bundle
}

// StartLocal builds the Worker over o.SiteDir into o.Dir/worker, writes o.Dir/wrangler.jsonc from the module's
// own configuration with only the paths changed (LocalConfig), and starts wrangler dev on it, offline, on a free
// port, with its local KV namespace in o.Dir/state: a test sees the runtime, compatibility date and asset
// handling that `go run mage.go worker:dev` and `wrangler deploy` use, and shares no state with them or with
// another test. The build costs tens of seconds with a cold build cache; wrangler's start about 5 s on an idle
// machine. The caller stops the Worker with Stop.
func StartLocal(ctx context.Context, o LocalOptions) (*Local, error) {
	out := filepath.Join(o.Dir, "worker")
	b, err := BuildWorker(ctx, o.Root, o.SiteDir, out, o.Log)
	if err != nil {
		return nil, err
	}
	cfg, err := LocalConfig(o.Root, out)
	if err != nil {
		return nil, err
	}
	config := filepath.Join(o.Dir, "wrangler.jsonc")
	if err := os.WriteFile(config, cfg, 0o644); err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	dev, err := StartDev(ctx, DevOptions{Root: o.Root, Config: config, PersistTo: filepath.Join(o.Dir, "state"),
		PublicOrigin: o.PublicOrigin, Log: o.Log})
	if err != nil {
		return nil, err
	}
	return &Local{Dev: dev, Bundle: b}, nil
}

// LocalConfig returns the module's ConfigFile, read as JSON with comments, with the Worker's main module and
// its static assets moved to the build in workerDir (an absolute path, so the file may live anywhere).
// Everything else — compatibility date and flags, KV and Durable Object bindings, migrations, vars, not-found
// handling — stays as committed.
func LocalConfig(root, workerDir string) ([]byte, error) {
	src, err := os.ReadFile(filepath.Join(root, ConfigFile))
	if err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(stripComments(src), &cfg); err != nil {
		return nil, fmt.Errorf("deploy: %s: %w", ConfigFile, err)
	}
	abs, err := filepath.Abs(workerDir)
	if err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	assets, _ := cfg["assets"].(map[string]any)
	if assets == nil {
		return nil, fmt.Errorf("deploy: %s has no \"assets\" object", ConfigFile)
	}
	assets["directory"] = filepath.Join(abs, "site")
	cfg["main"] = filepath.Join(abs, EntryModule)
	// The schema is named relative to the module root, where the copy does not live; wrangler does not need it.
	delete(cfg, "$schema")
	return json.MarshalIndent(cfg, "", "  ")
}

// stripComments blanks the // and /* */ comments of JSONC outside strings, keeping every newline, so that a
// syntax error still points at the right line.
func stripComments(src []byte) []byte {
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
				}
			}
			end := min(j+1, len(src))
			out = append(out, src[i:end]...)
			i = end - 1
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if i < len(src) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i += 2
			for ; i < len(src) && !(src[i] == '*' && i+1 < len(src) && src[i+1] == '/'); i++ {
				if src[i] == '\n' {
					out = append(out, '\n')
				}
			}
			i++ // onto the closing '/'
		default:
			out = append(out, c)
		}
	}
	return out
}

// CheckWrangler returns nil when wrangler is installed in root (by `npm ci`, which `go run mage.go test` runs
// when node_modules is missing), and otherwise an error saying how to install it. Tests that drive workerd
// skip on it outside CI and fail on it in CI.
func CheckWrangler(root string) error {
	_, err := os.Stat(filepath.Join(root, WranglerBin))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("wrangler is not installed in %s (run npm ci there; go run mage.go test does): %w", root, err)
	default:
		return fmt.Errorf("deploy: %w", err)
	}
}
