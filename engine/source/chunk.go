package source

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/joinlab/joinlab/engine/memory"
)

// ChunkBytes is how much a reader asks of a file at once: large enough that a read and the hand-off to a parse
// worker are a small part of parsing it, small enough that one chunk per core stays a few tens of MiB.
const ChunkBytes = 4 << 20

// MaxRecordBytes is the longest record (a JSON line, a CSV record with its quoted newlines) a file may hold. A
// record is held whole while it is parsed, so without a limit a file with no line end (a link to /dev/zero)
// would be read into memory until the process dies.
const MaxRecordBytes = 64 << 20

// A reader under a budget reads chunks of at most the budget's chunkBudgetShare-th part, and never less than
// minChunkBytes: the chunks in flight (one a parse worker, a few more while the next is read and carried) then
// take a small part of any budget, so a file reads under a --mem of a few KiB. A longer record still grows its
// chunk, within the budget.
const (
	chunkBudgetShare = 32
	minChunkBytes    = 1 << 10
)

// readHolder names the reader in the memory budget's errors.
const readHolder = "file reader"

// chunk is a run of whole records: it starts at a record's first byte and ends after a record's last.
type chunk struct {
	data   []byte
	line   int    // line number of data's first byte, from 1
	lines  int    // the newlines data holds (its records, but for quoted newlines; 0 when not counted)
	offset int64  // byte offset of data in the file
	held   int64  // bytes of the budget its buffer holds, given back by release
	buf    []byte // the whole buffer data lies in, for recycle
}

// boundary finds where a chunk may end: the length of the longest prefix of buf that ends at a record end, or
// 0 when buf holds no whole record yet. A boundary is called with the same buffer, grown at its end, until it
// answers; reset starts it over on a buffer that begins at a record's first byte.
type boundary interface {
	end(buf []byte) int
	reset()
}

// lineEnd splits JSON lines: a record ends at each newline (a JSON string holds no raw newline).
type lineEnd struct{}

func (lineEnd) end(buf []byte) int { return bytes.LastIndexByte(buf, '\n') + 1 }
func (lineEnd) reset()             {}

// csvEnd splits CSV: a record ends at a newline outside quotes. Quotes toggle the state, which also reads an
// escaped quote ("") right, as two toggles. It resumes where it stopped, so a long record is scanned once.
type csvEnd struct {
	scanned int
	quoted  bool
	last    int
}

func (c *csvEnd) end(buf []byte) int {
	// Jump from quote to quote: inside quotes nothing ends a record, and between two quotes the last newline is
	// the last record end there. A search call per quote, not a step per byte.
	for i := c.scanned; i < len(buf); {
		q := indexByte(buf[i:], '"')
		if !c.quoted {
			region := buf[i:]
			if q >= 0 {
				region = region[:q]
			}
			if nl := bytes.LastIndexByte(region, '\n'); nl >= 0 {
				c.last = i + nl + 1
			}
		}
		if q < 0 {
			break
		}
		i += q + 1
		c.quoted = !c.quoted
	}
	c.scanned = len(buf)
	return c.last
}

func (c *csvEnd) reset() { *c = csvEnd{} }

// chunker reads a file as chunks of whole records. Each chunk it returns holds its own buffer; the bytes read
// past the chunk's last record end are copied to the start of the next. The buffers it allocates are grown in
// the budget and stay counted until release, so the chunks in flight (being read, waiting or being parsed) are
// bounded by it; a record that does not end within the budget or MaxRecordBytes is an error with its position.
type chunker struct {
	r         io.Reader
	split     boundary
	size      int
	maxRecord int
	budget    *memory.Budget

	carry  []byte // bytes after the last chunk's end: the start of the next record
	line   int
	offset int64
	eof    bool
	// stopAt, when positive, ends the chunks at the first record end at or past that byte (a sample); more
	// then says whether the data went on.
	stopAt int64
	more   bool

	// free holds buffers of parsed chunks given back by recycle, for the next chunks to read into: a chunk's
	// buffer is then allocated (and zeroed, and collected) once per worker, not once per chunk.
	freeMu sync.Mutex
	free   [][]byte
}

// maxFreeBuffers bounds the buffers a chunker keeps for reuse. A kept buffer is out of the budget while it
// waits (as a released one waited for the collector before), so this many chunks, at most twice the chunk size
// each, are part of the reader's fixed overhead. A scan's reader takes a kept buffer back for each chunk it
// reads, so the list rarely holds more than the few its workers just gave back.
const maxFreeBuffers = 4

func newChunker(r io.Reader, split boundary, size int, budget *memory.Budget) *chunker {
	if size <= 0 {
		size = ChunkBytes
	}
	if budget != nil {
		size = min(size, max(int(budget.Limit()/chunkBudgetShare), minChunkBytes))
	}
	return &chunker{r: r, split: split, size: size, maxRecord: MaxRecordBytes, budget: budget, line: 1}
}

