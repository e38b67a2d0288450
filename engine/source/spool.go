package source

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/joinlab/joinlab/engine/memory"
)

// place is where a file source reads its bytes: the file at path; for a stream (a pipe, a FIFO, standard
// input), the temporary file the stream was copied into when opened (spool), which every scan then reads as
// it would a file; or the bytes a caller holds (OpenHeld: the browser's own tables, which have no disk).
type place struct {
	path string      // as given, for messages (a stream's too: /dev/stdin); "" for held bytes
	held io.ReaderAt // the unlinked copy of a stream or the held bytes, or nil for a regular file
	size int64       // of what held holds
}

// describe names the data in an error of source: "source Users: users.jsonl", or "source Users" for bytes
// with no file behind them.
func (p place) describe(source string) string {
	if p.path == "" {
		return "source " + source
	}
	return "source " + source + ": " + p.path
}

// open starts a read of the data from its first byte; several may run at once.
func (p place) open() (io.ReadCloser, error) {
	if p.held != nil {
		return io.NopCloser(io.NewSectionReader(p.held, 0, p.size)), nil
	}
	return os.Open(p.path)
}

// readWhole hands the data to read, from its first byte, with its length, for a pass over all of it (typing a
// sampled file from every value); its errors name the source and the file.
func (p place) readWhole(source string, read func(r io.Reader, size int64) error) error {
	f, err := p.open()
	if err != nil {
		return fmt.Errorf("source %s: %w", source, err)
	}
	defer f.Close()
	if err := read(f, p.length()); err != nil {
		return fmt.Errorf("%s: %w", p.describe(source), err)
	}
	return nil
}

// length is the data's size now (0 when the file cannot be looked at: the estimate of the rows is then off,
// nothing else).
func (p place) length() int64 {
	if p.held != nil {
		return p.size
	}
	st, err := os.Stat(p.path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// StreamTooLongError is a stream source that went on past Options.MaxStreamBytes: Line and Offset are where
// the first byte past Limit is.
type StreamTooLongError struct {
	Line   int
	Offset int64
	Limit  int64
}

func (e *StreamTooLongError) Error() string {
	return fmt.Sprintf("line %d (byte %d): the stream goes on past %s, the most a stream source may hold", e.Line, e.Offset, memory.Bytes(e.Limit))
}

// spool copies a stream into a temporary file in dir ("" for the system's), a chunk of whole records at a
// time, so a record that never ends fails here as it would when read (with its position, within the budget
// and MaxRecordBytes), and memory holds one chunk. The file is unlinked at once: its space comes back when the
// process ends, however it ends. A stream of whole records with no end stops at Options.MaxStreamBytes, or
// when the disk is full, with the position it was reached at.
func spool(r io.Reader, split boundary, o Options) (place, error) {
	limit := o.MaxStreamBytes
	if limit <= 0 {
		limit = DefaultMaxStreamBytes
	}
	tmp, err := os.CreateTemp(o.SpoolDir, "joinlab-stream-*")
	if err != nil {
		return place{}, fmt.Errorf("a temporary file to hold the stream: %w", err)
	}
	os.Remove(tmp.Name())
	c := newChunker(r, split, o.ChunkBytes, o.Budget)
	var size int64
	for {
		ch, err := c.next()
		if err == io.EOF {
			return place{held: tmp, size: size}, nil
		}
		if err != nil {
			tmp.Close()
			return place{}, err
		}
		if size+int64(len(ch.data)) > limit {
			// Name the line that holds the first byte past the limit.
			within := ch.data[:limit-size]
			line, at := ch.line+bytes.Count(within, []byte{'\n'}), ch.offset+int64(len(within))
			c.release(ch)
			tmp.Close()
			return place{}, &StreamTooLongError{Line: line, Offset: at, Limit: limit}
		}
		n, err := tmp.Write(ch.data)
		c.release(ch)
		size += int64(n)
		if err != nil {
			tmp.Close()
			return place{}, fmt.Errorf("line %d (byte %d): holding the stream in a temporary file: %w", ch.line, ch.offset, err)
		}
	}
}
