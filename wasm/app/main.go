//go:build js && wasm

// Command app is the playground's user interface, compiled to WebAssembly: the Vugu components of web/ui
// rendered into #app. It starts the engine in a Web Worker (assets/engine-worker.js running engine.wasm),
// feeds the worker's messages to the UI state and renders at most every ui.RenderEvery while results stream.
// All wiring happens here, once; web/ui holds the state and the components and is tested natively.
package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"github.com/vugu/vugu"
	"github.com/vugu/vugu/domrender"

	"github.com/joinlab/joinlab/web/runner/protocol"
	"github.com/joinlab/joinlab/web/ui"
)

// yieldPause is the sleep between two applied messages. Go on js/wasm returns to the browser's event loop
// only when every goroutine waits; a short sleep is how a busy goroutine lets input and paint through.
const yieldPause = time.Millisecond

// gcPercent is the page's GOGC. On js/wasm the collector's idle worker runs whenever every goroutine waits,
// and it marks until the cycle is done before the browser gets its turn back: each collection is one long
// task (10–35 ms measured during a long run). A render and a batch allocate freely while what the page keeps
// (the rows, packed) is mostly pointer-free, so collecting a fifth as often costs a little memory and saves
// most of those stalls.
const gcPercent = 400

func main() {
	debug.SetGCPercent(gcPercent)
	renderer, err := domrender.New("#app")
	if err != nil {
		fail(err)
		return
	}
	defer renderer.Release()
	buildEnv, err := vugu.NewBuildEnv(renderer.EventEnv())
	if err != nil {
		fail(err)
		return
	}
	ee := renderer.EventEnv()

	worker := js.Global().Get("Worker").New("engine-worker.js")
	env := &browser{worker: worker}
	state := ui.NewState(env)
	fragment := strings.TrimPrefix(js.Global().Get("location").Get("hash").String(), "#")
	root := &ui.Root{State: state}

	in := &inbox{wake: make(chan struct{}, 1)}
	worker.Set("onmessage", js.FuncOf(func(_ js.Value, args []js.Value) any {
		d := args[0].Get("data")
		if d.Type() == js.TypeObject && d.Get("blob").Truthy() {
			saveBlob(d.Get("blob"), d.Get("json").String())
		}
		if d.Type() == js.TypeObject && d.Get("json").Type() == js.TypeString {
			in.push(protocol.Envelope{JSON: d.Get("json").String(), Rows: d.Get("rows").String()})
		}
		return nil
	}))
	worker.Set("onerror", js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "the engine's worker failed to start"
		if m := args[0].Get("message"); m.Type() == js.TypeString {
			msg = m.String()
		}
		in.push(loadError(msg))
		return nil
	}))

	// Apply the engine's messages as they come, under the render lock, without asking for a render:
	// the ticker below merges them into at most one render per ui.RenderEvery.
	go func() {
		restored := false
		for range in.wake {
			for _, env := range in.drain() {
				msg := ui.Decode(env)
				for done := false; !done; {
					ee.Lock()
					done = state.ApplyNext(msg)
					if !restored && !state.Loading {
						restored = true
						state.LoadFragment(fragment)
						go warm()
					}
					ee.UnlockOnly()
					// Hand the thread back to the browser between messages and between the pieces of one:
					// neither a backlog of batches nor a batch of many trace events may hold clicks and
					// frames for the time it takes to apply it all.
					time.Sleep(yieldPause)
				}
			}
		}
	}()
	go func() {
		for now := range time.Tick(ui.RenderEvery) {
			ee.Lock()
			state.Tick(now) // a timeline playing moves on, and asks for this render
			dirty := state.Dirty
			state.Dirty = false
			if dirty {
				ee.UnlockRender()
			} else {
				ee.UnlockOnly()
			}
		}
	}()

	addTables(ee, state, worker)

	if el := js.Global().Get("document").Call("getElementById", "loading"); el.Truthy() {
		el.Call("remove")
	}
	for ok := true; ok; ok = renderer.EventWait() {
		// The build reads State, so it holds the read lock; Render takes that lock itself (a second RLock
		// while a writer waits would deadlock), and reads only the built nodes.
		ee.RLock()
		results := buildEnv.RunBuild(root)
		ee.RUnlock()
		err := renderer.Render(results)
		if err != nil {
			fail(err)
			return
		}
		// Let the browser run between two renders, however many are asked for.
		time.Sleep(yieldPause)
	}
}

// warmPause separates the steps of warm, so each is a task of its own between which the browser runs.
const warmPause = 20 * time.Millisecond

// warm has the browser compile the code of a run and of every strategy view before the first Run click
// needs it (ui.Warm), a view at a time.
func warm() {
	for _, view := range ui.WarmViews {
		time.Sleep(warmPause)
		ui.Warm(view)
	}
}

// inbox queues the worker's messages in order. The message callback only appends and signals: it runs on
// the page's event loop and must never block.
type inbox struct {
	mu   sync.Mutex
	msgs []protocol.Envelope
	wake chan struct{}
}

func (b *inbox) push(m protocol.Envelope) {
	b.mu.Lock()
	b.msgs = append(b.msgs, m)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *inbox) drain() []protocol.Envelope {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.msgs
	b.msgs = nil
	return m
}

func loadError(msg string) protocol.Envelope {
	b, _ := json.Marshal(protocol.Message{Type: protocol.MessageLoadError, Error: &protocol.Error{Message: msg}})
	return protocol.Envelope{JSON: string(b)}
}

// browser is ui.Env in the page.
type browser struct {
	worker js.Value
}

func (b *browser) Post(r protocol.Request) {
	data, err := json.Marshal(r)
	if err != nil {
		js.Global().Get("console").Call("error", "joinlab: encode request: "+err.Error())
		return
	}
	b.worker.Call("postMessage", string(data))
}

func (b *browser) SetFragment(f string) {
	loc := js.Global().Get("location")
	url := loc.Get("pathname").String() + loc.Get("search").String() + "#" + f
	js.Global().Get("history").Call("replaceState", js.Null(), "", url)
}

func (b *browser) CopyText(text string) {
	if c := js.Global().Get("navigator").Get("clipboard"); c.Truthy() {
		// The promise may be refused (no focus, no permission); the link is in the address bar anyway.
		p := c.Call("writeText", text)
		p.Call("catch", js.FuncOf(func(js.Value, []js.Value) any { return nil }))
	}
}

func (b *browser) Location() string {
	loc := js.Global().Get("location")
	return loc.Get("origin").String() + loc.Get("pathname").String() + loc.Get("search").String()
}

func fail(err error) {
	doc := js.Global().Get("document")
	el := doc.Call("getElementById", "loading")
	if !el.Truthy() {
		el = doc.Call("createElement", "p")
		doc.Get("body").Call("prepend", el)
	}
	el.Set("textContent", fmt.Sprintf("The page failed: %v", err))
	el.Call("setAttribute", "data-kind", "bad")
}
