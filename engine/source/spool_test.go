package source

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/joinlab/joinlab/engine/memory"
)

// TestStreamIsReadAsAFile opens a FIFO as a source, JSON lines and CSV: it is copied to a temporary file and
// read as one, so its table is the regular file's, its types widen past a small sample as a file's do, the
// budget holds no more than it allows while the stream is copied, and nothing of it stays counted.
func TestStreamIsReadAsAFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ ext, data string }{
		{"jsonl", genJSONL(rng, 3000)},
		{"csv", genCSV(rng, 3000, true)},
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, "T."+c.ext)
		if err := os.WriteFile(file, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := OpenWith("T", file, Options{SampleBytes: TypeEveryValue})
		if err != nil {
			t.Fatal(err)
		}
		fifo := filepath.Join(dir, "S."+c.ext)
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("no FIFO here: %v", err)
		}
		go func() {
			// Opening a FIFO for writing waits for its reader, which OpenWith below is.
			os.WriteFile(fifo, []byte(c.data), 0o600)
		}()
		const limit = 256 << 10
		budget := memory.NewBudget(limit)
		got, err := OpenWith("T", fifo, Options{Budget: budget, ChunkBytes: 4 << 10, SampleBytes: 512, SpoolDir: dir})
		if err != nil {
			t.Fatalf("%s: %v", c.ext, err)
		}
		if _, ok := got.(Sampled); !ok {
			t.Errorf("%s: the stream is a %T, not read as a file", c.ext, got)
		}
		if budget.Peak() > limit || budget.Available() != limit {
			t.Errorf("%s: peak %d of a %d budget, %d still held", c.ext, budget.Peak(), limit, limit-budget.Available())
		}
		if err := got.(Sampled).TypeAll(t.Context()); err != nil {
			t.Fatal(err)
		}
		ws, wv := rowsOf(t, want)
		gs, gv := rowsOf(t, got)
		sameTable(t, c.ext+" stream", ws, wv, gs, gv)
		if left, _ := filepath.Glob(filepath.Join(dir, "joinlab-stream-*")); len(left) > 0 {
			t.Errorf("%s: the stream's copy is left in its folder: %v", c.ext, left)
		}
	}
}
