// Package column holds joinlab's in-memory data: typed vectors with a null bitmap, and batches of vectors that
// share a length. Operators pass batches, never boxed rows; a Value is used only at the edges (literals, output,
// the test oracle).
package column

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// Type is a KQL scalar type.
type Type uint8

const (
	// Dynamic holds raw JSON text (objects and arrays from a JSON source) or a column whose type nothing fixes,
	// such as a column of an empty source.
	Dynamic Type = iota
	Bool
	Long
	Real
	String
	DateTime // nanoseconds since the Unix epoch, UTC
	Timespan // nanoseconds
)

var typeNames = [...]string{"dynamic", "bool", "long", "real", "string", "datetime", "timespan"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", t)
}

// IsNumeric reports whether t is long or real.
func (t Type) IsNumeric() bool { return t == Long || t == Real }

// storage says which slice of a Vector holds values of type t.
func (t Type) storage() storage {
	switch t {
	case Bool:
		return bools
	case Long, DateTime, Timespan:
		return ints
	case Real:
		return reals
	default:
		return strs
	}
}

type storage uint8

const (
	ints storage = iota
	reals
	strs
	bools
)

// Bitmap marks nulls, one bit per row. A nil Bitmap has no nulls.
type Bitmap []uint64

// Get reports whether bit i is set.
func (b Bitmap) Get(i int) bool {
	w := i >> 6
	return w < len(b) && b[w]&(1<<(uint(i)&63)) != 0
}

// Set sets bit i, growing the bitmap as needed.
func (b *Bitmap) Set(i int) {
	w := i >> 6
	for len(*b) <= w {
		*b = append(*b, 0)
	}
	(*b)[w] |= 1 << (uint(i) & 63)
}

// Vector is one column of a batch. Exactly one of the value slices is used, chosen by Type; a null row holds
// the zero value there and has its bit set in Nulls.
type Vector struct {
	Type  Type
	Ints  []int64 // long, datetime, timespan
	Reals []float64
	Strs  []string // string, dynamic
	Bools []bool
	Nulls Bitmap
	n     int
}

// NewVector returns an empty vector of type t with room for capacity rows.
func NewVector(t Type, capacity int) *Vector {
	v := &Vector{Type: t}
	switch t.storage() {
	case ints:
		v.Ints = make([]int64, 0, capacity)
	case reals:
		v.Reals = make([]float64, 0, capacity)
	case strs:
		v.Strs = make([]string, 0, capacity)
	case bools:
		v.Bools = make([]bool, 0, capacity)
	}
	return v
}

// NullVector returns a vector of n nulls of type t.
func NullVector(t Type, n int) *Vector {
	v := NewVector(t, n)
	for i := 0; i < n; i++ {
		v.AppendNull()
	}
	return v
}

// Len is the number of rows.
func (v *Vector) Len() int { return v.n }

// IsNull reports whether row i is null.
func (v *Vector) IsNull(i int) bool { return v.Nulls != nil && v.Nulls.Get(i) }

// HasNulls reports whether any row may be null.
func (v *Vector) HasNulls() bool { return v.Nulls != nil }

// SetLen fixes the row count after the value slice was filled directly (len of the used slice).
func (v *Vector) SetLen(n int) { v.n = n }

// AppendNull appends a null row.
func (v *Vector) AppendNull() {
	v.Nulls.Set(v.n)
	v.appendZero()
}

func (v *Vector) appendZero() {
	switch v.Type.storage() {
	case ints:
		v.Ints = append(v.Ints, 0)
	case reals:
		v.Reals = append(v.Reals, 0)
	case strs:
		v.Strs = append(v.Strs, "")
	case bools:
		v.Bools = append(v.Bools, false)
	}
	v.n++
}

// AppendInt appends to a long, datetime or timespan vector.
func (v *Vector) AppendInt(x int64) { v.Ints = append(v.Ints, x); v.n++ }

// AppendReal appends to a real vector.
func (v *Vector) AppendReal(x float64) { v.Reals = append(v.Reals, x); v.n++ }

// AppendString appends to a string or dynamic vector.
func (v *Vector) AppendString(x string) { v.Strs = append(v.Strs, x); v.n++ }

