// Command worker is joinlab's Cloudflare Worker: the playground's site and its short share links (see
// handler.go for the API). Built for js/wasm it runs in workerd, served by github.com/syumai/workers with its
// links in Workers KV (serve_js.go); built natively it is a plain HTTP server over build/site with its links in a
// bbolt file (serve_native.go), which `go run mage.go serve` runs. docs/worker.md says how to deploy it.
package main

func main() {
	serve()
}
