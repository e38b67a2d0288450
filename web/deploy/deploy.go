// Package deploy builds joinlab's Cloudflare Worker and runs it in workerd through wrangler, for the magefile
// (`worker:build`, `worker:dev`) and for the test that drives the real runtime.
//
// A built Worker is a directory:
//
//	OUT/joinlab.mjs                              the main module: entry/joinlab.mjs, the guard and the limiter
//	OUT/security-headers.mjs                     web/bundle's security headers, for joinlab.mjs's own answers
//	OUT/worker.mjs, runtime.mjs, wasm_exec.js   the JavaScript glue of github.com/syumai/workers
//	OUT/app.wasm                                 wasm/worker built for js/wasm
//	OUT/site/                                    the playground's site, versioned by web/bundle, with _headers
//
// which wrangler.jsonc at the module root names as the Worker's main module and its static assets.
//
// joinlab.mjs exists for what Go cannot do in workerd: syumai/workers parses each request URL with Go's
// url.Parse before the handler runs, and a URL it refuses (a malformed percent escape) would end as workerd's
// 500 with a stack trace; joinlab.mjs answers those with the handler's 400 instead. It also exports the Durable
// Object class that counts links (web/linkstore's DurableLimiter), since Durable Object classes must be
// JavaScript exported by the main module.
package deploy

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/joinlab/joinlab/web/bundle"
)

const (
	// WorkerPackage is the Worker's entry point, relative to the module root.
	WorkerPackage = "./wasm/worker"
	// EntryModule is the Worker's main module in a build.
	EntryModule = "joinlab.mjs"
	// WranglerBin is wrangler as `npm ci` installs it from package-lock.json, relative to the module root.
	WranglerBin = "node_modules/.bin/wrangler"
	// assetsGen writes syumai/workers' glue; run through the go command, it is the version go.mod names.
	assetsGen = "github.com/syumai/workers/cmd/workers-assets-gen"
)

// BuildWorker builds the Worker into out (emptied first) from the module at root and the built site in
// siteDir, and returns the site's bundle. The go command's output goes to log.
func BuildWorker(ctx context.Context, root, siteDir, out string, log io.Writer) (*bundle.Bundle, error) {
	absOut, err := filepath.Abs(out)
	if err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	// workers-assets-gen empties its output directory itself.
	if err := goCmd(ctx, root, nil, log, "run", assetsGen, "-mode=go", "-o", absOut); err != nil {
		return nil, fmt.Errorf("deploy: %s: %w", assetsGen, err)
	}
	// -s -w drop the symbol table and DWARF: workerd never reads them, and they count against the size limit.
	if err := goCmd(ctx, root, []string{"GOOS=js", "GOARCH=wasm"}, log,
		"build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(absOut, "app.wasm"), WorkerPackage); err != nil {
		return nil, fmt.Errorf("deploy: build %s for js/wasm: %w", WorkerPackage, err)
	}
	if err := writeEntry(absOut); err != nil {
		return nil, err
	}
	b, err := bundle.Load(os.DirFS(siteDir))
	if err != nil {
		return nil, fmt.Errorf("deploy: %s: %w", siteDir, err)
	}
	if err := b.WriteDir(filepath.Join(absOut, "site")); err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	return b, nil
}

//go:embed entry/joinlab.mjs
var entryModule []byte

// writeEntry writes EntryModule and the security-headers.mjs it imports into the build in out.
func writeEntry(out string) error {
	h := http.Header{}
	bundle.SetSecurityHeaders(h)
	headers := map[string]string{}
	for name := range h {
		headers[name] = h.Get(name)
	}
	js, err := json.MarshalIndent(headers, "", "  ")
	if err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	src := "// Written by web/deploy from web/bundle: the security headers of every answer.\nexport default " + string(js) + ";\n"
	if err := os.WriteFile(filepath.Join(out, "security-headers.mjs"), []byte(src), 0o644); err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	if err := os.WriteFile(filepath.Join(out, EntryModule), entryModule, 0o644); err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	return nil
}

func goCmd(ctx context.Context, dir string, env []string, log io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	return cmd.Run()
}

// EnsureWrangler runs `npm ci` in root when wrangler is not installed there (a fresh clone, as in CI).
func EnsureWrangler(ctx context.Context, root string, log io.Writer) error {
	if _, err := os.Stat(filepath.Join(root, WranglerBin)); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("deploy: %w", err)
	}
	fmt.Fprintln(log, "wrangler is not installed: npm ci")
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("deploy: npm ci (Node 20 and npm must be installed): %w", err)
	}
	return nil
}