// AppendBool appends to a bool vector.
func (v *Vector) AppendBool(x bool) { v.Bools = append(v.Bools, x); v.n++ }

// AppendFrom appends row i of src, which must have the same storage as v.
func (v *Vector) AppendFrom(src *Vector, i int) {
	if src.IsNull(i) {
		v.AppendNull()
		return
	}
	switch v.Type.storage() {
	case ints:
		v.Ints = append(v.Ints, src.Ints[i])
	case reals:
		v.Reals = append(v.Reals, src.Reals[i])
	case strs:
		v.Strs = append(v.Strs, src.Strs[i])
	case bools:
		v.Bools = append(v.Bools, src.Bools[i])
	}
	v.n++
}

// AppendVector appends every row of src.
func (v *Vector) AppendVector(src *Vector) {
	base := v.n
	switch v.Type.storage() {
	case ints:
		v.Ints = append(v.Ints, src.Ints[:src.n]...)
	case reals:
		v.Reals = append(v.Reals, src.Reals[:src.n]...)
	case strs:
		v.Strs = append(v.Strs, src.Strs[:src.n]...)
	case bools:
		v.Bools = append(v.Bools, src.Bools[:src.n]...)
	}
	v.n += src.n
	if src.Nulls != nil {
		for w, x := range src.Nulls {
			for x != 0 { // the set bits only, lowest first
				i := w<<6 | bits.TrailingZeros64(x)
				if i >= src.n {
					break
				}
				v.Nulls.Set(base + i)
				x &= x - 1
			}
		}
	}
}

// Gather returns a new vector holding rows idx of v, in that order. An index of -1 gives a null row, which is
// how outer joins null-extend the side that did not match.
func (v *Vector) Gather(idx []int32) *Vector {
	out := &Vector{Type: v.Type, n: len(idx)}
	var extends bool
	switch v.Type.storage() {
	case ints:
		out.Ints, extends = gather(v.Ints, idx)
	case reals:
		out.Reals, extends = gather(v.Reals, idx)
	case strs:
		out.Strs, extends = gather(v.Strs, idx)
	case bools:
		out.Bools, extends = gather(v.Bools, idx)
	}
	if extends || v.HasNulls() {
		out.Nulls = gatherNulls(v.Nulls, idx)
	}
	return out
}

// gather returns src[i] for each i of idx, the zero value for a negative i, and reports whether any i was
// negative. Its loop has no branch on the data and takes four rows a turn: a negative i (i >> 31 is all ones)
// reads row 0 and the rare batch that has one is mended after, and under js/wasm, where each turn's back-edge
// and each skipped if is a jump through a dispatch table, the turn costs more than the copy. The loop reads
// only locals, so no slice header is loaded again per row (under js/wasm, each would be a load from linear
// memory).
func gather[T any](src []T, idx []int32) ([]T, bool) {
	dst := make([]T, len(idx))
	if len(src) == 0 { // only null-extended rows come from no rows: dst is all zero values
		for _, i := range idx {
			if i >= 0 {
				_ = src[i] // out of range, as it would be below
			}
		}
		return dst, len(idx) > 0
	}
	var neg int32
	j := 0
	for ; j+4 <= len(idx); j += 4 {
		i0, i1, i2, i3 := idx[j], idx[j+1], idx[j+2], idx[j+3]
		neg |= i0 | i1 | i2 | i3
		d := dst[j : j+4 : j+4]
		d[0], d[1], d[2], d[3] = src[i0&^(i0>>31)], src[i1&^(i1>>31)], src[i2&^(i2>>31)], src[i3&^(i3>>31)]
	}
	for ; j < len(idx); j++ {
		i := idx[j]
		neg |= i
		dst[j] = src[i&^(i>>31)]
	}
	if neg >= 0 {
		return dst, false
	}
	var zero T
	for j, i := range idx {
		if i < 0 {
			dst[j] = zero
		}
	}
	return dst, true
}

