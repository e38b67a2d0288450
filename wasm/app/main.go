//go:build js && wasm

// Command app is the playground's WebAssembly program. It exposes one function to the page,
//
//	joinlabRun(query, sourcesJSON) → Promise<{columns, rows, total, truncated} | {error}>
//
// where sourcesJSON is {"Users": {"format": "jsonl", "data": "…"}, …}, and then waits for calls. All the work
// is in web/runner, which is tested natively.
package main

import (
	"context"
	"syscall/js"

	"github.com/joinlab/joinlab/web/runner"
)

func main() {
	js.Global().Set("joinlabRun", js.FuncOf(run))
	select {}
}

// run answers with a promise and runs the query in a goroutine: code that blocks inside a js.FuncOf callback
// (a timer, a channel fed by the event loop) would deadlock the page's only thread.
func run(_ js.Value, args []js.Value) any {
	if len(args) != 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
		return promise(func() js.Value {
			return result(`{"error":"joinlabRun(query, sourcesJSON) takes two strings"}`)
		})
	}
	text, sources := args[0].String(), args[1].String()
	return promise(func() js.Value {
		return result(runner.RunJSON(context.Background(), text, sources))
	})
}

// promise returns a JavaScript promise resolved with what f returns, f running in its own goroutine.
func promise(f func() js.Value) js.Value {
	executor := js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve := args[0]
		go func() { resolve.Invoke(f()) }()
		return nil
	})
	defer executor.Release() // the Promise constructor calls the executor before it returns
	return js.Global().Get("Promise").New(executor)
}

func result(resultJSON string) js.Value {
	return js.Global().Get("JSON").Call("parse", resultJSON)
}
