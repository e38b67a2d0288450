//go:build mage

// The joinlab build. Run a target with "go run mage.go TARGET"; "go run mage.go -l" lists them.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	// mg is also what keeps mage in go.mod: go mod tidy skips mage.go, whose build tag is ignore.
	"github.com/magefile/mage/mg"

	"github.com/joinlab/joinlab/web/deploy"
	"github.com/joinlab/joinlab/web/site"
)

const (
	buildDir = "build"
	siteDir  = "build/site"
	cliDir   = "./cmd/joinlab"
	cliOut   = "build/joinlab"

	// workerDir is the Worker as wrangler.jsonc expects it; workerNativeOut is its native build, which `serve`
	// runs over linksDB.
	workerDir       = "build/worker"
	workerNativeOut = "build/joinlab-worker"
	linksDB         = "build/links.db"

	// testTimeout is generous: the browser test builds the wasm and starts Chromium, and on a shared
	// 2-core machine a cold build of everything takes minutes.
	testTimeout = "30m"
	// defaultFuzzTime is how long `fuzz` runs each target; FUZZTIME overrides it.
	defaultFuzzTime = "30s"
)

// Build regenerates the Vugu components' code, builds the playground into build/site (app.wasm — the UI —,
// engine.wasm — the engine's Web Worker —, wasm_exec.js, vugu-render.js, assets) and the CLI into build/joinlab.
func Build(ctx context.Context) error {
	fmt.Printf("generating %s\n", site.UIDir)
	if err := site.Generate(ctx, ".", os.Stderr); err != nil {
		return err
	}
	fmt.Printf("building %s\n", siteDir)
	if err := site.Build(ctx, ".", siteDir, os.Stderr); err != nil {
		return err
	}
	for _, name := range []string{"app.wasm", "engine.wasm"} {
		if st, err := os.Stat(filepath.Join(siteDir, name)); err == nil {
			fmt.Printf("  %s %.1f MiB\n", name, float64(st.Size())/(1<<20))
		}
	}
	if _, err := os.Stat(cliDir); errors.Is(err, fs.ErrNotExist) {
		fmt.Printf("no %s yet: skipping the CLI\n", cliDir)
		return nil
	}
	fmt.Printf("building %s\n", cliOut)
	return run(ctx, nil, mg.GoCmd(), "build", "-o", cliOut, cliDir)
}

// Serve builds, then runs the Worker's native build (wasm/worker) on 127.0.0.1:$PORT (default 8080) until
// interrupted: the site in build/site and the share API, with links kept in build/links.db across restarts.
func Serve(ctx context.Context) error {
	if err := Build(ctx); err != nil {
		return err
	}
	fmt.Printf("building %s\n", workerNativeOut)
	if err := run(ctx, nil, mg.GoCmd(), "build", "-o", workerNativeOut, deploy.WorkerPackage); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, workerNativeOut)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "JOINLAB_SITE="+siteDir, "JOINLAB_DB="+linksDB)
	// On Ctrl+C the server gets an interrupt, not a kill, so it closes the links database itself.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// Worker builds the Cloudflare Worker and runs it in workerd (see docs/worker.md).
type Worker mg.Namespace