// gatherNulls returns the null bitmap of a gather of idx from a vector with null bitmap nulls: bit j is set
// when idx[j] is negative or names a null row; nil when no bit is. It builds each word of 64 rows in a register,
// with no branch on the data (a negative index reads bit 0's word and is masked in).
func gatherNulls(nulls Bitmap, idx []int32) Bitmap {
	out := make(Bitmap, (len(idx)+63)>>6)
	var seen uint64
	for w := range out {
		var x uint64
		for j, i := range idx[w<<6 : min(w<<6+64, len(idx))] {
			neg := uint64(uint32(i) >> 31)
			k := int(i &^ (i >> 31)) // i, or 0 for a negative i
			var bit uint64
			if k>>6 < len(nulls) {
				bit = nulls[k>>6] >> (uint(k) & 63) & 1
			}
			x |= (bit | neg) << uint(j)
		}
		out[w] = x
		seen |= x
	}
	if seen == 0 {
		return nil
	}
	return out
}

// Slice returns rows [lo, hi) of v, sharing its values (the null bitmap is copied, shifted a word at a time).
func (v *Vector) Slice(lo, hi int) *Vector {
	out := &Vector{Type: v.Type, n: hi - lo}
	switch v.Type.storage() {
	case ints:
		out.Ints = v.Ints[lo:hi]
	case reals:
		out.Reals = v.Reals[lo:hi]
	case strs:
		out.Strs = v.Strs[lo:hi]
	case bools:
		out.Bools = v.Bools[lo:hi]
	}
	if v.Nulls != nil {
		out.Nulls = sliceBits(v.Nulls, lo, hi)
	}
	return out
}

// sliceBits returns bits [lo, hi) of b as a bitmap of their own (bit lo becomes bit 0), nil when none is set.
func sliceBits(b Bitmap, lo, hi int) Bitmap {
	word := func(q int) uint64 {
		if q < len(b) {
			return b[q]
		}
		return 0
	}
	out := make(Bitmap, (hi-lo+63)>>6)
	q, r := lo>>6, uint(lo)&63
	var seen uint64
	for w := range out {
		x := word(q + w)
		if r != 0 {
			x = x>>r | word(q+w+1)<<(64-r)
		}
		out[w] = x
	}
	if tail := uint(hi-lo) & 63; tail != 0 {
		out[len(out)-1] &= 1<<tail - 1
	}
	for _, x := range out {
		seen |= x
	}
	if seen == 0 {
		return nil
	}
	return out
}

// Bytes estimates the memory the vector holds, for memory accounting.
func (v *Vector) Bytes() int64 {
	n := int64(len(v.Nulls) * 8)
	switch v.Type.storage() {
	case ints, reals:
		n += int64(v.n) * 8
	case bools:
		n += int64(v.n)
	case strs:
		for _, s := range v.Strs[:v.n] {
			n += 16 + int64(len(s))
		}
	}
	return n
}

// Value returns row i as a Value.
func (v *Vector) Value(i int) Value {
	if v.IsNull(i) {
		return Value{Type: v.Type, Null: true}
	}
	switch v.Type.storage() {
	case ints:
		return Value{Type: v.Type, Int: v.Ints[i]}
	case reals:
		return Value{Type: v.Type, Real: v.Reals[i]}
	case bools:
		return Value{Type: v.Type, Bool: v.Bools[i]}
	default:
		return Value{Type: v.Type, Str: v.Strs[i]}
	}
}

// AppendValue appends x, which must be null or of v's storage.
func (v *Vector) AppendValue(x Value) {
	if x.Null {
		v.AppendNull()
		return
	}
	switch v.Type.storage() {
	case ints:
		v.AppendInt(x.Int)
	case reals:
		v.AppendReal(x.Real)
	case bools:
		v.AppendBool(x.Bool)
	default:
		v.AppendString(x.Str)
	}
}

// Value is one boxed scalar, used at the edges: literals, output and the test oracle.
type Value struct {
	Type Type
	Null bool
	Int  int64
	Real float64
	Str  string
	Bool bool
}

// Time returns a datetime value as a time.Time in UTC.
func (x Value) Time() time.Time { return time.Unix(0, x.Int).UTC() }

// Float returns a numeric value as float64.
func (x Value) Float() float64 {
	if x.Type == Real {
		return x.Real
	}
	return float64(x.Int)
}

