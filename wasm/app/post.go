//go:build js && wasm

package main

import (
	"errors"
	"syscall/js"

	"github.com/joinlab/joinlab/web/ui"
)

var _ ui.Poster = (*browser)(nil)

// PostJSON posts body as application/json to path on the page's origin with the browser's fetch and returns
// the answer's status and body; an error only when nothing answered (no server, no network). It blocks until
// the body is in, so, like Fetch, it runs in a goroutine, never in a JavaScript callback.
func (b *browser) PostJSON(path string, body []byte) (int, []byte, error) {
	type result struct {
		status int
		data   []byte
		err    error
	}
	done := make(chan result, 1)
	status := 0
	var onResponse, onBody, onError js.Func
	release := func() { onResponse.Release(); onBody.Release(); onError.Release() }
	onError = js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "fetch failed"
		if len(args) > 0 && args[0].Truthy() {
			msg = args[0].Call("toString").String()
		}
		done <- result{err: errors.New(msg)}
		return nil
	})
	onBody = js.FuncOf(func(_ js.Value, args []js.Value) any {
		arr := js.Global().Get("Uint8Array").New(args[0])
		data := make([]byte, arr.Get("length").Int())
		js.CopyBytesToGo(data, arr)
		done <- result{status: status, data: data}
		return nil
	})
	onResponse = js.FuncOf(func(_ js.Value, args []js.Value) any {
		status = args[0].Get("status").Int()
		args[0].Call("arrayBuffer").Call("then", onBody).Call("catch", onError)
		return nil
	})
	headers := js.Global().Get("Object").New()
	headers.Set("Content-Type", "application/json")
	init := js.Global().Get("Object").New()
	init.Set("method", "POST")
	init.Set("headers", headers)
	init.Set("body", string(body))
	init.Set("credentials", "same-origin")
	js.Global().Call("fetch", path, init).Call("then", onResponse).Call("catch", onError)
	r := <-done
	release()
	return r.status, r.data, r.err
}
