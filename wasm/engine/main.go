//go:build js && wasm

// Command engine is the playground's engine, run in a Web Worker (assets/engine-worker.js starts it) so a
// long join never blocks the page. It speaks web/runner/protocol: the worker script hands it each message
// the page posts, as a JSON string, through joinlabEngine.receive, and it posts JSON strings back with the
// worker's postMessage. The work is in web/runner, which is tested natively.
package main

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"syscall/js"
	"time"

	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// yieldPause is how long a run sleeps after posting a batch. Go on js/wasm runs on the worker's one thread:
// only while every goroutine sleeps does the worker's event loop run, deliver a cancel from the page and flush
// postMessage. A millisecond per batch (at most every runner.FlushEvery) costs about 2% of the run.
const yieldPause = time.Millisecond

// pollPaused is how often a held run looks whether it may go on, if no request wakes it first.
const pollPaused = 20 * time.Millisecond

var (
	mu   sync.Mutex
	runs = map[int]*control{}
	self = js.Global()
	// tables are the user's own tables, parsed here from the bytes the page hands over (load.go).
	tables = runner.NewTables()
)

// control is what the page may do to a run under way.
type control struct {
	cancel context.CancelFunc
	paused bool
	steps  int // batches a paused run may still post
	// posted and acked count the run's batch messages sent and applied by the page (protocol.RequestAck).
	posted, acked int
	// passed is posted when the gate last let the run go: a pause holds the run only after a batch the page has
	// not seen the gate for, so a flush with nothing to post (a quiet 50 ms) never spends a Step.
	passed int
	// wake is signalled by every request about the run, so a held gate looks again at once.
	wake chan struct{}
	// heldAt is posted when the gate last told the page the run is held (protocol.MessageHeld), so it says so
	// once per batch it holds at.
	heldAt int
}

// mayGo says whether the run may go on past the gate, consuming a step if it is paused and posted a batch
// since it last went on. mu held.
func (c *control) mayGo() bool {
	if c.posted-c.acked >= protocol.MaxBatchesInFlight {
		return false // the page is behind: wait for it whatever the pause says
	}
	switch {
	case !c.paused || c.posted == c.passed:
	case c.steps > 0:
		c.steps--
	default:
		return false
	}
	c.passed = c.posted
	return true
}

// gate runs after each batch a run posts: it yields the thread, then holds the run while the page is
// MaxBatchesInFlight batches behind, and a paused run until it is resumed, stepped or canceled.
func gate(ctx context.Context, id int) {
	time.Sleep(yieldPause)
	for ctx.Err() == nil {
		mu.Lock()
		c := runs[id]
		if c == nil || c.mayGo() {
			mu.Unlock()
			return
		}
		// Held by the pause, not only by the page being behind: nothing more comes until a resume or a step.
		held := c.paused && c.steps == 0 && c.posted != c.passed && c.heldAt != c.posted
		if held {
			c.heldAt = c.posted
		}
		posted, wake := c.posted, c.wake
		mu.Unlock()
		if held {
			post(protocol.Message{Type: protocol.MessageHeld, ID: id, Held: posted})
		}
		select {
		case <-wake:
		case <-ctx.Done():
		case <-time.After(pollPaused):
		}
	}
}

func main() {
	self.Set("joinlabEngine", js.ValueOf(map[string]any{"receive": js.FuncOf(receive)}))
	post(protocol.Message{Type: protocol.MessageReady, Catalogue: runner.Catalogue()})
	select {}
}