// Equal reports whether two non-null values are equal, comparing long and real numerically. Null equals nothing.
func (x Value) Equal(y Value) bool {
	if x.Null || y.Null {
		return false
	}
	if x.Type != y.Type {
		if x.Type.IsNumeric() && y.Type.IsNumeric() {
			return x.Float() == y.Float()
		}
		return false
	}
	switch x.Type.storage() {
	case ints:
		return x.Int == y.Int
	case reals:
		return x.Real == y.Real || (math.IsNaN(x.Real) && math.IsNaN(y.Real))
	case bools:
		return x.Bool == y.Bool
	default:
		return x.Str == y.Str
	}
}

// Field names and types one column of a schema.
type Field struct {
	Name string
	Type Type
	// Hidden marks a nested JSON path (actor.alternateId) that a scan extracted for the query: usable by name,
	// carried along, but not part of the output unless projected.
	Hidden bool
}

// Schema is the ordered columns of a batch.
type Schema []Field

// Index returns the position of the column named name, or -1.
func (s Schema) Index(name string) int {
	for i, f := range s {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// Visible returns the columns that are not hidden.
func (s Schema) Visible() Schema {
	out := make(Schema, 0, len(s))
	for _, f := range s {
		if !f.Hidden {
			out = append(out, f)
		}
	}
	return out
}

// Batch is up to a few thousand rows as one vector per column. Batches passed between operators are owned by
// the receiver once returned, and never modified after. A nil vector is a dead column: present in the schema
// but read by nothing downstream, so no operator computes or copies it.
type Batch struct {
	Cols []*Vector
	N    int
}

// NewBatch returns a batch of the given vectors, which must share a length.
func NewBatch(cols []*Vector, n int) *Batch { return &Batch{Cols: cols, N: n} }

// Gather returns the rows idx of b (-1 gives a null row).
func (b *Batch) Gather(idx []int32) *Batch {
	cols := make([]*Vector, len(b.Cols))
	for i, c := range b.Cols {
		if c != nil {
			cols[i] = c.Gather(idx)
		}
	}
	return &Batch{Cols: cols, N: len(idx)}
}

// Slice returns rows [lo, hi) of b.
func (b *Batch) Slice(lo, hi int) *Batch {
	cols := make([]*Vector, len(b.Cols))
	for i, c := range b.Cols {
		if c != nil {
			cols[i] = c.Slice(lo, hi)
		}
	}
	return &Batch{Cols: cols, N: hi - lo}
}

// Bytes estimates the memory the batch holds.
func (b *Batch) Bytes() int64 {
	var n int64
	for _, c := range b.Cols {
		if c != nil {
			n += c.Bytes()
		}
	}
	return n
}

// Table is a whole relation held in memory: a schema and its batches concatenated into one vector per column.
type Table struct {
	Schema Schema
	Cols   []*Vector
	N      int
}

// NewTable returns an empty table for schema.
func NewTable(schema Schema) *Table {
	t := &Table{Schema: schema, Cols: make([]*Vector, len(schema))}
	for i, f := range schema {
		t.Cols[i] = NewVector(f.Type, 0)
	}
	return t
}

// Concat returns a table of schema holding the rows of batches, in order. Each column is allocated once, at its
// final size: appending batch after batch regrows a large column by a quarter at a time, which allocates about
// five times its final size and copies four times it.
func Concat(schema Schema, batches []*Batch) *Table {
	n := 0
	for _, b := range batches {
		n += b.N
	}
	t := &Table{Schema: schema, Cols: make([]*Vector, len(schema))}
	for i, f := range schema {
		t.Cols[i] = NewVector(f.Type, n)
	}
	for _, b := range batches {
		t.Append(b)
	}
	return t
}

// Append adds a batch's rows. A dead column (nil in b) stays dead in t.
func (t *Table) Append(b *Batch) {
	for i, c := range b.Cols {
		if c == nil {
			t.Cols[i] = nil
			continue
		}
		if t.Cols[i] != nil {
			t.Cols[i].AppendVector(c)
		}
	}
	t.N += b.N
}

// Batch returns the whole table as one batch, sharing storage.
func (t *Table) Batch() *Batch { return &Batch{Cols: t.Cols, N: t.N} }
