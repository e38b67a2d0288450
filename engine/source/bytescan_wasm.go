//go:build wasm

package source

import (
	"math/bits"
	"unsafe"
)

// Under js/wasm, internal/bytealg's IndexByte and Count are loops of one byte a step (its memchr), and every
// scan of a file or an own table runs them over each byte several times: the chunk's record boundary and line
// count, each line's end and quotes, each CSV field's comma. These functions read eight bytes a load instead
// (wasm loads need no alignment) and test all eight at once: XOR with the byte repeated makes the wanted bytes
// zero, and zeroBytes marks each zero byte exactly. Elsewhere they are bytes.IndexByte and bytes.Count
// (bytescan_other.go), which the runtime vectorises. Cost: a few arithmetic steps per eight bytes.

const (
	swarOnes  = 0x0101010101010101
	swarLow7s = 0x7F7F7F7F7F7F7F7F
)

// zeroBytes returns the word with the high bit of each zero byte of x set, and no other bit: adding 0x7F to a
// byte's low seven bits sets its high bit unless they are all zero (and never carries into the next byte), and
// OR-ing in the byte itself adds its own high bit.
func zeroBytes(x uint64) uint64 {
	y := (x & swarLow7s) + swarLow7s
	return ^(y | x | swarLow7s)
}

// load reads the eight bytes at p+i as a little-endian word (wasm is little-endian).
func load(p unsafe.Pointer, i int) uint64 { return *(*uint64)(unsafe.Add(p, i)) }

// indexByte is bytes.IndexByte: the first index of c in b, or -1.
func indexByte(b []byte, c byte) int {
	n := len(b)
	if n == 0 {
		return -1
	}
	p, pat := unsafe.Pointer(unsafe.SliceData(b)), uint64(c)*swarOnes
	i := 0
	for ; i+8 <= n; i += 8 {
		if z := zeroBytes(load(p, i) ^ pat); z != 0 {
			return i + bits.TrailingZeros64(z)>>3
		}
	}
	for ; i < n; i++ {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// indexByteString is strings.IndexByte.
func indexByteString(s string, c byte) int {
	return indexByte(unsafe.Slice(unsafe.StringData(s), len(s)), c)
}

// countByte is bytes.Count of the one byte c.
func countByte(b []byte, c byte) int {
	n := len(b)
	if n == 0 {
		return 0
	}
	p, pat := unsafe.Pointer(unsafe.SliceData(b)), uint64(c)*swarOnes
	count, i := 0, 0
	for ; i+8 <= n; i += 8 {
		count += bits.OnesCount64(zeroBytes(load(p, i) ^ pat))
	}
	for ; i < n; i++ {
		if b[i] == c {
			count++
		}
	}
	return count
}

// splitLine splits the line at the start of data (up to its first newline, or all of data; a CR before the
// newline dropped): it appends the line's first keep comma-separated fields to rec, views of data, and returns
// them with the number of fields the line holds and the newline's index (len(data) if none). When the line
// holds a quote, ok is false and rec is as it came. One pass of eight bytes a step finds the newline, the quotes
// and the commas together, and past the kept fields only counts the commas. data is not empty.
func splitLine(data []byte, rec []string, keep int) (_ []string, fields, end int, ok bool) {
	n := len(data)
	start := len(rec)
	p := unsafe.Pointer(unsafe.SliceData(data))
	s := unsafe.String((*byte)(p), n)
	from, i, commas := 0, 0, 0
	end = -1
	for ; i+8 <= n && end < 0; i += 8 {
		w := load(p, i)
		q, c := zeroBytes(w^('"'*swarOnes)), zeroBytes(w^(','*swarOnes))
		if nl := zeroBytes(w ^ ('\n' * swarOnes)); nl != 0 {
			before := nl&-nl - 1 // the marks of the bytes before the first newline
			q, c, end = q&before, c&before, i+bits.TrailingZeros64(nl)>>3
		}
		if q != 0 {
			return rec[:start], 0, 0, false
		}
		for ; c != 0 && commas < keep; c &= c - 1 {
			at := i + bits.TrailingZeros64(c)>>3
			rec = append(rec, s[from:at])
			from = at + 1
			commas++
		}
		commas += bits.OnesCount64(c)
	}
	for ; i < n && end < 0; i++ {
		switch data[i] {
		case '\n':
			end = i
		case '"':
			return rec[:start], 0, 0, false
		case ',':
			if commas < keep {
				rec = append(rec, s[from:i])
				from = i + 1
			}
			commas++
		}
	}
	if end < 0 {
		end = n
	}
	if commas < keep {
		last := end
		if last > from && data[last-1] == '\r' {
			last--
		}
		rec = append(rec, s[from:last])
	}
	return rec, commas + 1, end, true
}
