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
const (
	defaultPort = "8080"
	defaultSite = "build/site"
	defaultDB   = "build/links.db"
	// shutdownGrace is how long requests in flight get to finish on Ctrl+C before the database closes.
	shutdownGrace = 5 * time.Second
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
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: newHandler(store, site), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	fmt.Printf("joinlab playground: http://%s/  (site %s version %s, links in %s; Ctrl+C stops it)\n",
		ln.Addr(), siteDir, site.Version, dbPath)
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func getenv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
