//go:build js && wasm

package main

import (
	"github.com/syumai/workers"

	"github.com/joinlab/joinlab/web/linkstore"
)

// kvBinding is the KV namespace's binding name in wrangler.jsonc.
const kvBinding = "KV"

// serve answers the request workerd started this instance for. The site is not passed: Workers Static Assets
// serves build/worker/site before the Worker runs.
func serve() {
	workers.Serve(newHandler(linkstore.NewKV(kvBinding), nil))
}
