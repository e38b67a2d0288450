package query_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/join/joinevent"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/source"
	"github.com/joinlab/joinlab/engine/trace"
)

// TestRunRemovesSpill checks that whatever a run spilled is gone when Run returns, however the run ends: at
// its end, at a take that stops it early, at an error of the consumer, and at a cancel. In each case the Grace
// join has spilled; only at the end has it seen its own end.
func TestRunRemovesSpill(t *testing.T) {
	var l, r strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&l, "{\"k\":%d,\"v\":\"left %d\"}\n", i%1000, i)
		fmt.Fprintf(&r, "{\"k\":%d,\"w\":\"right %d\"}\n", i%1000, i)
	}
	srcs := map[string]source.Source{}
	for name, data := range map[string]string{"l": l.String(), "r": r.String()} {
		s, err := source.FromJSONL(name, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		srcs[name] = s
	}
	const grace = "@l | join kind=inner hint.strategy=grace (@r) on k"
	stop := errors.New("consumer stops")
	for _, tc := range []struct {
		name, query string
		emit        func(cancel func()) error // called for every batch
		wantErr     error
	}{
		{"end", grace, func(func()) error { return nil }, nil},
		{"take", grace + " | take 3", func(func()) error { return nil }, nil},
		{"consumer error", grace, func(func()) error { return stop }, stop},
		{"cancel", grace, func(cancel func()) error { cancel(); return nil }, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rec := &trace.Recorder{}
			p, err := query.Prepare(context.Background(), tc.query, srcs, query.Options{MemoryBudget: 256 << 10, SpillDir: dir, Trace: rec})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err = p.Run(ctx, func(*column.Batch) error { return tc.emit(cancel) })
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Run: %v, want %v", err, tc.wantErr)
			}
			if !slices.ContainsFunc(rec.Events(), func(e trace.Event) bool { return e.Kind() == joinevent.KindSpill }) {
				t.Fatal("nothing spilled: the test would not show the clean-up")
			}
			if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
				t.Fatalf("left under the spill directory when Run returned: %d entries (%v)", len(ents), err)
			}
		})
	}
}
