package source

import (
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
	for _, want := range []string{"line 131073 (byte 1048576)", "past 1.0 MiB", "--max-stream"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if budget.Available() != budget.Limit() {
		t.Errorf("%d bytes of the budget still held", budget.Limit()-budget.Available())
	}
}
