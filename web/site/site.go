// Package site builds the playground's static site — app.wasm (the UI), engine.wasm (the engine, run in a Web
// Worker), the Go toolchain's wasm_exec.js, Vugu's DOM helpers as vugu-render.js and the files under
// assets/ — and serves a built site over HTTP. The magefile and the browser tests both use it, so the
// site they test is built the same way as the one a developer runs.
package site

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The playground's wasm entry points and its components, relative to the module root.
const (
	AppPackage    = "./wasm/app"
	EnginePackage = "./wasm/engine"
	UIDir         = "./web/ui"
)

// vuguModule is the module whose DOM helper script the page loads as a file.
const vuguModule = "github.com/vugu/vugu"

// Build writes the site into out (created if missing): out/app.wasm built from AppPackage and
// out/engine.wasm from EnginePackage for js/wasm, out/wasm_exec.js from the Go toolchain that builds them,
// out/vugu-render.js from the Vugu module they link (patched: renderpatch.go), and a copy of root/assets. It
// first checks that the Vugu components' generated code in UIDir is up to date (Generate updates it), so a
// site never ships code that its .vugu files no longer say. root is the module root.
// The go command's output goes to log.
func Build(ctx context.Context, root, out string, log io.Writer) error {
	if err := CheckGenerated(ctx, root); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("site: %w", err)
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	for pkg, name := range map[string]string{AppPackage: "app.wasm", EnginePackage: "engine.wasm"} {
		// -s -w drop the symbol table and DWARF, which the browser never reads; they are about a third of the file.
		build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w",
			"-o", filepath.Join(absOut, name), pkg)
		build.Dir = root
		build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		build.Stdout, build.Stderr = log, log
		if err := build.Run(); err != nil {
			return fmt.Errorf("site: build %s for js/wasm: %w", pkg, err)
		}
	}
	if err := writeVuguHelpers(ctx, root, filepath.Join(absOut, "vugu-render.js")); err != nil {
		return fmt.Errorf("site: %w", err)
	}
	goroot, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("site: go env GOROOT: %w", err)
	}
	// wasm_exec.js must match the toolchain that built app.wasm, so it is copied at each build, never committed.
	execJS := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js")
	if err := copyFile(execJS, filepath.Join(absOut, "wasm_exec.js")); err != nil {
		return fmt.Errorf("site: %w", err)
	}
	if err := copyTree(filepath.Join(root, "assets"), absOut); err != nil {
		return fmt.Errorf("site: copy assets: %w", err)
	}
	return nil
}

// Generate regenerates the Vugu components' code (*_gen.go) in root/UIDir with vugugen, the tool go.mod pins,
// and gofmts it.
func Generate(ctx context.Context, root string, log io.Writer) error {
	return vugugen(ctx, root, filepath.Join(root, UIDir), log)
}

func vugugen(ctx context.Context, root, dir string, log io.Writer) error {
	gen := exec.CommandContext(ctx, "go", "tool", "vugugen", "-skip-go-mod", "-skip-main", dir)
	gen.Dir = root
	gen.Stdout, gen.Stderr = log, log
	if err := gen.Run(); err != nil {
		return fmt.Errorf("site: vugugen %s: %w", dir, err)
	}
	// vugugen's output is not gofmt-clean, and the module's checks want every Go file to be.
	files, err := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("site: %w", err)
		}
		out, err := format.Source(src)
		if err != nil {
			return fmt.Errorf("site: gofmt %s: %w", f, err)
		}
		if err := os.WriteFile(f, out, 0o644); err != nil {
			return fmt.Errorf("site: %w", err)
		}
	}
	return nil
}

// CheckGenerated fails when the generated code in root/UIDir differs from what vugugen makes of its .vugu
// files now, naming the stale files. It generates into a scratch copy and never writes to UIDir.
func CheckGenerated(ctx context.Context, root string) error {
	src := filepath.Join(root, UIDir)
	scratch, err := os.MkdirTemp("", "joinlab-vugugen-")
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	defer os.RemoveAll(scratch)
	entries, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	committed := map[string][]byte{}
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir():
		case strings.HasSuffix(name, "_gen.go"):
			b, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				return fmt.Errorf("site: %w", err)
			}
			committed[name] = b
		case strings.HasSuffix(name, ".vugu"), strings.HasSuffix(name, ".go"):
			if err := copyFile(filepath.Join(src, name), filepath.Join(scratch, name)); err != nil {
				return fmt.Errorf("site: %w", err)
			}
		}
	}
	var log strings.Builder
	if err := vugugen(ctx, root, scratch, &log); err != nil {
		return fmt.Errorf("%w\n%s", err, log.String())
	}
	fresh, err := filepath.Glob(filepath.Join(scratch, "*_gen.go"))
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	var stale []string
	for _, path := range fresh {
		name := filepath.Base(path)
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("site: %w", err)
		}
		if old, ok := committed[name]; !ok || !bytes.Equal(old, b) {
			stale = append(stale, name)
		}
		delete(committed, name)
	}
	for name := range committed {
		stale = append(stale, name+" (no .vugu file makes it)")
	}
	if len(stale) > 0 {
		sort.Strings(stale)
		return fmt.Errorf("site: generated code in %s is stale: %s; run go run mage.go build (it regenerates)",
			UIDir, strings.Join(stale, ", "))
	}
	return nil
}

// writeVuguHelpers writes the DOM helper script Vugu's renderer would otherwise install with eval, which
// the site's Content-Security-Policy forbids. It is read from the Vugu module the program links (the
// jsHelperScript constant of its domrender package), so it cannot drift from the renderer's Go half, and
// patched to skip the DOM writes that change nothing (renderpatch.go).
func writeVuguHelpers(ctx context.Context, root, dst string) error {
	list := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", vuguModule)
	list.Dir = root
	dir, err := list.Output()
	if err != nil {
		return fmt.Errorf("go list -m %s: %w", vuguModule, err)
	}
	file := filepath.Join(strings.TrimSpace(string(dir)), "domrender", "renderer-js-script.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		return fmt.Errorf("vugu helpers: %w", err)
	}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Names) != 1 || vs.Names[0].Name != "jsHelperScript" || len(vs.Values) != 1 {
				continue
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return fmt.Errorf("vugu helpers: %s: jsHelperScript is not a string literal", file)
			}
			script, err := strconv.Unquote(lit.Value)
			if err != nil {
				return fmt.Errorf("vugu helpers: %s: %w", file, err)
			}
			if script, err = patchRenderer(script); err != nil {
				return err
			}
			return os.WriteFile(dst, []byte(script+"\n"), 0o644)
		}
	}
	return fmt.Errorf("vugu helpers: no jsHelperScript constant in %s", file)
}

// ModuleRoot returns the nearest directory at or above the working directory that holds a go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("site: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		return copyFile(path, target)
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
