//go:build !js

package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/joinlab/joinlab/web/bundle"
	"github.com/joinlab/joinlab/web/linkstore"
)

// Defaults, each overridden by an environment variable: PORT, JOINLAB_SITE (the built site) and JOINLAB_DB
// (the links database, under build/ so `go run mage.go clean` is the only thing that forgets links).
// PUBLIC_ORIGIN, the origin of the links it hands out, defaults to the address it listens on.
const (
	defaultPort = "8080"
	defaultSite = "build/site"
	defaultDB   = "build/links.db"
	// shutdownGrace is how long requests in flight get to finish on Ctrl+C before the database closes.
	shutdownGrace = 5 * time.Second
	// readHeaderTimeout drops a client that sends no complete request head in this time.
	readHeaderTimeout = 10 * time.Second
)

// serve runs the Worker's handler as a local HTTP server on 127.0.0.1. It is a plain net/http server rather
// than workers.Serve (which is one natively, too) so that it listens on loopback only and closes the bbolt file
// cleanly on an interrupt.
func serve() {
	if err := serveNative(); err != nil {
		log.Fatalf("joinlab worker: %v", err)
	}
}

func serveNative() error {
	port, siteDir, dbPath := getenv("PORT", defaultPort), getenv("JOINLAB_SITE", defaultSite), getenv("JOINLAB_DB", defaultDB)
	site, err := bundle.Load(os.DirFS(siteDir))
	if err != nil {
		return fmt.Errorf("load the site from %s (build it with `go run mage.go build`): %w", siteDir, err)
	}
	if err := os.MkdirAll(filepath.Dir(dbPath), 0o755); err != nil {
		return err
	}
	store, err := linkstore.OpenBolt(dbPath)
	if err != nil {
		return err
	}
	defer store.Close()
	ln, err := listen(net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return err
	}
	defer ln.Close()
	origin, err := parseOrigin(getenv(originVar, "http://"+ln.Addr().String()))
	if err != nil {
		return err
	}
	srv := newServer(newHandler(store, store, site, origin))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	fmt.Printf("joinlab playground: http://%s/  (site %s version %s, links in %s on %s; Ctrl+C stops it)\n",
		ln.Addr(), siteDir, site.Version, dbPath, origin)
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// listen listens on addr with headedListener, so that net/http's own error answers carry the security headers.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return headedListener{ln}, nil
}

// newServer is the native server of h, for serve and the tests.
func newServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout}
}

func getenv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