// Build builds the site, then the Worker into build/worker: wasm/worker for js/wasm with syumai/workers' glue,
// and the site versioned for Workers Static Assets. It prints the sizes Cloudflare's limits apply to.
func (Worker) Build(ctx context.Context) error {
	if err := Build(ctx); err != nil {
		return err
	}
	fmt.Printf("building %s\n", workerDir)
	b, err := deploy.BuildWorker(ctx, ".", siteDir, workerDir, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Printf("  site version %s, %d files\n", b.Version, len(b.Names()))
	if st, err := os.Stat(filepath.Join(workerDir, "app.wasm")); err == nil {
		fmt.Printf("  worker app.wasm %.2f MiB (wrangler deploy --dry-run prints the gzip size Cloudflare limits)\n",
			float64(st.Size())/(1<<20))
	}
	return nil
}

// Dev builds the Worker and runs it with `wrangler dev` offline on 127.0.0.1:$PORT (default 8787), local KV in
// .wrangler/state, until interrupted. It runs npm ci first if wrangler is not installed.
func (Worker) Dev(ctx context.Context) error {
	if err := deploy.EnsureWrangler(ctx, ".", os.Stdout); err != nil {
		return err
	}
	mg.CtxDeps(ctx, Worker.Build)
	port := 8787
	if p := os.Getenv("PORT"); p != "" {
		var err error
		if port, err = strconv.Atoi(p); err != nil {
			return fmt.Errorf("PORT=%q: %w", p, err)
		}
	}
	dev, err := deploy.StartDev(ctx, deploy.DevOptions{Root: ".", Config: "wrangler.jsonc", Port: port, Log: os.Stdout})
	if err != nil {
		return err
	}
	defer dev.Stop()
	fmt.Printf("joinlab Worker in workerd: %s/  (Ctrl+C stops it)\n", dev.URL)
	sig, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-sig.Done()
	return nil
}

// Test makes sure Chromium and Node are there, then runs go vet (native and js/wasm), a gofmt check, the native
// tests, the browser tests (after the others) and the engine's tests under js/wasm. Every step runs; the target
// fails if any did.
func Test(ctx context.Context) error {
	var s steps
	s.do("chromium", func() error { return ensureChromium(ctx) })
	s.do("go vet", func() error { return run(ctx, nil, mg.GoCmd(), "vet", "./...") })
	// The wasm entry points build only for js/wasm, so the native vet never sees them.
	s.do("go vet (js/wasm)", func() error {
		return run(ctx, []string{"GOOS=js", "GOARCH=wasm"}, mg.GoCmd(), "vet", "./wasm/...")
	})
	s.do("gofmt", checkGofmt)
	// The Worker's test runs it in workerd through wrangler, which a fresh clone does not have yet.
	s.do("npm ci (wrangler)", func() error { return deploy.EnsureWrangler(ctx, ".", os.Stdout) })
	// The browser tests run on their own, after the rest: beside the engine's CPU-heavy tests, a loaded
	// 2-core machine starves Chromium's page and worker, and what they measure stops being the page.
	s.do("go test (native)", func() error {
		pkgs, err := packagesExcept(ctx, browserTestPackage)
		if err != nil {
			return err
		}
		return run(ctx, nil, mg.GoCmd(), append([]string{"test", "-timeout", testTimeout}, pkgs...)...)
	})
	s.do("go test (browser)", func() error {
		return run(ctx, nil, mg.GoCmd(), "test", "-timeout", testTimeout, browserTestPackage)
	})
	s.do("go test (js/wasm)", func() error { return testWasm(ctx) })
	return s.summary()
}

// TestBusy runs Test with stress-ng loading every core twice over beside it (as a machine shared with other
// builds is), then stops stress-ng. The suite must pass so: no test may depend on how fast the machine is.
// It installs Debian's stress-ng with apt-get when it is missing and we are root.
func TestBusy(ctx context.Context) error {
	if err := ensureStressNG(ctx); err != nil {
		return err
	}
	workers := busyLoadPerCore * runtime.NumCPU()
	load := exec.Command("stress-ng", "--cpu", strconv.Itoa(workers), "--timeout", busyLoadLimit, "--quiet")
	// Its own process group, so that stopping it stops its workers too.
	load.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	load.Stdout, load.Stderr = os.Stdout, os.Stderr
	fmt.Printf("$ %s\n", strings.Join(load.Args, " "))
	if err := load.Start(); err != nil {
		return fmt.Errorf("testbusy: start stress-ng: %w", err)
	}
	defer func() {
		_ = syscall.Kill(-load.Process.Pid, syscall.SIGTERM)
		_ = load.Wait()
		fmt.Println("stopped stress-ng")
	}()
	return Test(ctx)
}

const (
	// busyLoadPerCore is stress-ng's CPU workers per core during testbusy: twice the cores, issue 22's target.
	busyLoadPerCore = 2
	// busyLoadLimit stops stress-ng by itself should testbusy be killed before it can stop it; it is longer
	// than any test run.
	busyLoadLimit = "90m"
)

// ensureStressNG installs Debian's stress-ng package when it is missing and we are root.
func ensureStressNG(ctx context.Context) error {
	if _, err := exec.LookPath("stress-ng"); err == nil {
		return nil
	}
	if os.Geteuid() != 0 {
		return errors.New("stress-ng is not installed; testbusy needs it: sudo apt-get install -y stress-ng")
	}
	env := []string{"DEBIAN_FRONTEND=noninteractive"}
	if err := run(ctx, env, "apt-get", "install", "-y", "stress-ng"); err != nil {
		if err := run(ctx, env, "apt-get", "update"); err != nil {
			return fmt.Errorf("apt-get update: %w", err)
		}
		if err := run(ctx, env, "apt-get", "install", "-y", "stress-ng"); err != nil {
			return fmt.Errorf("apt-get install stress-ng: %w", err)
		}
	}
	return nil
}

// Fuzz runs each fuzz target of the module for $FUZZTIME (default 30s).
func Fuzz(ctx context.Context) error {
	fuzzTime := os.Getenv("FUZZTIME")
	if fuzzTime == "" {
		fuzzTime = defaultFuzzTime
	}
	targets, err := fuzzTargets(ctx)
	if err != nil {
		return err
	}
	if len(targets) == 0 {
		fmt.Println("no fuzz targets")
		return nil
	}
	var s steps
	for _, t := range targets {
		s.do(t.pkg+" "+t.name, func() error {
			return run(ctx, nil, mg.GoCmd(), "test", "-run=^$", "-fuzz=^"+t.name+"$", "-fuzztime="+fuzzTime, t.pkg)
		})
	}
	return s.summary()
}

// Clean removes build/.
func Clean() error {
	return os.RemoveAll(buildDir)
}

// steps runs the parts of a target in order, times them and reports them together at the end.
type steps struct {
	results []stepResult
}

type stepResult struct {
	name string
	took time.Duration
	err  error
}

func (s *steps) do(name string, f func() error) {
	fmt.Printf("\n=== %s\n", name)
	start := time.Now()
	err := f()
	s.results = append(s.results, stepResult{name, time.Since(start), err})
	if err != nil {
		fmt.Printf("--- %s FAILED: %v\n", name, err)
	}
}

func (s *steps) summary() error {
	fmt.Println("\n=== summary")
	var failed []string
	for _, r := range s.results {
		status := "ok  "
		if r.err != nil {
			status = "FAIL"
			failed = append(failed, r.name)
		}
		fmt.Printf("%s  %-20s %6.1fs\n", status, r.name, r.took.Seconds())
	}
	if len(failed) > 0 {
		return fmt.Errorf("failed: %s", strings.Join(failed, ", "))
	}
	fmt.Println("all steps passed")
	return nil
}

// run runs a command with its output on ours, and env added to our environment.
func run(ctx context.Context, env []string, name string, args ...string) error {
	fmt.Printf("$ %s%s %s\n", envPrefix(env), name, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), env...)
	return cmd.Run()
}

