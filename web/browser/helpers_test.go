package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/joinlab/joinlab/web/site"
)

// The deadlines are for a page that is stuck, not a measure of a slow one: they only end a wait that would
// otherwise never end, and each is several times what the wait takes on a 2-core machine loaded twice over
// (go run mage.go testbusy). A wait ends as soon as its condition holds, so a generous deadline costs nothing.
const (
	// loadTimeout covers fetching and compiling app.wasm (a few MiB).
	loadTimeout = 3 * time.Minute
	// runTimeout covers one query over the page's small sources.
	runTimeout = 2 * time.Minute
	// testTimeout bounds a whole test, browser start included.
	testTimeout = 8 * time.Minute
	// chromeTimeout bounds one call into Chromium that is not a wait for the page: a screenshot, reading the
	// page's state for a failure message.
	chromeTimeout = time.Minute
	pollEvery     = 100 * time.Millisecond
)

// The site is built and served once for all tests of the package.
var (
	siteOnce sync.Once
	siteURL  string
	siteDir  string // the built site, which the Worker tests serve through workerd too
	siteErr  error
	siteStop func()
)

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedStop != nil {
		sharedStop()
	}
	if workerStop != nil {
		workerStop()
	}
	if siteStop != nil {
		siteStop()
	}
	os.Exit(code)
}

// serveSite builds the site into a temporary directory and serves it with site.Handler, the handler
// `go run mage.go serve` uses.
func serveSite(t *testing.T) string {
	t.Helper()
	siteOnce.Do(func() {
		root, err := site.ModuleRoot()
		if err != nil {
			siteErr = err
			return
		}
		dir, err := os.MkdirTemp("", "joinlab-site-")
		if err != nil {
			siteErr = err
			return
		}
		var log strings.Builder
		start := time.Now()
		if err := site.Build(context.Background(), root, dir, &log); err != nil {
			os.RemoveAll(dir)
			siteErr = fmt.Errorf("%w\n%s", err, log.String())
			return
		}
		if st, err := os.Stat(filepath.Join(dir, "app.wasm")); err == nil {
			t.Logf("built the site in %.1fs; app.wasm is %.1f MiB", time.Since(start).Seconds(), float64(st.Size())/(1<<20))
		}
		srv := httptest.NewServer(site.Handler(dir)) // listens on 127.0.0.1
		siteURL, siteDir = srv.URL+"/", dir
		siteStop = func() { srv.Close(); os.RemoveAll(dir) }
	})
	if siteErr != nil {
		t.Fatalf("build the site: %v", siteErr)
	}
	return siteURL
}

// chromium finds the browser where `go run mage.go test` puts it.
func chromium(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	t.Fatal("Chromium is not installed; the browser tests need it: sudo apt-get install -y chromium " +
		"(go run mage.go test installs it when run as root)")
	return ""
}

// page is one browser tab on the playground, with the console messages it has printed.
type page struct {
	t   *testing.T
	ctx context.Context

	mu      sync.Mutex
	console []string
}

// openPlayground starts a headless Chromium, opens the playground in it and waits until Run is enabled.
func openPlayground(t *testing.T) *page {
	t.Helper()
	url := serveSite(t)
	p := startBrowser(t)
	p.open(url)
	return p
}

// One Chromium serves the package's tests, each in a tab of its own: starting a browser per test cost seconds
// each on a loaded machine, a dozen tests' worth over the package. A test that needs a browser no other test
// has touched (a fresh profile, an empty cache, the only worker) starts its own with startOwnBrowser.
var (
	sharedOnce sync.Once
	sharedCtx  context.Context // the shared browser's first tab, which owns the browser process
	sharedErr  error
	sharedStop func()
)

// browserOptions are the launch options of every Chromium the tests start.
func browserOptions(t *testing.T, profile string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1200, 900),
		// Nothing outside 127.0.0.1 is reachable here, and the browser must not try.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)
}

// startBrowser opens a blank tab in the package's shared Chromium, recording its console; the tab closes when
// the test ends.
func startBrowser(t *testing.T) *page {
	t.Helper()
	sharedOnce.Do(func() {
		profile, err := os.MkdirTemp("", "joinlab-chromium-")
		if err != nil {
			sharedErr = err
			return
		}
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browserOptions(t, profile)...)
		ctx, cancel := chromedp.NewContext(allocCtx)
		sharedCtx = ctx
		sharedStop = func() { cancel(); cancelAlloc(); os.RemoveAll(profile) }
		if err := chromedp.Do(ctx); err != nil { // start the browser
			sharedErr = err
		}
	})
	if sharedErr != nil {
		t.Fatalf("start Chromium: %v", sharedErr)
	}
	// A context made from a tab's context opens a new tab in the same browser; closing it closes only the tab.
	tabCtx, cancelTab := chromedp.NewContext(sharedCtx)
	return attach(t, tabCtx, cancelTab)
}

