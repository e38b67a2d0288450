//go:build !js

package deploy

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

const (
	// readyTimeout bounds wrangler dev's start: about 5 s on an idle machine, much more on a busy 2-core one.
	readyTimeout = 90 * time.Second
	// stopGrace is how long wrangler and workerd get to exit on SIGTERM before SIGKILL.
	stopGrace = 5 * time.Second
)

// OriginVar is the Worker's var holding its public origin (wasm/worker reads it; wrangler.jsonc sets it).
const OriginVar = "PUBLIC_ORIGIN"

// OfflineEnv keeps wrangler from reaching the network: no usage metrics, no request.cf data fetched.
var OfflineEnv = []string{"WRANGLER_SEND_METRICS=false", "CLOUDFLARE_CF_FETCH_ENABLED=false"}

// DevOptions says how to run wrangler dev.
type DevOptions struct {
	Root      string // module root, where node_modules is
	Config    string // wrangler config file
	Port      int    // 0: a free port
	PersistTo string // local KV and cache state; "": wrangler's default (.wrangler/state beside the config)
	// PublicOrigin overrides the Worker's PUBLIC_ORIGIN var, the origin of the links it hands out; "": the
	// dev server's own URL, http://127.0.0.1:PORT.
	PublicOrigin string
	Log          io.Writer
}

// Dev is a running `wrangler dev`, in its own process group so that Stop also ends workerd, which wrangler
// starts as a child and which outlives wrangler killed alone.
type Dev struct {
	URL string
	cmd *exec.Cmd
}

// StartDev starts wrangler dev on 127.0.0.1, offline, and waits until it answers HTTP.
func StartDev(ctx context.Context, o DevOptions) (*Dev, error) {
	port := o.Port
	if port == 0 {
		var err error
		if port, err = freePort(); err != nil {
			return nil, err
		}
	}
	inspector, err := freePort() // two wrangler dev at once would otherwise both want 9229
	if err != nil {
		return nil, err
	}
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	origin := o.PublicOrigin
	if origin == "" {
		origin = url
	}
	args := []string{"dev", "--config", o.Config, "--ip", "127.0.0.1", "--port", strconv.Itoa(port),
		"--inspector-port", strconv.Itoa(inspector), "--show-interactive-dev-session=false",
		// --var splits at the first colon only.
		"--var", OriginVar + ":" + origin}
	if o.PersistTo != "" {
		args = append(args, "--persist-to", o.PersistTo)
	}
	cmd := exec.Command(filepath.Join(o.Root, WranglerBin), args...)
	cmd.Dir = o.Root
	cmd.Env = append(os.Environ(), OfflineEnv...)
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("deploy: start wrangler dev: %w", err)
	}
	d := &Dev{URL: url, cmd: cmd}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(readyTimeout)
	for {
		resp, err := http.Get(d.URL + "/")
		if err == nil {
			resp.Body.Close()
			return d, nil
		}
		select {
		case err := <-exited:
			return nil, fmt.Errorf("deploy: wrangler dev exited before it was ready: %v", err)
		case <-ctx.Done():
			d.kill()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			d.kill()
			return nil, fmt.Errorf("deploy: wrangler dev not ready on %s after %v", d.URL, readyTimeout)
		}
	}
}

// Stop ends wrangler dev and workerd: SIGTERM to the process group, then SIGKILL after stopGrace.
func (d *Dev) Stop() {
	pgid := d.cmd.Process.Pid // Setsid made wrangler the leader of its own group
	syscall.Kill(-pgid, syscall.SIGTERM)
	for end := time.Now().Add(stopGrace); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if syscall.Kill(-pgid, 0) != nil {
			return // no process left in the group
		}
	}
	d.kill()
}

func (d *Dev) kill() { syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL) }

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("deploy: find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