func envPrefix(env []string) string {
	if len(env) == 0 {
		return ""
	}
	return strings.Join(env, " ") + " "
}

// chromiumPath finds the browser the browser tests drive (web/browser looks in the same places).
func chromiumPath() (string, bool) {
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, true
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", true
	}
	return "", false
}

// ensureChromium installs Debian's chromium package when it is missing and we are root (as CI is).
func ensureChromium(ctx context.Context) error {
	if p, ok := chromiumPath(); ok {
		fmt.Printf("chromium: %s\n", p)
		return nil
	}
	if os.Geteuid() != 0 {
		return errors.New("chromium is not installed; the browser tests need it: sudo apt-get install -y chromium")
	}
	fmt.Println("chromium is missing: installing it with apt-get (a few minutes)")
	env := []string{"DEBIAN_FRONTEND=noninteractive"}
	if err := run(ctx, env, "apt-get", "update"); err != nil {
		return fmt.Errorf("apt-get update: %w", err)
	}
	// With its recommended packages, as on a developer's machine: they bring the fonts the screenshots show.
	if err := run(ctx, env, "apt-get", "install", "-y", "chromium"); err != nil {
		return fmt.Errorf("apt-get install chromium: %w", err)
	}
	if _, ok := chromiumPath(); !ok {
		return errors.New("apt-get installed chromium but no chromium binary is on PATH or at /usr/bin/chromium")
	}
	return nil
}

