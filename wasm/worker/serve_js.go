//go:build js && wasm

package main

import (
	"log"
	"net/http"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"

	"github.com/joinlab/joinlab/web/bundle"
	"github.com/joinlab/joinlab/web/linkstore"
)

// Binding names in wrangler.jsonc: the KV namespace of the links, and the Durable Object namespace of the rate
// counters.
const (
	kvBinding      = "KV"
	limiterBinding = "LINK_LIMITER"
)

// serve answers the request workerd started this instance for. The site is not passed: Workers Static Assets
// serves build/worker/site before the Worker runs. The public origin is checked first, on every start (each
// request is one): a Worker without a valid PUBLIC_ORIGIN answers the API with 500 and logs why, rather than
// hand out links on a host it guessed.
func serve() {
	origin, err := parseOrigin(cloudflare.Getenv(originVar))
	if err != nil {
		log.Printf("joinlab worker: misconfigured: %v (set it under vars in wrangler.jsonc)", err)
		workers.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			bundle.SetSecurityHeaders(w.Header())
			writeError(w, http.StatusInternalServerError, "the Worker is misconfigured")
		}))
		return
	}
	workers.Serve(newHandler(linkstore.NewKV(kvBinding), linkstore.NewDurableLimiter(limiterBinding), nil, origin))
}
