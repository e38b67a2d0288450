//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"syscall/js"

	"github.com/joinlab/joinlab/web/ui"
)

var _ ui.Fetcher = (*browser)(nil)

// Fetch reads a file of the site (a path relative to the page) with the browser's fetch. It blocks until the
// body is in, so it must be called from a goroutine, never from a JavaScript callback: the promise's callbacks
// run on the event loop that a blocked callback would hold.
func (b *browser) Fetch(path string) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
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
		done <- result{data: data}
		return nil
	})
	onResponse = js.FuncOf(func(_ js.Value, args []js.Value) any {
		resp := args[0]
		if !resp.Get("ok").Bool() {
			done <- result{err: fmt.Errorf("%s: HTTP %d", path, resp.Get("status").Int())}
			return nil
		}
		resp.Call("arrayBuffer").Call("then", onBody).Call("catch", onError)
		return nil
	})
	js.Global().Call("fetch", path).Call("then", onResponse).Call("catch", onError)
	r := <-done
	release()
	return r.data, r.err
}
