//go:build js && wasm

package main

import (
	"encoding/json"
	"sync"
	"syscall/js"
	"time"

	"github.com/vugu/vugu"

	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/ui"
)

// addTables installs window.joinlabAddTable(file), which app.js calls for every file picked, dropped or
// pasted (a paste made a File): the UI state gets a table for it (a handle, the name, the size), and the
// File itself goes to the engine's worker beside the load request. Its bytes never enter this program.
func addTables(ee vugu.EventEnv, state *ui.State, worker js.Value) {
	var mu sync.Mutex
	var files []js.Value
	wake := make(chan struct{}, 1)
	js.Global().Set("joinlabAddTable", js.FuncOf(func(_ js.Value, args []js.Value) any {
		// A callback from the page's event loop must not wait for the render lock: queue the file.
		if len(args) == 1 && args[0].Truthy() {
			mu.Lock()
			files = append(files, args[0])
			mu.Unlock()
			select {
			case wake <- struct{}{}:
			default:
			}
		}
		return nil
	}))
	go func() {
		for range wake {
			mu.Lock()
			batch := files
			files = nil
			mu.Unlock()
			for _, f := range batch {
				ee.Lock()
				req := state.AddFile(f.Get("name").String(), int64(f.Get("size").Float()))
				ee.UnlockRender()
				data, err := json.Marshal(req)
				if err != nil {
					continue
				}
				worker.Call("postMessage", js.ValueOf(map[string]any{"json": string(data), "blob": f}))
				time.Sleep(yieldPause)
			}
		}
	}()
}

// saveBlob offers a download the engine made as a file: an object URL clicked as a link with a download
// name. The bytes go from the worker's Blob to the disk without passing through Go.
func saveBlob(blob js.Value, msgJSON string) {
	var m protocol.Message
	if err := json.Unmarshal([]byte(msgJSON), &m); err != nil || m.File == "" {
		return
	}
	doc := js.Global().Get("document")
	url := js.Global().Get("URL").Call("createObjectURL", blob)
	a := doc.Call("createElement", "a")
	a.Set("href", url)
	a.Set("download", m.File)
	a.Get("style").Set("display", "none")
	doc.Get("body").Call("append", a)
	a.Call("click")
	a.Call("remove")
	// The browser has the URL's bytes once the download starts; a minute is long past that.
	var revoke js.Func
	revoke = js.FuncOf(func(js.Value, []js.Value) any {
		js.Global().Get("URL").Call("revokeObjectURL", url)
		revoke.Release()
		return nil
	})
	js.Global().Call("setTimeout", revoke, 60_000)
}
