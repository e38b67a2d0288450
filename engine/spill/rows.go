package spill

import (
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
)

// A page is one flag byte and a payload of encoded rows. A row longer than a page is cut into pieces over
// consecutive pages, each but the last flagged pageContinues, so every page stays within the page size and
// the page counts stay honest.
const (
	pageComplete  byte = 0
	pageContinues byte = 1
)

// MinPageBytes is the smallest page a Writer accepts: the flag byte and a few bytes of payload. Real runs use
// kilobytes; tests use tiny pages to get many of them from a few rows.
const MinPageBytes = 16

// Run describes a finished File of rows: what a planner needs to decide whether it fits in memory.
type Run struct {
	File  File
	Rows  int64
	Pages int64
	Bytes int64 // bytes on the store
	// MemBytes bounds the memory the rows take once decoded, as column.Batch.Bytes counts it, null bitmaps
	// included.
	MemBytes int64
	// MaxPageMem bounds the memory of the largest batch one page decodes to.
	MaxPageMem int64
}

// Writer appends rows to a File, cutting pages at pageBytes. It holds one page buffer.
type Writer struct {
	file      File
	codec     *Codec
	pageBytes int
	buf       []byte
	pageRows  int64
	pageMem   int64
	run       Run
}

// NewWriter returns a writer of codec's rows into file, in pages of at most pageBytes.
func NewWriter(file File, codec *Codec, pageBytes int) *Writer {
	pageBytes = max(pageBytes, MinPageBytes)
	w := &Writer{file: file, codec: codec, pageBytes: pageBytes, buf: make([]byte, 1, pageBytes)}
	w.run.File = file
	return w
}

// Append adds row i of b.
func (w *Writer) Append(b *column.Batch, i int) error {
	start := len(w.buf)
	var mem int64
	w.buf, mem = w.codec.AppendRow(w.buf, b, i)
	w.run.Rows++
	if len(w.buf) <= w.pageBytes {
		w.pageRows++
		w.pageMem += mem
		return nil
	}
	// The row does not fit the page: write the rows before it, then start a page with it.
	if start > 1 {
		row := append([]byte(nil), w.buf[start:]...)
		if err := w.flush(w.buf[:start], pageComplete); err != nil {
			return err
		}
		w.buf = append(w.buf[:1], row...)
	}
	w.pageRows, w.pageMem = 1, mem
	// A row longer than a page goes out in pieces.
	for len(w.buf) > w.pageBytes {
		piece := w.pageBytes - 1
		if err := w.flush(w.buf[:1+piece], pageContinues); err != nil {
			return err
		}
		w.buf = append(w.buf[:1], w.buf[1+piece:]...)
	}
	return nil
}

// flush writes page (flag byte first) and accounts the rows of the current page once it is complete.
func (w *Writer) flush(page []byte, flag byte) error {
	page[0] = flag
	if err := w.file.WritePage(page); err != nil {
		return err
	}
	w.run.Pages++
	w.run.Bytes += int64(len(page))
	if flag == pageComplete {
		// A decoded page allocates a null bitmap per column: at most a word per 64 rows.
		mem := w.pageMem + int64(w.codec.Live())*8*((w.pageRows+63)/64)
		w.run.MemBytes += mem
		w.run.MaxPageMem = max(w.run.MaxPageMem, mem)
		w.pageRows, w.pageMem = 0, 0
	}
	return nil
}

// Finish writes the last page and returns the run. The writer's buffer is released.
func (w *Writer) Finish() (Run, error) {
	if len(w.buf) > 1 {
		if err := w.flush(w.buf, pageComplete); err != nil {
			return Run{}, err
		}
	}
	w.buf = nil
	return w.run, nil
}

// Reader reads a run's rows back, one page (or one long row's pieces) per batch.
type Reader struct {
	run     Run
	codec   *Codec
	page    int
	buf     []byte
	payload []byte
}

// NewReader returns a reader of run, whose rows codec wrote.
func NewReader(run Run, codec *Codec) *Reader { return &Reader{run: run, codec: codec} }

// Next returns the next batch, or nil at the end.
func (r *Reader) Next() (*column.Batch, error) {
	r.payload = r.payload[:0]
	if r.run.File == nil { // an empty run has no file
		return nil, nil
	}
	for r.page < r.run.File.Pages() {
		var err error
		r.buf, err = r.run.File.ReadPage(r.page, r.buf)
		if err != nil {
			return nil, err
		}
		r.page++
		if len(r.buf) == 0 {
			return nil, fmt.Errorf("spill: page %d is empty", r.page-1)
		}
		if r.buf[0] == pageContinues {
			r.payload = append(r.payload, r.buf[1:]...)
			continue
		}
		p := r.buf[1:]
		if len(r.payload) > 0 {
			r.payload = append(r.payload, p...)
			p = r.payload
		}
		b, err := r.codec.Decode(p, 0)
		if err != nil {
			return nil, fmt.Errorf("spill: page %d: %w", r.page-1, err)
		}
		return b, nil
	}
	if len(r.payload) > 0 {
		return nil, fmt.Errorf("spill: run ends inside a row")
	}
	return nil, nil
}
