package source

import (
	"errors"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/memory"
)

// endlessLines is a stream of whole JSON lines that never ends, as `yes '{"a":1}'` would pipe in.
type endlessLines struct{ line string }

func (e endlessLines) Read(p []byte) (int, error) {
	n := 0
	for n+len(e.line) <= len(p) {
		n += copy(p[n:], e.line)
	}
	if n == 0 {
		n = copy(p, e.line[:len(p)])
	}
	return n, nil
}

// TestEndlessStreamStopsAtItsLimit copies a stream of records with no end: the copy must stop with an error
// that names the line and byte it reached and the limit, hold no more than the limit on disk, and give the
// budget back.
func TestEndlessStreamStopsAtItsLimit(t *testing.T) {
	const limit = 1 << 20
	budget := memory.NewBudget(64 << 10)
	_, err := spool(endlessLines{`{"a":1}` + "\n"}, lineEnd{}, Options{Budget: budget, ChunkBytes: 5000, MaxStreamBytes: limit, SpoolDir: t.TempDir()})
	if err == nil {
		t.Fatal("an endlessLines stream was copied whole")
	}
	var long *StreamTooLongError
	if !errors.As(err, &long) || long.Line != 131073 || long.Offset != 1<<20 || long.Limit != limit ||
		!strings.HasPrefix(err.Error(), "line 131073 (byte 1048576): the stream goes on past 1.0 MiB") {
		t.Errorf("error %v: want a StreamTooLongError at line 131073, byte 1048576", err)
	}
	if budget.Available() != budget.Limit() {
		t.Errorf("%d bytes of the budget still held", budget.Limit()-budget.Available())
	}
}
