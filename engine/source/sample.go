package source

import (
	"context"
	"fmt"

	"github.com/joinlab/joinlab/engine/column"
)

// A regular file is typed from a sample: opening it reads only its first SampleBytes (whole records), checks
// them and types every column from their values, and estimates the row count from their average length. The
// scans then read the whole file once each, as they always did, and check every record they read: a malformed
// record is an error with its line, and a value that the sample's type does not hold (a long column's 1.5 at
// line four million, a new key when the scan reads every column) stops the scan with a *RetypeError.
//
// A RetypeError is not an answer: the query that meets one types the file from every value (TypeAll, the
// pass opening made before sampling) and runs again, so the answer is exactly the one typing the whole file
// first would give (engine/query). A query that had already returned rows when it met the value cannot take
// them back, and fails with the error instead. So sampling trades one full pass at every open for one full
// pass on the rare file whose later values widen a column, and the common file is read once a scan.
//
// The sample's types are the file's exactly when the sample reached its end (a file smaller than
// SampleBytes), and then nothing is checked that the open did not check already.

// DefaultSampleBytes is how much of a file opening reads to type it when Options.SampleBytes is 0.
const DefaultSampleBytes = 8 << 20

// TypeEveryValue, as Options.SampleBytes, types a file from every value when it is opened.
const TypeEveryValue = -1

// sampleStop is the byte a chunker reading o's sample stops at (0: read everything).
func sampleStop(o Options) int64 {
	switch {
	case o.SampleBytes < 0:
		return 0
	case o.SampleBytes == 0:
		return DefaultSampleBytes
	}
	return o.SampleBytes
}

// estimateRows scales the rows of a sample of read bytes to a file of size bytes. The planner only compares
// the sides' sizes, so an estimate within a few percent serves it as the count would.
func estimateRows(rows int, read, size int64) int {
	if read <= 0 || size <= read {
		return rows
	}
	return int(float64(rows) * float64(size) / float64(read))
}

// Sampled is a source typed from a sample of its data, which may type itself from every value.
type Sampled interface {
	Source
	// Sampled reports whether the types come from a sample (false once the whole data typed them).
	Sampled() bool
	// TypeAll types the source from every value, as opening it with TypeEveryValue would have: its schema,
	// its row count and the nested paths typed so far. Scans made before keep the types they were made with.
	TypeAll(ctx context.Context) error
}

// RetypeError is a scan's report that the data holds what its sampled types do not: a value its column's type
// cannot hold, or a key the sample never showed while the scan reads every column. Its text names the line;
// the scan wraps it with the source and the file.
type RetypeError struct {
	Source string
	Line   int
	Column string
	// NewKey is set for a key the sample never showed; else Type is the column's type from the sample and
	// Value describes what line Line holds instead.
	NewKey bool
	Type   column.Type
	Value  string
	col    int // the column's number in a CSV record
}

func (e *RetypeError) Error() string {
	if e.NewKey {
		return fmt.Sprintf("line %d has a key %s that the sample typing the file did not show", e.Line, e.Column)
	}
	return fmt.Sprintf("line %d: column %s holds %s, which its type from the sample (%v) does not hold", e.Line, e.Column, e.Value, e.Type)
}

// kindName describes a kind of value for a RetypeError.
func kindName(k kinds) string {
	switch {
	case k&sawNested != 0:
		return "an object or array"
	case k&sawString != 0:
		return "a string"
	case k&sawDateTime != 0:
		return "a datetime"
	case k&sawReal != 0:
		return "a real"
	case k&sawLong != 0:
		return "a long"
	case k&sawBool != 0:
		return "a bool"
	}
	return "a value"
}
