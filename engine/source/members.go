package source

import (
	"unsafe"

	"github.com/joinlab/joinlab/engine/keymap"
	"github.com/tidwall/gjson"
)

// eachMember calls fn with each top-level member of the JSON object obj, in order: its key, unescaped, and its
// value's raw text. It walks the object once, skipping over nested values without parsing them, which is what
// makes a JSON-lines line cost one pass whatever the number of columns read (a gjson path per column would
// walk the line from its start each time). obj has passed gjson.Valid when the file was opened; if it has not
// (the file changed since), the walk stops at the first thing out of place, never past the end. fn returns
// false to stop.
func eachMember(obj []byte, fn func(key, val []byte) bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return // '}' or something out of place
		}
		end, escaped := stringEndEscaped(obj, i)
		if end >= len(obj) {
			return
		}
		key := obj[i+1 : end]
		if escaped {
			key = []byte(gjson.ParseBytes(obj[i : end+1]).Str)
		}
		i = skipSpace(obj, end+1)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = skipSpace(obj, i+1)
		j := valueEnd(obj, i)
		if j <= i {
			return
		}
		if !fn(key, obj[i:j]) {
			return
		}
		i = skipSpace(obj, j)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i++
	}
}

// valueEnd is the offset just past the JSON value starting at doc[i]: a string to its closing quote, an object
// or array to its matching bracket (strings inside skipped whole), a number or literal to the next delimiter.
func valueEnd(doc []byte, i int) int {
	if i >= len(doc) {
		return i
	}
	switch doc[i] {
	case '"':
		return min(stringEnd(doc, i)+1, len(doc))
	case '{', '[':
		depth := 0
		for k := i; k < len(doc); k++ {
			switch doc[k] {
			case '"':
				k = stringEnd(doc, k)
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return k + 1
				}
			}
		}
		return len(doc)
	}
	k := i
	for k < len(doc) {
		switch doc[k] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return k
		}
		k++
	}
	return k
}

// kindOfRaw is kindOf for a value's raw text, parsing only a string that holds escapes.
func kindOfRaw(val []byte) kinds {
	switch val[0] {
	case 'n':
		return 0
	case 't', 'f':
		return sawBool
	case '{', '[':
		return sawNested
	case '"':
		s := val[1 : len(val)-1]
		if indexByte(s, '\\') >= 0 {
			return kindOf(gjson.ParseBytes(val))
		}
		k, _ := textKind(view(s), true) // a JSON string's text is never a number, so never out of range
		return k
	}
	if isIntegral(view(val)) {
		return sawLong
	}
	return sawReal
}

// view reads b as a string without copying it, for a call that does not keep the string.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// keyCache looks up member keys by their position in the line before hashing them: the lines of a file almost
// always list the same keys in the same order, so a key is usually the one the previous line had at that
// position, and a byte compare decides it.
type keyCache struct {
	keys [][]byte
	ids  []int
}

// hit returns the id of the key at member position pos when the previous line that reached pos had the same
// key there. It is small enough to be inlined into a scan's per-member loop: under js/wasm a call, and a
// closure made for a miss that rarely happens, cost more than the compare.
func (c *keyCache) hit(pos int, key []byte) (int, bool) {
	if pos < len(c.keys) && keymap.SameBytes(view(c.keys[pos]), view(key)) { // eight bytes a load under js/wasm
		return c.ids[pos], true
	}
	return 0, false
}

// put records id as the id of the key at member position pos, after a miss.
func (c *keyCache) put(pos int, key []byte, id int) {
	for len(c.keys) <= pos {
		c.keys, c.ids = append(c.keys, nil), append(c.ids, 0)
	}
	c.keys[pos], c.ids[pos] = append(c.keys[pos][:0], key...), id
}
