package ui

import (
	"sort"
	"strings"

	"github.com/joinlab/joinlab/web/runner/protocol"
)

// RowStore holds a run's rows as the engine packed them, one string per batch, with the offset of each
// row. Rows are cut into cells only when the table shows them: unpacking every row on arrival cost the
// page's WebAssembly 4 µs a row (20 ms for a batch of 5,000), while finding row starts costs a byte scan.
type RowStore struct {
	chunks []rowChunk
	n      int
}

type rowChunk struct {
	text   string
	starts []int32 // byte offset of each row in text
	first  int     // index of the chunk's first row in the store
}

// Append adds the rows of one packed batch and returns how many there were.
func (s *RowStore) Append(packed string) int {
	if packed == "" {
		return 0
	}
	starts := []int32{0}
	for off := 0; ; {
		i := strings.IndexByte(packed[off:], protocol.RowSep)
		if i < 0 {
			break
		}
		off += i + 1
		starts = append(starts, int32(off))
	}
	s.chunks = append(s.chunks, rowChunk{text: packed, starts: starts, first: s.n})
	s.n += len(starts)
	return len(starts)
}

// Len is the number of rows held.
func (s *RowStore) Len() int { return s.n }

// Row returns row i cut into its columns cells.
func (s *RowStore) Row(i, columns int) []string {
	c := sort.Search(len(s.chunks), func(k int) bool { return s.chunks[k].first > i }) - 1
	ch := &s.chunks[c]
	j := i - ch.first
	end := len(ch.text)
	if j+1 < len(ch.starts) {
		end = int(ch.starts[j+1]) - 1
	}
	return protocol.SplitRow(ch.text[ch.starts[j]:end], columns)
}

// Slice returns rows lo to hi (exclusive), cut into cells.
func (s *RowStore) Slice(lo, hi, columns int) [][]string {
	lo, hi = max(0, lo), min(hi, s.n)
	if lo >= hi {
		return nil
	}
	out := make([][]string, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, s.Row(i, columns))
	}
	return out
}
