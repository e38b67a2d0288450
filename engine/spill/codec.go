package spill

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/joinlab/joinlab/engine/column"
)

// Codec lays rows of one schema out as bytes, row by row, so rows can be appended to whichever partition's
// page they hash to and a page can be cut at any row. A row is a null bitmap over the live columns
// (ceil(live/8) bytes), then each non-null live value: long, datetime, timespan and real as 8 little-endian
// bytes, bool as 1 byte, string and dynamic as a uvarint length and the bytes. Dead columns (nil vectors,
// which nothing downstream reads) are not written and decode as nil again.
type Codec struct {
	schema column.Schema
	cols   []int // the live columns, in schema order
}

// NewCodec returns the codec for schema, writing the columns live marks (all when live is nil).
func NewCodec(schema column.Schema, live []bool) *Codec {
	c := &Codec{schema: schema}
	for i := range schema {
		if live == nil || live[i] {
			c.cols = append(c.cols, i)
		}
	}
	return c
}

// LiveOf marks the columns of b that are not dead.
func LiveOf(b *column.Batch) []bool {
	live := make([]bool, len(b.Cols))
	for i, v := range b.Cols {
		live[i] = v != nil
	}
	return live
}

// Live is the number of columns the codec writes.
func (c *Codec) Live() int { return len(c.cols) }

// AppendRow appends row i of b to dst, returning the new slice and the bytes the row takes in memory once
// decoded (as column.Vector.Bytes counts them, without null bitmaps). A column dead in b but live in the codec
// is written as null: nothing reads it.
func (c *Codec) AppendRow(dst []byte, b *column.Batch, i int) ([]byte, int64) {
	hdr := len(dst)
	for range (len(c.cols) + 7) / 8 {
		dst = append(dst, 0)
	}
	var mem int64
	for j, col := range c.cols {
		v := b.Cols[col]
		t := c.schema[col].Type
		if v == nil || v.IsNull(i) {
			dst[hdr+j/8] |= 1 << (j % 8)
			mem += ValueMem(t, 0)
			continue
		}
		switch t {
		case column.Long, column.DateTime, column.Timespan:
			dst = binary.LittleEndian.AppendUint64(dst, uint64(v.Ints[i]))
			mem += 8
		case column.Real:
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.Reals[i]))
			mem += 8
		case column.Bool:
			if v.Bools[i] {
				dst = append(dst, 1)
			} else {
				dst = append(dst, 0)
			}
			mem++
		default:
			s := v.Strs[i]
			dst = binary.AppendUvarint(dst, uint64(len(s)))
			dst = append(dst, s...)
			mem += ValueMem(t, len(s))
		}
	}
	return dst, mem
}

// ValueMem is a value's in-memory size as column.Vector.Bytes counts it.
func ValueMem(t column.Type, strLen int) int64 {
	switch t {
	case column.Bool:
		return 1
	case column.String, column.Dynamic:
		return 16 + int64(strLen)
	}
	return 8
}

// Decode turns a payload of whole rows back into a batch.
func (c *Codec) Decode(p []byte, rowsHint int) (*column.Batch, error) {
	cols := make([]*column.Vector, len(c.schema))
	for _, col := range c.cols {
		cols[col] = column.NewVector(c.schema[col].Type, rowsHint)
	}
	hdrLen := (len(c.cols) + 7) / 8
	n := 0
	for len(p) > 0 {
		if len(p) < hdrLen {
			return nil, fmt.Errorf("spill: row %d: truncated header", n)
		}
		hdr := p[:hdrLen]
		p = p[hdrLen:]
		for j, col := range c.cols {
			v := cols[col]
			if hdr[j/8]&(1<<(j%8)) != 0 {
				v.AppendNull()
				continue
			}
			switch c.schema[col].Type {
			case column.Long, column.DateTime, column.Timespan, column.Real:
				if len(p) < 8 {
					return nil, fmt.Errorf("spill: row %d: truncated value", n)
				}
				x := binary.LittleEndian.Uint64(p)
				if c.schema[col].Type == column.Real {
					v.AppendReal(math.Float64frombits(x))
				} else {
					v.AppendInt(int64(x))
				}
				p = p[8:]
			case column.Bool:
				if len(p) < 1 {
					return nil, fmt.Errorf("spill: row %d: truncated value", n)
				}
				v.AppendBool(p[0] != 0)
				p = p[1:]
			default:
				l, k := binary.Uvarint(p)
				if k <= 0 || uint64(len(p)-k) < l {
					return nil, fmt.Errorf("spill: row %d: truncated string", n)
				}
				v.AppendString(string(p[k : k+int(l)]))
				p = p[k+int(l):]
			}
		}
		n++
	}
	return column.NewBatch(cols, n), nil
}
