package share

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// A fragment is the state as it rides in a URL after '#':
//
//	s1.<base64url without padding of the raw DEFLATE stream of the state's canonical JSON>
//
// "s1." names the format, so a later encoding can be told apart and an old link still decoded. DEFLATE rather
// than gzip or zlib: their headers and checksums add 6 to 18 bytes and protect nothing here, since the JSON is
// validated after inflating. base64url is the alphabet a fragment carries without escaping.
const fragmentPrefix = "s1."

// maxFragmentBytes bounds the encoded text before any work is done: a DEFLATE stream of MaxJSONBytes of JSON
// that does not compress at all is about MaxJSONBytes plus 5 bytes per 64 KiB block; base64 adds a third.
const maxFragmentBytes = len(fragmentPrefix) + (MaxJSONBytes+64)*4/3 + 4

var fragmentEncoding = base64.RawURLEncoding

// deflaters keeps DEFLATE writers for reuse. A new writer allocates and clears about a megabyte of tables, far
// more than the few hundred bytes it compresses here, and the playground writes its fragment on every change:
// in the page's WebAssembly that was most of the 15 ms a Run click spent before the run began.
var deflaters = sync.Pool{New: func() any {
	w, err := flate.NewWriter(nil, flate.BestCompression)
	if err != nil {
		panic(fmt.Sprintf("share: flate level: %v", err)) // only an invalid level fails
	}
	return w
}}

// Fragment returns the state's URL fragment, without the '#'.
func (s *State) Fragment() string {
	var buf bytes.Buffer
	w := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(w)
	w.Reset(&buf)     // a reset writer writes what a new one would
	w.Write(s.JSON()) // writes to a bytes.Buffer do not fail
	w.Close()
	return fragmentPrefix + fragmentEncoding.EncodeToString(buf.Bytes())
}

// DecodeFragment reads a state from a URL fragment, with or without its leading '#', and validates it. It never
// inflates more than MaxJSONBytes+1 bytes, so a small fragment cannot expand into a large allocation.
func DecodeFragment(fragment string) (*State, error) {
	fragment = strings.TrimPrefix(fragment, "#")
	if len(fragment) > maxFragmentBytes {
		return nil, &TooLargeError{Limit: MaxJSONBytes}
	}
	payload, ok := strings.CutPrefix(fragment, fragmentPrefix)
	if !ok {
		return nil, fmt.Errorf("share: fragment does not start with %q", fragmentPrefix)
	}
	compressed, err := fragmentEncoding.DecodeString(payload)
	if err != nil {
		return nil, fmt.Errorf("share: fragment is not base64url: %w", err)
	}
	r := flate.NewReader(bytes.NewReader(compressed))
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, MaxJSONBytes+1))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("share: fragment is truncated")
		}
		return nil, fmt.Errorf("share: fragment does not inflate: %w", err)
	}
	if len(data) > MaxJSONBytes {
		return nil, &TooLargeError{Limit: MaxJSONBytes}
	}
	return ParseJSON(data)
}