// skipDir reports whether gofmt's walk skips a directory: the ones the go command ignores, and build output.
func skipDir(path string, d fs.DirEntry) bool {
	name := d.Name()
	if path == "." {
		return false
	}
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
		name == "testdata" || name == "node_modules" || path == buildDir
}

// checkGofmt fails listing the Go files that gofmt would change.
func checkGofmt() error {
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDir(path, d) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	out, err := exec.Command("gofmt", append([]string{"-l"}, files...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("gofmt: %v\n%s", err, out)
	}
	if bad := strings.Fields(string(out)); len(bad) > 0 {
		return fmt.Errorf("not gofmt-formatted (run gofmt -w): %s", strings.Join(bad, " "))
	}
	fmt.Printf("%d files formatted\n", len(files))
	return nil
}

// browserTestPackage holds the tests that drive the playground in Chromium.
const browserTestPackage = "./web/browser"

// packagesExcept lists the module's packages but the one given (as a ./relative path).
func packagesExcept(ctx context.Context, except string) ([]string, error) {
	out, err := exec.CommandContext(ctx, mg.GoCmd(), "list", "-f", "{{.Dir}}", "./...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list ./...: %w", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, dir := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		rel, err := filepath.Rel(wd, dir)
		if err != nil {
			return nil, err
		}
		if rel = "./" + filepath.ToSlash(rel); rel != except {
			pkgs = append(pkgs, rel)
		}
	}
	return pkgs, nil
}

// wasmTestPackages are the packages also tested under js/wasm, as the browser runs them: the engine, and the
// runner the playground calls it through.
var wasmTestPackages = []string{"./engine/...", "./web/runner/..."}

func testWasm(ctx context.Context) error {
	if _, err := exec.LookPath("node"); err != nil {
		return errors.New("node is not installed; the js/wasm tests run under Node 20: apt-get install -y nodejs")
	}
	goroot, err := exec.CommandContext(ctx, mg.GoCmd(), "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	execWasm := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "go_js_wasm_exec")
	args := append([]string{"test", "-timeout", testTimeout, "-exec=" + execWasm}, wasmTestPackages...)
	return run(ctx, []string{"GOOS=js", "GOARCH=wasm"}, mg.GoCmd(), args...)
}

type fuzzTarget struct{ pkg, name string }

var fuzzFunc = regexp.MustCompile(`^func (Fuzz\w*)\(\w+ \*testing\.F\)`)

// fuzzTargets finds the Fuzz functions in the module's test files.
func fuzzTargets(ctx context.Context) ([]fuzzTarget, error) {
	out, err := exec.CommandContext(ctx, mg.GoCmd(), "list", "-f",
		`{{.ImportPath}}{{range .TestGoFiles}} {{$.Dir}}/{{.}}{{end}}{{range .XTestGoFiles}} {{$.Dir}}/{{.}}{{end}}`,
		"./...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var targets []fuzzTarget
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		for _, file := range fields[1:] {
			f, err := os.Open(file)
			if err != nil {
				return nil, err
			}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m := fuzzFunc.FindStringSubmatch(sc.Text()); m != nil {
					targets = append(targets, fuzzTarget{fields[0], m[1]})
				}
			}
			f.Close()
			if err := sc.Err(); err != nil {
				return nil, err
			}
		}
	}
	return targets, nil
}
