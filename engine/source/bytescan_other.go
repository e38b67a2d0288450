//go:build !wasm

package source

import (
	"bytes"
	"strings"
)

// The byte searches of a scan (see bytescan_wasm.go for why they are functions): here the runtime's, which
// are vectorised.

func indexByte(b []byte, c byte) int       { return bytes.IndexByte(b, c) }
func indexByteString(s string, c byte) int { return strings.IndexByte(s, c) }
func countByte(b []byte, c byte) int       { return bytes.Count(b, []byte{c}) }

// splitLine splits the line at the start of data (up to its first newline, or all of data; a CR before the
// newline dropped): it appends the line's first keep comma-separated fields to rec, views of data, and returns
// them with the number of fields the line holds and the newline's index (len(data) if none). When the line
// holds a quote, ok is false and rec is as it came. data is not empty.
func splitLine(data []byte, rec []string, keep int) (_ []string, fields, end int, ok bool) {
	end = bytes.IndexByte(data, '\n')
	if end < 0 {
		end = len(data)
	}
	line := view(bytes.TrimSuffix(data[:end], []byte("\r")))
	if strings.IndexByte(line, '"') >= 0 {
		return rec, 0, 0, false
	}
	for fields = 1; ; fields++ {
		if fields > keep {
			return rec, fields + strings.Count(line, ","), end, true
		}
		i := strings.IndexByte(line, ',')
		if i < 0 {
			return append(rec, line), fields, end, true
		}
		rec = append(rec, line[:i])
		line = line[i+1:]
	}
}
