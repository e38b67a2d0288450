//go:build !js

package linkstore

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestBoltSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "links.db")
	b, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, "link:a", []byte(`{"seed":1}`), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, "link:missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing key = %v, want ErrNotFound", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b, err = OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := b.Get(ctx, "link:a")
	if err != nil || string(got) != `{"seed":1}` {
		t.Fatalf("after reopening, Get = %q, %v", got, err)
	}
}

func TestBoltExpiry(t *testing.T) {
	ctx := context.Background()
	b, err := OpenBolt(filepath.Join(t.TempDir(), "links.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	now := time.Unix(1_000_000, 0)
	b.now = func() time.Time { return now }
	// A 1 s ttl is rounded up to MinTTL, as Workers KV does.
	if err := b.Put(ctx, "rate:x", []byte("3"), time.Second); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		after time.Duration
		want  error
	}{{0, nil}, {MinTTL - time.Nanosecond, nil}, {MinTTL, ErrNotFound}} {
		now = time.Unix(1_000_000, 0).Add(tc.after)
		if _, err := b.Get(ctx, "rate:x"); !errors.Is(err, tc.want) {
			t.Errorf("Get %v after Put = %v, want %v", tc.after, err, tc.want)
		}
	}
}

func TestBoltSecondOpenFailsFast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "links.db")
	b, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b2, err := OpenBolt(path); err == nil {
		b2.Close()
		t.Fatal("a second OpenBolt of a locked file succeeded")
	}
}

// TestBoltTakeIsAtomic: of many concurrent Takes of one counter, exactly limit succeed, and the counter then
// refuses until its ttl has passed. A Get-then-Put count lets every concurrent caller through.
func TestBoltTakeIsAtomic(t *testing.T) {
	ctx := context.Background()
	b, err := OpenBolt(filepath.Join(t.TempDir(), "links.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	now := time.Unix(1_000_000, 0)
	b.now = func() time.Time { return now }
	const limit, callers, perCaller = 7, 20, 5
	var taken atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for range callers {
		wg.Go(func() {
			for range perCaller {
				ok, err := b.Take(ctx, "rate:c:0", limit, time.Minute)
				if err != nil {
					errs <- err
					return
				}
				if ok {
					taken.Add(1)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := taken.Load(); got != limit {
		t.Fatalf("%d of %d concurrent Takes succeeded, want exactly the limit %d", got, callers*perCaller, limit)
	}
	if ok, err := b.Take(ctx, "rate:c:0", limit, time.Minute); ok || err != nil {
		t.Fatalf("Take past the limit = %v, %v", ok, err)
	}
	if ok, err := b.Take(ctx, "rate:other", limit, time.Minute); !ok || err != nil {
		t.Fatalf("Take of another counter = %v, %v", ok, err)
	}
	// A counter ends MinTTL after the Take that created it; later Takes do not extend it.
	start := now
	now = start.Add(MinTTL / 2)
	if ok, err := b.Take(ctx, "rate:other", limit, time.Minute); !ok || err != nil {
		t.Fatalf("second Take of another counter = %v, %v", ok, err)
	}
	now = start.Add(MinTTL)
	for _, key := range []string{"rate:c:0", "rate:other"} {
		if ok, err := b.Take(ctx, key, limit, time.Minute); !ok || err != nil {
			t.Fatalf("Take of %s after its ttl = %v, %v; want a fresh counter", key, ok, err)
		}
		if v, err := b.Get(ctx, key); err != nil || string(v) != "1" {
			t.Fatalf("%s after its ttl = %q, %v; want 1", key, v, err)
		}
	}
}
