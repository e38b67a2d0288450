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

// splitUnquoted appends the first keep comma-separated fields of line to rec, views of line, and returns
// them with the number of fields line holds; or, when line holds a quote, ok is false and rec is as it came.
func splitUnquoted(line string, rec []string, keep int) (_ []string, fields int, ok bool) {
	if strings.IndexByte(line, '"') >= 0 {
		return rec, 0, false
	}
	for fields = 1; ; fields++ {
		if fields > keep {
			return rec, fields + strings.Count(line, ","), true
		}
		i := strings.IndexByte(line, ',')
		if i < 0 {
			return append(rec, line), fields, true
		}
		rec = append(rec, line[:i])
		line = line[i+1:]
	}
}