// startOwnBrowser starts a headless Chromium of the test's own, on a fresh profile, with one blank tab.
func startOwnBrowser(t *testing.T) *page {
	t.Helper()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browserOptions(t, t.TempDir())...)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	// Cleanups run last-registered first: the browser stops before t.TempDir removes its profile.
	return attach(t, tabCtx, func() { cancelTab(); cancelAlloc() })
}

// attach opens the tab of tabCtx under the test's deadline and records its console; stop closes it.
func attach(t *testing.T, tabCtx context.Context, stop func()) *page {
	t.Helper()
	ctx, cancelTimeout := context.WithTimeout(tabCtx, testTimeout)
	t.Cleanup(func() { cancelTimeout(); stop() })

	p := &page{t: t, ctx: ctx}
	if err := chromedp.Do(ctx); err != nil { // start the browser if it is the test's own, and open the tab
		t.Fatalf("start Chromium: %v", err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.console = append(p.console, fmt.Sprintf("%s: %s", m.Type, m.Text))
			p.mu.Unlock()
		}
	}()
	return p
}

// open navigates the tab to url and waits until the playground's Run is enabled.
func (p *page) open(url string) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate(url)); err != nil {
		p.t.Fatalf("open %s: %v", url, err)
	}
	p.waitFor("the engine to be ready", `(() => { const b = document.querySelector("#run");
		return b !== null && !b.disabled; })()`, loadTimeout)
}

// waitFor polls expr in the page until it is true. A page that renders continuously never lets DOM waits
// settle, so this asks the page directly.
func (p *page) waitFor(what, expr string, timeout time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) || p.ctx.Err() != nil {
			p.t.Fatalf("waited %v for %s (last error: %v)\n%s", timeout, what, err, p.state())
		}
		time.Sleep(pollEvery)
	}
}

// state describes the page for a failure message.
func (p *page) state() string {
	ctx, cancel := context.WithTimeout(p.ctx, chromeTimeout)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({
		loading: text("#loading"),
		status: text("#status"),
		notice: text("#notice"),
		error: text("#error"),
		rowcount: text("#rowcount"),
		rows: document.querySelectorAll("#results tr.row").length,
	}); function text(sel) { const el = document.querySelector(sel); return el ? el.textContent : null; }`))
	if err != nil {
		s = fmt.Sprintf("(page state unavailable: %v)", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("page: %s\nconsole:\n  %s", s, strings.Join(p.console, "\n  "))
}

// checkConsole fails the test for any error the page logged: a blocked script or style (the server sends a
// strict Content-Security-Policy), a missing file, an uncaught exception.
func (p *page) checkConsole() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.console {
		// A Go program's panic or fatal error reaches the console as plain log lines.
		goDied := strings.Contains(m, "panic: ") || strings.Contains(m, "fatal error: ")
		if goDied || strings.HasPrefix(m, string(chromedp.ConsoleError)+":") || strings.HasPrefix(m, string(chromedp.ConsoleException)+":") {
			p.t.Errorf("console %s", m)
		}
	}
}

func (p *page) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		p.t.Fatalf("%s: %v\n%s", what, err, p.state())
	}
}

func evaluate[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v\n%s", expr, err, p.state())
	}
	return v
}

// screenshot saves the whole page to build/screenshots/NAME.png. It is deferred by each test, so a failing
// test leaves a picture of what went wrong too.
func (p *page) screenshot(name string) {
	root, err := site.ModuleRoot()
	if err != nil {
		p.t.Errorf("screenshot: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, chromeTimeout)
	defer cancel()
	if errors.Is(p.ctx.Err(), context.DeadlineExceeded) {
		// The test's own time ran out; the tab still answers, so take the picture with a fresh deadline.
		ctx, cancel = context.WithTimeout(context.WithoutCancel(p.ctx), chromeTimeout)
		defer cancel()
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Errorf("screenshot: %v", err)
		return
	}
	dir := filepath.Join(root, "build", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Errorf("screenshot: %v", err)
		return
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Errorf("screenshot: %v", err)
		return
	}
	p.t.Logf("screenshot: %s", path)
}