// next returns the next chunk, or (chunk{}, io.EOF) after the last. It fills its buffer before it cuts, so a
// reader that returns a little at a time (a pipe) still gives chunks of about ChunkBytes.
func (c *chunker) next() (chunk, error) {
	buf := c.carry
	c.carry = nil
	if c.stopAt > 0 && c.offset >= c.stopAt {
		c.more = len(buf) > 0 || !c.eof
		c.unreserve(int64(cap(buf)))
		return chunk{}, io.EOF
	}
	for {
		if len(buf) == cap(buf) || c.eof {
			if cut := c.split.end(buf); cut > 0 {
				return c.emit(buf, cut)
			}
			if c.eof {
				if len(buf) == 0 {
					c.unreserve(int64(cap(buf)))
					return chunk{}, io.EOF
				}
				return c.emit(buf, len(buf)) // the last record needs no line end
			}
			if len(buf) > c.maxRecord {
				c.unreserve(int64(cap(buf)))
				return chunk{}, fmt.Errorf("line %d (byte %d): record longer than %s", c.line, c.offset, memory.Bytes(int64(c.maxRecord)))
			}
			// Grow by half of what is held at least, so a long record is copied a few times, not once a chunk.
			grown, err := c.grow(buf, max(c.size, len(buf)/2))
			if err != nil {
				return chunk{}, err
			}
			buf = grown
		}
		n, err := c.r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			c.eof = true
		} else if err != nil {
			c.unreserve(int64(cap(buf)))
			return chunk{}, fmt.Errorf("line %d (byte %d): %w", c.line, c.offset+int64(len(buf)), err)
		}
	}
}

// grow returns buf with room for extra more bytes, counted in the budget. A record that does not end within
// what the budget has left is reported at its start.
func (c *chunker) grow(buf []byte, extra int) ([]byte, error) {
	need := len(buf) + extra
	if err := c.reserve(int64(need)); err != nil {
		c.unreserve(int64(cap(buf)))
		if len(buf) == 0 {
			return nil, fmt.Errorf("line %d (byte %d): a %s read buffer: %w", c.line, c.offset, memory.Bytes(int64(need)), err)
		}
		return nil, fmt.Errorf("line %d (byte %d): the record is longer than the %s read so far, and the memory "+
			"budget has no room to read on: %w", c.line, c.offset, memory.Bytes(int64(len(buf))), err)
	}
	if len(buf) == 0 {
		// The budget holds need; a kept buffer holds its whole capacity, when the budget has room for the rest.
		if b := c.reuse(need); b != nil && c.reserve(int64(cap(b)-need)) == nil {
			return b, nil
		}
	}
	grown := make([]byte, len(buf), need)
	copy(grown, buf)
	c.unreserve(int64(cap(buf)))
	return grown, nil
}

// emit cuts buf after its first cut bytes, keeping the rest as the next chunk's start.
func (c *chunker) emit(buf []byte, cut int) (chunk, error) {
	// Every buffer's capacity is what it holds of the budget; the chunk takes over buf's.
	out := chunk{data: buf[:cut:cut], line: c.line, offset: c.offset, held: int64(cap(buf)), buf: buf}
	c.split.reset()
	out.lines = countByte(out.data, '\n')
	c.line += out.lines
	c.offset += int64(cut)
	if rest := buf[cut:]; len(rest) > 0 {
		next, err := c.grow(nil, max(len(rest), c.size))
		if err != nil {
			c.release(out)
			return chunk{}, err
		}
		c.carry = append(next, rest...)
	}
	return out, nil
}

func (c *chunker) reserve(n int64) error {
	if c.budget == nil {
		return nil
	}
	return c.budget.Grow(readHolder, n)
}

// release gives a parsed chunk's buffer back to the budget. It is safe to call from any goroutine.
func (c *chunker) release(ch chunk) { c.unreserve(ch.held) }

// recycle is release for a chunk nothing refers to any more (every value parsed from it was copied): its
// buffer is kept to read a later chunk into. It is safe to call from any goroutine.
func (c *chunker) recycle(ch chunk) {
	c.release(ch)
	c.freeMu.Lock()
	if len(c.free) < maxFreeBuffers && cap(ch.buf) > 0 && cap(ch.buf) <= 2*c.size {
		c.free = append(c.free, ch.buf[:0])
	}
	c.freeMu.Unlock()
}

// reuse returns a kept buffer with room for need bytes, empty, or nil when none has.
func (c *chunker) reuse(need int) []byte {
	c.freeMu.Lock()
	defer c.freeMu.Unlock()
	for i, b := range c.free {
		if cap(b) >= need {
			c.free = append(c.free[:i], c.free[i+1:]...)
			return b
		}
	}
	return nil
}

func (c *chunker) unreserve(n int64) {
	if c.budget != nil && n > 0 {
		c.budget.Shrink(n)
	}
}
