// Package site builds the playground's static site — app.wasm, the Go toolchain's wasm_exec.js and the files
// under assets/ — and serves a built site over HTTP. The magefile and the browser tests both use it, so the
// site they test is built the same way as the one a developer runs.
package site

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// AppPackage is the playground's wasm entry point, relative to the module root.
const AppPackage = "./wasm/app"

// Build writes the site into out (created if missing): out/app.wasm built from AppPackage for js/wasm,
// out/wasm_exec.js from the Go toolchain that builds it, and a copy of root/assets. root is the module root.
// The go command's output goes to log.
func Build(ctx context.Context, root, out string, log io.Writer) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("site: %w", err)
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	// -s -w drop the symbol table and DWARF, which the browser never reads; they are about a third of the file.
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w",
		"-o", filepath.Join(absOut, "app.wasm"), AppPackage)
	build.Dir = root
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	build.Stdout, build.Stderr = log, log
	if err := build.Run(); err != nil {
		return fmt.Errorf("site: build %s for js/wasm: %w", AppPackage, err)
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
