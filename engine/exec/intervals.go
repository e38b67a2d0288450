package exec

import (
	"cmp"
	"context"
	"slices"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/memory"
)

// MakeIntervals turns state events into intervals (the make-intervals extension of KQL): a device reports
// "ENCODING" at 10:00 and "WAITING" at 10:07, so it was encoding over [10:00, 10:07).
//
// It holds its whole input, orders the rows by the key columns and then by the time column ascending (rows
// with a null time last within their key), and outputs every input column followed by start (the row's time)
// and end (the time of the next row with the same key). The last row of each key ends at Until when HasUntil,
// else its end is null; a row with a null time has a null start and end. Rows with a null key form one group of
// their own. Memory: the input plus 12 bytes a row. Cost: one sort, O(n log n), then one gather.
type MakeIntervals struct {
	in       Operator
	schema   column.Schema
	time     int
	keys     []int
	until    int64
	hasUntil bool
	budget   *memory.Budget
	done     bool
}

// NewMakeIntervals makes the operator; schema is in's schema followed by start and end (of the time column's
// type), keys and time are column indexes of in.
func NewMakeIntervals(in Operator, schema column.Schema, time int, keys []int, until int64, hasUntil bool, budget *memory.Budget) *MakeIntervals {
	return &MakeIntervals{in: in, schema: schema, time: time, keys: keys, until: until, hasUntil: hasUntil, budget: budget}
}

func (m *MakeIntervals) Schema() column.Schema { return m.schema }

// intervalRowBytes is the working memory per row: its key's place (4) and time (8).
const intervalRowBytes = 12

func (m *MakeIntervals) Next(ctx context.Context) (*column.Batch, error) {
	if m.done {
		return nil, nil
	}
	m.done = true
	var batches []*column.Batch
	var held int64
	defer func() { m.budget.Shrink(held) }()
	err := Drain(ctx, m.in, func(b *column.Batch) error {
		n := b.Bytes() + int64(b.N)*intervalRowBytes
		if err := m.budget.Grow("make-intervals", n); err != nil {
			return err // the holder already names make-intervals
		}
		held += n
		batches = append(batches, b)
		return nil
	})
	t := column.Concat(m.in.Schema(), batches)
	if err != nil || t.N == 0 {
		return nil, err
	}
	// Number the keys by their encoding, then sort rows by (key number, time).
	keyNo := make([]int32, t.N)
	seen := map[string]int32{}
	var buf []byte
	for i := range keyNo {
		buf = buf[:0]
		for _, k := range m.keys {
			buf = column.AppendKey(buf, t.Cols[k], i)
		}
		id, ok := seen[string(buf)]
		if !ok {
			id = int32(len(seen))
			seen[string(buf)] = id
		}
		keyNo[i] = id
	}
	tv := t.Cols[m.time]
	order := make([]int32, t.N)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		if c := cmp.Compare(keyNo[a], keyNo[b]); c != 0 {
			return c
		}
		an, bn := tv.IsNull(int(a)), tv.IsNull(int(b))
		switch {
		case an || bn:
			return cmp.Compare(boolRank(an), boolRank(bn))
		}
		return cmp.Compare(tv.Ints[a], tv.Ints[b])
	})
	start := tv.Gather(order)
	end := column.NewVector(tv.Type, t.N)
	for p, row := range order {
		switch {
		case tv.IsNull(int(row)):
			end.AppendNull()
		case p+1 < len(order) && keyNo[order[p+1]] == keyNo[row] && !tv.IsNull(int(order[p+1])):
			end.AppendInt(tv.Ints[order[p+1]])
		case m.hasUntil:
			end.AppendInt(m.until)
		default:
			end.AppendNull()
		}
	}
	cols := make([]*column.Vector, len(m.schema))
	for c, v := range t.Cols {
		if v != nil {
			cols[c] = v.Gather(order)
		}
	}
	n := len(t.Cols)
	cols[n], cols[n+1] = start, end
	return column.NewBatch(cols, t.N), nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
