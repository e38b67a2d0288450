//go:build js && wasm

package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"syscall/js"

	"github.com/joinlab/joinlab/web/runner"
	"github.com/joinlab/joinlab/web/runner/protocol"
)

// load parses one of the user's tables in a goroutine of its own, posting its progress and then its summary
// or its error. The bytes are the Blob the page handed over (a File, or a paste made a Blob), read here a
// slice at a time: they never pass through the page's Go program, nor through any JavaScript string.
func load(l *protocol.Load, blob js.Value) {
	if l == nil || l.Table <= 0 {
		post(protocol.Message{Type: protocol.MessageError, Error: &protocol.Error{Message: "engine: load request without a table"}})
		return
	}
	var open runner.Opener
	switch {
	case blob.Truthy():
		open = func() (io.Reader, error) { return newBlobReader(blob) }
	case l.Data != "":
		data := l.Data
		open = func() (io.Reader, error) { return strings.NewReader(data), nil }
	}
	// open nil parses the bytes the table was loaded with again, in l.Format.
	go func() {
		id := l.Table
		sum, err := tables.Load(context.Background(), id, l.Format, open, func(read int64) {
			post(protocol.Message{Type: protocol.MessageLoadProgress, Table: id, Read: read})
		})
		if err != nil {
			e := runner.LoadError(err)
			if e.Canceled {
				return // dropped or loaded again: the page no longer waits for this parse
			}
			post(protocol.Message{Type: protocol.MessageLoadFailed, Table: id, Error: e})
			return
		}
		post(protocol.Message{Type: protocol.MessageLoaded, Table: id, Summary: sum})
	}()
}

// blobReader reads a Blob with the worker's FileReaderSync, a slice per Read: each Read copies one slice
// into the caller's buffer (the chunk the source keeps), so the file is copied into Go once.
type blobReader struct {
	blob      js.Value
	reader    js.Value
	off, size int64
}

func newBlobReader(blob js.Value) (*blobReader, error) {
	frs := js.Global().Get("FileReaderSync")
	if !frs.Truthy() {
		return nil, errors.New("this browser cannot read files in a worker (no FileReaderSync)")
	}
	return &blobReader{blob: blob, reader: frs.New(), size: int64(blob.Get("size").Float())}, nil
}

func (b *blobReader) Read(p []byte) (n int, err error) {
	if b.off >= b.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	defer func() {
		// A file changed or removed on disk since it was picked fails the read with a JavaScript exception.
		if r := recover(); r != nil {
			n, err = 0, errors.New("the file could not be read (was it changed or removed?)")
		}
	}()
	end := min(b.off+int64(len(p)), b.size)
	buf := b.reader.Call("readAsArrayBuffer", b.blob.Call("slice", float64(b.off), float64(end)))
	n = js.CopyBytesToGo(p, js.Global().Get("Uint8Array").New(buf))
	b.off += int64(n)
	return n, nil
}

// downloadPart is how many bytes of a download collect in Go before they move to the Blob's parts.
const downloadPart = 1 << 20

// download runs a request's run again and posts its whole output as a Blob, in a goroutine.
func download(id int, d *protocol.Download) {
	go func() {
		if d == nil {
			post(protocol.Message{Type: protocol.MessageDownload, ID: id, Error: &protocol.Error{Message: "download: no run"}})
			return
		}
		w := &blobWriter{parts: js.Global().Get("Array").New()}
		if err := tables.Download(context.Background(), d.Run, d.Format, w); err != nil {
			post(protocol.Message{Type: protocol.MessageDownload, ID: id, Error: &protocol.Error{Message: err.Error()}})
			return
		}
		w.flush()
		typ := "application/x-ndjson"
		if d.Format == protocol.DownloadCSV {
			typ = "text/csv"
		}
		blob := js.Global().Get("Blob").New(w.parts, js.ValueOf(map[string]any{"type": typ}))
		postWith(protocol.Message{Type: protocol.MessageDownload, ID: id, File: runner.DownloadName(d.Format), Read: w.n}, blob)
	}()
}

// blobWriter gathers a download in JavaScript typed arrays of downloadPart bytes, so Go holds one part at a time.
type blobWriter struct {
	parts js.Value
	buf   []byte
	n     int64
}

func (w *blobWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	w.n += int64(len(p))
	if len(w.buf) >= downloadPart {
		w.flush()
	}
	return len(p), nil
}

func (w *blobWriter) flush() {
	if len(w.buf) == 0 {
		return
	}
	arr := js.Global().Get("Uint8Array").New(len(w.buf))
	js.CopyBytesToJS(arr, w.buf)
	w.parts.Call("push", arr)
	w.buf = w.buf[:0]
}
