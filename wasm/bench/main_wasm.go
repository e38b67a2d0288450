//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"syscall/js"
	"time"

	"github.com/joinlab/joinlab/engine/source"
)

// The page talks to the engine through globalThis.joinlabBench:
//
//	workloads()       JSON [{Name, Title, Data}]
//	sql()             Promise of JSON {name: DuckDB query}
//	generate(data)    Promise of JSON {rows, sql}: builds the dataset in wasm memory (dropping the last one)
//	                  and returns the SQL that makes the same tables in DuckDB
//	settle()          Promise, resolved once the garbage of the runs before is collected (Settle); the page
//	                  calls it before each run it times, outside its clock
//	run(name)         Promise of JSON {digest, ms}: one timed run of the workload over the current dataset
//
// and, for own data (files.go, files.js):
//
//	fileQueries()     JSON [{Key, Name, Format, Users, Events, KQL, SQL, LoadSQL, TablesSQL, JSONTablesSQL}]
//	loadFiles(key, users, events)
//	                  Promise of JSON {rows, users_ms, events_ms, ms}: parses the two Uint8Arrays in the query's
//	                  format as @Users and @Events (dropping the last ones; collected before the clock starts)
//	runFile(key)      Promise of JSON {digest, ms}: one timed run of the query over the loaded files
//
// Each call that works for long runs in a goroutine and settles its promise when done, so no callback blocks.
func main() {
	var current *Data
	var currentName string
	api := js.Global().Get("Object").New()
	api.Set("workloads", js.FuncOf(func(js.Value, []js.Value) any {
		type item struct{ Name, Title, Data string }
		var out []item
		for _, w := range Workloads {
			out = append(out, item{w.Name, w.Title, w.Data})
		}
		b, _ := json.Marshal(out)
		return string(b)
	}))
	api.Set("sql", js.FuncOf(func(js.Value, []js.Value) any {
		return promise(func() (any, error) {
			out := map[string]string{}
			for _, w := range Workloads {
				out[w.Name] = w.SQL
			}
			return out, nil
		})
	}))
	api.Set("generate", js.FuncOf(func(_ js.Value, args []js.Value) any {
		name := args[0].String()
		return promise(func() (any, error) {
			if currentName != name {
				current, currentName = nil, ""
				d, err := Generate(name, 1)
				if err != nil {
					return nil, err
				}
				current, currentName = d, name
				// Generating allocates hundreds of MB; collect now, so the collection and sweeping that
				// follow land here, untimed, instead of in whichever timed run reaches the heap's goal.
				runtime.GC()
			}
			return map[string]any{"rows": current.Rows, "sql": current.SQL}, nil
		})
	}))
	api.Set("settle", js.FuncOf(func(js.Value, []js.Value) any {
		return promise(func() (any, error) {
			Settle()
			return nil, nil
		})
	}))
	api.Set("run", js.FuncOf(func(_ js.Value, args []js.Value) any {
		name := args[0].String()
		return promise(func() (any, error) {
			w, err := Find(name)
			if err != nil {
				return nil, err
			}
			if current == nil || currentName != w.Data {
				return nil, fmt.Errorf("bench %s: generate(%q) first", name, w.Data)
			}
			dg, d, err := Run(context.Background(), w, current)
			if err != nil {
				return nil, err
			}
			return map[string]any{"digest": dg, "ms": float64(d.Nanoseconds()) / 1e6}, nil
		})
	}))
	var files map[string]source.Source
	var filesFormat string
	api.Set("fileQueries", js.FuncOf(func(js.Value, []js.Value) any {
		type item struct {
			Key string
			FileQuery
		}
		var out []item
		for _, q := range FileQueries() {
			out = append(out, item{fileQueryKey(q), q})
		}
		b, _ := json.Marshal(out)
		return string(b)
	}))
	api.Set("loadFiles", js.FuncOf(func(_ js.Value, args []js.Value) any {
		key, users, events := args[0].String(), args[1], args[2]
		return promise(func() (any, error) {
			q, err := findFileQuery(key)
			if err != nil {
				return nil, err
			}
			files, filesFormat = nil, ""
			// The last load's sources are garbage now: collect them before the clock starts, not in the parse.
			runtime.GC()
			u, tu, err := LoadFile("Users", q.Format, newBytesReader(users))
			if err != nil {
				return nil, err
			}
			e, te, err := LoadFile("Events", q.Format, newBytesReader(events))
			if err != nil {
				return nil, err
			}
			files, filesFormat = map[string]source.Source{"Users": u, "Events": e}, q.Format
			ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
			return map[string]any{"rows": u.Rows() + e.Rows(), "users_ms": ms(tu), "events_ms": ms(te), "ms": ms(tu + te)}, nil
		})
	}))
	api.Set("runFile", js.FuncOf(func(_ js.Value, args []js.Value) any {
		key := args[0].String()
		return promise(func() (any, error) {
			q, err := findFileQuery(key)
			if err != nil {
				return nil, err
			}
			if files == nil || filesFormat != q.Format {
				return nil, fmt.Errorf("bench %s: loadFiles(%q, …) first", key, key)
			}
			dg, d, err := RunFileQuery(context.Background(), q, files)
			if err != nil {
				return nil, err
			}
			return map[string]any{"digest": dg, "ms": float64(d.Nanoseconds()) / 1e6}, nil
		})
	}))
	js.Global().Set("joinlabBench", api)
	js.Global().Call("dispatchEvent", js.Global().Get("Event").New("joinlab-bench-ready"))
	select {}
}

// bytesReader reads a JavaScript Uint8Array a slice at a time, each Read copying straight into the caller's
// buffer (the chunk the source keeps), so the bytes are copied into Go once, as the playground's Blob reader does.
type bytesReader struct {
	arr       js.Value
	off, size int
}

func newBytesReader(arr js.Value) *bytesReader {
	return &bytesReader{arr: arr, size: arr.Get("length").Int()}
}

func (r *bytesReader) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	end := min(r.off+len(p), r.size)
	n := js.CopyBytesToGo(p, r.arr.Call("subarray", r.off, end))
	r.off += n
	return n, nil
}

// promise runs f in a goroutine and returns a JavaScript Promise of its result as JSON text.
func promise(f func() (any, error)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve, reject := args[0], args[1]
		go func() {
			defer executor.Release()
			v, err := f()
			if err == nil {
				var b []byte
				if b, err = json.Marshal(v); err == nil {
					resolve.Invoke(string(b))
					return
				}
			}
			reject.Invoke(js.Global().Get("Error").New(err.Error()))
		}()
		return nil
	})
	return js.Global().Get("Promise").New(executor)
}
