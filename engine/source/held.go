package source

import (
	"bytes"
	"fmt"
	"io"
)

// heldBlockBytes is the size of the blocks Held keeps: a chunk's worth, so that a scan's read of a chunk
// touches one or two blocks.
const heldBlockBytes = ChunkBytes

// Held is data a caller keeps in memory for a source to scan where it lies (OpenHeld): the browser's own
// tables, which have no disk to be read again from. It is read once, in blocks of heldBlockBytes, so a large
// table needs neither an allocation of its whole size nor the copies of growing one; each scan then reads it
// as it would a file. It is never written after ReadHeld returns, so any number of scans may read it at once.
type Held struct {
	blocks [][]byte
	size   int64
}

// ReadHeld reads r to its end. Its error is r's, after the line and byte it stopped at.
func ReadHeld(r io.Reader) (*Held, error) {
	h := &Held{}
	for {
		b := make([]byte, heldBlockBytes)
		n, err := io.ReadFull(r, b)
		if n > 0 {
			h.blocks = append(h.blocks, b[:n:n])
			h.size += int64(n)
		}
		switch err {
		case nil:
		case io.EOF, io.ErrUnexpectedEOF:
			return h, nil
		default:
			line := 1
			for _, b := range h.blocks {
				line += bytes.Count(b, []byte{'\n'})
			}
			return nil, fmt.Errorf("line %d (byte %d): %w", line, h.size, err)
		}
	}
}

// Size is how many bytes h holds.
func (h *Held) Size() int64 { return h.size }

// ReadAt reads len(p) bytes from off, as io.ReaderAt.
func (h *Held) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("held data: negative offset %d", off)
	}
	n := 0
	for n < len(p) && off < h.size {
		b := h.blocks[off/heldBlockBytes][off%heldBlockBytes:]
		c := copy(p[n:], b)
		n += c
		off += int64(c)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// OpenHeld reads held data as a file of the given format named name: typed from a sample as OpenWith types a
// file, and scanned where it lies, each scan parsing only the columns it reads, so a table costs its text once
// instead of its text and every column of it. Its errors name the source: "source Users: line 3: malformed
// JSON".
func OpenHeld(name string, format Format, h *Held, o Options) (Source, error) {
	s, err := openPlace(name, format, place{held: h, size: h.size}, o)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", name, err)
	}
	return s, nil
}