// receive handles one request: its JSON, and for a load the Blob of the table's bytes beside it. It must not
// block: it runs inside the worker's message event.
func receive(_ js.Value, args []js.Value) any {
	if len(args) < 1 || args[0].Type() != js.TypeString {
		return nil
	}
	blob := js.Undefined()
	if len(args) > 1 {
		blob = args[1]
	}
	var req protocol.Request
	if err := json.Unmarshal([]byte(args[0].String()), &req); err != nil {
		post(protocol.Message{Type: protocol.MessageError, Error: &protocol.Error{Message: "engine: bad request: " + err.Error()}})
		return nil
	}
	switch req.Type {
	case protocol.RequestLoad:
		load(req.Load, blob)
	case protocol.RequestDrop:
		if req.Load != nil {
			tables.Drop(req.Load.Table)
		}
	case protocol.RequestDownload:
		download(req.ID, req.Download)
	case protocol.RequestCatalogue:
		post(protocol.Message{Type: protocol.MessageCatalogue, Catalogue: runner.Catalogue()})
	case protocol.RequestCancel, protocol.RequestPause, protocol.RequestResume, protocol.RequestStep, protocol.RequestAck:
		mu.Lock()
		if c := runs[req.ID]; c != nil {
			switch req.Type {
			case protocol.RequestCancel:
				c.cancel()
			case protocol.RequestPause:
				c.paused, c.steps = true, 0
			case protocol.RequestResume:
				c.paused = false
			case protocol.RequestStep:
				c.steps++
			case protocol.RequestAck:
				c.acked++
			}
			select {
			case c.wake <- struct{}{}:
			default:
			}
		}
		mu.Unlock()
	case protocol.RequestRun:
		ctx, cancel := context.WithCancel(context.Background())
		mu.Lock()
		runs[req.ID] = &control{cancel: cancel, wake: make(chan struct{}, 1)}
		mu.Unlock()
		go func() {
			defer func() {
				mu.Lock()
				delete(runs, req.ID)
				idle := len(runs) == 0
				mu.Unlock()
				cancel()
				if idle {
					// The run's tables and maps are garbage now. Collected while the worker waits, their
					// memory is what the next run reuses; left to the collector's pace (the heap may double
					// first), the next run grows the Wasm memory, which never shrinks, into fresh pages that
					// cost a fault each on first touch: up to twice the run's time on the machines measured.
					runtime.GC()
				}
			}()
			tables.Stream(ctx, req.ID, req.Run, counted(req.ID, pauseAfter(req.ID, req.Run)), func() { gate(ctx, req.ID) })
		}()
	}
	return nil
}

// pauseAfter wraps post for one run: when the run asks to be held after its Nth batch (a share link reopening
// a paused run), the Nth batch message pauses it, as the page's Pause would; the page counts the same messages.
func pauseAfter(id int, run *protocol.Run) func(protocol.Message) {
	if run == nil || run.PauseAfter <= 0 {
		return post
	}
	batches := 0
	return func(m protocol.Message) {
		post(m)
		if m.Type != protocol.MessageBatch {
			return
		}
		if batches++; batches == run.PauseAfter {
			mu.Lock()
			if c := runs[id]; c != nil {
				c.paused, c.steps = true, 0
			}
			mu.Unlock()
		}
	}
}

// counted wraps post for one run: it counts the batch messages the page has yet to acknowledge.
func counted(id int, post func(protocol.Message)) func(protocol.Message) {
	return func(m protocol.Message) {
		if m.Type == protocol.MessageBatch {
			mu.Lock()
			if c := runs[id]; c != nil {
				c.posted++
			}
			mu.Unlock()
		}
		post(m)
	}
}

func post(m protocol.Message) { postWith(m, js.Undefined()) }

// postWith posts m with a Blob beside it (a download's file), or none when blob is undefined.
func postWith(m protocol.Message, blob js.Value) {
	data, err := json.Marshal(m)
	if err != nil {
		data, _ = json.Marshal(protocol.Message{Type: protocol.MessageError, ID: m.ID,
			Error: &protocol.Error{Message: "engine: encode message: " + err.Error()}})
	}
	// The rows travel beside the JSON (protocol.Message.Rows says why): {json, rows}.
	self.Call("postMessage", js.ValueOf(map[string]any{"json": string(data), "rows": m.Rows, "blob": blob}))
}
