// Package dynfilter builds dynamic filters: the distinct join keys of one side, pushed into the other side's
// native query as IN lists, split so that every request fits the receiving connector's caps.
//
// A connector bounds a filter twice: the values one IN list may hold (Caps.MaxInValues) and the bytes of the
// rendered query text (Caps.MaxQueryBytes, measured on the dialect's own text, quoting and all). SplitToFit
// cuts a key set into consecutive slices, each as long as both caps allow; the slices' answers are unioned by
// the caller. A key that does not fit even alone is an error, not a silent drop: the join cannot be answered
// through that connector.
package dynfilter

import (
	"fmt"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
)

// Kind says what a dynamic filter is.
type Kind uint8

const (
	// None filters nothing: the side has no keys to offer (or the caller chose not to filter).
	None Kind = iota
	// InSet is one or more IN lists over the key column.
	InSet
	// Ranges is a few closed ranges over the key column covering every key, cut at the widest gaps between
	// sorted keys (integer and datetime keys, past MaxDistinctValues): a superset of the keys.
	Ranges
	// MinMax is one closed range from the least key to the greatest (past MaxDistinctValues, when Ranges
	// does not apply or does not fit): a superset of the keys.
	MinMax
	// Empty is no key at all: the filtered side can match nothing, and no request is sent.
	Empty
)

var kindNames = [...]string{"none", "in", "ranges", "minmax", "empty"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Slice is one request's share of the keys.
type Slice struct {
	// Values are the slice's keys (InSet only).
	Values []column.Value
	// Pred is the condition the slice's requests carry: the IN list, or the ranges.
	Pred connector.Predicate
	// Bytes is the rendered size of the request carrying this slice.
	Bytes int
}

// Filter is a dynamic filter: the slices of an IN set, or none.
type Filter struct {
	Kind   Kind
	Column string
	Slices []Slice
	// MaxValues and MaxBytes are the caps the slices were cut against (0: no cap).
	MaxValues, MaxBytes int
	// Keys is how many distinct keys the filter stands for.
	Keys int
	// Why says, for a compacted or dropped filter, what made it so.
	Why string
}

// Render returns the size of the request carrying pred; it is the receiving connector's renderer wrapped
// around the rest of the request (table, columns, other conditions), so sizes are exact.
type Render func(pred connector.Predicate) (int, error)

// SplitToFit cuts keys (distinct, non-null) into the fewest consecutive slices whose IN list over col fits
// caps.MaxInValues and whose rendered request fits caps.MaxQueryBytes. Each slice is found by a binary search
// on its length with the real renderer (rendered size grows with the slice), so the cost is O(k log k) bytes
// rendered for k keys. Greedy filling is optimal for consecutive slices: no cut can be moved later without
// breaking a cap. render may be nil when the connector renders no text (only the value cap then applies).
func SplitToFit(col string, keys []column.Value, caps connector.Caps, render Render) (Filter, error) {
	f := Filter{Kind: InSet, Column: col, MaxValues: caps.MaxInValues, MaxBytes: caps.MaxQueryBytes, Keys: len(keys)}
	if len(keys) == 0 {
		f.Kind = None
		return f, nil
	}
	size := func(vals []column.Value) (int, error) {
		if render == nil {
			return 0, nil
		}
		n, err := render(connector.In{Column: col, Values: vals})
		if err != nil {
			return 0, fmt.Errorf("dynfilter: render an IN list of %d values: %w", len(vals), err)
		}
		return n, nil
	}
	fits := func(n int) bool { return caps.MaxQueryBytes <= 0 || n <= caps.MaxQueryBytes }
	for lo := 0; lo < len(keys); {
		hi := len(keys)
		if caps.MaxInValues > 0 {
			hi = min(hi, lo+caps.MaxInValues)
		}
		whole, err := size(keys[lo:hi])
		if err != nil {
			return Filter{}, err
		}
		if fits(whole) {
			f.Slices = append(f.Slices, Slice{Values: keys[lo:hi], Pred: connector.In{Column: col, Values: keys[lo:hi]}, Bytes: whole})
			lo = hi
			continue
		}
		one, err := size(keys[lo : lo+1])
		if err != nil {
			return Filter{}, err
		}
		if !fits(one) {
			return Filter{}, fmt.Errorf("dynfilter: the key %s alone makes a %d-byte query, over the %d bytes the connector accepts: no split can fit it",
				connector.Literal(keys[lo]), one, caps.MaxQueryBytes)
		}
		// Invariant: keys[lo:lo+good] fits and keys[lo:lo+bad] does not.
		good, goodBytes, bad := 1, one, hi-lo
		for bad-good > 1 {
			mid := good + (bad-good)/2
			n, err := size(keys[lo : lo+mid])
			if err != nil {
				return Filter{}, err
			}
			if fits(n) {
				good, goodBytes = mid, n
			} else {
				bad = mid
			}
		}
		f.Slices = append(f.Slices, Slice{Values: keys[lo : lo+good], Pred: connector.In{Column: col, Values: keys[lo : lo+good]}, Bytes: goodBytes})
		lo += good
	}
	return f, nil
}

// Distinct returns the distinct non-null values of v in first-seen order.
func Distinct(v *column.Vector, n int) []column.Value {
	seen := map[string]bool{}
	var out []column.Value
	var buf []byte
	for i := 0; i < n; i++ {
		if v.IsNull(i) {
			continue
		}
		buf = column.AppendKey(buf[:0], v, i)
		if seen[string(buf)] {
			continue
		}
		seen[string(buf)] = true
		out = append(out, v.Value(i))
	}
	return out
}

// Describe says what the filter is, in one line for explain: its form, how many keys it stands for, its
// slices' sizes against the caps, and why it was compacted or dropped.
func (f Filter) Describe() string {
	sizes := func() string {
		var vals, bytes []string
		for _, s := range f.Slices {
			vals = append(vals, fmt.Sprint(len(s.Values)))
			bytes = append(bytes, fmt.Sprint(s.Bytes))
		}
		return fmt.Sprintf("%s values (cap %d) and %s query bytes (cap %d)", strings.Join(vals, ", "), f.MaxValues, strings.Join(bytes, ", "), f.MaxBytes)
	}
	why := ""
	if f.Why != "" {
		why = ": " + f.Why
	}
	switch f.Kind {
	case InSet:
		return fmt.Sprintf("in: %d keys in %d IN lists of %s", f.Keys, len(f.Slices), sizes())
	case Ranges, MinMax:
		keys := fmt.Sprintf("%d keys", f.Keys)
		if f.Keys == 0 {
			keys = "the keys" // only their bounds were kept (Collector past its limit)
		}
		return fmt.Sprintf("%s: %s compacted to %s, one request of %d query bytes (cap %d)%s", f.Kind, keys, f.Slices[0].Pred, f.Slices[0].Bytes, f.MaxBytes, why)
	case Empty:
		return "empty: no build key, so no request"
	}
	return "none: the probe is scanned whole" + why
}
